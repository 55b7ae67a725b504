// What a collective call's ranks must agree on, compared across ranks to name what
// differs: the call, how many calls each rank has made (a call made on some ranks only
// shows as a difference in this number), a hash of the calls whose comparison was
// deferred, and the call's named arguments (lengths, handles, scalars, hashes).
//
// A signature is compared either on its own (one MPI_Allreduce, checked mode) or
// carried by the call's first exchange (count exchanges, gathers), so that ranks which
// passed different arguments fail before any data moves, with the same message.
#pragma once

#include "core/error.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <utility>

namespace dm {

// An argument that must be the same on every rank, named for messages.
struct NamedValue {
    const char *name;
    std::int64_t value;
};
using NamedValues = std::initializer_list<NamedValue>;

class CallSignature {
public:
    static constexpr int kMaxArgs = 12;
    // The words ranks compare: the call's name (hashed), the number of calls made, the
    // hash of the deferred calls since the last comparison, then the arguments.
    static constexpr int kWords = 3 + kMaxArgs;

    // Starts call `name` (a string literal or one that outlives the call) with its
    // arguments; counts it.
    void begin(const char *name, NamedValues args);
    // Counts a call whose arguments are compared with the next comparison instead of
    // now (a call that must never wait for other ranks).
    void defer(const char *name, NamedValues args);
    // defer() for a Local constructor whose arguments must agree (a vector's length):
    // the next collective call compares the signature before it moves data, even one
    // whose messages do not carry it (compare_before()).
    void defer_to_next_collective(const char *name, NamedValues args);
    // Whether a comparison is due before the next collective's messages.
    bool compare_before() const { return compare_due_; }
    const char *call() const { return call_; }

    void write(std::int64_t *out) const;  // kWords words
    std::int64_t hash() const;            // one word, for messages with room for one

    // Collective on comm: throws AgreedError(DM_ERR_MISMATCH) on every rank naming the
    // first word that differs across ranks and its value on two ranks. One agreement
    // step (agreement.hpp) when the words agree.
    void require_same(MPI_Comm comm);
    // The same from every rank's words already gathered (row r at rows + r * stride);
    // collective on comm only when they differ.
    void require_same_rows(MPI_Comm comm, const std::int64_t *rows, std::size_t stride, int nranks);

private:
    // lo/hi: every word's minimum and maximum over the ranks; holders(w): the lowest
    // ranks holding word w's minimum and maximum.
    using Holders = std::function<std::pair<int, int>(int)>;
    // The call as messages name it: the outermost CallScope's (a Python method), else call_.
    const char *name() const;
    void raise_if_different(MPI_Comm comm, const std::int64_t *lo, const std::int64_t *hi, const Holders &holders);

    const char *call_ = "";
    NamedValue args_[kMaxArgs] = {};
    int nargs_ = 0;
    std::int64_t calls_ = 0;
    std::int64_t deferred_ = 0;
    bool compare_due_ = false;
};

}  // namespace dm
