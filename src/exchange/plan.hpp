// Exchange plans: the one transport of every capability. A plan is, per peer rank,
// the blocks to send and to receive (one message per peer and round, whatever
// arrays, shifts or regions fed it) plus local copies that never touch MPI; an
// executor per message decides how its bytes travel; begin/end run it in two
// halves so that callers compute while messages fly.
#pragma once

#include "exchange/block.hpp"
#include "exchange/cost.hpp"
#include "exchange/memory_kind.hpp"
#include "exchange/transport.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dm::exchange {

struct Side;  // point to point's state of one side of a message (point_to_point.hpp)

// How a message's bytes travel. Messages are typed as bytes, so each side chooses
// for itself: a packed send may meet a datatype receive. A sender may cut a
// message into pieces (pipelined packing, or datatypes of at most IOV_MAX runs);
// it tells the receiver where at finish(). The executor is "auto" (per side of each
// message, from locality and the cost model of this MPI, cost.hpp) or a name of the
// registry (transports.cpp): a transport, or one of point to point's forced ways
// (docs/exchange.md#executors lists them).
class Executor {
public:
    static const Executor Auto, Alltoallw;
    constexpr Executor() = default;
    const char *name() const { return name_; }
    // Its index in executor_names(): the same on every rank, for agreement checks.
    explicit operator int() const;
    bool operator==(const Executor &other) const;
    bool operator!=(const Executor &other) const { return !(*this == other); }

private:
    constexpr explicit Executor(const char *name) : name_(name) {}
    const char *name_ = "auto";
    friend Executor executor_named(const std::string &name);
};
inline constexpr Executor Executor::Auto{"auto"};
inline constexpr Executor Executor::Alltoallw{"alltoallw"};

// Executor from its name ("auto" or a registered one); throws DM_ERR_ARG naming them.
Executor executor_named(const std::string &name);
inline const char *executor_name(Executor e) { return e.name(); }
// "auto" and the registered names; `selectable`: only those executor= and
// DM_EXCHANGE may name (not the ones a capability asks for itself).
std::vector<std::string> executor_names(bool selectable);
// The executor the environment asks for (DM_EXCHANGE), else `fallback`.
Executor executor_from_environment(Executor fallback);
// Local. The ways an executor forces on the messages point to point carries, as a
// capability prices a plan before making it (redistribution's auto method):
// Cheapest on both sides, not forced, where the model chooses.
struct ExecutorWays {
    PricedWay send = PricedWay::Cheapest, recv = PricedWay::Cheapest;
    bool forced = false;
};
ExecutorWays executor_ways(Executor e);
// Where rank `peer` of comm lives, seen from this rank: on its node or another
// (node::Topology), the lines that price their messages. Collective on the first
// call on comm (as node::topology), local after it.
Locality locality_of(MPI_Comm comm, int peer);

struct Options {
    // {executor, read_before_write} as callers write it, kinds optional.
    Options(Executor e = Executor::Auto, bool stage = false, std::vector<MemoryKind> slot_kinds = {})
        : executor(e), read_before_write(stage), kinds(std::move(slot_kinds)) {}
    Executor executor = Executor::Auto;
    // Read every byte before writing any when a buffer read by the plan is also one
    // it writes (as different slots): PSHIFT's a = cshift(a) or shifts that swap
    // arrays. Costs a copy of what stays local, and of sends that would not pack.
    bool read_before_write = false;
    // The memory kind of each slot (empty: every slot host memory), the same on
    // every rank. Every pack, unpack and copy of the plan goes through the kernels
    // of its slot's kind; a message with a slot of another kind than host on one
    // side goes point to point, packed on that side (exchange/memory_kind.hpp).
    std::vector<MemoryKind> kinds;
};

// What one execution moves on this rank.
struct Volume {
    std::int64_t messages_sent = 0, messages_received = 0, bytes_sent = 0, bytes_received = 0, bytes_copied = 0;
    int rounds = 0;
};

// One message of a plan as a cost model sees it: its peer and round, the bytes it
// carries, the contiguous runs of memory they are in on this side, and whether this
// rank sends it or receives it, and the transport planned for it ("onnode": the
// receiver copies it straight out of the sender's memory; "copy" for local copies,
// which are messages with peer -1, never MPI).
struct MessageShape {
    int peer = 0, round = 0;
    std::int64_t bytes = 0, runs = 0;
    bool sending = false;
    const char *transport = "copy";
    // How MPI carries it on this side, as describe() says: "direct", "packed" or
    // "datatype", in `pieces` MPI messages (on-node: the way it falls back to); ""
    // (0 pieces) for a local copy or a message another transport carries (aggregate).
    const char *way = "";
    std::int64_t pieces = 0;
};

class Plan final : private Fallback {
public:
    // Local. `slots`: the number of buffers the blocks address, bound at begin().
    // `name` prefixes error messages and describe().
    Plan(MPI_Comm comm, int slots, std::string name);
    ~Plan();
    Plan(const Plan &) = delete;
    Plan &operator=(const Plan &) = delete;

    // Building, local. Blocks to one peer (in one round) travel in one message, in the
    // order added; the receiver must add the same byte sequence in the same order.
    // Rounds run one after another (a schedule's phases); round numbers need not be
    // dense. Empty blocks are dropped; a block to or from this rank itself is an error.
    void send(int peer, const Block &b, int round = 0);
    void recv(int peer, const Block &b, int round = 0);
    void copy(const Copy &c);

    // Collective on comm: takes the plan's tag (the same on every rank, as plans are
    // made in the same order), joins blocks, chooses each side of each message's way,
    // and tells each receiver where its sender cuts the message into pieces.
    void finish(const Options &options);

    // A hot path: the caller has checked its arguments. begin() posts the receives,
    // packs and starts the sends of the first round and does the local copies;
    // end() completes every round, unpacking messages as they arrive. Buffers are
    // slot addresses; they must stay valid and untouched by the caller until end().
    // Repeated use with the same buffers allocates nothing and creates no MPI object.
    void begin(const void *const *slots);
    void end();
    // A hot path, local: advances what begin() started without waiting (copies the
    // on-node messages whose senders are ready, unpacks arrived messages, starts
    // the next round once the last one has left); true once only end()'s
    // bookkeeping is left. Call it between pieces of computation to overlap them
    // with the exchange without an MPI progress thread.
    bool test();
    bool in_flight() const { return in_flight_; }

    MPI_Comm comm() const { return comm_; }
    Volume volume() const;
    // Local: every message this rank sends and receives, then every local copy (peer
    // -1), so that a model can price the plan without moving data.
    std::vector<MessageShape> messages() const;
    // One paragraph: executors chosen per message, and why.
    std::string describe() const;

private:
    void group(std::vector<std::pair<int, std::pair<int, Block>>> &pieces, std::vector<Message> &out) const;
    void locate();
    void make_transports();
    void place();
    void bind(const void *const *slots, bool staged);
    void send_by_message(std::size_t send) override;
    void receive_by_message(std::size_t recv) override;
    bool advance(bool wait);
    bool aliased(const void *const *slots) const;
    // How MPI carries message k of a side: point to point's Side, or the collective
    // transport's (one datatype each side).
    const Side &carried(std::size_t k, bool sending) const;

    MPI_Comm comm_;
    int slots_;
    std::string name_;
    int tag_ = 0, control_tag_ = 0, done_tag_ = 0, node_tag_ = 0;
    Options options_;
    const CostModel *model_ = nullptr;
    bool finished_ = false;

    std::vector<std::pair<int, std::pair<int, Block>>> send_pieces_, recv_pieces_;  // (round, (peer, block))
    std::vector<Message> sends_, recvs_;  // by round, then peer
    std::vector<Copy> copies_;
    std::vector<Round> rounds_;
    std::vector<bool> read_slot_, written_slot_;
    // With read_before_write: the (read, written) pairs of different slots, which
    // alias when an execution gives both the same buffer.
    std::vector<std::pair<int, int>> alias_pairs_;
    SlotKinds kinds_;  // of options_.kinds
    std::unique_ptr<std::byte[]> bounce_;  // host memory for local copies between two kinds

    // Sends and copies staged at begin (read_before_write, when buffers alias).
    std::unique_ptr<std::byte[]> stage_buffer_;
    std::int64_t stage_bytes_ = 0;
    std::vector<const void *> bound_;  // the slot addresses the transports were bound to
    bool bound_staged_ = false;
    // Point to point: carries what no other transport takes, in rounds, and what they
    // hand back (nullptr: a collective transport takes every message).
    std::unique_ptr<Transport> point_to_point_;
    Fallback *point_to_point_fallback_ = nullptr;
    // The other registered transports that took messages (or must run), and whether
    // one of them is collective (takes every message).
    std::vector<std::unique_ptr<Transport>> transports_;
    bool collective_ = false;

    bool in_flight_ = false, staged_ = false;
    std::size_t round_ = 0;  // the round in progress
    std::vector<const void *> slot_values_;
};

}  // namespace dm::exchange
