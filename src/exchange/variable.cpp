#include "exchange/variable.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace dm::exchange {

VariableExchange::VariableExchange(MPI_Comm comm, Lane lane, std::size_t record_bytes, std::int64_t max_message)
    : comm_(comm), tag_(lane_tag(lane)), record_(static_cast<std::int64_t>(record_bytes)), max_message_(max_message) {
    if (tag_ < 0 || tag_ >= kLanes) fail(DM_ERR_ARG, "variable exchange: lane ", tag_, " does not exist");
    if (record_ < 1) fail(DM_ERR_ARG, "variable exchange: a record has at least one byte");
    // Chunks hold whole records, so that a peer's records never straddle a message.
    max_message_ = std::min<std::int64_t>(max_message_, INT_MAX) / record_ * record_;
    if (max_message_ < 1) fail(DM_ERR_ARG, "variable exchange: the largest message is smaller than a record");
    check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

VariableExchange::~VariableExchange() {
    // Only after an error: receives that may never match are cancelled; the rest
    // complete without us (the caller ends the job).
    for (MPI_Request &r : recv_requests_)
        if (r != MPI_REQUEST_NULL) {
            MPI_Cancel(&r);
            MPI_Request_free(&r);
        }
    for (MPI_Request &r : send_requests_)
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
}

// One peer's records, as one message or (above max_message_ bytes) several.
void VariableExchange::post(bool sending, int peer, std::byte *at, std::int64_t count) {
    if (count > INT64_MAX / record_) fail(DM_ERR_ARG, "variable exchange: ", count, " records overflow");
    std::vector<MPI_Request> &requests = sending ? send_requests_ : recv_requests_;
    const std::int64_t bytes = count * record_;
    const std::size_t first = requests.size();
    for (std::int64_t done = 0; done < bytes; done += max_message_) {
        const int part = static_cast<int>(std::min(max_message_, bytes - done));
        requests.push_back(MPI_REQUEST_NULL);
        if (sending)
            check_mpi(MPI_Isend(at + done, part, MPI_BYTE, peer, tag_, comm_, &requests.back()), "MPI_Isend");
        else
            check_mpi(MPI_Irecv(at + done, part, MPI_BYTE, peer, tag_, comm_, &requests.back()), "MPI_Irecv");
    }
    const auto posted = static_cast<std::int64_t>(requests.size() - first);
    if (sending) {
        messages_sent_ += posted;
    } else {
        messages_received_ += posted;
        incoming_.push_back(Incoming{peer, first, requests.size() - first, at, count});
    }
}

void VariableExchange::receive(void *recv, const std::int64_t *rcount, const std::int64_t *rdispl) {
    if (received_ || finished_) fail(DM_ERR_STATE, "variable exchange: receive() twice or after finish()");
    received_ = true;
    auto *base = static_cast<std::byte *>(recv);
    for (int peer = 0; peer < size_; ++peer)
        if (rcount[peer] < 0) fail(DM_ERR_ARG, "variable exchange: negative count ", rcount[peer], " from rank ", peer);
    self_expected_ = rcount[rank_];
    self_to_ = self_expected_ > 0 ? base + rdispl[rank_] * record_ : nullptr;
    // Posted from the next rank on, so that no rank is everybody's first; kept in
    // rank order for finish().
    for (int step = 1; step < size_; ++step) {
        const int peer = (rank_ + step) % size_;
        if (rcount[peer] > 0) post(false, peer, base + rdispl[peer] * record_, rcount[peer]);
    }
    const auto first_lower = std::find_if(incoming_.begin(), incoming_.end(),
                                          [&](const Incoming &in) { return in.peer < rank_; });
    std::rotate(incoming_.begin(), first_lower, incoming_.end());
    request_owner_.assign(recv_requests_.size(), 0);
    for (std::size_t i = 0; i < incoming_.size(); ++i)
        for (std::size_t q = 0; q < incoming_[i].chunks; ++q)
            request_owner_[incoming_[i].first + q] = static_cast<int>(i);
}

void VariableExchange::send_to(int peer, const void *records, std::int64_t count) {
    if (finished_) fail(DM_ERR_STATE, "variable exchange: send after finish()");
    if (count < 0) fail(DM_ERR_ARG, "variable exchange: negative count ", count, " for rank ", peer);
    // MPI takes send buffers as const in its C interface since MPI-3.
    auto *at = const_cast<std::byte *>(static_cast<const std::byte *>(records));
    if (peer == rank_) {
        self_sent_ = count;
        self_from_ = at;
    } else if (count > 0) {
        post(true, peer, at, count);
    }
}

void VariableExchange::send(const void *send, const std::int64_t *scount, const std::int64_t *sdispl) {
    const auto *base = static_cast<const std::byte *>(send);
    for (int step = 1; step <= size_; ++step) {
        const int peer = (rank_ + step) % size_;
        send_to(peer, base + sdispl[peer] * record_, scount[peer]);
    }
}

void VariableExchange::wait_all(std::vector<MPI_Request> &requests) {
    if (!requests.empty())
        check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void VariableExchange::finish() {
    if (finished_) fail(DM_ERR_STATE, "variable exchange: finish() twice");
    finished_ = true;
    // The self part, while the messages travel.
    if (self_sent_ != self_expected_)
        fail(DM_ERR_ARG, "variable exchange: rank ", rank_, " sends ", self_sent_, " records to itself but expects ",
             self_expected_);
    if (self_sent_ > 0 && self_to_ != self_from_)
        std::memmove(self_to_, self_from_, static_cast<std::size_t>(self_sent_ * record_));
    wait_all(recv_requests_);
    wait_all(send_requests_);
}

void VariableExchange::complete(ArrivalOrder order, void *context, Callback callback) {
    if (finished_) fail(DM_ERR_STATE, "variable exchange: finish() twice");
    finished_ = true;
    auto deliver_self = [&] {
        if (self_sent_ > 0) callback(context, Arrival{rank_, self_from_, self_sent_});
    };
    if (order == ArrivalOrder::Rank) {
        bool self_done = false;
        for (const Incoming &in : incoming_) {
            if (!self_done && in.peer > rank_) {
                deliver_self();
                self_done = true;
            }
            check_mpi(MPI_Waitall(static_cast<int>(in.chunks), &recv_requests_[in.first], MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
            callback(context, Arrival{in.peer, in.records, in.count});
        }
        if (!self_done) deliver_self();
    } else {
        deliver_self();  // while the messages travel
        std::vector<std::size_t> left(incoming_.size());
        for (std::size_t i = 0; i < incoming_.size(); ++i) left[i] = incoming_[i].chunks;
        for (std::size_t pending = recv_requests_.size(); pending > 0; --pending) {
            int which = MPI_UNDEFINED;
            check_mpi(MPI_Waitany(static_cast<int>(recv_requests_.size()), recv_requests_.data(), &which,
                              MPI_STATUS_IGNORE),
                  "MPI_Waitany");
            if (which == MPI_UNDEFINED) break;
            const auto i = static_cast<std::size_t>(request_owner_[static_cast<std::size_t>(which)]);
            if (--left[i] == 0) callback(context, Arrival{incoming_[i].peer, incoming_[i].records, incoming_[i].count});
        }
    }
    wait_all(send_requests_);
}

void exchange_variable(MPI_Comm comm, Lane lane, const void *send, const std::int64_t *scount,
                       const std::int64_t *sdispl, void *recv, const std::int64_t *rcount, const std::int64_t *rdispl,
                       std::size_t record_bytes) {
    VariableExchange x(comm, lane, record_bytes);
    x.receive(recv, rcount, rdispl);
    x.send(send, scount, sdispl);
    x.finish();
}

}  // namespace dm::exchange
