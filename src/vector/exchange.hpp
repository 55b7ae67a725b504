// One message per peer: every data movement of the vector layer is one MPI_Alltoallv
// of fixed-size records aggregated per destination rank in user-space buffers, preceded
// (when the receivers cannot compute their counts) by one MPI_Alltoall of counts that
// also carries the agreement on faults.
#pragma once

#include "vector/state.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dm::vector {

// Exclusive prefix sums of counts into displs; returns the total.
int64_t prefix_sums(const std::vector<int> &counts, std::vector<int> &displs);

// Collective. Sends c.scount[r] to every rank r (or -1 to all when `fault` is set),
// with the call's signature, and fills c.rcount with what every rank sends here. If
// the signatures differ (ranks passed different arguments), every rank throws
// DM_ERR_MISMATCH naming the argument; else if any rank has a fault, every rank
// throws the agreed error (of the lowest failing rank). One MPI_Alltoall.
void exchange_counts(Context &c, const LocalFault *fault);

// Collective. Sends scount[r] records of `bytes` bytes from `send` (grouped by
// destination rank, in rank order) to every rank r and receives rcount[r] records from
// every rank r into `recv` (in rank order). One MPI_Alltoallv; a copy on one rank.
void exchange(Context &c, const void *send, const std::vector<int> &scount, void *recv,
              const std::vector<int> &rcount, std::size_t bytes);

// Collective. Gathers every rank's `words` payload words with its call signature and
// `fault`: throws DM_ERR_MISMATCH on every rank when the signatures differ (ranks
// passed different arguments), else the agreed fault. Returns the payloads, rank r's
// at r * words (workspace slot kMisc). One MPI_Allgather (none on one rank).
const int64_t *gather_checked(Context &c, const int64_t *payload, int words, const LocalFault &fault);

// Sets every entry of counts to 0.
inline void zero(std::vector<int> &counts) { std::fill(counts.begin(), counts.end(), 0); }

// Collective. For a call whose argument checks failed on this rank (see
// local_checks): takes part in the count exchange, which throws on every rank.
[[noreturn]] inline void fail_in_count_exchange(Context &c, const LocalFault &fault) {
    zero(c.scount);
    exchange_counts(c, &fault);
    fatal(c.call, "internal error: a failed check was not agreed on");
}

// Checks that a per-peer count fits MPI's int counts (it always does for vectors whose
// length is a C int).
inline int to_count(int64_t n) {
    if (n > INT32_MAX) fail(DM_ERR_ARG, "a message of ", n, " records is too large");
    return static_cast<int>(n);
}

}  // namespace dm::vector
