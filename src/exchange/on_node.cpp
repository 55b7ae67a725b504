#include "exchange/on_node.hpp"

#include "core/error.hpp"
#include "core/node_memory.hpp"

#include <algorithm>

namespace dm::exchange {
namespace {

// One contiguous run: (slot, offset, bytes).
struct SlotRun {
    int slot;
    std::int64_t offset, bytes;
};

void runs_of(const Block &b, std::vector<SlotRun> &out) {
    for_each_run(b, [&](std::int64_t at) { out.push_back({b.slot, at, b.run}); });
}

// The copies that move the byte sequence of `from` (the sender's blocks) onto that
// of `to` (this rank's): the two lists of runs cut at every end of either.
std::vector<Copy> pair_up(const std::vector<Block> &from, const std::vector<Block> &to) {
    std::vector<SlotRun> a, b;
    for (const Block &x : from) runs_of(x, a);
    for (const Block &x : to) runs_of(x, b);
    std::vector<Copy> out;
    std::size_t i = 0, j = 0;
    std::int64_t done_a = 0, done_b = 0;  // bytes of run i / j already copied
    while (i < a.size() && j < b.size()) {
        const std::int64_t n = std::min(a[i].bytes - done_a, b[j].bytes - done_b);
        Copy c;
        c.from.slot = a[i].slot, c.from.offset = a[i].offset + done_a, c.from.run = n;
        c.to.slot = b[j].slot, c.to.offset = b[j].offset + done_b, c.to.run = n;
        append_copy(out, c);
        done_a += n, done_b += n;
        if (done_a == a[i].bytes) ++i, done_a = 0;
        if (done_b == b[j].bytes) ++j, done_b = 0;
    }
    if (i < a.size() || j < b.size())
        fail(DM_ERR_ARG, "exchange: internal error: the two sides of an on-node message differ in length");
    return out;
}

}  // namespace

std::unique_ptr<Transport> make_on_node(const TransportSetup &setup) { return std::make_unique<OnNode>(setup); }

OnNode::OnNode(const TransportSetup &setup)
    : comm_(setup.comm), slots_(setup.slots), control_tag_(setup.control_tag), done_tag_(setup.done_tag),
      chosen_(setup.chosen), automatic_(setup.automatic), host_only_(setup.kinds->host_only()),
      fallback_(setup.fallback),
      remote_(static_cast<std::size_t>(setup.slots)) {}

bool OnNode::sparse(const Message &m) const {
    if (m.sender_lines <= 0) return false;
    // The fraction of the fetched lines' bytes the message uses: under the least
    // density, or (wasting half or more) too small once the waste is counted,
    // packing at the sender wins.
    const double density = static_cast<double>(m.bytes) / (static_cast<double>(kCacheLine) * static_cast<double>(m.sender_lines));
    return density < kOnNodeMinDensity ||
           (density < 0.5 && static_cast<double>(m.bytes) * density < static_cast<double>(kOnNodeMinBytes));
}

bool OnNode::takes(const Message &m, const Peer &peer, const char *&why) const {
    why = "";
    if (!peer.same_node) return false;
    if (!chosen_ && !automatic_) why = "; same node, by message (the executor is forced)";
    else if (!node::enabled()) why = "; same node, by message (node memory is off: DATAMOTION_NODE_MEMORY=0)";
    else if (!host_only_) why = "; same node, by message (the plan has memory other than host, never read in place)";
    else if (peer.messages > 1) why = "; same node, by message (one of several messages between the pair)";
    else if (automatic_ && m.bytes < kOnNodeMinBytes)
        why = "; same node, but small: by message (control and answer would cost more)";
    else if (automatic_ && sparse(m))
        why = "; same node, but sparse in the sender's memory: by message (read in place, most of each cache "
              "line fetched would be wasted)";
    else if (automatic_ && transposed(m)) {
        // Packed by its sender from its own cache, unpacked contiguously: faster than the
        // receiver's transposing read of peer memory (4000², 2 ranks: 22.9 against 26.2 ms).
        why = "; on-node, a transposed side: the sender packs it in tiles into node memory, the receiver unpacks it";
        return true;
    } else {
        why = "; on-node: the receiver reads it in place from the sender's node memory";
        return true;
    }
    return false;
}

bool OnNode::transposed(const Message &m) const {
    return std::any_of(m.blocks.begin(), m.blocks.end(), [](const Block &b) { return crosses_levels(b); });
}

void OnNode::add(std::size_t index, const Message &m, const Peer &peer, bool sending) {
    if (sending) {
        add_send(m.peer, peer.world, index, m.blocks);
        sends_.back().packed = automatic_ && transposed(m);
    } else {
        add_recv(m.peer, peer.world, index, m.blocks);
    }
}

const char *OnNode::last_execution(std::size_t index) const {
    for (const Send &s : sends_)
        if (s.message == index) return s.note;
    return nullptr;
}

OnNode::~OnNode() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (Send &s : sends_)
        for (MPI_Request *r : {&s.control_request, &s.done_request})
            if (*r != MPI_REQUEST_NULL) MPI_Request_free(r);
    for (Recv &r : recvs_)
        for (MPI_Request *q : {&r.control_request, &r.done_request})
            if (*q != MPI_REQUEST_NULL) MPI_Request_free(q);
}

void OnNode::add_send(int peer, int world_rank, std::size_t message, const std::vector<Block> &blocks) {
    Send s;
    s.peer = peer, s.world = world_rank, s.message = message, s.blocks = blocks;
    s.reads.assign(static_cast<std::size_t>(slots_), 0);
    for (const Block &b : blocks) s.reads[static_cast<std::size_t>(b.slot)] = 1, s.bytes += b.bytes();
    s.control.assign(1 + 2 * static_cast<std::size_t>(slots_), 0);
    sends_.push_back(std::move(s));
}

void OnNode::add_recv(int peer, int world_rank, std::size_t message, const std::vector<Block> &blocks) {
    Recv r{peer, world_rank, message, blocks, {}, {}};
    r.control.assign(1 + 2 * static_cast<std::size_t>(slots_), 0);
    recvs_.push_back(std::move(r));
}

bool OnNode::setup(int tag) {
    std::vector<MPI_Request> requests(sends_.size(), MPI_REQUEST_NULL);
    const int block_bytes = static_cast<int>(sizeof(Block));
    for (std::size_t k = 0; k < sends_.size(); ++k)
        check_mpi(MPI_Isend(sends_[k].blocks.data(), static_cast<int>(sends_[k].blocks.size()) * block_bytes, MPI_BYTE,
                            sends_[k].peer, tag, comm_, &requests[k]),
                  "MPI_Isend");
    std::vector<Block> theirs;
    for (Recv &r : recvs_) {
        MPI_Status status;
        check_mpi(MPI_Probe(r.peer, tag, comm_, &status), "MPI_Probe");
        int bytes = 0;
        check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
        theirs.resize(static_cast<std::size_t>(bytes / block_bytes));
        check_mpi(MPI_Recv(theirs.data(), bytes, MPI_BYTE, r.peer, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
        r.copies = pair_up(theirs, r.blocks);
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    const int words = 1 + 2 * slots_;
    for (Send &s : sends_) {
        check_mpi(MPI_Send_init(s.control.data(), words, MPI_INT64_T, s.peer, control_tag_, comm_, &s.control_request),
                  "MPI_Send_init");
        check_mpi(MPI_Recv_init(nullptr, 0, MPI_BYTE, s.peer, done_tag_, comm_, &s.done_request), "MPI_Recv_init");
    }
    for (Recv &r : recvs_) {
        check_mpi(MPI_Recv_init(r.control.data(), words, MPI_INT64_T, r.peer, control_tag_, comm_, &r.control_request),
                  "MPI_Recv_init");
        check_mpi(MPI_Send_init(nullptr, 0, MPI_BYTE, r.peer, done_tag_, comm_, &r.done_request), "MPI_Send_init");
    }
    arrived_.assign(recvs_.size(), 0);
    pending_.assign(recvs_.size(), MPI_REQUEST_NULL);
    // The staging buffer, made on every rank of the plan alike (collective: this runs on
    // each, and what it tests is the same everywhere). Its pages cost nothing until a
    // send of adopted buffers writes them.
    if (host_only_ && (chosen_ || automatic_) && node::enabled()) {
        std::int64_t total = 0;
        for (Send &s : sends_) s.stage_at = total, total += (s.bytes + 63) / 64 * 64;
        staging_.reserve(comm_, total);
        staging_base_ = total > 0 ? staging_.get(comm_, total) : nullptr;
        if (staging_base_) staging_at_ = node::locate(staging_base_);
    }
    return !sends_.empty() || !recvs_.empty();
}

void OnNode::start(const void *const *slots, bool staged) {
    // Readers are told where the buffers are; a message they cannot read leaves
    // now, whatever its round.
    expect();
    publish(slots, !staged);
    for (const Send &s : sends_)
        if (s.control[0] == ByMessage) fallback_->send_by_message(s.message);
}

void OnNode::bind(const void *const *slots, const std::byte *) {
    for (Send &s : sends_) {
        s.unreadable = nullptr;
        for (int slot = 0; slot < slots_ && !s.unreadable; ++slot) {
            if (!s.reads[static_cast<std::size_t>(slot)]) continue;
            const node::Location at = node::locate(slots[slot]);
            if (at.window < 0) s.unreadable = "the sender's buffer is not node memory (adopted or private)";
            else if (!node::maps(at.window, s.world)) s.unreadable = "the receiver does not map the sender's node memory";
            s.control[1 + 2 * static_cast<std::size_t>(slot)] = at.window;
            s.control[2 + 2 * static_cast<std::size_t>(slot)] = at.offset;
        }
        // Made here, when the buffers change, not at every execution.
        s.staged_note = s.unreadable ? std::string("packed it into node memory for the receiver to unpack (") + s.unreadable + ")" : "";
        s.message_note = s.unreadable ? std::string("sent it by MPI: ") + s.unreadable : "";
    }
}

void OnNode::publish(const void *const *slots, bool allowed) {
    for (Send &s : sends_) {
        // Staged where the peer cannot read the buffers, or a transposed side is packed
        // better by its sender; in place where it can (also when there is no staging room).
        const bool stage = allowed && (s.unreadable || s.packed) && staging_at_.window >= 0 &&
                           node::maps(staging_at_.window, s.world);
        s.control[0] = !allowed || (s.unreadable && !stage) ? ByMessage : stage ? Staged : InPlace;
        s.note = nullptr;
        if (s.control[0] == ByMessage) {
            s.note = allowed ? s.message_note.c_str() : "sent it by MPI: buffers that alias are staged";
        } else if (s.control[0] == Staged) {
            // Packed with the host kernels: takes() declines plans with other kinds.
            std::byte *out = staging_base_ + s.stage_at;
            for (const Block &b : s.blocks) out = pack(out, static_cast<const std::byte *>(slots[b.slot]), b);
            s.control[1] = staging_at_.window, s.control[2] = staging_at_.offset + s.stage_at;
            if (s.unreadable) s.note = s.staged_note.c_str();
        }
        s.waiting = s.control[0] != ByMessage;
        if (s.waiting) check_mpi(MPI_Start(&s.done_request), "MPI_Start");
        check_mpi(MPI_Start(&s.control_request), "MPI_Start");
    }
}

void OnNode::expect() {
    left_ = recvs_.size();
    for (std::size_t k = 0; k < recvs_.size(); ++k) {
        check_mpi(MPI_Start(&recvs_[k].control_request), "MPI_Start");
        pending_[k] = recvs_[k].control_request;
    }
}

bool OnNode::progress(const void *const *slots, bool wait) {
    // The requests stay owned by recvs_: pending_ holds copies of their handles,
    // which MPI_Waitsome / MPI_Testsome only mark inactive.
    while (left_ > 0) {
        int n = 0;
        if (wait)
            check_mpi(MPI_Waitsome(static_cast<int>(pending_.size()), pending_.data(), &n, arrived_.data(),
                                   MPI_STATUSES_IGNORE),
                      "MPI_Waitsome");
        else
            check_mpi(MPI_Testsome(static_cast<int>(pending_.size()), pending_.data(), &n, arrived_.data(),
                                   MPI_STATUSES_IGNORE),
                      "MPI_Testsome");
        if (n == MPI_UNDEFINED) fail(DM_ERR_STATE, "exchange: internal error: on-node control messages lost");
        for (int i = 0; i < n; ++i) {
            Recv &r = recvs_[static_cast<std::size_t>(arrived_[static_cast<std::size_t>(i)])];
            --left_;
            if (r.control[0] == ByMessage) {
                fallback_->receive_by_message(r.message);
                continue;
            }
            if (r.control[0] == Staged) {  // the message's bytes in order, in the sender's staging buffer
                const std::byte *from = node::address(r.control[1], r.world, r.control[2]);
                if (!from) fail(DM_ERR_ARG, "exchange: internal error: rank ", r.peer, "'s staging buffer is not mapped here");
                for (const Block &b : r.blocks)
                    from = unpack(const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot])), b, from);
                check_mpi(MPI_Start(&r.done_request), "MPI_Start");
                continue;
            }
            for (int slot = 0; slot < slots_; ++slot)
                remote_[static_cast<std::size_t>(slot)] =
                    node::address(r.control[1 + 2 * static_cast<std::size_t>(slot)], r.world,
                                  r.control[2 + 2 * static_cast<std::size_t>(slot)]);
            for (const Copy &c : r.copies) {  // host memory both sides: takes() declines plans with other kinds
                const std::byte *from = remote_[static_cast<std::size_t>(c.from.slot)];
                if (!from) fail(DM_ERR_ARG, "exchange: internal error: rank ", r.peer, "'s node memory is not mapped here");
                copy(const_cast<std::byte *>(static_cast<const std::byte *>(slots[c.to.slot])), c.to, from, c.from);
            }
            check_mpi(MPI_Start(&r.done_request), "MPI_Start");
        }
        if (!wait) break;
    }
    return left_ == 0;
}

void OnNode::finish() {
    for (Recv &r : recvs_)
        if (r.control[0] != ByMessage) check_mpi(MPI_Wait(&r.done_request, MPI_STATUS_IGNORE), "MPI_Wait");
    for (Send &s : sends_) {
        check_mpi(MPI_Wait(&s.control_request, MPI_STATUS_IGNORE), "MPI_Wait");
        if (s.waiting) check_mpi(MPI_Wait(&s.done_request, MPI_STATUS_IGNORE), "MPI_Wait");
        s.waiting = false;
    }
}

}  // namespace dm::exchange
