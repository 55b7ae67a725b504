// Variable exchanges: one-shot, data-dependent movements (CVL's permutations, packs,
// sorts) that cannot be planned ahead. Like MPI_Alltoallv, each peer has a count of
// fixed-size records at a displacement in one send buffer and in one receive buffer,
// but the records move by one Isend/Irecv per peer with a nonzero count, so a sparse
// pattern costs nothing for the silent peers; the part for this rank itself never
// touches MPI and is copied (or handed to the caller) while the messages travel.
// Counts and displacements are 64-bit; a message above `max_message` bytes travels
// as several (MPI's int counts), which the receiver reassembles in place. Messages
// carry the tag of the exchange's lane (tags.hpp).
//
// Both sides of every pair must agree on the count (the callers exchange counts
// first, in a collective that also agrees on faults); nothing here checks it.
#pragma once

#include "exchange/mpi_bytes.hpp"
#include "exchange/tags.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dm::exchange {

// What arrived from one peer: `count` records starting at `records`.
struct Arrival {
    int peer;
    const std::byte *records;
    std::int64_t count;
};

// In which order finish() hands the peers' records to the caller.
enum class ArrivalOrder {
    Any,  // as they arrive (the self part first, while the messages travel)
    Rank  // by rank, this rank's own part in its place: a caller for which later
          // ranks overwrite earlier ones (scatter with duplicate targets) sees them so
};

class VariableExchange {
public:
    // Local. No other one-shot exchange may be in flight on comm on the same `lane`.
    // `record_bytes` >= 1; `max_message` (bytes, >= record_bytes) is the largest
    // single message, smaller only to test the splitting.
    VariableExchange(MPI_Comm comm, Lane lane, std::size_t record_bytes,
                     std::int64_t max_message = kLargestMessage);
    // Pending receives are cancelled and pending requests freed (only after an
    // error: callers that stop halfway end the job).
    ~VariableExchange();
    VariableExchange(const VariableExchange &) = delete;
    VariableExchange &operator=(const VariableExchange &) = delete;

    // Local. Posts the receives: rcount[r] records from rank r at record rdispl[r] of
    // `recv` (arrays of comm-size entries, read now). Call at most once, and before
    // finish(); the self entry is filled by finish() (copy) or left alone (arrival).
    void receive(void *recv, const std::int64_t *rcount, const std::int64_t *rdispl);
    // Local. Posts the sends: scount[r] records at record sdispl[r] of `send`, which
    // must stay untouched until finish() returns. Call at most once.
    void send(const void *send, const std::int64_t *scount, const std::int64_t *sdispl);
    // Local. Posts the send of `count` records at `records` to one peer (for a caller
    // that answers each peer as its request arrives); the same rules, once per peer,
    // instead of send(). To this rank itself it only notes the part to copy.
    void send_to(int peer, const void *records, std::int64_t count);

    // Completes the exchange: copies the self part into the receive buffer (if there
    // is one; scount[self] must equal rcount[self]) while the messages travel, then
    // waits for every message.
    void finish();
    // Completes the exchange, handing each peer's records to `on_arrival(Arrival)`
    // once they are all in the receive buffer, in `order`; the self part is handed
    // straight from the send buffer (no copy; its receive entry is ignored). Peers
    // with nothing for this rank are skipped. Every message is complete on return.
    // If on_arrival throws, messages may still be in flight: the caller ends the job.
    template <class F>
    void finish(ArrivalOrder order, F &&on_arrival) {
        complete(order, &on_arrival, [](void *f, const Arrival &a) { (*static_cast<F *>(f))(a); });
    }

    int rank() const { return rank_; }
    int size() const { return size_; }
    // Messages this rank posted (chunks counted), for tests and descriptions.
    std::int64_t messages_sent() const { return messages_sent_; }
    std::int64_t messages_received() const { return messages_received_; }

private:
    using Callback = void (*)(void *, const Arrival &);
    void complete(ArrivalOrder order, void *context, Callback callback);
    void post(bool sending, int peer, std::byte *at, std::int64_t count);
    void wait_all(std::vector<MPI_Request> &requests);

    MPI_Comm comm_;
    int tag_, rank_ = 0, size_ = 1;
    std::int64_t record_, max_message_;
    std::int64_t messages_sent_ = 0, messages_received_ = 0;
    bool received_ = false, finished_ = false;
    // Self part: where it is in each buffer and how many records.
    const std::byte *self_from_ = nullptr;
    std::byte *self_to_ = nullptr;
    std::int64_t self_sent_ = 0, self_expected_ = 0;
    // Receives: per peer (in rank order) its first request and request count; the
    // peer's records, for the arrival callback.
    std::vector<MPI_Request> recv_requests_, send_requests_;
    struct Incoming {
        int peer;
        std::size_t first, chunks;
        const std::byte *records;
        std::int64_t count;
    };
    std::vector<Incoming> incoming_;
    std::vector<int> request_owner_;  // index into incoming_ of each receive request
};

// Collective over the ranks that exchange: the whole exchange in one call, like
// MPI_Alltoallv of `record_bytes`-byte records with 64-bit counts and displacements
// (in records), on `lane`. Throws dm::Error(DM_ERR_MPI) naming the MPI call that failed.
void exchange_variable(MPI_Comm comm, Lane lane, const void *send, const std::int64_t *scount,
                       const std::int64_t *sdispl, void *recv, const std::int64_t *rcount, const std::int64_t *rdispl,
                       std::size_t record_bytes);

}  // namespace dm::exchange
