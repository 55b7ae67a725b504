// The kernels of memory kinds, and how a plan routes every pack, unpack and copy to
// the kernels of the kind of the slot it touches (core/memory_kind.hpp names the
// kinds). Host memory's kernels are block.hpp's, called directly: a plan whose slots
// are all host memory tests one flag per block, never per run, and runs as before.
//
// A kind is one table of kernels plus, for arrays that allocate it, an allocator,
// added by one call of register_memory_kind (tests/cpp/test_memory_kind.cpp adds
// one so). The contract that lets transports stay kind-blind: pack writes host
// memory and unpack reads it (a pack buffer, node memory, a staged copy), so every
// transport that stages bytes through host memory carries any kind. What hands a
// slot's own memory to another party cannot: MPI datatypes and pointers (point to
// point's direct and datatype ways, pieces sent in place, alltoallw) and a peer
// reading it in place (onnode). So point to point packs every side with a slot of
// another kind, onnode declines a plan with one, and alltoallw refuses it.
#pragma once

#include "core/memory_kind.hpp"
#include "exchange/block.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace dm::exchange {

// The kernels of one kind, with the meaning of block.hpp's pack, unpack and copy:
// `base`, `to_base` and `from_base` are memory of the kind, `out` and `in` host memory.
struct Kernels {
    std::byte *(*pack)(std::byte *out, const std::byte *base, const Block &b);
    const std::byte *(*unpack)(std::byte *base, const Block &b, const std::byte *in);
    void (*copy)(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from);
};

struct MemoryKindRegistration {
    const char *name;  // a literal
    Kernels kernels;
    void *(*allocate)(std::size_t bytes) = nullptr;  // as MemoryKindInfo's; nullptr: arrays adopt
    void (*release)(void *p) = nullptr;
};

// Local: the one call that adds a memory kind (core's entry and its kernels). Every
// rank registers the same kinds in the same order before any plan or array uses
// them (ids then agree). DM_ERR_ARG for a name taken or a kernel missing.
MemoryKind register_memory_kind(const MemoryKindRegistration &registration);
// Local. The kernels of `kind` (host: block.hpp's); DM_ERR_ARG where it has none.
const Kernels &kernels_of(MemoryKind kind);

// The memory kind of each slot of a plan, and the kernels every block is moved with.
class SlotKinds {
public:
    SlotKinds() = default;  // every slot host memory
    // Local. `kinds`: one per slot, or empty (every slot host memory). DM_ERR_ARG
    // (prefixed `what`) for another count or a kind without kernels.
    SlotKinds(const std::vector<MemoryKind> &kinds, int slots, const char *what);
    static const SlotKinds &all_host();

    bool host_only() const { return host_only_; }
    bool host(int slot) const { return table(slot) == nullptr; }
    MemoryKind kind(int slot) const { return host_only_ ? MemoryKind::Host : kinds_[static_cast<std::size_t>(slot)]; }

    std::byte *pack(std::byte *out, const std::byte *base, const Block &b) const {
        const Kernels *k = table(b.slot);
        return k ? k->pack(out, base, b) : exchange::pack(out, base, b);
    }
    const std::byte *unpack(std::byte *base, const Block &b, const std::byte *in) const {
        const Kernels *k = table(b.slot);
        return k ? k->unpack(base, b, in) : exchange::unpack(base, b, in);
    }
    // Between two slots of one kind by that kind's copy; between kinds through
    // `bounce` (host memory of at least bounce_bytes()): packed by the source's
    // kind, unpacked by the target's.
    void copy(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from,
              std::byte *bounce) const {
        if (host_only_) return exchange::copy(to_base, to, from_base, from);
        copy_between(to_base, to, from_base, from, bounce);
    }
    // The host memory copy() needs for these copies: the largest between two kinds.
    std::int64_t bounce_bytes(const std::vector<Copy> &copies) const;

private:
    const Kernels *table(int slot) const { return host_only_ ? nullptr : tables_[static_cast<std::size_t>(slot)]; }
    void copy_between(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from,
                      std::byte *bounce) const;

    bool host_only_ = true;
    std::vector<MemoryKind> kinds_;
    std::vector<const Kernels *> tables_;  // per slot; nullptr for host memory
};

}  // namespace dm::exchange
