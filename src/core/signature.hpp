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
#include <initializer_list>

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
    const char *call() const { return call_; }

    void write(std::int64_t *out) const;  // kWords words
    std::int64_t hash() const;            // one word, for messages with room for one

    // Collective on comm: throws AgreedError(DM_ERR_MISMATCH) on every rank naming the
    // first word that differs across ranks. One MPI_Allreduce.
    void require_same(MPI_Comm comm);
    // The same from every rank's words already gathered (row r at rows + r * stride).
    void require_same_rows(const std::int64_t *rows, std::size_t stride, int nranks);

private:
    // lo/hi: every word's minimum and maximum over the ranks.
    void raise_if_different(const std::int64_t *lo, const std::int64_t *hi);

    const char *call_ = "";
    NamedValue args_[kMaxArgs] = {};
    int nargs_ = 0;
    std::int64_t calls_ = 0;
    std::int64_t deferred_ = 0;
};

}  // namespace dm
