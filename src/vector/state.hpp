// The library's state between CVL_init and CVL_quit: communicator, vector memory,
// reusable buffers, MPI reduction operators, error state; and the entry wrapper every
// extern "C" function runs its body through.
//
// Error discipline. Every dm::Error thrown inside the vector layer must be thrown on
// every rank of the call, with the same message: checks that depend only on the
// arguments and on the (replicated) allocator state are rank-consistent by
// construction; checks on distributed data record a LocalFault that a collective then
// agrees on (agree() or the count exchange of a permutation). Anything else that
// escapes (out of memory inside a collective, an internal error) aborts the program
// with MPI_Abort rather than leaving ranks waiting.
#pragma once

#include "core/error.hpp"
#include "vector/dist.hpp"

#include <mpi.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dm::vector {

using Handle = int;  // vec_p
using std::int64_t;

// Bytes per unit of vector memory.
constexpr int64_t kUnit = 8;

// Per-rank vector memory: an arena of 8-byte units addressed by offsets. The block
// bookkeeping is identical on every rank (every rank makes the same calls), so
// validity checks on handles give the same answer everywhere without communication.
class Arena {
public:
    Arena() = default;
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;
    ~Arena();

    // Collective when the arena must grow (the growth agrees on success); local otherwise.
    Handle allocate(int64_t units, MPI_Comm comm);
    void release(Handle h);
    // Throws DM_ERR_ARG unless units [h, h + units) lie inside one allocated block.
    // `what` names the argument. units == 0 needs no memory and always passes.
    void require(Handle h, int64_t units, const char *what) const;
    void clear();

    template <class T>
    T *at(Handle h) const {
        return reinterpret_cast<T *>(base_ + h);
    }

private:
    std::uint64_t *base_ = nullptr;
    int64_t capacity_ = 0;  // units every rank has allocated from the system (base_ may hold more)
    int64_t top_ = 1;       // units below top_ have been handed out; unit 0 never is
    std::map<int64_t, int64_t> used_;  // offset -> units
    std::map<int64_t, int64_t> free_;  // offset -> units, coalesced, all below top_
};

// Reusable uninitialised buffers, one per slot; they only grow. Each algorithm
// documents the slots it uses so that nested helpers never share one.
enum Slot : int {
    kRecords,   // segment records of a descriptor (segdes.cpp)
    kPayload,   // per-record payload from seg_to_elem
    kPartial,   // per-record partial values (reductions)
    kTarget,    // global target index per local element (permutations)
    kOwner,     // owner rank per local element (permutation engines)
    kSend,      // outgoing records
    kRecv,      // incoming records
    kReply,     // replies of a gather
    kOrder,     // request order of a gather
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
    }

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

enum class ErrorMode { print, quiet, abort };

enum class OpKind : int { add, mul, min, max, and_, ior, xor_, count };
enum class ElemKind : int { int_, dbl, bool_, count };

class Context {
public:
    Context() {
        for (auto &row : pair_ops_)
            for (auto &op : row) op = MPI_OP_NULL;
    }
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int nranks = 1;
    bool owns_mpi = false;  // CVL_init initialised MPI
    Arena arena;
    Workspace ws;
    // Per-peer count and displacement arrays (nranks entries each), reused.
    std::vector<int> scount, sdispl, rcount, rdispl;
    std::vector<int64_t> hdr_send, hdr_recv;
    // rnd_foz / rnd_wuz
    std::uint64_t rnd_seed = 0, rnd_calls = 0;

    Block block(int64_t n) const { return Block(n, nranks); }
    // Units per rank for n elements of T.
    template <class T>
    int64_t units(int64_t n) const {
        return (block(n).max_count() * static_cast<int64_t>(sizeof(T)) + kUnit - 1) / kUnit;
    }
    // Throws DM_ERR_ARG unless `h` holds a vector of n elements of T.
    template <class T>
    void require_vector(Handle h, int64_t n, const char *what) const {
        arena.require(h, units<T>(n), what);
    }
    template <class T>
    T *local(Handle h) const {
        return arena.at<T>(h);
    }

    // MPI datatype of `bytes` contiguous bytes (cached).
    MPI_Datatype bytes_type(std::size_t bytes);
    // Pair (value, segment flag) datatype and operator for scans and reductions.
    MPI_Datatype pair_type(ElemKind e) const { return pair_types_[static_cast<int>(e)]; }
    MPI_Op pair_op(OpKind o, ElemKind e) const { return pair_ops_[static_cast<int>(o)][static_cast<int>(e)]; }

    void setup_mpi_objects();  // called by CVL_init
    void free_mpi_objects();   // called by CVL_quit

private:
    std::map<std::size_t, MPI_Datatype> bytes_types_;
    MPI_Datatype pair_types_[static_cast<int>(ElemKind::count)] = {};
    MPI_Op pair_ops_[static_cast<int>(OpKind::count)][static_cast<int>(ElemKind::count)];
};

// The initialised context; throws DM_ERR_STATE before CVL_init or after CVL_quit.
Context &context();

// Aborts (fatal) naming the call when rc is not MPI_SUCCESS: an MPI failure need not
// be shared by the other ranks (MPI's default error handler normally aborts first).
void check_mpi(int rc, const char *call);

// Throws DM_ERR_ARG unless 0 <= len; `what` names the argument.
void require_length(int64_t len, const char *what);

// Collective. If any rank has a fault, every rank throws DM_ERR_ARG with the message of
// the lowest such rank. One MPI_Allreduce.
void agree(Context &c, const LocalFault &fault);
// Collective. Every rank knows that `failing_rank` (the lowest) has a fault: broadcast
// its message and throw it everywhere.
[[noreturn]] void raise_fault(Context &c, int failing_rank, const LocalFault &fault);

// Records an error for CVL_error(), prints it on rank 0 (per CVL_ERRORS) and aborts in
// "abort" mode.
void report(const char *name, int code, const char *message) noexcept;
// Prints and calls MPI_Abort: for failures that ranks may not share.
[[noreturn]] void fatal(const char *name, const char *message) noexcept;

// Runs the body of extern "C" function `name`: `body(Context&)` returns the result;
// errors are reported and the fallback returned.
template <class R, class F>
R entry(const char *name, R fallback, F &&body) noexcept {
    try {
        return body(context());
    } catch (const dm::Error &e) {
        report(name, e.code(), e.what());
    } catch (const std::bad_alloc &) {
        fatal(name, "out of memory");
    } catch (const std::exception &e) {
        fatal(name, e.what());
    } catch (...) {
        fatal(name, "unknown exception");
    }
    return fallback;
}

template <class F>
void entry(const char *name, F &&body) noexcept {
    entry(name, 0, [&](Context &c) {
        body(c);
        return 0;
    });
}

}  // namespace dm::vector
