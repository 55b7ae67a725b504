// Transports: how the messages of a plan travel. The planner (plan.cpp) groups the
// blocks per peer and round and asks each registered transport (transports.cpp)
// whether it takes a message, telling it where the peer lives (Peer: same node,
// which node, ranks per node); what none takes goes point to point
// (point_to_point.hpp), which also prices and cuts every message. A transport runs
// once it is a class behind this interface, its factory in the registry and its
// source in CMakeLists.txt (or, from code built with the source tree, one file and
// one call of register_transport: tests/cpp/test_exchange_transport.cpp adds one so);
// documented and tested as the built-in ones are, it touches more files today
// (executor names written out by hand, the plan's fixed tags): docs/architecture.md
// counts them. Each transport prices its own messages (takes()); the cost model
// prices MPI's ways.
#pragma once

#include "exchange/block.hpp"
#include "exchange/cost.hpp"
#include "exchange/memory_kind.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dm::exchange {

class Transport;

// One message of a plan, as one side sees it: to or from one peer in one round;
// what the planner knows of it and every transport may read. How a transport
// carries it is that transport's own state (point to point's: point_to_point.hpp).
struct Message {
    int peer = 0, round = 0;
    Locality where = Locality::OnNode;  // the peer's node against this rank's
    std::vector<Block> blocks;
    std::int64_t bytes = 0, runs = 0;
    // The cache lines the sending side's blocks span (Block::lines), known on both
    // sides once point to point has prepared (-1 before; it tells each receiver
    // with the cuts): what a receiver reading in place would fetch.
    std::int64_t sender_lines = -1;
    std::int64_t staged_at = 0;  // sending: its offset in the plan's staged copy of the sends
    Transport *transport = nullptr;  // the transport that took it
    const char *transport_reason = "";  // describe(): why it does or does not take another transport
};

// A round: the plan's sends [first_send, end_send) and receives [first_recv, end_recv).
struct Round {
    std::size_t first_send, end_send, first_recv, end_recv;
};

// The peer of a message, as the planner sees it when transports are asked: what
// both ends of the message know alike (the topology is the same on every rank).
struct Peer {
    bool same_node = false;  // shares this node (and the node memory of this comm)
    int world = -1;          // its rank in MPI_COMM_WORLD
    int messages = 0;        // messages between the pair on this side (all rounds)
    int node = 0, node_ranks = 1;  // its node (node::Topology) and the ranks of comm there
    int my_node = 0, my_node_ranks = 1;  // this rank's
};

// Where a transport hands a message back to point to point, for one execution.
class Fallback {
public:
    virtual void send_by_message(std::size_t send) = 0;  // index in the plan's sends
    virtual void receive_by_message(std::size_t recv) = 0;
protected:
    ~Fallback() = default;
};

// What a transport is made with (registry factories).
struct TransportSetup {
    MPI_Comm comm = MPI_COMM_NULL;
    int slots = 0;
    int control_tag = 0, done_tag = 0;  // two tags the plan reserved for it
    int node_tag = 0;  // and one for traffic through node leaders
    const CostModel *model = nullptr;
    bool chosen = false;     // the executor names this transport
    bool automatic = false;  // the executor is auto
    Fallback *fallback = nullptr;
    // The memory kind of each slot, the same on every rank (the plan's; by default
    // all host). Every pack and unpack goes through it; memory_kind.hpp says which
    // transports carry other kinds than host.
    const SlotKinds *kinds = &SlotKinds::all_host();
};

class Transport {
public:
    virtual ~Transport() = default;
    virtual const char *name() const = 0;
    // Point to point answers itself: it carries every message no other transport
    // takes, and those they hand back. A plan has one, asked last.
    virtual Fallback *fallback() { return nullptr; }

    // Planning, local; both sides of a message decide alike from what both know.
    // Whether it takes every message of the plan in one collective call: the planner
    // then gives each side one datatype over absolute addresses, uncut, one round,
    // and refuses to stage.
    virtual bool collective() const { return false; }
    // The locality test and price: whether it takes message m to or from `peer`;
    // `why` is a describe() clause ("" or "; ...") saying why or why not.
    virtual bool takes(const Message &m, const Peer &peer, const char *&why) const = 0;
    // The messages it took, `index` being the plan's (sends or receives).
    virtual void add(std::size_t index, const Message &m, const Peer &peer, bool sending) = 0;
    // Collective on the plan's comm (point to point with its peers): readies it to
    // run; `tag` the plan's. True when it must run at each execution.
    virtual bool setup(int tag) = 0;
    // Point to point only, collective on comm, before any message is placed: every
    // message of the plan (sorted by round, then peer), to choose its ways and pieces.
    virtual void prepare(std::vector<Message> &, std::vector<Message> &, const std::vector<Round> &, int) {}

    // Executions: the hot path, allocation-free with the same slots.
    // bind: the slot addresses of this execution, when they differ from the last;
    // `staged`: the staged copy of the sends (in plan order), or nullptr.
    virtual void bind(const void *const *slots, const std::byte *staged) = 0;
    // start: at begin, after the local copies; messages it cannot carry this time
    // go back through the Fallback.
    virtual void start(const void *const *slots, bool staged) = 0;
    // progress: advances (waits for everything when `wait`); true once done.
    virtual bool progress(const void *const *slots, bool wait) = 0;
    // finish: at end, after progress(wait): the buffers may change after it.
    virtual void finish() = 0;

    // Rounds (point to point): the planner starts round r + 1 once round r's
    // receives are in and its sends have left. `slots` is the plan's copy of this
    // execution's, valid until end.
    virtual void start_round(std::size_t, const void *const *, bool) {}
    // Completes the receives of `round` that have arrived (at least one when
    // `wait`); true once none is left.
    virtual bool receive(std::size_t, bool) { return true; }
    // Whether the sends of `round` have left (waits for them when `wait`).
    virtual bool sent(std::size_t, bool) { return true; }

    // describe(): how it carries a message in place of point to point's way (nullptr:
    // by that way, as the on-node transport's fallback does).
    virtual const char *carries() const { return nullptr; }
    // describe(): a clause on how the last execution carried send `index`, or nullptr.
    virtual const char *last_execution(std::size_t) const { return nullptr; }
};

// The registry (transports.cpp): a name, its factory, and whether executor= and
// DM_EXCHANGE may name it (else only a capability that asks for it). A factory may
// return nullptr: nothing to run under this executor (point to point's forced ways
// where the executor names another).
struct Registration {
    const char *name;  // outlives every plan (executors keep the pointer): a literal
    std::unique_ptr<Transport> (*make)(const TransportSetup &);
    bool selectable;
};
const std::vector<Registration> &transports();
// Local: adds a transport after the built-in ones, asked after them by the planner.
// Every rank of a plan's communicator registers the same transports in the same
// order before it makes the plan (executors are agreed by their index). DM_ERR_ARG
// for a name already registered, or "auto".
void register_transport(const Registration &registration);

}  // namespace dm::exchange
