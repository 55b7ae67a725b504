// The vector layer's state: a Context per communicator (vector memory, reusable
// buffers, MPI reduction operators, the signature of the call being run) and the entry
// wrapper every operation runs its body through.
//
// A Context is either CVL's (made by CVL_init on MPI_COMM_WORLD: vector memory is an
// arena of 8-byte units, handles are offsets, errors are recorded for CVL_error and
// printed per CVL_ERRORS) or a vector space on any communicator (datamotion's C API
// and Python: each vector's local block is its own allocation or borrowed memory, found
// by handle; errors are thrown to the caller as dm::Error).
//
// Error discipline. Every dm::Error thrown inside the vector layer must be thrown on
// every rank of the call, with the same message: checks that depend only on the
// arguments and on the (replicated) handle bookkeeping are rank-consistent by
// construction; checks on distributed data record a LocalFault that a collective then
// agrees on (dm::agree, dm::raise_agreed, or the count exchange of a permutation, which
// carries faults and the call's dm::CallSignature). Anything else that escapes (out of
// memory inside a collective, an internal error) ends the job (dm::abort_job) rather
// than leaving ranks waiting.
#pragma once

#include "core/error.hpp"
#include "core/node_memory.hpp"
#include "core/signature.hpp"
#include "layout/block_rule.hpp"

#include <mpi.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace dm::vector {

using Handle = int;  // vec_p
using std::int64_t;
using dm::layout::BlockRule;

// Bytes per unit of vector memory.
constexpr int64_t kUnit = 8;

// Where the local elements of a handle live.
class Memory {
public:
    virtual ~Memory() = default;
    virtual std::byte *at(Handle h) const = 0;
    // Throws DM_ERR_ARG unless `h` holds a vector reserving `reserved` bytes on every
    // rank, `local` of which hold this rank's elements. `what` names the argument.
    virtual void require(Handle h, int64_t reserved, int64_t local, const char *what) const = 0;
    // Collective on comm (the context's): from now on vectors are allocated in node
    // memory (src/core/node_memory.hpp) where this rank has room in comm's pool, so
    // that ranks of one node may read them in place; privately otherwise.
    void place_on_node(MPI_Comm comm);

protected:
    // Local: `bytes` of node memory, or nullptr (none left, or not placed on a node).
    std::byte *node_bytes(int64_t bytes) const;

private:
    MPI_Comm node_comm_ = MPI_COMM_NULL;
};

// CVL's vector memory: an arena of 8-byte units addressed by offsets. The block
// bookkeeping is identical on every rank (every rank makes the same calls), so
// validity checks on handles give the same answer everywhere without communication.
class Arena final : public Memory {
public:
    Arena() = default;
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;
    ~Arena() override;

    std::byte *at(Handle h) const override { return reinterpret_cast<std::byte *>(base_ + h); }
    void require(Handle h, int64_t reserved, int64_t, const char *what) const override {
        require(h, (reserved + kUnit - 1) / kUnit, what);
    }

    // Local. Throws std::bad_alloc when growth fails and there is more than one rank.
    Handle allocate(int64_t units, int nranks);
    void release(Handle h);
    // Throws DM_ERR_ARG unless units [h, h + units) lie inside one allocated block.
    // `what` names the argument. units == 0 needs no memory and always passes.
    void require(Handle h, int64_t units, const char *what) const;
    void clear();

private:
    std::uint64_t *base_ = nullptr;
    bool base_on_node_ = false;
    int64_t capacity_ = 0;  // units allocated from the system
    int64_t top_ = 1;       // units below top_ have been handed out; unit 0 never is
    std::map<int64_t, int64_t> used_;  // offset -> units
    std::map<int64_t, int64_t> free_;  // offset -> units, coalesced, all below top_
};

// The vectors of a vector space: each handle names one local block, allocated here or
// borrowed from the caller. Handles count up and are never reused, so ranks that create
// vectors in the same order hand out the same handles, whenever each rank frees them.
class Table final : public Memory {
public:
    Table() = default;
    Table(const Table &) = delete;
    Table &operator=(const Table &) = delete;
    ~Table() override;
    std::byte *at(Handle h) const override { return find(h).data; }
    void require(Handle h, int64_t reserved, int64_t local, const char *what) const override;

    // Local. A new block of `bytes` bytes, zero-filled unless `zero` is false (for a
    // result every element of which the next call writes: one pass over memory less).
    Handle allocate(int64_t bytes, bool zero = true);
    // Local. A handle for `bytes` bytes at `data`, which the caller keeps alive.
    Handle borrow(void *data, int64_t bytes);
    // Local; freeing 0 is a no-op.
    void release(Handle h);

private:
    // Who gives a block's memory back: its caller (borrowed), the node pool, or the
    // host allocator (dm::host: large blocks are kept for the next result).
    enum class Owner { Caller, Node, Host };
    struct Allocation {
        std::byte *data = nullptr;
        int64_t bytes = 0;
        std::size_t allocated = 0;  // bytes asked of the host allocator
        Owner owner = Owner::Caller;
    };
    static void give_back(const Allocation &block) noexcept;
    const Allocation &find(Handle h) const;
    Handle add(Allocation allocation);

    std::unordered_map<Handle, Allocation> allocations_;
    Handle next_ = 1;
};

// Reusable uninitialised buffers, one per slot; they only grow. Each algorithm
// documents the slots it uses so that nested helpers never share one.
enum Slot : int {
    kRecords,   // segment records of a descriptor (segdes.cpp)
    kPayload,   // per-record payload from seg_to_elem
    kPartial,   // per-record partial values (reductions)
    kTarget,    // global target index per local element (permutations)
    kOwner,     // per-rank cursors of the permutation engines
    kSend,      // outgoing records
    kRecv,      // incoming records
    kReply,     // replies a gather sends
    kAnswer,    // replies a gather receives
    kSortA,     // sort records
    kSortB,     // sort records (second buffer)
    kMisc,      // small per-call arrays
    kSlotCount
};

class Workspace {
public:
    template <class T>
    T *get(Slot slot, std::size_t count) {
        static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= alignof(std::uint64_t));
        const std::size_t words = std::max<std::size_t>(1, (count * sizeof(T) + 7) / 8);
        auto &buf = bufs_[slot];
        if (words > buf.words) {
            std::size_t grown = std::max(words, buf.words + buf.words / 2);
            buf.data.reset(new std::uint64_t[grown]);
            buf.words = grown;
        }
        return reinterpret_cast<T *>(buf.data.get());
    }
    void clear() {
        for (auto &b : bufs_) {
            b.data.reset();
            b.words = 0;
        }
        node.clear();
    }
    // Records that the other ranks of the node read in place (permutations).
    dm::node::Scratch node;

private:
    struct Buffer {
        std::unique_ptr<std::uint64_t[]> data;
        std::size_t words = 0;
    };
    Buffer bufs_[kSlotCount];
};

// A fault found in distributed data on this rank (an index out of range, ...): the
// first one is kept until a collective agrees on it.
struct LocalFault {
    bool bad = false;
    std::string message;
    template <class... Parts>
    void set(const Parts &...parts) {
        if (bad) return;
        bad = true;
        (dm::detail::append(message, parts), ...);
    }
};

enum class OpKind : int { add, mul, min, max, and_, ior, xor_, count };
enum class ElemKind : int { int_, dbl, bool_, count };

using Args = NamedValues;

// The element sides of segment descriptors (segdes.hpp), kept by the library outside
// vector memory so that a descriptor there takes per rank no more than its share of the
// serial CVL's (the m lengths). The most recently used ones are kept, at most kMaxEntries
// of at most kMaxWords words in all, counted by a bound that is the same on every rank:
// every rank makes the same calls, so every rank keeps and drops the same ones, and a
// side that must be rebuilt (one exchange) is rebuilt everywhere at once.
class ElementSides {
public:
    static constexpr int64_t kMaxEntries = 64;
    static constexpr int64_t kMaxWords = int64_t(1) << 22;  // 16 MiB per rank

    // The identity of the next descriptor made (mke_fov; the same on every rank).
    uint32_t next_id() { return ++last_id_; }
    // The side kept for descriptor `id` of (n, m), or nullptr; it becomes the most
    // recently used.
    const std::vector<int32_t> *find(uint32_t id, int64_t n, int64_t m);
    // Keeps `words` as the side of `id` (`bound` words at most on any rank), dropping the
    // least recently used others but never the most recently used one (a call's other
    // descriptor). Returns the kept words, or nullptr (and leaves `words`) where they do
    // not fit.
    const std::vector<int32_t> *keep(uint32_t id, int64_t n, int64_t m, int64_t bound, std::vector<int32_t> &words);

private:
    struct Entry {
        int64_t n, m, bound;
        std::vector<int32_t> words;
        std::list<uint32_t>::iterator used;  // its place in recent_
    };
    std::unordered_map<uint32_t, Entry> entries_;
    std::list<uint32_t> recent_;  // most recently used first
    int64_t words_ = 0;           // sum of the entries' bounds
    uint32_t last_id_ = 0;
};

class Context {
public:
    // Collective on comm: duplicates it and creates the reduction operators. `memory`
    // is the context's vector memory (an Arena for CVL, a Table for a vector space).
    Context(MPI_Comm comm, std::unique_ptr<Memory> memory);
    // Frees the duplicate and the operators (MPI must still be running).
    ~Context();
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int nranks = 1;
    std::unique_ptr<Memory> memory;
    Workspace ws;
    // Per-peer counts and displacements (nranks entries each), reused.
    std::vector<int64_t> scount, sdispl, rcount, rdispl;
    // Per-peer headers of a count exchange: the count, then the call's signature.
    std::vector<int64_t> hdr_send, hdr_recv;
    // The call being run and its must-agree arguments (compared in checked mode, and
    // carried by the count exchanges and gathers of every call).
    CallSignature sig;
    const char *call() const { return sig.call(); }
    // Starts call `name`: records its arguments and, in checked mode, verifies that
    // they agree across ranks (one MPI_Allreduce; DM_ERR_MISMATCH on every rank).
    void begin_call(const char *name, Args arguments);
    // rnd_foz / rnd_wuz
    std::uint64_t rnd_seed = 0, rnd_calls = 0;
    ElementSides element_sides;

    BlockRule block(int64_t n) const { return BlockRule(n, nranks); }
    // Units per rank for n elements of T.
    template <class T>
    int64_t units(int64_t n) const {
        return (block(n).max_count() * static_cast<int64_t>(sizeof(T)) + kUnit - 1) / kUnit;
    }
    // Throws DM_ERR_ARG unless `h` holds a vector of n elements of T.
    template <class T>
    void require_vector(Handle h, int64_t n, const char *what) const {
        const int64_t size = static_cast<int64_t>(sizeof(T));
        memory->require(h, block(n).max_count() * size, block(n).count(rank) * size, what);
    }
    template <class T>
    T *local(Handle h) const {
        return reinterpret_cast<T *>(memory->at(h));
    }
    // CVL's vector memory (DM_ERR_STATE in a vector space, which has none).
    Arena &arena() const;

    // Pair (value, segment flag) datatype and operator for scans and reductions.
    MPI_Datatype pair_type(ElemKind e) const { return pair_types_[static_cast<int>(e)]; }
    MPI_Op pair_op(OpKind o, ElemKind e) const { return pair_ops_[static_cast<int>(o)][static_cast<int>(e)]; }

private:
    MPI_Datatype pair_types_[static_cast<int>(ElemKind::count)] = {};
    MPI_Op pair_ops_[static_cast<int>(OpKind::count)][static_cast<int>(ElemKind::count)];
};

// The context the calls of this thread run on: the innermost SpaceScope's, else CVL's.
// Throws DM_ERR_STATE when there is none (CVL not started).
Context &context();

// Runs the calls made during its lifetime on `space`, with errors thrown to the caller.
class SpaceScope {
public:
    explicit SpaceScope(Context &space);
    ~SpaceScope();
    SpaceScope(const SpaceScope &) = delete;
    SpaceScope &operator=(const SpaceScope &) = delete;

private:
    Context *outer_;
};
// Whether this thread's calls run in a SpaceScope (errors are thrown, not recorded).
bool in_space();

// Collective on comm (at its first use there): the vector space of `comm`, created
// once and kept as an attribute of comm until comm is freed.
Context &space_of(MPI_Comm comm);

// Throws DM_ERR_ARG unless 0 <= len; `what` names the argument.
void require_length(int64_t len, const char *what);

// Collective. Every rank knows that `failing_rank` (the lowest) has a fault: its message
// is broadcast and thrown everywhere as a dm::AgreedError (DM_ERR_ARG).
[[noreturn]] inline void raise_fault(Context &c, int failing_rank, const LocalFault &fault) {
    if (c.nranks == 1) throw dm::AgreedError(DM_ERR_ARG, fault.message);
    dm::raise_agreed(c.comm, failing_rank, DM_ERR_ARG, fault.message);
}

// Throws dm::AgreedError(code, ...) built from message parts, like dm::fail, for a
// check every rank has made on the same (agreed) data.
template <class... Parts>
[[noreturn]] void fail_everywhere(int code, const Parts &...parts) {
    std::string message;
    (dm::detail::append(message, parts), ...);
    throw dm::AgreedError(code, message);
}

// Ends the job naming the call: for failures that ranks may not share (dm::abort_job).
[[noreturn]] void fatal(const char *name, const char *message) noexcept;

// Checks of a call's arguments whose outcome may differ by rank only when the ranks
// passed different arguments. Returns true if they passed; otherwise records the
// failure in `fault`, which the call's first communication then agrees on (after
// the signature comparison that names the differing argument). With one rank it throws.
template <class F>
bool local_checks(Context &c, LocalFault &fault, F &&checks) {
    try {
        checks();
        return true;
    } catch (const dm::Error &e) {
        if (c.nranks == 1) throw;
        fault.set(e.what());
        return false;
    }
}

// How a call's error leaves the layer: thrown on in a vector space; for CVL, recorded
// for CVL_error(), printed on rank 0 (per CVL_ERRORS) and, in CVL's "abort" mode, the
// end of the job. Out of memory and internal errors end the job either way.
void report(const char *name, int code, const char *message);
void report_current_exception(const char *name);

// A query with no effect on the library's state (siz_fo?) or a local release
// (fre_fov, run by garbage collectors whose timing may differ by rank): nothing
// must agree, nothing is verified or counted. `body(Context&)` returns the result;
// errors are reported (see report) and the fallback returned.
template <class R, class F>
R local_entry(const char *name, R fallback, F &&body) {
    try {
        return body(context());
    } catch (...) {
        report_current_exception(name);
    }
    return fallback;
}

// Runs the body of operation `name` like local_entry. `args` are the arguments that
// must agree across ranks: verified in checked mode, and carried by the call's first
// exchange where it has one.
template <class R, class F>
R entry(const char *name, R fallback, Args args, F &&body) {
    return local_entry(name, fallback, [&](Context &c) {
        c.begin_call(name, args);
        return body(c);
    });
}

// entry() for a call that is compared with the next one (CallSignature::defer: an
// allocation never waits for other ranks, even in checked mode, so that one made on
// some ranks only is reported, not hung on).
template <class R, class F>
R deferred_entry(const char *name, R fallback, Args args, F &&body) {
    return local_entry(name, fallback, [&](Context &c) {
        c.sig.defer(name, args);
        return body(c);
    });
}

template <class F>
void entry(const char *name, Args args, F &&body) {
    entry(name, 0, args, [&](Context &c) {
        body(c);
        return 0;
    });
}

// entry() for a collective call that checks arguments before its first message and
// whose messages do not carry its signature (scans, segmented calls, ranks, v2c_fu?).
// Without checked mode a rank that finds a mistake cannot tell whether the others
// found it too, and they may already wait in the call's communication: it ends the
// job naming the rank, the call and the mistake (the rule of datamotion's hot paths,
// dm::hot_path). In checked mode the arguments were compared first, so every rank
// fails alike and the error is reported as usual; so is an agreed error.
//
// A Local constructor since the last comparison (a Python Vector, CVL's memory is
// not one: see CallSignature::defer_to_next_collective) makes such a call compare
// the signature first, outside checked mode too: one agreement step, so that a
// length given differently on some ranks fails here instead of moving wrong data.
template <class F>
void collective_entry(const char *name, Args args, F &&body) {
    entry(name, args, [&](Context &c) {
        if (c.nranks > 1 && c.sig.compare_before() && !dm::checked_mode()) c.sig.require_same(c.comm);
        try {
            body(c);
        } catch (const dm::AgreedError &) {
            throw;
        } catch (const dm::Error &e) {
            if (c.nranks == 1 || dm::checked_mode()) throw;
            dm::fail_uncommunicable(name, e.code(), e.what());
        }
    });
}

}  // namespace dm::vector
