#include "exchange/point_to_point.hpp"

#include "core/error.hpp"
#include "exchange/mpi_bytes.hpp"
#include "exchange/plan.hpp"

#include <algorithm>
#include <climits>

namespace dm::exchange {
namespace {

// Cuts bytes [from, to) of block b's byte sequence into blocks appended to out:
// a partial first row, whole rows at each level, a partial last row.
void slice(const Block &b, std::int64_t from, std::int64_t to, std::vector<Block> &out) {
    if (from >= to) return;
    if (b.levels == 0) {
        Block part = b;
        part.offset += from, part.run = to - from;
        out.push_back(part);
        return;
    }
    Block inner = b;  // one step of the outermost level
    inner.levels = b.levels - 1;
    std::copy(b.count + 1, b.count + b.levels, inner.count);
    std::copy(b.stride + 1, b.stride + b.levels, inner.stride);
    const std::int64_t size = inner.bytes();
    auto row = [&](std::int64_t i) {
        Block r = inner;
        r.offset = b.offset + i * b.stride[0];
        return r;
    };
    std::int64_t i = from / size, last = (to - 1) / size;
    if (i == last) return slice(row(i), from - i * size, to - i * size, out);
    if (from % size) slice(row(i), from % size, size, out), ++i;
    const std::int64_t whole_end = to % size ? last : last + 1;
    if (whole_end - i == 1) out.push_back(row(i));
    else if (whole_end > i) {
        Block rows = b;
        rows.offset = b.offset + i * b.stride[0], rows.count[0] = whole_end - i;
        out.push_back(rows);
    }
    if (to % size) slice(row(last), 0, to % size, out);
}

bool fits_int(const Block &b) {
    if (b.run > INT_MAX) return false;
    for (int l = 0; l < b.levels; ++l)
        if (b.count[l] > INT_MAX) return false;
    return true;
}

}  // namespace

template <Force F>
std::unique_ptr<Transport> make_point_to_point(const TransportSetup &setup) {
    // A forced way exists only where the executor names it; the planner makes the
    // model's point to point itself otherwise.
    if (F != Force::None && !setup.chosen) return nullptr;
    return std::make_unique<PointToPoint>(setup, F);
}
template std::unique_ptr<Transport> make_point_to_point<Force::None>(const TransportSetup &);
template std::unique_ptr<Transport> make_point_to_point<Force::Pack>(const TransportSetup &);
template std::unique_ptr<Transport> make_point_to_point<Force::Datatype>(const TransportSetup &);
template std::unique_ptr<Transport> make_point_to_point<Force::Hybrid>(const TransportSetup &);

MPI_Datatype blocks_type(const Block *blocks, std::size_t n, const void *const *slots) {
    // Runs of blocks of one shape become one hindexed_block of that shape's type; the
    // groups join in a struct. Displacements are offsets in the slot, or addresses.
    std::vector<MPI_Datatype> groups;
    std::vector<MPI_Aint> displs;
    auto where = [&](const Block &b) {
        MPI_Aint at = static_cast<MPI_Aint>(b.offset);
        if (slots) {
            MPI_Aint base = 0;
            check_mpi(MPI_Get_address(slots[b.slot], &base), "MPI_Get_address");
            at = MPI_Aint_add(base, at);
        }
        return at;
    };
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && blocks[j].same_shape(blocks[i])) ++j;
        const Block &b = blocks[i];
        MPI_Datatype unit = bytes_type(b.run);
        for (int l = b.levels - 1; l >= 0; --l) {
            MPI_Datatype outer;
            check_mpi(MPI_Type_create_hvector(static_cast<int>(b.count[l]), 1, static_cast<MPI_Aint>(b.stride[l]), unit,
                                              &outer),
                      "MPI_Type_create_hvector");
            MPI_Type_free(&unit);
            unit = outer;
        }
        displs.clear();
        for (std::size_t k = i; k < j; ++k) displs.push_back(where(blocks[k]));
        MPI_Datatype group;
        check_mpi(MPI_Type_create_hindexed_block(static_cast<int>(j - i), 1, displs.data(), unit, &group),
                  "MPI_Type_create_hindexed_block");
        MPI_Type_free(&unit);
        groups.push_back(group);
        i = j;
    }
    MPI_Datatype type;
    if (groups.size() == 1) {
        type = groups[0];
    } else {
        std::vector<int> ones(groups.size(), 1);
        std::vector<MPI_Aint> zeros(groups.size(), 0);
        check_mpi(MPI_Type_create_struct(static_cast<int>(groups.size()), ones.data(), zeros.data(), groups.data(),
                                         &type),
                  "MPI_Type_create_struct");
        for (MPI_Datatype &g : groups) MPI_Type_free(&g);
    }
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
    return type;
}

PointToPoint::PointToPoint(const TransportSetup &setup, Force force)
    : comm_(setup.comm), model_(setup.model), force_(force),
      kinds_(setup.kinds) {}

PointToPoint::~PointToPoint() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    release_requests();
    free_types(false);
}

namespace {

const char *force_name(Force force) {
    switch (force) {
        case Force::Pack: return "pack";
        case Force::Datatype: return "datatype";
        case Force::Hybrid: return "hybrid";
        default: return "point to point";
    }
}

}  // namespace

const char *PointToPoint::name() const { return force_name(force_); }

ExecutorWays executor_ways(Executor e) {
    using W = PricedWay;
    const std::string name = e.name();
    if (name == force_name(Force::Pack)) return {W::Packed, W::Packed, true};
    if (name == force_name(Force::Datatype)) return {W::Datatype, W::Datatype, true};
    if (name == force_name(Force::Hybrid)) return {W::Packed, W::Datatype, true};
    return {};  // auto, and the transports whose other messages go as auto
}

void PointToPoint::choose(const Message &m, Side &s, bool sending) const {
    // Each side prices its own ways with the model of this MPI (cost.hpp) and takes
    // the cheapest; an executor named by option or DM_EXCHANGE overrides the model
    // where the message allows that way.
    const CostModel &model = *model_;
    const bool contiguous = m.blocks.size() == 1 && m.blocks[0].levels == 0;
    bool host = true;  // MPI may read or write this side's memory itself
    for (const Block &b : m.blocks) host = host && kinds_->host(b.slot);
    bool describable = m.blocks.size() <= INT_MAX;
    for (const Block &b : m.blocks) describable = describable && fits_int(b);
    // Blocks of a transposed side (crosses_levels): the pack kernels tile them, an MPI
    // datatype walks them one element at a time (Open MPI's and MPICH's engines alike).
    bool transposed = false;
    for (const Block &b : m.blocks) transposed = transposed || crosses_levels(b);
    // The one price list (cost.cpp), also behind redistribution's method choice
    // and datamotion calibrate.
    const SidePrice price =
        sending ? price_send(model, m.bytes, m.runs, m.where) : price_recv(model, m.bytes, m.runs, m.where);
    s.cost[1] = price.packed, s.cost[2] = price.datatype;
    s.cut_datatype = sending && price.cut;  // cut into pieces of <= split_runs runs (cut_pieces)
    const Force e = force_;
    if (!host) s.way = Way::Packed, s.why = Why::Memory;
    else if (contiguous) s.way = Way::Direct, s.why = Why::Contiguous;
    else if (!describable) s.way = Way::Packed, s.why = Why::Limits;
    else if (e == Force::None && transposed) s.way = Way::Packed, s.why = Why::Transposed;
    else if (e == Force::Pack || (e == Force::Hybrid && sending)) s.way = Way::Packed, s.why = Why::Option;
    else if (e == Force::Datatype || e == Force::Hybrid) s.way = Way::Datatype, s.why = Why::Option;
    else s.way = s.cost[2] < s.cost[1] ? Way::Datatype : Way::Packed, s.why = Why::Model;
}

void PointToPoint::cut_pieces(const Message &m, Side &s) const {
    // The sender's cuts: packed messages in pipelined pieces of about chunk_bytes
    // (64-byte aligned), datatypes on MPICH after every split_runs runs where
    // choose() found that cheaper; the rest in one piece.
    const CostModel &model = *model_;
    s.cuts.assign(1, 0);
    if (s.way == Way::Packed && m.bytes > model.chunk_bytes) {
        const std::int64_t n = (m.bytes + model.chunk_bytes - 1) / model.chunk_bytes;
        for (std::int64_t i = 1; i < n; ++i) s.cuts.push_back((m.bytes / n * i) & ~std::int64_t{63});
    } else if (s.way == Way::Datatype && s.cut_datatype) {
        std::int64_t at = 0, runs_left = model.split_runs;  // runs before the next cut
        for (const Block &b : m.blocks) {
            std::int64_t runs = b.runs();
            while (runs > runs_left) {
                at += runs_left * b.run, runs -= runs_left;
                s.cuts.push_back(at);
                runs_left = model.split_runs;
            }
            at += runs * b.run, runs_left -= runs;
        }
        if (s.cuts.back() == m.bytes) s.cuts.pop_back();
    }
    s.cuts.push_back(m.bytes);
}

void PointToPoint::exchange_cuts() {
    // Each sender tells its receiver where it cuts (the interior cuts, possibly none)
    // and, last, the cache lines its blocks span (for the on-node transport's choice);
    // messages between a pair keep their order, so the n-th message from a peer
    // answers the n-th receive from it.
    std::vector<MPI_Request> requests(sends_->size(), MPI_REQUEST_NULL);
    std::vector<std::vector<std::int64_t>> told(sends_->size());
    for (std::size_t i = 0; i < sends_->size(); ++i) {
        Message &m = (*sends_)[i];
        const Side &s = sends_side_[i];
        m.sender_lines = lines(m.blocks.data(), m.blocks.size());
        told[i].assign(s.cuts.begin() + 1, s.cuts.end() - 1);
        told[i].push_back(m.sender_lines);
        check_mpi(MPI_Isend(told[i].data(), static_cast<int>(told[i].size()), MPI_INT64_T, m.peer, tag_, comm_,
                            &requests[i]),
                  "MPI_Isend");
    }
    for (std::size_t k = 0; k < recvs_->size(); ++k) {
        Message &m = (*recvs_)[k];
        std::vector<std::int64_t> &cuts = recvs_side_[k].cuts;
        MPI_Status status;
        check_mpi(MPI_Probe(m.peer, tag_, comm_, &status), "MPI_Probe");
        int n = 0;
        check_mpi(MPI_Get_count(&status, MPI_INT64_T, &n), "MPI_Get_count");
        cuts.assign(static_cast<std::size_t>(n) + 1, 0);
        check_mpi(MPI_Recv(cuts.data() + 1, n, MPI_INT64_T, m.peer, tag_, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
        m.sender_lines = cuts.back();
        cuts.back() = m.bytes;
        for (std::size_t i = 1; i < cuts.size(); ++i)
            if (cuts[i] <= cuts[i - 1])
                fail(DM_ERR_ARG, "exchange: internal error: rank ", m.peer, " cuts a message of ", m.bytes,
                     " bytes at ", cuts[i]);
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void PointToPoint::prepare(std::vector<Message> &sends, std::vector<Message> &recvs, const std::vector<Round> &rounds,
                           int tag) {
    sends_ = &sends, recvs_ = &recvs, rounds_ = &rounds, tag_ = tag;
    sends_side_.assign(sends.size(), Side{}), recvs_side_.assign(recvs.size(), Side{});
    for (std::size_t k = 0; k < sends.size(); ++k) {
        Side &s = sends_side_[k];
        choose(sends[k], s, true);
        cut_pieces(sends[k], s);
        if (s.way == Way::Packed) s.at = send_bytes_, send_bytes_ += sends[k].bytes;
    }
    for (std::size_t k = 0; k < recvs.size(); ++k) {
        Side &s = recvs_side_[k];
        choose(recvs[k], s, false);
        if (s.way == Way::Packed) s.at = recv_bytes_, recv_bytes_ += recvs[k].bytes;
    }
    exchange_cuts();
    std::size_t max_recv = 0;
    for (bool sending : {true, false}) {
        const std::vector<Message> &list = sending ? sends : recvs;
        std::size_t request = 0;
        for (std::size_t index = 0; index < list.size(); ++index) {
            const Message &m = list[index];
            Side &s = (sending ? sends_side_ : recvs_side_)[index];
            // The blocks of every piece, sliced once here so the hot path only walks them.
            s.first.assign(1, 0);
            std::size_t b = 0;
            std::int64_t start = 0;  // of block b in the message
            for (std::size_t i = 0; i + 1 < s.cuts.size(); ++i) {
                const std::int64_t from = s.cuts[i], to = s.cuts[i + 1];
                while (b < m.blocks.size() && start + m.blocks[b].bytes() <= from) start += m.blocks[b++].bytes();
                for (std::size_t k = b; k < m.blocks.size() && start < to;) {
                    const std::int64_t size = m.blocks[k].bytes();
                    slice(m.blocks[k], std::max<std::int64_t>(from - start, 0), std::min(to - start, size), s.pieces);
                    if (start + size > to) break;
                    start += size, ++k, b = k;
                }
                s.first.push_back(s.pieces.size());
            }
            s.in_place.assign(s.count(), 0);
            for (std::size_t i = 0; i < s.count(); ++i)
                s.in_place[i] = s.first[i + 1] - s.first[i] == 1 && s.pieces[s.first[i]].levels == 0 &&
                                kinds_->host(s.pieces[s.first[i]].slot);
            s.request = request, request += s.count();
            if (s.way != Way::Datatype) continue;
            s.absolute = false;
            for (const Block &x : m.blocks) s.absolute = s.absolute || x.slot != m.blocks[0].slot;
            s.types.assign(s.count(), MPI_DATATYPE_NULL);
            if (!s.absolute) make_types(s, nullptr);
        }
        if (!sending) max_recv = request;
    }
    completed_.assign(max_recv, 0);
    if (send_bytes_) send_buffer_.reset(new std::byte[static_cast<std::size_t>(send_bytes_)]);
    if (recv_bytes_) recv_buffer_.reset(new std::byte[static_cast<std::size_t>(recv_bytes_)]);
}

void PointToPoint::make_types(Side &s, const void *const *slots) const {
    for (std::size_t i = 0; i < s.count(); ++i)
        s.types[i] = blocks_type(s.pieces.data() + s.first[i], s.first[i + 1] - s.first[i], slots);
}

void PointToPoint::free_types(bool absolute_only) {
    for (auto *sides : {&sends_side_, &recvs_side_})
        for (Side &s : *sides)
            if (s.absolute || !absolute_only)
                for (MPI_Datatype &t : s.types)
                    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
}

void PointToPoint::release_requests() {
    for (auto *list : {&send_requests_, &recv_requests_}) {
        for (MPI_Request &r : *list)
            if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
        list->clear();
    }
}

void PointToPoint::bind(const void *const *slots, const std::byte *staged) {
    release_requests();
    free_types(true);
    for (auto *sides : {&sends_side_, &recvs_side_})
        for (Side &s : *sides)
            if (s.way == Way::Datatype && s.absolute) make_types(s, slots);

    auto base = [&](const Block &b) { return const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot])); };
    // The buffer, count and type of one piece of one side of a message.
    auto endpoint = [&](const Message &m, const Side &s, std::size_t i, std::byte *packed, std::int64_t staged_at,
                        void *&buffer, int &count, MPI_Datatype &type, MPI_Datatype &owned) {
        owned = MPI_DATATYPE_NULL;
        const bool in_place = staged_at < 0 && s.whole(i);
        if (s.way == Way::Datatype && staged_at < 0 && !in_place) {
            buffer = s.absolute ? MPI_BOTTOM : base(m.blocks[0]);
            count = 1, type = s.types[i];
            return;
        }
        const Block &only = s.pieces[s.first[i]];
        buffer = in_place                ? base(only) + only.offset
                 : staged_at >= 0        ? const_cast<std::byte *>(staged) + staged_at + s.cuts[i]
                 : s.way == Way::Packed  ? packed + s.at + s.cuts[i]
                                         : base(m.blocks[0]) + m.blocks[0].offset + s.cuts[i];
        const std::int64_t bytes = s.cuts[i + 1] - s.cuts[i];
        if (bytes <= INT_MAX) {
            count = static_cast<int>(bytes), type = MPI_BYTE;
        } else {
            owned = type = bytes_type(bytes);
            check_mpi(MPI_Type_commit(&owned), "MPI_Type_commit");
            count = 1;
        }
    };
    recv_requests_.clear(), send_requests_.clear(), recv_piece_.clear();
    void *buffer = nullptr;
    int count = 0;
    MPI_Datatype type, owned;
    const std::vector<Message> &recvs = *recvs_;
    for (std::size_t k = 0; k < recvs.size(); ++k)
        for (std::size_t i = 0; i < recvs_side_[k].count(); ++i) {
            endpoint(recvs[k], recvs_side_[k], i, recv_buffer_.get(), -1, buffer, count, type, owned);
            recv_requests_.push_back(MPI_REQUEST_NULL);
            recv_piece_.push_back({k, i});
            check_mpi(MPI_Recv_init(buffer, count, type, recvs[k].peer, tag_, comm_, &recv_requests_.back()),
                      "MPI_Recv_init");
            if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
        }
    for (std::size_t k = 0; k < sends_->size(); ++k)
        for (std::size_t i = 0; i < sends_side_[k].count(); ++i) {
            const Message &m = (*sends_)[k];
            endpoint(m, sends_side_[k], i, send_buffer_.get(), staged ? m.staged_at : -1, buffer, count, type, owned);
            send_requests_.push_back(MPI_REQUEST_NULL);
            check_mpi(MPI_Send_init(buffer, count, type, m.peer, tag_, comm_, &send_requests_.back()), "MPI_Send_init");
            if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
        }
}

std::pair<std::size_t, std::size_t> PointToPoint::requests(const std::vector<Side> &sides, std::size_t first,
                                                           std::size_t end) {
    if (first == end) return {0, 0};
    return {sides[first].request, sides[end - 1].request + sides[end - 1].count()};
}

void PointToPoint::start_round(std::size_t r, const void *const *slots, bool staged) {
    slots_ = slots, staged_ = staged;
    const Round &round = (*rounds_)[r];
    for (std::size_t k = round.first_recv; k < round.end_recv; ++k)
        if ((*recvs_)[k].transport == this)  // another transport's receive starts only if its sender falls back
            receive_by_message(k);
    for (std::size_t k = round.first_send; k < round.end_send; ++k)
        if ((*sends_)[k].transport == this) start_send(r, k);
}

void PointToPoint::start_send(std::size_t r, std::size_t send) {
    const Side &s = sends_side_[send];
    if (staged_ || s.way != Way::Packed) {
        check_mpi(MPI_Startall(static_cast<int>(s.count()), &send_requests_[s.request]), "MPI_Startall");
        return;
    }
    // Pipelined: each piece leaves as soon as it is packed, and arrivals are
    // unpacked while later pieces are packed.
    for (std::size_t i = 0; i < s.count(); ++i) {
        std::byte *out = send_buffer_.get() + s.at + s.cuts[i];
        if (s.whole(i)) {  // sent in place
            check_mpi(MPI_Start(&send_requests_[s.request + i]), "MPI_Start");
            continue;
        }
        for (std::size_t b = s.first[i]; b < s.first[i + 1]; ++b)
            out = kinds_->pack(out, static_cast<const std::byte *>(slots_[s.pieces[b].slot]), s.pieces[b]);
        check_mpi(MPI_Start(&send_requests_[s.request + i]), "MPI_Start");
        if (s.count() > 1) receive(r, false);
    }
}

void PointToPoint::send_by_message(std::size_t send) { start_send(0, send); }

void PointToPoint::receive_by_message(std::size_t recv) {
    const Side &s = recvs_side_[recv];
    check_mpi(MPI_Startall(static_cast<int>(s.count()), &recv_requests_[s.request]), "MPI_Startall");
}

bool PointToPoint::receive(std::size_t r, bool wait) {
    // Unpacks the packed pieces that have arrived.
    const Round &round = (*rounds_)[r];
    const auto [first, end] = requests(recvs_side_, round.first_recv, round.end_recv);
    if (end == first) return true;
    int done = 0;
    const int n = static_cast<int>(end - first);
    if (wait)
        check_mpi(MPI_Waitsome(n, &recv_requests_[first], &done, completed_.data(), MPI_STATUSES_IGNORE), "MPI_Waitsome");
    else
        check_mpi(MPI_Testsome(n, &recv_requests_[first], &done, completed_.data(), MPI_STATUSES_IGNORE), "MPI_Testsome");
    if (done == MPI_UNDEFINED) return true;
    for (int j = 0; j < done; ++j) {
        const auto [k, i] = recv_piece_[first + static_cast<std::size_t>(completed_[static_cast<std::size_t>(j)])];
        const Side &s = recvs_side_[k];
        if (s.way != Way::Packed || s.whole(i)) continue;
        const std::byte *in = recv_buffer_.get() + s.at + s.cuts[i];
        for (std::size_t b = s.first[i]; b < s.first[i + 1]; ++b)
            in = kinds_->unpack(const_cast<std::byte *>(static_cast<const std::byte *>(slots_[s.pieces[b].slot])),
                                s.pieces[b], in);
    }
    return false;
}

bool PointToPoint::sent(std::size_t r, bool wait) {
    const Round &round = (*rounds_)[r];
    const auto [first, end] = requests(sends_side_, round.first_send, round.end_send);
    if (end == first) return true;
    if (wait) {
        check_mpi(MPI_Waitall(static_cast<int>(end - first), &send_requests_[first], MPI_STATUSES_IGNORE), "MPI_Waitall");
        return true;
    }
    int done = 1;
    check_mpi(MPI_Testall(static_cast<int>(end - first), &send_requests_[first], &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    return done != 0;
}

}  // namespace dm::exchange
