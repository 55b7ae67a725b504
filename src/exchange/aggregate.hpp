// The node-aware transport: between two nodes, one message per node pair instead of
// one per pair of ranks. The ranks of a node pack their messages to other nodes into
// node memory that their leader (the node's lowest rank, node::Topology) holds,
// ordered by destination node; the leader sends each other node its part as one
// message, to that node's leader, and receives theirs the same way; each receiver
// unpacks its parts straight out of its leader's node memory. A node of one rank is
// its own leader and uses private memory.
//
// It pays where the cost of a message, not of its bytes, dominates: several ranks per
// node and small messages per pair of ranks (auto takes a message across nodes of at
// most kAggregateMaxBytes between nodes that hold more than one pair). Its
// price: one more copy of each byte on either side, through node memory, and two
// small messages within the node per rank and execution.
//
// Each execution: a rank packs and tells its leader ("packed"); the leader, once every
// rank of its node that takes part has packed (so that every one of them has also
// finished reading the last execution's data), starts its messages to and from the
// other leaders; once they are done it tells each rank ("arrived") and the ranks
// unpack. Both sides order a node pair's data alike: by sending rank, receiving rank
// and round, which each leader knows from its own ranks' messages alone.
#pragma once

#include "core/node_memory.hpp"
#include "exchange/transport.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace dm::exchange {

// Its price, under the auto executor. A message between ranks of different nodes of
// at most this many bytes travels through the node leaders, where the two nodes hold
// more than one pair of ranks: one message per node pair instead of one per pair of
// ranks, for one more copy on each side.
constexpr std::int64_t kAggregateMaxBytes = std::int64_t{4} << 10;
// ... and only where a message between nodes costs at least this many times one
// within a node (node::Topology measures both): through the leaders each rank adds
// two messages within its node and one copy each way. 4 ranks as 2 emulated nodes
// on 2 cores (oversubscribed: the probe read 12-13 us across, 6-8 us within, over
// TCP and UCX shared memory alike): small halos and redistributions (<= 2 KiB a
// pair) took 0.88-0.98x the time of per-rank messages over TCP, 1.0-1.55x over
// UCX shared memory, so auto keeps per-rank messages there.
constexpr double kAggregateMinLatencyRatio = 4;

std::unique_ptr<Transport> make_aggregate(const TransportSetup &setup);

class Aggregate final : public Transport {
public:
    explicit Aggregate(const TransportSetup &setup);
    ~Aggregate() override;
    Aggregate(const Aggregate &) = delete;
    Aggregate &operator=(const Aggregate &) = delete;

    const char *name() const override { return "aggregate"; }
    // A peer on another node, both nodes able to gather (a node of several ranks needs
    // node memory), and the executor names it or (auto) the message is small and the
    // node pair holds more than one pair of ranks.
    bool takes(const Message &m, const Peer &peer, const char *&why) const override;
    void add(std::size_t index, const Message &m, const Peer &peer, bool sending) override;
    // Point to point within each node of several ranks: every rank tells its leader
    // the messages it gave this transport; the leader lays out the node's data, holds
    // node memory for it (collective on the node), and tells each rank where its
    // parts are. Then the persistent requests are made. True where this rank takes
    // part (it has messages here, or it leads a node whose ranks have).
    bool setup(int tag) override;
    void bind(const void *const *slots, const std::byte *staged) override;
    // Packs this rank's messages into its leader's node memory and says so.
    void start(const void *const *slots, bool staged) override;
    // Leader: starts the node's messages once its ranks have packed; once they are
    // done, tells its ranks. Every rank: once told, unpacks its own. True once done.
    bool progress(const void *const *slots, bool wait) override;
    void finish() override;
    const char *carries() const override { return "packed through the node leaders"; }

private:
    // One of this rank's messages: where its bytes go (sending) or come from in the
    // leader's memory, and its blocks on this side.
    struct Own {
        std::size_t index;
        int peer, round;
        std::int64_t bytes, staged_at;
        std::vector<Block> blocks;
        std::byte *at = nullptr;
    };
    // A message of the node, as its leader lays them out.
    struct Item {
        std::int64_t node, from, to, round, bytes;
    };
    std::vector<std::int64_t> items_of_own() const;
    void lay_out(std::vector<std::vector<std::int64_t>> &lists, std::vector<std::int64_t> &areas);
    void make_requests();
    bool leader_progress(bool wait);

    MPI_Comm comm_;
    int tag_, me_ = 0;
    bool chosen_, automatic_, capable_ = true;
    const SlotKinds *kinds_;  // packs into and unpacks from the (host) area by each slot's kind
    const node::Topology &topology_;
    int leader_ = 0;
    std::vector<int> members_;  // leader: the other ranks of its node that take part
    std::vector<Own> sends_, recvs_;

    // The node's area: all of its sends, by destination node, then all of its
    // receives, by source node (the leader's node memory, or private for a node of one).
    node::Scratch scratch_;
    std::unique_ptr<std::byte[]> private_;
    std::byte *area_ = nullptr;
    struct Range {
        int leader;
        std::int64_t at, bytes;
    };
    std::vector<Range> out_, in_;  // leader: per other node, what it sends and receives

    const std::byte *staged_ = nullptr;
    MPI_Request packed_ = MPI_REQUEST_NULL, arrived_ = MPI_REQUEST_NULL;  // a rank that is not its leader
    std::vector<MPI_Request> gathered_, told_, data_;  // leader: from / to its ranks, to and from other leaders
    int phase_ = 0;  // leader: 0 waiting for its ranks, 1 data in flight, 2 done
    bool done_ = false;
};

}  // namespace dm::exchange
