#include "exchange/aggregate.hpp"

#include "core/error.hpp"
#include "exchange/mpi_bytes.hpp"
#include "exchange/peer_memory.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <tuple>

namespace dm::exchange {
namespace {

// Persistent requests for `bytes` contiguous bytes at p (a committed type beyond INT_MAX).
void bytes_request(bool sending, std::byte *p, std::int64_t bytes, int peer, int tag, MPI_Comm comm, MPI_Request *r) {
    const int count = bytes <= INT_MAX ? static_cast<int>(bytes) : 1;
    const MPI_Datatype type = bytes <= INT_MAX ? MPI_BYTE : shared_bytes_type(bytes);
    if (sending) check_mpi(MPI_Send_init(p, count, type, peer, tag, comm, r), "MPI_Send_init");
    else check_mpi(MPI_Recv_init(p, count, type, peer, tag, comm, r), "MPI_Recv_init");
}

std::vector<std::int64_t> receive_list(int from, int tag, MPI_Comm comm) {
    MPI_Status status;
    check_mpi(MPI_Probe(from, tag, comm, &status), "MPI_Probe");
    int n = 0;
    check_mpi(MPI_Get_count(&status, MPI_INT64_T, &n), "MPI_Get_count");
    std::vector<std::int64_t> list(static_cast<std::size_t>(n));
    check_mpi(MPI_Recv(list.data(), n, MPI_INT64_T, from, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    return list;
}

void send_list(const std::vector<std::int64_t> &list, int to, int tag, MPI_Comm comm) {
    check_mpi(MPI_Send(list.data(), static_cast<int>(list.size()), MPI_INT64_T, to, tag, comm), "MPI_Send");
}

// Node memory written by one rank is read by another after an MPI message between
// them says so; the fences keep the compiler and CPU from moving accesses across it.
void fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

bool done(std::vector<MPI_Request> &requests, bool wait) {
    int flag = 1;
    if (wait) check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    else check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
    return flag != 0;
}

}  // namespace

std::unique_ptr<Transport> make_aggregate(const TransportSetup &setup) { return std::make_unique<Aggregate>(setup); }

Aggregate::Aggregate(const TransportSetup &setup)
    : comm_(setup.comm), tag_(setup.node_tag), chosen_(setup.chosen),
      automatic_(setup.automatic), kinds_(setup.kinds),
      topology_(node::topology(setup.comm)) {
    MPI_Comm_rank(comm_, &me_);
    // A node of several ranks gathers in node memory: every rank must have it.
    const int *world = node::world_ranks(comm_);
    const bool all_in_world = std::all_of(world, world + topology_.node.size(), [](int w) { return w >= 0; });
    const bool all_alone = std::all_of(topology_.ranks.begin(), topology_.ranks.end(), [](int n) { return n == 1; });
    capable_ = all_alone || (node::enabled() && all_in_world);
    leader_ = topology_.leader[static_cast<std::size_t>(topology_.node[static_cast<std::size_t>(me_)])];
}

Aggregate::~Aggregate() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (MPI_Request *r : {&packed_, &arrived_})
        if (*r != MPI_REQUEST_NULL) MPI_Request_free(r);
    for (auto *list : {&gathered_, &told_, &data_})
        for (MPI_Request &r : *list)
            if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
}

bool Aggregate::takes(const Message &m, const Peer &peer, const char *&why) const {
    why = "";
    if (peer.node == peer.my_node || (!chosen_ && !automatic_)) return false;
    if (!capable_) {
        why = "; another node, by message (node memory is off: a node's ranks cannot gather)";
        return false;
    }
    if (chosen_) {
        why = "; another node: through the node leaders, one message per node pair (executor aggregate)";
        return true;
    }
    if (peer.node_ranks * peer.my_node_ranks < 2) {
        why = "; another node, by message (one rank on each node: nothing to gather)";
        return false;
    }
    if (topology_.across_us < kAggregateMinLatencyRatio * topology_.within_us) {
        why = "; another node, by message (a message between nodes costs little more than one within a node)";
        return false;
    }
    if (m.bytes > kAggregateMaxBytes) {
        why = "; another node, by message (large: its own message costs no more than gathering it)";
        return false;
    }
    why = "; another node, small: through the node leaders, one message per node pair";
    return true;
}

void Aggregate::add(std::size_t index, const Message &m, const Peer &, bool sending) {
    (sending ? sends_ : recvs_).push_back({index, m.peer, m.round, m.bytes, m.staged_at, m.blocks});
}

// [sends, receives, then (peer, round, bytes) per send, then per receive].
std::vector<std::int64_t> Aggregate::items_of_own() const {
    std::vector<std::int64_t> list{static_cast<std::int64_t>(sends_.size()), static_cast<std::int64_t>(recvs_.size())};
    for (const auto *own : {&sends_, &recvs_})
        for (const Own &o : *own) list.insert(list.end(), {o.peer, o.round, o.bytes});
    return list;
}

// The leader lays out its node's area from every rank's list (lists[i]: of the i-th
// rank of the node); each list becomes that rank's offsets, in its order, and
// areas gets [sends' bytes, receives' bytes].
void Aggregate::lay_out(std::vector<std::vector<std::int64_t>> &lists, std::vector<std::int64_t> &areas) {
    std::vector<int> ranks;
    const int my_node = topology_.node[static_cast<std::size_t>(me_)];
    for (std::size_t r = 0; r < topology_.node.size(); ++r)
        if (topology_.node[r] == my_node) ranks.push_back(static_cast<int>(r));
    // (other node, sending rank, receiving rank, round, bytes, list, position in it)
    using Entry = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::size_t, std::size_t>;
    std::vector<Entry> out, in;
    for (std::size_t i = 0; i < lists.size(); ++i) {
        const std::vector<std::int64_t> &l = lists[i];
        const std::int64_t self = ranks[i], n_send = l[0], n = l[0] + l[1];
        for (std::int64_t k = 0; k < n; ++k) {
            const std::int64_t peer = l[static_cast<std::size_t>(2 + 3 * k)], round = l[static_cast<std::size_t>(3 + 3 * k)];
            const std::int64_t bytes = l[static_cast<std::size_t>(4 + 3 * k)];
            const std::int64_t node = topology_.node[static_cast<std::size_t>(peer)];
            if (k < n_send) out.emplace_back(node, self, peer, round, bytes, i, static_cast<std::size_t>(k));
            else in.emplace_back(node, peer, self, round, bytes, i, static_cast<std::size_t>(k));
        }
    }
    std::vector<std::vector<std::int64_t>> offsets(lists.size());
    for (std::size_t i = 0; i < lists.size(); ++i) offsets[i].assign(static_cast<std::size_t>(lists[i][0] + lists[i][1]), 0);
    std::int64_t at = 0;
    areas.clear();
    for (auto *side : {&out, &in}) {
        std::sort(side->begin(), side->end());
        std::vector<Range> &ranges = side == &out ? out_ : in_;
        const std::int64_t start = at;
        for (const Entry &e : *side) {
            const int node = static_cast<int>(std::get<0>(e));
            if (ranges.empty() || ranges.back().leader != topology_.leader[static_cast<std::size_t>(node)])
                ranges.push_back({topology_.leader[static_cast<std::size_t>(node)], at, 0});
            offsets[std::get<5>(e)][std::get<6>(e)] = at;
            ranges.back().bytes += std::get<4>(e);
            at += std::get<4>(e);
        }
        areas.push_back(at - start);
    }
    lists = std::move(offsets);
}

bool Aggregate::setup(int) {
    // Both facts are the same on every rank: where they rule it out, nobody took anything.
    if (topology_.one_node() || !capable_ || (!chosen_ && !automatic_)) return false;
    const int my_node = topology_.node[static_cast<std::size_t>(me_)];
    const bool alone = topology_.ranks[static_cast<std::size_t>(my_node)] == 1;
    const bool mine = !sends_.empty() || !recvs_.empty();
    std::vector<std::int64_t> offsets;
    std::int64_t window = -1, offset = 0;
    if (me_ != leader_) {
        send_list(items_of_own(), leader_, tag_, comm_);
        const std::vector<std::int64_t> any = receive_list(leader_, tag_, comm_);
        if (any[0] == 0) return false;
        scratch_.reserve(comm_, 0);  // with the leader's, collective on the node
        if (!mine) return false;
        offsets = receive_list(leader_, tag_, comm_);
        window = offsets[0], offset = offsets[1];
        offsets.erase(offsets.begin(), offsets.begin() + 2);
        area_ = const_cast<std::byte *>(peer_address(comm_, leader_, {window, offset}));
        if (!area_) fail(DM_ERR_STATE, "exchange: internal error: the node leader's memory is not mapped here");
    } else {
        std::vector<std::vector<std::int64_t>> lists;
        std::vector<int> ranks;
        for (std::size_t r = 0; r < topology_.node.size(); ++r)
            if (topology_.node[r] == my_node) ranks.push_back(static_cast<int>(r));
        for (int r : ranks) lists.push_back(r == me_ ? items_of_own() : receive_list(r, tag_, comm_));
        bool any = false;
        for (std::size_t i = 0; i < lists.size(); ++i) {
            const bool theirs = lists[i][0] + lists[i][1] > 0;
            any = any || theirs;
            if (theirs && ranks[i] != me_) members_.push_back(ranks[i]);
        }
        for (int r : ranks)
            if (r != me_) send_list({any ? 1 : 0}, r, tag_, comm_);
        if (!any) return false;
        std::vector<std::int64_t> areas;
        lay_out(lists, areas);
        const std::int64_t total = areas[0] + areas[1];
        if (alone) {
            private_.reset(new std::byte[static_cast<std::size_t>(std::max<std::int64_t>(total, 1))]);
            area_ = private_.get();
        } else {
            scratch_.reserve(comm_, total);
            area_ = scratch_.get(comm_, total);
            if (!area_) fail(DM_ERR_STATE, "exchange: internal error: no node memory for the node's messages");
            const node::Location where = node::locate(area_);
            window = where.window, offset = where.offset;
        }
        for (std::size_t i = 0; i < ranks.size(); ++i) {  // lists[i]: the offsets of the i-th rank's messages
            if (ranks[i] == me_) {
                offsets = lists[i];
            } else if (!lists[i].empty()) {
                std::vector<std::int64_t> reply{window, offset};
                reply.insert(reply.end(), lists[i].begin(), lists[i].end());
                send_list(reply, ranks[i], tag_, comm_);
            }
        }
    }
    std::size_t k = 0;
    for (auto *own : {&sends_, &recvs_})
        for (Own &o : *own) o.at = area_ + offsets[k++];
    make_requests();
    return true;
}

void Aggregate::make_requests() {
    if (me_ != leader_) {
        check_mpi(MPI_Send_init(nullptr, 0, MPI_BYTE, leader_, tag_, comm_, &packed_), "MPI_Send_init");
        check_mpi(MPI_Recv_init(nullptr, 0, MPI_BYTE, leader_, tag_, comm_, &arrived_), "MPI_Recv_init");
        return;
    }
    gathered_.assign(members_.size(), MPI_REQUEST_NULL);
    told_.assign(members_.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < members_.size(); ++i) {
        check_mpi(MPI_Recv_init(nullptr, 0, MPI_BYTE, members_[i], tag_, comm_, &gathered_[i]), "MPI_Recv_init");
        check_mpi(MPI_Send_init(nullptr, 0, MPI_BYTE, members_[i], tag_, comm_, &told_[i]), "MPI_Send_init");
    }
    for (const Range &r : in_) {
        data_.push_back(MPI_REQUEST_NULL);
        bytes_request(false, area_ + r.at, r.bytes, r.leader, tag_, comm_, &data_.back());
    }
    for (const Range &r : out_) {
        data_.push_back(MPI_REQUEST_NULL);
        bytes_request(true, area_ + r.at, r.bytes, r.leader, tag_, comm_, &data_.back());
    }
}

void Aggregate::bind(const void *const *, const std::byte *staged) { staged_ = staged; }

void Aggregate::start(const void *const *slots, bool staged) {
    for (const Own &s : sends_) {
        if (staged) {
            std::memcpy(s.at, staged_ + s.staged_at, static_cast<std::size_t>(s.bytes));
            continue;
        }
        std::byte *out = s.at;
        for (const Block &b : s.blocks) out = kinds_->pack(out, static_cast<const std::byte *>(slots[b.slot]), b);
    }
    fence();
    phase_ = 0, done_ = false;
    if (me_ == leader_) {
        if (!gathered_.empty()) check_mpi(MPI_Startall(static_cast<int>(gathered_.size()), gathered_.data()), "MPI_Startall");
        return;
    }
    check_mpi(MPI_Start(&arrived_), "MPI_Start");
    check_mpi(MPI_Start(&packed_), "MPI_Start");
}

bool Aggregate::leader_progress(bool wait) {
    if (phase_ == 0) {
        if (!done(gathered_, wait)) return false;
        fence();
        if (!data_.empty()) check_mpi(MPI_Startall(static_cast<int>(data_.size()), data_.data()), "MPI_Startall");
        phase_ = 1;
    }
    if (phase_ == 1) {
        if (!done(data_, wait)) return false;
        fence();
        if (!told_.empty()) check_mpi(MPI_Startall(static_cast<int>(told_.size()), told_.data()), "MPI_Startall");
        phase_ = 2;
    }
    return true;
}

bool Aggregate::progress(const void *const *slots, bool wait) {
    if (done_) return true;
    if (me_ == leader_) {
        if (!leader_progress(wait)) return false;
    } else {
        int flag = 1;
        if (wait) check_mpi(MPI_Wait(&arrived_, MPI_STATUS_IGNORE), "MPI_Wait");
        else check_mpi(MPI_Test(&arrived_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
        if (!flag) return false;
        fence();
    }
    for (const Own &r : recvs_) {
        const std::byte *in = r.at;
        for (const Block &b : r.blocks)
            in = kinds_->unpack(const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot])), b, in);
    }
    done_ = true;
    return true;
}

void Aggregate::finish() {
    if (me_ == leader_) done(told_, true);
    else check_mpi(MPI_Wait(&packed_, MPI_STATUS_IGNORE), "MPI_Wait");
}

}  // namespace dm::exchange
