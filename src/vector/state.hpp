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
#include "layout/block.hpp"

#include <mpi.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dm::vector {

using Handle = int;  // vec_p
using std::int64_t;
using dm::layout::Block;

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

    // Local. Throws std::bad_alloc when growth fails and there is more than one rank.
    Handle allocate(int64_t units, int nranks);
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
    int64_t capacity_ = 0;  // units allocated from the system
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

// An argument of a CVL call that must be the same on every rank (a handle, a length,
// a scalar, an index, a hash of a replicated C array), named for messages.
struct Arg {
    const char *name;
    int64_t value;
};
using Args = std::initializer_list<Arg>;
constexpr int kMaxArgs = 12;
// A call's signature, the words ranks compare: the call's name (hashed), how many
// calls this rank has made, a hash of the deferred calls since the last comparison,
// then the arguments (unused ones 0).
constexpr int kSignatureWords = 3 + kMaxArgs;

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
    // Per-peer counts and displacements (nranks entries each), reused.
    std::vector<int64_t> scount, sdispl, rcount, rdispl;
    // Per-peer headers of a count exchange: the count, then the call's signature.
    std::vector<int64_t> hdr_send, hdr_recv;
    // The call being run, its must-agree arguments, and the calls this rank has made
    // (a call made on some ranks only shows as a difference in this number).
    const char *call = "";
    Arg args[kMaxArgs] = {};
    int nargs = 0;
    int64_t calls = 0;
    int64_t deferred = 0;  // hash of the deferred calls' names and arguments
    // Starts call `name`: records its arguments and, in checked mode, verifies that
    // they agree across ranks (one MPI_Allreduce; DM_ERR_MISMATCH on every rank).
    void begin_call(const char *name, Args arguments);
    // Starts a call whose arguments are compared later, with the next call that
    // compares signatures (alo_foz: an allocation never waits for other ranks, even in
    // checked mode, so that one made on some ranks only is reported, not hung on).
    void defer_call(const char *name, Args arguments);
    // Writes this rank's signature of the current call (kSignatureWords words).
    void signature(int64_t *out) const;
    // A hash of signature(), for messages with room for one word.
    int64_t signature_hash() const;
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

// Checked mode (DATAMOTION_CHECK set to anything but "" or "0"), read once: the rule
// of dm::checked_mode(), restated because libcvl links no compiled part of the core.
bool checked_mode();

// The initialised context; throws DM_ERR_STATE before CVL_init or after CVL_quit.
Context &context();

// Aborts (fatal) naming the call when rc is not MPI_SUCCESS: an MPI failure need not
// be shared by the other ranks (MPI's default error handler normally aborts first).
void check_mpi(int rc, const char *call);

// Throws DM_ERR_ARG unless 0 <= len; `what` names the argument.
void require_length(int64_t len, const char *what);

// An error that every rank of the call raises alike, because the ranks agreed on it by
// communicating (a fault shared by raise_fault, signatures compared by raise_mismatch).
class SharedError : public dm::Error {
public:
    using dm::Error::Error;
};

// Throws SharedError(code, ...) built from message parts, like dm::fail.
template <class... Parts>
[[noreturn]] void fail_everywhere(int code, const Parts &...parts) {
    std::string message;
    (dm::detail::append(message, parts), ...);
    throw SharedError(code, message);
}

// Collective. If any rank has a fault, every rank throws DM_ERR_ARG with the message of
// the lowest such rank. One MPI_Allreduce.
void agree(Context &c, const LocalFault &fault);
// Collective. Every rank knows that `failing_rank` (the lowest) has a fault: broadcast
// its message and throw it everywhere.
[[noreturn]] void raise_fault(Context &c, int failing_rank, const LocalFault &fault);

// Throws DM_ERR_MISMATCH naming the first word of a signature whose minimum `lo` and
// maximum `hi` over the ranks differ; returns if none does.
void raise_mismatch(Context &c, const int64_t *lo, const int64_t *hi);

// Collective in effect: `rows` holds the signatures of every rank (row r at
// rows + r * stride). Unless they are equal, throws DM_ERR_MISMATCH naming the first
// argument that differs; every rank holding the same rows throws the same message.
// A difference in the number of calls is resolved (every rank adopts the largest),
// so that the ranks agree again after the error.
void require_same_signature(Context &c, const int64_t *rows, std::size_t stride);

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

// Records an error for CVL_error(), prints it on rank 0 (per CVL_ERRORS) and aborts in
// "abort" mode.
void report(const char *name, int code, const char *message) noexcept;
// Prints and calls MPI_Abort: for failures that ranks may not share.
[[noreturn]] void fatal(const char *name, const char *message) noexcept;

// A query with no effect on the library's state (siz_fo?) or a local release
// (fre_fov, run by garbage collectors whose timing may differ by rank): nothing
// must agree, nothing is verified or counted. `body(Context&)` returns the result;
// errors are reported and the fallback returned.
template <class R, class F>
R local_entry(const char *name, R fallback, F &&body) noexcept {
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

// Runs the body of extern "C" function `name` like local_entry. `args` are the
// arguments that must agree across ranks: verified in checked mode, and carried by
// the call's first exchange where it has one.
template <class R, class F>
R entry(const char *name, R fallback, Args args, F &&body) noexcept {
    return local_entry(name, fallback, [&](Context &c) {
        c.begin_call(name, args);
        return body(c);
    });
}

// entry() for a call that is compared with the next one (Context::defer_call).
template <class R, class F>
R deferred_entry(const char *name, R fallback, Args args, F &&body) noexcept {
    return local_entry(name, fallback, [&](Context &c) {
        c.defer_call(name, args);
        return body(c);
    });
}

template <class F>
void entry(const char *name, Args args, F &&body) noexcept {
    entry(name, 0, args, [&](Context &c) {
        body(c);
        return 0;
    });
}

// entry() for a collective call that checks arguments before its first message and
// whose messages do not carry its signature (scans, segmented calls, ranks, v2c_fu?).
// Without checked mode a rank that finds a mistake cannot tell whether the others
// found it too, and they may already wait in the call's communication: it ends the
// job naming the rank, the call and the mistake (the rule of datamotion's hot paths).
// In checked mode the arguments were compared first, so every rank fails alike and the
// error is reported as usual; so is an error the ranks agreed on (SharedError).
template <class F>
void collective_entry(const char *name, Args args, F &&body) noexcept {
    entry(name, args, [&](Context &c) {
        try {
            body(c);
        } catch (const SharedError &) {
            throw;
        } catch (const dm::Error &e) {
            if (c.nranks == 1 || checked_mode()) throw;
            fatal(name, e.what());
        }
    });
}

}  // namespace dm::vector
