// The point-to-point transport: each message in one or more MPI messages over
// persistent requests, each side taking its own way (direct, packed or datatype)
// from the cost model, or the one the executor forces (pack, datatype, hybrid). It
// carries every message no other transport takes, and those they hand back for one
// execution (its Fallback), so it plans every message of the plan: a plan has one.
//
// Packed sends leave in pipelined pieces of about chunk_bytes, each as soon as it is
// packed; on MPICH a datatype send of many runs is cut into pieces of at most
// split_runs runs, which that MPI copies once. Receivers learn the cuts at setup.
#pragma once

#include "exchange/transport.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace dm::exchange {

// The way an executor forces on every message that allows it.
enum class Force { None, Pack, Datatype, Hybrid };

// How one side of one message travels point to point, and what chose that way.
enum class Way { Direct, Packed, Datatype };
// Memory: a slot of the side is memory of another kind than host, which only the
// kind's kernels touch: packed through host memory (exchange/memory_kind.hpp).
enum class Why { Contiguous, Option, Model, Limits, Memory, Transposed };

// Point to point's state of one side of one message (the plan's Message holds what
// every transport shares): its way, its pieces and the MPI objects that carry them.
struct Side {
    Way way = Way::Packed;
    Why why = Why::Model;
    double cost[3] = {-1, -1, -1};  // the model's microseconds per way (-1: not a choice)
    bool cut_datatype = false;  // sending: a datatype goes in pieces of <= split_runs runs
    std::int64_t at = 0;  // offset in the pack buffer
    bool absolute = false;  // the types address memory (blocks in several slots)
    // Pieces: piece i is bytes [cuts[i], cuts[i+1]) of the message, one MPI message
    // each; its blocks are pieces[first[i]] .. pieces[first[i+1]] (sliced blocks).
    std::vector<std::int64_t> cuts;
    std::vector<Block> pieces;
    std::vector<std::size_t> first;
    // Whether piece i is one contiguous run on this side: it then travels in
    // place (pointer and count) whatever the message's way, never packed.
    std::vector<char> in_place;
    bool whole(std::size_t i) const { return in_place[i] != 0; }
    std::vector<MPI_Datatype> types;  // Datatype: one per piece
    std::size_t request = 0;  // its first piece's request
    std::size_t count() const { return cuts.size() - 1; }
};

// The registry's factories: point to point with `F` forced (None: the model's ways).
template <Force F>
std::unique_ptr<Transport> make_point_to_point(const TransportSetup &setup);

// Local. A committed datatype of n blocks: displacements are offsets in the blocks'
// slot, or, given `slots`, absolute addresses (MPI_BOTTOM).
MPI_Datatype blocks_type(const Block *blocks, std::size_t n, const void *const *slots);

class PointToPoint final : public Transport, private Fallback {
public:
    PointToPoint(const TransportSetup &setup, Force force);
    ~PointToPoint() override;
    PointToPoint(const PointToPoint &) = delete;
    PointToPoint &operator=(const PointToPoint &) = delete;

    const char *name() const override;
    Fallback *fallback() override { return this; }
    bool takes(const Message &, const Peer &, const char *&why) const override {
        why = "";
        return true;
    }
    void add(std::size_t, const Message &, const Peer &, bool) override {}
    // Chooses each side's way, cuts the sends into pieces and tells each receiver
    // where its sender cut (collective on comm, on `tag`); lays out the pack buffers
    // and the types that do not depend on addresses.
    void prepare(std::vector<Message> &sends, std::vector<Message> &recvs, const std::vector<Round> &rounds,
                 int tag) override;
    bool setup(int) override { return !sends_->empty() || !recvs_->empty(); }
    // The persistent requests (and address types) of these slots, every message's:
    // those other transports carry may come back in any execution.
    void bind(const void *const *slots, const std::byte *staged) override;
    void start(const void *const *, bool) override {}
    bool progress(const void *const *, bool) override { return true; }
    void finish() override {}

    void start_round(std::size_t round, const void *const *slots, bool staged) override;
    bool receive(std::size_t round, bool wait) override;
    bool sent(std::size_t round, bool wait) override;

    // describe(): how send (or receive) `index` of the plan travels by this transport.
    const Side &side(std::size_t index, bool sending) const { return (sending ? sends_side_ : recvs_side_)[index]; }

private:
    void choose(const Message &m, Side &s, bool sending) const;
    void cut_pieces(const Message &m, Side &s) const;
    void exchange_cuts();
    void make_types(Side &s, const void *const *slots) const;
    void free_types(bool absolute_only);
    void release_requests();
    void start_send(std::size_t round, std::size_t send);
    void send_by_message(std::size_t send) override;
    void receive_by_message(std::size_t recv) override;
    static std::pair<std::size_t, std::size_t> requests(const std::vector<Side> &sides, std::size_t first,
                                                        std::size_t end);

    MPI_Comm comm_;
    int tag_ = 0;
    const CostModel *model_;
    Force force_;
    const SlotKinds *kinds_;
    std::vector<Message> *sends_ = nullptr, *recvs_ = nullptr;  // the plan's, every one
    std::vector<Side> sends_side_, recvs_side_;  // how each travels here
    const std::vector<Round> *rounds_ = nullptr;

    std::unique_ptr<std::byte[]> send_buffer_, recv_buffer_;  // packed messages
    std::int64_t send_bytes_ = 0, recv_bytes_ = 0;
    // Persistent requests bound to the slot addresses of the last bind.
    std::vector<MPI_Request> send_requests_, recv_requests_;  // one per piece
    std::vector<std::pair<std::size_t, std::size_t>> recv_piece_;  // per receive request: (message, piece)
    std::vector<int> completed_;  // indices from MPI_Testsome
    // This execution's buffers, for sends handed back after begin.
    const void *const *slots_ = nullptr;
    bool staged_ = false;
};

}  // namespace dm::exchange
