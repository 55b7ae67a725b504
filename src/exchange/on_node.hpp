// The on-node transport: between two ranks of one node, the receiver copies its
// message straight out of the sender's storage into its own layout, one pass over
// the bytes (no pack, no MPI copy, no unpack). It needs the sender's buffers in node
// memory (core/node_memory.hpp: arrays datamotion allocates); where they are not
// (memory a user adopted, buffers staged because they alias), the message travels
// as an ordinary message of the plan instead, decided per execution by the sender.
//
// Each execution, per message: at begin the sender posts a small control message
// (where its buffers are, or "by message"); the receiver, on its arrival, copies and
// answers "done"; the sender's end waits for that answer, so its buffers may change
// after end and not before. Where the sender's buffers are not node memory (adopted),
// it packs the message into a staging buffer of node memory (reserved with the plan,
// touched only when used) and the receiver unpacks it from there: two copies, where
// a message costs a pack, MPI's copies and an unpack. (Linux cross-memory attach,
// process_vm_readv, would need no staging but pins pages per run: for 31 MB in 288-byte
// runs it took 29 ms where a memcpy of the same runs took 7 ms.)
#pragma once

#include "core/node_memory.hpp"
#include "exchange/transport.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dm::exchange {

// Its price, under the auto executor. A message of at least this many bytes is read
// in place by the receiver: below it, the control message and answer that each
// execution adds cost more than the two copies saved (2-rank halos, MPICH: packed
// 4.1 against on-node 4.7 us at 4 KiB, on-node 3.9 against 6.6 us at 8 KiB).
constexpr std::int64_t kOnNodeMinBytes = std::int64_t{8} << 10;
// ... and its bytes at least this fraction of the cache lines its sender's blocks
// span (its density), and, below half, bytes x density at least kOnNodeMinBytes: a
// receiver reading in place fetches every line, where packing on the sender reads
// them from its own cache and one contiguous copy crosses over. 16 ranks of a
// 16-core Xeon: faces of 8-byte runs a line apart went faster packed (64 KiB: 160
// against 207 us), as did 8 KiB of 16-byte runs; 128 KiB of 16-byte runs, faster in
// place.
constexpr double kOnNodeMinDensity = 0.2;

std::unique_ptr<Transport> make_on_node(const TransportSetup &setup);

class OnNode final : public Transport {
public:
    // Local. The tags: two the plan reserved.
    explicit OnNode(const TransportSetup &setup);
    ~OnNode() override;
    OnNode(const OnNode &) = delete;
    OnNode &operator=(const OnNode &) = delete;

    const char *name() const override { return "onnode"; }
    // Both ends on this node, the only message between the pair (so that its
    // fallback message cannot be confused with another), every slot of the plan host
    // memory (a peer reads it in place; the kinds are the same on every rank, so both
    // ends decide alike), and the executor (or, for auto, the price: its size) asks for it.
    bool takes(const Message &m, const Peer &peer, const char *&why) const override;
    // Whether the sender's blocks are too sparse for reading in place (auto only).
    bool sparse(const Message &m) const;
    // Whether a sender's block is a transposed side: auto stages such a message (the
    // sender packs it in tiles) rather than letting the receiver read it in place.
    bool transposed(const Message &m) const;
    void add(std::size_t index, const Message &m, const Peer &peer, bool sending) override;
    // Point to point with the peers added: each sender tells its receiver its blocks
    // (on `tag`), the receiver pairs them with its own into copies; then the
    // persistent control requests are made.
    bool setup(int tag) override;
    // Sender: where each message's buffers are in node memory, or why the peer
    // cannot read them; found when the buffers change, not every execution.
    void bind(const void *const *slots, const std::byte *) override;
    // Receiver: posts the control receives. Sender: publishes where each message's
    // buffers are; where the peer cannot read them, packs the message into the
    // staging buffer and publishes that; where neither (the plan stages buffers that
    // alias, no staging room), that the message comes by MPI, handing it to the fallback.
    void start(const void *const *slots, bool staged) override;
    // Receiver: handles the control messages that have arrived (waits for all of
    // them when `wait`): copies the readable ones into `slots` and answers them;
    // hands the others to the fallback. True once none is left.
    bool progress(const void *const *slots, bool wait) override;
    // After progress(wait): waits until every reader is done with this rank's
    // buffers, and for this rank's answers to leave.
    void finish() override;
    // Why the sender's last execution sent plan send `index` by MPI (nullptr: it did not).
    const char *last_execution(std::size_t index) const override;

private:
    void add_send(int peer, int world_rank, std::size_t message, const std::vector<Block> &blocks);
    void add_recv(int peer, int world_rank, std::size_t message, const std::vector<Block> &blocks);
    void expect();
    void publish(const void *const *slots, bool allowed);

    // What a control message's first word says of the message.
    enum Mode : std::int64_t { InPlace = 0, ByMessage = 1, Staged = 2 };

    struct Send {
        int peer = -1, world = -1;
        std::size_t message = 0;
        std::vector<Block> blocks;
        std::vector<char> reads;   // per slot: whether the blocks read it
        std::vector<std::int64_t> control;  // [Mode, then (window, offset) per slot, or of the staged bytes]
        MPI_Request control_request = MPI_REQUEST_NULL, done_request = MPI_REQUEST_NULL;
        bool waiting = false;  // a reader's answer is due
        const char *unreadable = nullptr;  // why the bound buffers cannot be read in place (bind)
        std::int64_t bytes = 0, stage_at = 0;  // its bytes, and where they go in the staging buffer
        bool packed = false;                   // always staged: a transposed side (auto)
        std::string staged_note, message_note;  // describe()'s clauses for this unreadable (bind)
        const char *note = nullptr;             // how the last execution carried it, if not in place
    };
    struct Recv {
        int peer, world;
        std::size_t message;
        std::vector<Block> blocks;  // this rank's side
        std::vector<Copy> copies;   // from the sender's slots into this rank's
        std::vector<std::int64_t> control;
        MPI_Request control_request = MPI_REQUEST_NULL, done_request = MPI_REQUEST_NULL;
    };

    MPI_Comm comm_;
    int slots_, control_tag_, done_tag_;
    bool chosen_, automatic_;
    bool host_only_;  // every slot of the plan is host memory, on every rank
    Fallback *fallback_;
    std::vector<Send> sends_;
    std::vector<Recv> recvs_;
    std::vector<MPI_Request> pending_;  // the control receives of one execution
    std::vector<int> arrived_;
    std::vector<const std::byte *> remote_;
    std::size_t left_ = 0;  // control messages still to handle in this execution
    node::Scratch staging_;               // node memory for the sends of adopted buffers
    std::byte *staging_base_ = nullptr;
    node::Location staging_at_;           // where it lies (window -1: none)
};

}  // namespace dm::exchange
