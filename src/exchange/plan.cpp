#include "exchange/plan.hpp"

#include "core/error.hpp"
#include "core/node_memory.hpp"
#include "exchange/mpi_bytes.hpp"
#include "exchange/tags.hpp"
#include "exchange/transport.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>

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

std::string human_bytes(std::int64_t n) {
    if (n < 1024) return std::to_string(n) + " B";
    if (n < (1 << 20)) return general_text(static_cast<double>(n) / 1024, 3) + " KiB";
    return general_text(static_cast<double>(n) / (1 << 20), 3) + " MiB";
}

// Appends its parts (strings, integers, and doubles written to 3 significant digits)
// to out: describe()'s text, built without iostreams (see core/text.hpp).
struct Text {
    std::string out;
    template <class T>
    Text &operator<<(const T &part) {
        if constexpr (std::is_floating_point_v<T>) out += general_text(part, 3);
        else detail::append(out, part);
        return *this;
    }
};

}  // namespace

Executor executor_named(const std::string &name) {
    if (name == "auto") return Executor::Auto;
    for (const Registration &r : transports())
        if (name == r.name) return Executor(r.name);
    std::string names;
    const std::vector<std::string> all = executor_names(false);
    for (std::size_t i = 0; i < all.size(); ++i) names += (i ? i + 1 == all.size() ? " or " : ", " : "") + all[i];
    fail(DM_ERR_ARG, "exchange: unknown executor '", name, "' (", names, ")");
}

std::vector<std::string> executor_names(bool selectable) {
    std::vector<std::string> names{"auto"};
    for (const Registration &r : transports())
        if (r.selectable || !selectable) names.push_back(r.name);
    return names;
}

Executor::operator int() const {
    const std::vector<std::string> names = executor_names(false);
    return static_cast<int>(std::find(names.begin(), names.end(), name_) - names.begin());
}

bool Executor::operator==(const Executor &other) const { return std::strcmp(name_, other.name_) == 0; }

Executor executor_from_environment(Executor fallback) {
    const char *value = std::getenv("DM_EXCHANGE");
    if (!value || !*value) return fallback;
    const Executor e = executor_named(value);
    for (const Registration &r : transports())  // a collective only where a capability asks for it
        if (e.name() == std::string(r.name) && !r.selectable) return fallback;
    return e;
}

Plan::Plan(MPI_Comm comm, int slots, std::string name)
    : comm_(comm), slots_(slots), name_(std::move(name)), read_slot_(static_cast<std::size_t>(slots)),
      written_slot_(static_cast<std::size_t>(slots)), slot_values_(static_cast<std::size_t>(slots)) {}

Plan::~Plan() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (in_flight_) {  // the caller's contract is broken; complete rather than leave MPI writing freed memory
        try {
            end();
        } catch (...) {
        }
    }
    release_requests();
    free_types(false);
}

void Plan::send(int peer, const Block &b, int round) {
    if (b.bytes() == 0) return;
    send_pieces_.push_back({round, {peer, b}});
}

void Plan::recv(int peer, const Block &b, int round) {
    if (b.bytes() == 0) return;
    recv_pieces_.push_back({round, {peer, b}});
}

void Plan::copy(const Copy &c) {
    if (c.to.bytes() == 0) return;
    if (!copies_.empty()) {
        Copy &last = copies_.back();
        Copy joined;
        if (join(last.from, c.from, joined.from) && join(last.to, c.to, joined.to) &&
            joined.from.run == joined.to.run && joined.from.levels == joined.to.levels &&
            std::equal(joined.from.count, joined.from.count + joined.from.levels, joined.to.count)) {
            last = joined;
            return;
        }
    }
    copies_.push_back(c);
}

void Plan::group(std::vector<std::pair<int, std::pair<int, Block>>> &pieces, std::vector<Message> &out) const {
    int me = 0, size = 1;
    MPI_Comm_rank(comm_, &me);
    MPI_Comm_size(comm_, &size);
    std::stable_sort(pieces.begin(), pieces.end(), [](const auto &x, const auto &y) {
        return std::tie(x.first, x.second.first) < std::tie(y.first, y.second.first);
    });
    for (const auto &[round, piece] : pieces) {
        const auto &[peer, block] = piece;
        if (peer < 0 || peer >= size || peer == me)
            fail(DM_ERR_ARG, name_, ": internal error: a message to rank ", peer, " of ", size, " from rank ", me);
        if (out.empty() || out.back().peer != peer || out.back().round != round) {
            out.emplace_back();
            out.back().peer = peer, out.back().round = round;
        }
        Message &m = out.back();
        Block joined;
        if (!m.blocks.empty() && join(m.blocks.back(), block, joined)) m.blocks.back() = joined;
        else m.blocks.push_back(block);
        m.bytes += block.bytes();
    }
    for (Message &m : out)
        for (const Block &b : m.blocks) m.runs += b.runs();
    pieces.clear();
    pieces.shrink_to_fit();
}

void Plan::choose(Message &m, bool sending) const {
    // Each side prices its own ways with the model of this MPI (cost.hpp) and takes
    // the cheapest; an executor named by option or DM_EXCHANGE overrides the model
    // where the message allows that way.
    const CostModel &model = *model_;
    const bool contiguous = m.blocks.size() == 1 && m.blocks[0].levels == 0;
    bool describable = m.blocks.size() <= INT_MAX;
    for (const Block &b : m.blocks) describable = describable && fits_int(b);
    const double bytes = static_cast<double>(m.bytes), runs = static_cast<double>(m.runs);
    const double chunks = static_cast<double>((m.bytes + model.chunk_bytes - 1) / model.chunk_bytes);
    if (sending) {
        m.cost[1] = model.send_packed.at(chunks, bytes, runs);
        const double split = static_cast<double>(model.split_runs ? (m.runs + model.split_runs - 1) / model.split_runs : 0);
        const bool single_copy = model.split_runs > 0 && m.bytes >= model.split_min_bytes * split;
        const double cut = model.send_split.at(split, bytes, runs), whole = model.send_datatype.at(1, bytes, runs);
        // A datatype of at most split_runs runs is already one such piece: the MPI
        // copies it once whatever send_datatype says; longer ones are cut (by
        // cut_pieces) when that is cheaper.
        m.cut_datatype = single_copy && m.runs > model.split_runs && cut <= whole;
        m.cost[2] = single_copy && (m.runs <= model.split_runs || m.cut_datatype) ? cut : whole;
    } else {
        m.cost[1] = model.recv_packed.at(1, bytes, runs);
        m.cost[2] = model.recv_datatype.at(1, bytes, runs);
    }
    const Forced e = forced_;
    if (collective_) m.way = Way::Datatype, m.why = Why::Option;
    else if (contiguous) m.way = Way::Direct, m.why = Why::Contiguous;
    else if (!describable) m.way = Way::Packed, m.why = Why::Limits;
    else if (e == Forced::Pack || (e == Forced::Hybrid && sending)) m.way = Way::Packed, m.why = Why::Option;
    else if (e == Forced::Datatype || e == Forced::Hybrid) m.way = Way::Datatype, m.why = Why::Option;
    else m.way = m.cost[2] < m.cost[1] ? Way::Datatype : Way::Packed, m.why = Why::Model;
}

void Plan::cut_pieces(Message &m) const {
    // The sender's cuts: packed messages in pipelined pieces of about chunk_bytes
    // (64-byte aligned), datatypes on MPICH after every split_runs runs where
    // choose() found that cheaper; the rest in one piece.
    const CostModel &model = *model_;
    m.cuts.assign(1, 0);
    if (!collective_ && m.way == Way::Packed && m.bytes > model.chunk_bytes) {
        const std::int64_t n = (m.bytes + model.chunk_bytes - 1) / model.chunk_bytes;
        for (std::int64_t i = 1; i < n; ++i) m.cuts.push_back((m.bytes / n * i) & ~std::int64_t{63});
    } else if (!collective_ && m.way == Way::Datatype && m.cut_datatype) {
        std::int64_t at = 0, runs_left = model.split_runs;  // runs before the next cut
        for (const Block &b : m.blocks) {
            std::int64_t runs = b.runs();
            while (runs > runs_left) {
                at += runs_left * b.run, runs -= runs_left;
                m.cuts.push_back(at);
                runs_left = model.split_runs;
            }
            at += runs * b.run, runs_left -= runs;
        }
        if (m.cuts.back() == m.bytes) m.cuts.pop_back();
    }
    m.cuts.push_back(m.bytes);
}

void Plan::exchange_cuts() {
    // Each sender tells its receiver where it cuts (the interior cuts, possibly none);
    // messages between a pair keep their order, so the n-th message from a peer
    // answers the n-th receive from it.
    std::vector<MPI_Request> requests(sends_.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < sends_.size(); ++i) {
        const Message &m = sends_[i];
        check_mpi(MPI_Isend(m.cuts.data() + 1, static_cast<int>(m.cuts.size() - 2), MPI_INT64_T, m.peer, tag_, comm_,
                            &requests[i]),
                  "MPI_Isend");
    }
    for (Message &m : recvs_) {
        MPI_Status status;
        check_mpi(MPI_Probe(m.peer, tag_, comm_, &status), "MPI_Probe");
        int n = 0;
        check_mpi(MPI_Get_count(&status, MPI_INT64_T, &n), "MPI_Get_count");
        m.cuts.assign(static_cast<std::size_t>(n) + 2, 0);
        check_mpi(MPI_Recv(m.cuts.data() + 1, n, MPI_INT64_T, m.peer, tag_, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
        m.cuts.back() = m.bytes;
        for (std::size_t i = 1; i < m.cuts.size(); ++i)
            if (m.cuts[i] <= m.cuts[i - 1])
                fail(DM_ERR_ARG, name_, ": internal error: rank ", m.peer, " cuts a message of ", m.bytes,
                     " bytes at ", m.cuts[i]);
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void Plan::finish(const Options &options) {
    options_ = options;
    if (options_.executor == Executor::Auto) options_.executor = executor_from_environment(Executor::Auto);
    model_ = &cost_model();
    tag_ = next_plan_tag(comm_), control_tag_ = next_plan_tag(comm_), done_tag_ = next_plan_tag(comm_);
    group(send_pieces_, sends_);
    group(recv_pieces_, recvs_);
    const std::string executor = options_.executor.name();
    forced_ = executor == "pack" ? Forced::Pack : executor == "datatype" ? Forced::Datatype
            : executor == "hybrid" ? Forced::Hybrid : Forced::None;
    TransportSetup setup{comm_, slots_, control_tag_, done_tag_, model_, false, executor == "auto", this};
    for (const Registration &r : transports()) {
        if (!r.make) continue;  // a way of point to point
        setup.chosen = executor == r.name;
        transports_.push_back(r.make(setup));
        collective_ = collective_ || (setup.chosen && transports_.back()->collective());
    }

    // Rounds: the distinct round numbers of either side, in order.
    std::vector<int> numbers;
    for (const auto *list : {&sends_, &recvs_})
        for (const Message &m : *list) numbers.push_back(m.round);
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    if (numbers.empty()) numbers.push_back(0);
    if (collective_ && numbers.size() > 1)
        fail(DM_ERR_ARG, name_, ": the alltoallw executor runs one round");
    std::size_t s = 0, r = 0;
    for (int number : numbers) {
        Round round{s, s, r, r};
        while (round.end_send < sends_.size() && sends_[round.end_send].round == number) ++round.end_send;
        while (round.end_recv < recvs_.size() && recvs_[round.end_recv].round == number) ++round.end_recv;
        s = round.end_send, r = round.end_recv;
        rounds_.push_back(round);
    }

    // Ways, pieces, buffer offsets, and the types that do not depend on addresses.
    std::int64_t staged = 0;
    for (Message &m : sends_) {
        choose(m, true);
        cut_pieces(m);
        if (m.way == Way::Packed) m.at = send_bytes_, send_bytes_ += m.bytes;
        staged += m.bytes;
        for (const Block &b : m.blocks) read_slot_[static_cast<std::size_t>(b.slot)] = true;
    }
    for (Message &m : recvs_) {
        choose(m, false);
        if (m.way == Way::Packed) m.at = recv_bytes_, recv_bytes_ += m.bytes;
        for (const Block &b : m.blocks) written_slot_[static_cast<std::size_t>(b.slot)] = true;
    }
    if (collective_)
        for (Message &m : recvs_) m.cuts = {0, m.bytes};
    else
        exchange_cuts();
    place();
    for (const Copy &c : copies_) {
        staged += c.to.bytes();
        read_slot_[static_cast<std::size_t>(c.from.slot)] = true;
        written_slot_[static_cast<std::size_t>(c.to.slot)] = true;
    }
    if (options_.read_before_write && collective_)
        fail(DM_ERR_ARG, name_, ": the alltoallw executor cannot stage aliased buffers");
    if (options_.read_before_write) stage_bytes_ = staged;
    std::size_t max_recv = 0;
    for (auto *list : {&sends_, &recvs_}) {
        std::size_t request = 0;
        for (Message &m : *list) {
            // The blocks of every piece, sliced once here so the hot path only walks them.
            m.first.assign(1, 0);
            std::size_t b = 0;
            std::int64_t start = 0;  // of block b in the message
            for (std::size_t i = 0; i + 1 < m.cuts.size(); ++i) {
                const std::int64_t from = m.cuts[i], to = m.cuts[i + 1];
                while (b < m.blocks.size() && start + m.blocks[b].bytes() <= from) start += m.blocks[b++].bytes();
                for (std::size_t k = b; k < m.blocks.size() && start < to;) {
                    const std::int64_t size = m.blocks[k].bytes();
                    slice(m.blocks[k], std::max<std::int64_t>(from - start, 0), std::min(to - start, size), m.pieces);
                    if (start + size > to) break;
                    start += size, ++k, b = k;
                }
                m.first.push_back(m.pieces.size());
            }
            m.in_place.assign(m.count(), 0);
            for (std::size_t i = 0; i < m.count(); ++i)
                m.in_place[i] = m.first[i + 1] - m.first[i] == 1 && m.pieces[m.first[i]].levels == 0 &&
                                !collective_;
            m.request = request, request += m.count();
            if (m.way != Way::Datatype) continue;
            m.absolute = collective_;
            for (const Block &x : m.blocks) m.absolute = m.absolute || x.slot != m.blocks[0].slot;
            m.types.assign(m.count(), MPI_DATATYPE_NULL);
            if (!m.absolute) make_types(m, nullptr);
        }
        if (list == &recvs_) max_recv = request;
    }
    completed_.assign(max_recv, 0);
    if (send_bytes_) send_buffer_.reset(new std::byte[static_cast<std::size_t>(send_bytes_)]);
    if (recv_bytes_) recv_buffer_.reset(new std::byte[static_cast<std::size_t>(recv_bytes_)]);
    finished_ = true;
}

MPI_Datatype Plan::make_type(const Message &m, std::size_t piece, const void *const *slots) const {
    // Runs of blocks of one shape become one hindexed_block of that shape's type; the
    // groups join in a struct. Displacements are offsets in the slot, or addresses.
    std::vector<MPI_Datatype> groups;
    std::vector<MPI_Aint> displs;
    auto where = [&](const Block &b) {
        MPI_Aint at = static_cast<MPI_Aint>(b.offset);
        if (m.absolute) {
            MPI_Aint base = 0;
            check_mpi(MPI_Get_address(slots[b.slot], &base), "MPI_Get_address");
            at = MPI_Aint_add(base, at);
        }
        return at;
    };
    const Block *blocks = m.pieces.data() + m.first[piece];
    const std::size_t n = m.first[piece + 1] - m.first[piece];
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

void Plan::make_types(Message &m, const void *const *slots) const {
    for (std::size_t i = 0; i < m.count(); ++i) m.types[i] = make_type(m, i, slots);
}

void Plan::free_types(bool absolute_only) {
    for (auto *list : {&sends_, &recvs_})
        for (Message &m : *list)
            if (m.absolute || !absolute_only)
                for (MPI_Datatype &t : m.types)
                    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
}

void Plan::release_requests() {
    for (auto *list : {&send_requests_, &recv_requests_}) {
        for (MPI_Request &r : *list)
            if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
        list->clear();
    }
    bound_.clear();
}

bool Plan::aliased(const void *const *slots) const {
    for (int i = 0; i < slots_; ++i)
        for (int j = 0; j < slots_; ++j)
            if (i != j && read_slot_[static_cast<std::size_t>(i)] && written_slot_[static_cast<std::size_t>(j)] &&
                slots[i] == slots[j])
                return true;
    return false;
}

void Plan::bind(const void *const *slots, bool staged) {
    const bool same = bound_.size() == static_cast<std::size_t>(slots_) && staged == bound_staged_ &&
                      std::equal(bound_.begin(), bound_.end(), slots);
    if (same) return;
    release_requests();
    free_types(true);
    for (auto *list : {&sends_, &recvs_})
        for (Message &m : *list)
            if (m.way == Way::Datatype && m.absolute) make_types(m, slots);
    bound_.assign(slots, slots + slots_);
    bound_staged_ = staged;
    for (const auto &t : transports_) t->bind(slots, staged);
    if (collective_) return;  // no point-to-point requests

    auto base = [&](const Block &b) { return const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot])); };
    // The buffer, count and type of one piece of one side of a message.
    auto endpoint = [&](const Message &m, std::size_t i, std::byte *packed, std::int64_t staged_at, void *&buffer,
                        int &count, MPI_Datatype &type, MPI_Datatype &owned) {
        owned = MPI_DATATYPE_NULL;
        const bool in_place = staged_at < 0 && m.whole(i);
        if (m.way == Way::Datatype && staged_at < 0 && !in_place) {
            buffer = m.absolute ? MPI_BOTTOM : base(m.blocks[0]);
            count = 1, type = m.types[i];
            return;
        }
        const Block &only = m.pieces[m.first[i]];
        buffer = in_place                ? base(only) + only.offset
                 : staged_at >= 0        ? stage_buffer_.get() + staged_at + m.cuts[i]
                 : m.way == Way::Packed  ? packed + m.at + m.cuts[i]
                                         : base(m.blocks[0]) + m.blocks[0].offset + m.cuts[i];
        const std::int64_t bytes = m.cuts[i + 1] - m.cuts[i];
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
    for (std::size_t k = 0; k < recvs_.size(); ++k)
        for (std::size_t i = 0; i < recvs_[k].count(); ++i) {
            endpoint(recvs_[k], i, recv_buffer_.get(), -1, buffer, count, type, owned);
            recv_requests_.push_back(MPI_REQUEST_NULL);
            recv_piece_.push_back({k, i});
            check_mpi(MPI_Recv_init(buffer, count, type, recvs_[k].peer, tag_, comm_, &recv_requests_.back()),
                      "MPI_Recv_init");
            if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
        }
    std::int64_t staged_at = 0;
    for (const Message &m : sends_) {
        for (std::size_t i = 0; i < m.count(); ++i) {
            endpoint(m, i, send_buffer_.get(), staged ? staged_at : -1, buffer, count, type, owned);
            send_requests_.push_back(MPI_REQUEST_NULL);
            check_mpi(MPI_Send_init(buffer, count, type, m.peer, tag_, comm_, &send_requests_.back()), "MPI_Send_init");
            if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
        }
        staged_at += m.bytes;
    }
}

std::pair<std::size_t, std::size_t> Plan::requests(const std::vector<Message> &list, std::size_t first,
                                                   std::size_t end) const {
    if (first == end || collective_) return {0, 0};  // a collective transport has them all
    return {list[first].request, list[end - 1].request + list[end - 1].count()};
}

void Plan::start_round(std::size_t r, bool staged) {
    const Round &round = rounds_[r];
    for (std::size_t k = round.first_recv; k < round.end_recv; ++k) {
        const Message &m = recvs_[k];
        if (!m.transport)  // another transport's receive starts only if its sender falls back
            check_mpi(MPI_Startall(static_cast<int>(m.count()), &recv_requests_[m.request]), "MPI_Startall");
    }
    for (std::size_t k = round.first_send; k < round.end_send; ++k)
        if (!sends_[k].transport) start_send(r, sends_[k], staged);
}

void Plan::start_send(std::size_t r, const Message &m, bool staged) {
    if (staged || m.way != Way::Packed) {
        check_mpi(MPI_Startall(static_cast<int>(m.count()), &send_requests_[m.request]), "MPI_Startall");
        return;
    }
    // Pipelined: each piece leaves as soon as it is packed, and arrivals are
    // unpacked while later pieces are packed.
    for (std::size_t i = 0; i < m.count(); ++i) {
        std::byte *out = send_buffer_.get() + m.at + m.cuts[i];
        if (m.whole(i)) {  // sent in place
            check_mpi(MPI_Start(&send_requests_[m.request + i]), "MPI_Start");
            continue;
        }
        for (std::size_t b = m.first[i]; b < m.first[i + 1]; ++b)
            out = pack(out, static_cast<const std::byte *>(slot_values_[m.pieces[b].slot]), m.pieces[b]);
        check_mpi(MPI_Start(&send_requests_[m.request + i]), "MPI_Start");
        if (m.count() > 1) progress(r, false);
    }
}

void Plan::place() {
    // Each message goes to the first registered transport that takes it, else point
    // to point. Both sides decide alike from what both know.
    const char *same = node::same_node(comm_);  // collective on the first plan of comm_
    const int *world = node::world_ranks(comm_);
    int size = 1;
    MPI_Comm_size(comm_, &size);
    std::vector<int> sends_to(static_cast<std::size_t>(size)), recvs_from(static_cast<std::size_t>(size));
    for (const Message &m : sends_) ++sends_to[static_cast<std::size_t>(m.peer)];
    for (const Message &m : recvs_) ++recvs_from[static_cast<std::size_t>(m.peer)];
    auto place = [&](std::size_t k, Message &m, int messages, bool sending) {
        const std::size_t p = static_cast<std::size_t>(m.peer);
        const Peer peer{same[p] != 0 && world[p] >= 0, world[p], messages};
        m.place = "";
        for (const auto &t : transports_) {
            const char *why = "";
            const bool taken = !m.transport && t->takes(m, peer, why);
            if (!*m.place) m.place = why;  // the first reason given
            if (taken) m.transport = t.get(), t->add(k, m, peer, sending);
        }
    };
    for (std::size_t k = 0; k < sends_.size(); ++k)
        place(k, sends_[k], sends_to[static_cast<std::size_t>(sends_[k].peer)], true);
    for (std::size_t k = 0; k < recvs_.size(); ++k)
        place(k, recvs_[k], recvs_from[static_cast<std::size_t>(recvs_[k].peer)], false);
    std::size_t kept = 0;  // those with nothing to run are dropped
    for (auto &t : transports_)
        if (t->setup(tag_)) transports_[kept++] = std::move(t);
    transports_.resize(kept);
}

void Plan::send_by_message(std::size_t send) { start_send(0, sends_[send], staged_); }

void Plan::receive_by_message(std::size_t recv) {
    const Message &m = recvs_[recv];
    check_mpi(MPI_Startall(static_cast<int>(m.count()), &recv_requests_[m.request]), "MPI_Startall");
}

bool Plan::progress(std::size_t r, bool wait) {
    // Completes the receives of round r that have arrived (waits for one at least
    // when `wait`), unpacking packed pieces; true once none is left.
    const Round &round = rounds_[r];
    const auto [first, end] = requests(recvs_, round.first_recv, round.end_recv);
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
        const Message &m = recvs_[k];
        if (m.way != Way::Packed || m.whole(i)) continue;
        const std::byte *in = recv_buffer_.get() + m.at + m.cuts[i];
        for (std::size_t b = m.first[i]; b < m.first[i + 1]; ++b)
            in = unpack(const_cast<std::byte *>(static_cast<const std::byte *>(slot_values_[m.pieces[b].slot])),
                        m.pieces[b], in);
    }
    return false;
}

void Plan::finish_round(std::size_t r) {
    while (!progress(r, true)) {
    }
    const Round &round = rounds_[r];
    const auto [first, end] = requests(sends_, round.first_send, round.end_send);
    if (end > first)
        check_mpi(MPI_Waitall(static_cast<int>(end - first), &send_requests_[first], MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void Plan::begin(const void *const *slots) {
    if (!finished_) fail(DM_ERR_STATE, name_, ": internal error: the plan was not finished");
    if (in_flight_) fail(DM_ERR_STATE, name_, ": begin while an exchange is in flight (call end first)");
    std::copy(slots, slots + slots_, slot_values_.begin());
    staged_ = options_.read_before_write && aliased(slots);
    if (staged_ && !stage_buffer_) stage_buffer_.reset(new std::byte[static_cast<std::size_t>(stage_bytes_)]);
    bind(slots, staged_);
    auto from = [&](const Block &b) { return static_cast<const std::byte *>(slots[b.slot]); };
    auto to = [&](const Block &b) { return const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot])); };
    std::byte *stage = stage_buffer_.get();
    if (staged_) {  // read everything before anything is written
        for (const Message &m : sends_)
            for (const Block &b : m.blocks) stage = pack(stage, from(b), b);
        for (const Copy &c : copies_) stage = pack(stage, from(c.from), c.from);
    }
    round_ = 0;
    if (!collective_) start_round(0, staged_);
    if (staged_) {
        const std::byte *in = stage_buffer_.get();
        for (const Message &m : sends_) in += m.bytes;
        for (const Copy &c : copies_) in = unpack(to(c.to), c.to, in);
    } else {
        for (const Copy &c : copies_) exchange::copy(to(c.to), c.to, from(c.from), c.from);
    }
    for (const auto &t : transports_) t->start(slots, staged_);
    in_flight_ = true;
}

bool Plan::advance(bool wait) {
    // Other transports first: on-node senders wait for the answer, and a fallback
    // receive must be started before its round is completed.
    if (!transports_.empty()) {
        bool all = true;
        for (const auto &t : transports_) all = t->progress(slot_values_.data(), wait) && all;
        if (!all) {  // unpack what has arrived, but start no round before every fallback receive
            if (round_ < rounds_.size()) progress(round_, false);
            return false;
        }
    }
    for (; round_ < rounds_.size(); ++round_) {
        if (wait) {
            finish_round(round_);
        } else {
            // Receives that have arrived are unpacked; the next round starts only
            // once this one's sends have left too.
            if (!progress(round_, false)) return false;
            const Round &round = rounds_[round_];
            const auto [first, end] = requests(sends_, round.first_send, round.end_send);
            int sent = 1;
            if (end > first)
                check_mpi(MPI_Testall(static_cast<int>(end - first), &send_requests_[first], &sent, MPI_STATUSES_IGNORE),
                          "MPI_Testall");
            if (!sent) return false;
        }
        if (round_ + 1 < rounds_.size()) start_round(round_ + 1, staged_);
    }
    return true;
}

bool Plan::test() {
    if (!in_flight_) fail(DM_ERR_STATE, name_, ": test without begin");
    return advance(false);
}

void Plan::end() {
    if (!in_flight_) fail(DM_ERR_STATE, name_, ": end without begin");
    in_flight_ = false;
    advance(true);
    for (const auto &t : transports_) t->finish();
}

Volume Plan::volume() const {
    Volume v;
    v.messages_sent = static_cast<std::int64_t>(sends_.size());
    v.messages_received = static_cast<std::int64_t>(recvs_.size());
    for (const Message &m : sends_) v.bytes_sent += m.bytes;
    for (const Message &m : recvs_) v.bytes_received += m.bytes;
    for (const Copy &c : copies_) v.bytes_copied += c.to.bytes();
    v.rounds = sends_.empty() && recvs_.empty() ? 0 : static_cast<int>(rounds_.size());
    return v;
}

std::string Plan::describe() const {
    int me = 0, size = 1;
    MPI_Comm_rank(comm_, &me);
    MPI_Comm_size(comm_, &size);
    Text s;
    const Volume v = volume();
    const char *ways[3] = {"direct", "packed", "datatype"};
    s << name_ << " on rank " << me << " of " << size << ": executor " << executor_name(options_.executor);
    if (model_) s << " (" << model_->family << " cost model, " << model_->source << ")";
    s << ", " << v.rounds << (v.rounds == 1 ? " round" : " rounds") << "\n";
    auto side = [&](const char *what, const std::vector<Message> &list) {
        std::int64_t n[3] = {0, 0, 0}, bytes = 0, runs = 0, pieces = 0;
        for (const Message &m : list)
            ++n[static_cast<int>(m.way)], bytes += m.bytes, runs += m.runs, pieces += static_cast<std::int64_t>(m.count());
        s << "  " << what << ": " << list.size() << " messages, " << human_bytes(bytes) << " in " << runs << " runs, "
          << pieces << " MPI messages; " << n[0] << " direct, " << n[1] << " packed, " << n[2] << " datatype\n";
    };
    side("send", sends_);
    side("receive", recvs_);
    s << "  local: " << copies_.size() << " copies, " << human_bytes(v.bytes_copied) << " (no MPI)\n";
    // Each message, and why it travels as it does (the first few of each side).
    constexpr std::size_t kShown = 8;
    auto each = [&](const char *to, const std::vector<Message> &list) {
        for (std::size_t k = 0; k < list.size() && k < kShown; ++k) {
            const Message &m = list[k];
            s << "  " << to << " rank " << m.peer;
            if (rounds_.size() > 1) s << " (round " << m.round << ")";
            s << ": " << human_bytes(m.bytes) << " in " << m.runs << " runs, " << ways[static_cast<int>(m.way)];
            if (m.count() > 1) s << " in " << m.count() << " pieces";
            switch (m.why) {
                case Why::Contiguous: s << " (contiguous: pointer and count)"; break;
                case Why::Limits: s << " (too large for an MPI datatype's int counts)"; break;
                case Why::Option: s << " (executor " << executor_name(options_.executor) << " by option or DM_EXCHANGE)"; break;
                case Why::Model:
                    s << " (model: packed " << m.cost[1] << " us, datatype " << m.cost[2] << " us)";
                    break;
            }
            s << m.place;
            if (m.transport && &list == &sends_)
                if (const char *why = m.transport->last_execution(static_cast<std::size_t>(&m - sends_.data())))
                    s << "; the last execution sent it by MPI: " << why;
            s << "\n";
        }
        if (list.size() > kShown) s << "  ... and " << list.size() - kShown << " more\n";
    };
    each("to", sends_);
    each("from", recvs_);
    s << "  why: each side prices its ways as a * messages + b * bytes + c * runs";
    if (model_ && model_->split_runs > 0)
        s << "; a datatype send is cut into messages of <= " << model_->split_runs << " runs (of >= "
          << model_->split_min_bytes << " B) that " << model_->family << " copies once";
    s << "; packed sends leave in pieces of about " << human_bytes(model_ ? model_->chunk_bytes : 0);
    if (options_.read_before_write) s << "\n  aliased buffers are staged: every byte is read before any is written";
    return s.out;
}

}  // namespace dm::exchange
