#include "exchange/memory_kind.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <deque>
#include <vector>

namespace dm::exchange {
namespace {

// Per kind id: its kernels (null: core has the kind but nobody gave it kernels).
std::vector<const Kernels *> &kernel_table() {
    static const Kernels host{pack, unpack, copy};
    static std::vector<const Kernels *> tables{&host};
    return tables;
}

}  // namespace

MemoryKind register_memory_kind(const MemoryKindRegistration &r) {
    const Kernels &k = r.kernels;
    if (!k.pack || !k.unpack || !k.copy)
        fail(DM_ERR_ARG, "exchange: memory kind '", r.name ? r.name : "", "' needs pack, unpack and copy kernels");
    const MemoryKind kind = memory::register_kind({r.name, r.allocate, r.release});
    std::vector<const Kernels *> &tables = kernel_table();
    tables.resize(static_cast<std::size_t>(memory::count()), nullptr);
    static std::deque<Kernels> registered;  // stable addresses, for as long as the process
    registered.push_back(k);
    tables[static_cast<std::size_t>(kind)] = &registered.back();
    return kind;
}

const Kernels &kernels_of(MemoryKind kind) {
    const std::vector<const Kernels *> &tables = kernel_table();
    const auto id = static_cast<std::size_t>(kind);
    if (id >= tables.size() || !tables[id])
        fail(DM_ERR_ARG, "exchange: memory kind '", memory::info(kind).name,
             "' has no kernels (register it with exchange::register_memory_kind)");
    return *tables[id];
}

SlotKinds::SlotKinds(const std::vector<MemoryKind> &kinds, int slots, const char *what) {
    if (kinds.empty()) return;
    if (kinds.size() != static_cast<std::size_t>(slots))
        fail(DM_ERR_ARG, what, ": ", kinds.size(), " memory kinds given for ", slots, " slots");
    host_only_ = std::all_of(kinds.begin(), kinds.end(), [](MemoryKind k) { return k == MemoryKind::Host; });
    if (host_only_) return;
    kinds_ = kinds;
    for (MemoryKind k : kinds) tables_.push_back(k == MemoryKind::Host ? nullptr : &kernels_of(k));
}

const SlotKinds &SlotKinds::all_host() {
    static const SlotKinds host;
    return host;
}

std::int64_t SlotKinds::bounce_bytes(const std::vector<Copy> &copies) const {
    std::int64_t most = 0;
    for (const Copy &c : copies)
        if (kind(c.from.slot) != kind(c.to.slot)) most = std::max(most, c.to.bytes());
    return most;
}

void SlotKinds::copy_between(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from,
                             std::byte *bounce) const {
    const Kernels *t = table(to.slot), *f = table(from.slot);
    if (t == f) {  // one kind
        if (t) t->copy(to_base, to, from_base, from);
        else exchange::copy(to_base, to, from_base, from);
        return;
    }
    pack(bounce, from_base, from);
    unpack(to_base, to, bounce);
}

}  // namespace dm::exchange
