// The small collective movements a capability needs besides its own exchanges: rows
// of 64-bit words to every rank (counts, fault flags and call signatures, ahead of a
// variable exchange), the same row from every rank, and a gather of every rank's
// records of any length. Capabilities call these instead of MPI (see
// docs/architecture.md: exchange decides how data moves).
#pragma once

#include "exchange/mpi_bytes.hpp"
#include "exchange/tags.hpp"

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>

namespace dm::exchange {

// Collective on comm, in two halves: row r of `send` goes to rank r, row r of `recv`
// comes from rank r (rows of `words` 64-bit words). The constructor starts it
// (MPI_Ialltoall) so that local work overlaps it; wait() completes it. Both buffers
// stay untouched in between. Move-only; a row exchange still pending when destroyed
// (this rank left by an error after starting it) is waited for, since every rank
// started it and MPI may still write into `recv`.
class RowExchange {
public:
    RowExchange() = default;
    RowExchange(MPI_Comm comm, const std::int64_t *send, std::int64_t *recv, int words);
    ~RowExchange();
    RowExchange(RowExchange &&other) noexcept : request_(other.request_) { other.request_ = MPI_REQUEST_NULL; }
    RowExchange &operator=(RowExchange &&other) noexcept;
    RowExchange(const RowExchange &) = delete;
    RowExchange &operator=(const RowExchange &) = delete;

    // Local once started: completes the exchange; nothing to do if none is pending.
    void wait();
    bool pending() const { return request_ != MPI_REQUEST_NULL; }

private:
    MPI_Request request_ = MPI_REQUEST_NULL;
};

// Collective on comm: every rank's row of `words` 64-bit words; rank r's lands at
// rows + r * words on every rank (MPI_Allgather).
void gather_rows(MPI_Comm comm, const std::int64_t *row, std::int64_t *rows, int words);

// Limits of gather_variable (smaller only in tests, to force each path).
struct GatherLimits {
    std::int64_t largest_count = INT_MAX;             // records, for the collective path
    std::int64_t largest_message = kLargestMessage;   // bytes, for the point-to-point path
};

// Collective on comm: MPI_Allgatherv of `record_bytes`-byte records with 64-bit
// counts and displacements (in records, the same on every rank): rank r's counts[r]
// records at `mine` land at record displs[r] of `all` on every rank. One
// MPI_Allgatherv where every count and every end (displs[r] + counts[r]) fits
// limits.largest_count; otherwise one message per rank pair on `lane` (no other
// one-shot exchange may be in flight on it), split above limits.largest_message bytes.
void gather_variable(MPI_Comm comm, const void *mine, void *all, const std::int64_t *counts,
                     const std::int64_t *displs, std::size_t record_bytes, Lane lane = Lane::first,
                     const GatherLimits &limits = {});

}  // namespace dm::exchange
