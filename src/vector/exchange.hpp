// One message per peer: every data movement of the vector layer is a variable
// exchange of the engine (src/exchange/variable.hpp): fixed-size records aggregated
// per destination rank, one Isend/Irecv per peer with a nonzero count, the part for
// this rank copied without MPI. It is preceded (when the receivers cannot compute
// their counts) by one all-to-all of counts (the engine's RowExchange) that also
// carries the agreement on faults and the call's signature. Gathers of whole vectors
// and of per-rank words are the engine's too (src/exchange/collective.hpp); the layer
// itself calls MPI only for reductions and scans.
#pragma once

#include "exchange/collective.hpp"
#include "exchange/variable.hpp"
#include "vector/state.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dm::vector {

// Exclusive prefix sums of the first n counts into displs; returns the total.
inline int64_t prefix_sums_of(const int64_t *counts, std::vector<int64_t> &displs, std::size_t n) {
    int64_t total = 0;
    for (std::size_t r = 0; r < n; ++r) {
        displs[r] = total;
        total += counts[r];
    }
    return total;
}
inline int64_t prefix_sums(const std::vector<int64_t> &counts, std::vector<int64_t> &displs) {
    return prefix_sums_of(counts.data(), displs, counts.size());
}

// Collective. Sends c.scount[r] to every rank r (or -1 to all when `fault` is set),
// with the call's signature, and fills c.rcount with what every rank sends here. If
// the signatures differ (ranks passed different arguments), every rank throws
// DM_ERR_MISMATCH naming the argument; else if any rank has a fault, every rank
// throws the agreed error (of the lowest failing rank). One row exchange, waited for.
void exchange_counts(Context &c, const LocalFault *fault);

// exchange_counts in two halves, so that local work (sorting records into a send
// buffer) overlaps the collective: start posts it, finish waits and then throws or
// fills c.rcount exactly as exchange_counts. `fault` must not change in between, and
// no data may move before finish returns. With `words` > 0, words more per peer
// travel beside each count: extra[r * words ...] to rank r; finish puts those from
// rank r at received[r * words ...] (the same `words` on every rank).
dm::exchange::RowExchange start_count_exchange(Context &c, const LocalFault *fault, const int64_t *extra = nullptr,
                                               int words = 0);
void finish_count_exchange(Context &c, const LocalFault *fault, dm::exchange::RowExchange &counts,
                           int64_t *received = nullptr, int words = 0);

// Collective. Sends scount[r] records of `bytes` bytes from `send` (grouped by
// destination rank, in rank order) to every rank r and receives rcount[r] records from
// every rank r into `recv` (in rank order). One message per peer with a nonzero count;
// the part to this rank is copied. Uses c.sdispl and c.rdispl, and the engine's
// first lane.
void exchange(Context &c, const void *send, const std::vector<int64_t> &scount, void *recv,
              const std::vector<int64_t> &rcount, std::size_t bytes);

// An MPI failure inside an exchange need not be shared by the other ranks: ends the
// job naming the call (as check_mpi does).
template <class F>
void run_exchange(Context &c, F &&body) {
    try {
        body();
    } catch (const dm::Error &e) {
        fatal(c.call(), e.what());
    }
}

// Collective. Gathers every rank's `words` payload words with its call signature and
// `fault`: throws DM_ERR_MISMATCH on every rank when the signatures differ (ranks
// passed different arguments), else the agreed fault. Returns the payloads, rank r's
// at r * words (workspace slot kMisc). One row gather (none on one rank).
const int64_t *gather_checked(Context &c, const int64_t *payload, int words, const LocalFault &fault);

// Sets every entry of counts to 0.
inline void zero(std::vector<int64_t> &counts) { std::fill(counts.begin(), counts.end(), 0); }

// Collective. For a call whose argument checks failed on this rank (see
// local_checks): takes part in the count exchange, which throws on every rank.
[[noreturn]] inline void fail_in_count_exchange(Context &c, const LocalFault &fault) {
    zero(c.scount);
    exchange_counts(c, &fault);
    fatal(c.call(), "internal error: a failed check was not agreed on");
}

}  // namespace dm::vector
