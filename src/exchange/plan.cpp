#include "exchange/plan.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <tuple>

namespace dm::exchange {
namespace {

// The cost model's facts about MPICH (measured in docs/exchange.md): its shared-memory
// transport copies a message once (CMA, process_vm_readv) only when the message has
// at least kSingleCopyBytes and the SENDER's datatype at most kSingleCopyRuns
// contiguous runs; any receive layout is scattered into directly. Below those limits
// a derived datatype is pipelined through 8 KiB cells, slower than packing here.
constexpr std::int64_t kSingleCopyBytes = 8192;
constexpr std::int64_t kSingleCopyRuns = 1024;  // IOV_MAX
// A receive datatype pays per run; below this average run the unpack loop is faster.
constexpr std::int64_t kScatterRunBytes = 512;
// Other MPIs (Open MPI): datatypes for large messages of long runs, else pack.
constexpr std::int64_t kDatatypeBytes = 65536;

const std::string &library_family() {
    static const std::string family = [] {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length = 0;
        MPI_Get_library_version(version, &length);
        const std::string text(version, static_cast<std::size_t>(length));
        if (text.find("Open MPI") != std::string::npos) return std::string("Open MPI");
        if (text.find("MPICH") != std::string::npos) return std::string("MPICH");
        return std::string("MPI");
    }();
    return family;
}

int tag_upper_bound(MPI_Comm comm) {
    int *value = nullptr, found = 0;
    check_mpi(MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found), "MPI_Comm_get_attr");
    return found && value ? *value : 32767;
}

int delete_counter(MPI_Comm, int, void *value, void *) {
    delete static_cast<int *>(value);
    return MPI_SUCCESS;
}

// A counter kept on the communicator: plans are finished in the same order on every
// rank, so the n-th plan has the same tag everywhere and concurrent plans never match
// each other's messages.
int next_tag(MPI_Comm comm) {
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID)
        check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_counter, &keyval, nullptr),
                  "MPI_Comm_create_keyval");
    int *counter = nullptr, found = 0;
    check_mpi(MPI_Comm_get_attr(comm, keyval, &counter, &found), "MPI_Comm_get_attr");
    if (!found) {
        counter = new int(0);
        check_mpi(MPI_Comm_set_attr(comm, keyval, counter), "MPI_Comm_set_attr");
    }
    const int tag = *counter;
    *counter = tag == tag_upper_bound(comm) ? 0 : tag + 1;
    return tag;
}

// `bytes` bytes as one datatype, also beyond an int count (chunks of 1 GiB).
MPI_Datatype bytes_type(std::int64_t bytes) {
    constexpr std::int64_t kChunk = std::int64_t{1} << 30;
    MPI_Datatype type;
    if (bytes <= INT_MAX) {
        check_mpi(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type), "MPI_Type_contiguous");
        return type;
    }
    MPI_Datatype chunk, parts[2];
    check_mpi(MPI_Type_contiguous(static_cast<int>(kChunk), MPI_BYTE, &chunk), "MPI_Type_contiguous");
    check_mpi(MPI_Type_contiguous(static_cast<int>(bytes / kChunk), chunk, &parts[0]), "MPI_Type_contiguous");
    check_mpi(MPI_Type_contiguous(static_cast<int>(bytes % kChunk), MPI_BYTE, &parts[1]), "MPI_Type_contiguous");
    int lengths[2] = {1, 1};
    MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(bytes / kChunk * kChunk)};
    check_mpi(MPI_Type_create_struct(2, lengths, displs, parts, &type), "MPI_Type_create_struct");
    MPI_Type_free(&chunk), MPI_Type_free(&parts[0]), MPI_Type_free(&parts[1]);
    return type;
}

bool fits_int(const Block &b) {
    if (b.run > INT_MAX) return false;
    for (int l = 0; l < b.levels; ++l)
        if (b.count[l] > INT_MAX) return false;
    return true;
}

std::string human_bytes(std::int64_t n) {
    std::ostringstream s;
    s.precision(3);
    if (n < 1024) s << n << " B";
    else if (n < (1 << 20)) s << static_cast<double>(n) / 1024 << " KiB";
    else s << static_cast<double>(n) / (1 << 20) << " MiB";
    return s.str();
}

}  // namespace

Executor executor_named(const std::string &name) {
    for (Executor e : {Executor::Auto, Executor::Pack, Executor::Datatype, Executor::Alltoallw})
        if (name == executor_name(e)) return e;
    fail(DM_ERR_ARG, "exchange: unknown executor '", name, "' (auto, pack, datatype or alltoallw)");
}

const char *executor_name(Executor e) {
    switch (e) {
        case Executor::Auto: return "auto";
        case Executor::Pack: return "pack";
        case Executor::Datatype: return "datatype";
        case Executor::Alltoallw: return "alltoallw";
    }
    return "?";
}

Executor executor_from_environment(Executor fallback) {
    const char *value = std::getenv("DM_EXCHANGE");
    if (!value || !*value) return fallback;
    const Executor e = executor_named(value);
    return e == Executor::Alltoallw ? fallback : e;  // a collective only where a capability asks for it
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

Plan::Way Plan::choose(const Message &m, bool sending) const {
    const bool contiguous = m.blocks.size() == 1 && m.blocks[0].levels == 0;
    if (options_.executor == Executor::Alltoallw) return Way::Datatype;
    if (contiguous) return Way::Direct;
    bool describable = m.blocks.size() <= INT_MAX;
    for (const Block &b : m.blocks) describable = describable && fits_int(b);
    if (!describable || options_.executor == Executor::Pack) return Way::Packed;
    if (options_.executor == Executor::Datatype) return Way::Datatype;
    if (library_ == "MPICH") {
        if (m.bytes < kSingleCopyBytes) return Way::Packed;
        if (sending) return m.runs <= kSingleCopyRuns ? Way::Datatype : Way::Packed;
        return m.bytes / m.runs >= kScatterRunBytes ? Way::Datatype : Way::Packed;
    }
    return m.bytes >= kDatatypeBytes && m.bytes / m.runs >= kScatterRunBytes ? Way::Datatype : Way::Packed;
}

void Plan::finish(const Options &options) {
    options_ = options;
    if (options_.executor == Executor::Auto) options_.executor = executor_from_environment(Executor::Auto);
    library_ = library_family();
    tag_ = next_tag(comm_);
    group(send_pieces_, sends_);
    group(recv_pieces_, recvs_);

    // Rounds: the distinct round numbers of either side, in order.
    std::vector<int> numbers;
    for (const auto *list : {&sends_, &recvs_})
        for (const Message &m : *list) numbers.push_back(m.round);
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    if (numbers.empty()) numbers.push_back(0);
    if (options_.executor == Executor::Alltoallw && numbers.size() > 1)
        fail(DM_ERR_ARG, name_, ": the alltoallw executor runs one round");
    std::size_t s = 0, r = 0;
    for (int number : numbers) {
        Round round{s, s, r, r};
        while (round.end_send < sends_.size() && sends_[round.end_send].round == number) ++round.end_send;
        while (round.end_recv < recvs_.size() && recvs_[round.end_recv].round == number) ++round.end_recv;
        s = round.end_send, r = round.end_recv;
        rounds_.push_back(round);
    }

    // Ways, buffer offsets, and the types that do not depend on addresses.
    std::int64_t staged = 0;
    for (Message &m : sends_) {
        m.way = choose(m, true);
        if (m.way == Way::Packed) m.at = send_bytes_, send_bytes_ += m.bytes;
        staged += m.bytes;
        for (const Block &b : m.blocks) read_slot_[static_cast<std::size_t>(b.slot)] = true;
    }
    for (Message &m : recvs_) {
        m.way = choose(m, false);
        if (m.way == Way::Packed) m.at = recv_bytes_, recv_bytes_ += m.bytes;
        for (const Block &b : m.blocks) written_slot_[static_cast<std::size_t>(b.slot)] = true;
    }
    for (const Copy &c : copies_) {
        staged += c.to.bytes();
        read_slot_[static_cast<std::size_t>(c.from.slot)] = true;
        written_slot_[static_cast<std::size_t>(c.to.slot)] = true;
    }
    if (options_.read_before_write && options_.executor == Executor::Alltoallw)
        fail(DM_ERR_ARG, name_, ": the alltoallw executor cannot stage aliased buffers");
    if (options_.read_before_write) stage_bytes_ = staged;
    for (auto *list : {&sends_, &recvs_})
        for (Message &m : *list) {
            if (m.way != Way::Datatype) continue;
            m.absolute = options_.executor == Executor::Alltoallw;
            for (const Block &b : m.blocks) m.absolute = m.absolute || b.slot != m.blocks[0].slot;
            if (!m.absolute) make_type(m, nullptr);
        }
    if (send_bytes_) send_buffer_.reset(new std::byte[static_cast<std::size_t>(send_bytes_)]);
    if (recv_bytes_) recv_buffer_.reset(new std::byte[static_cast<std::size_t>(recv_bytes_)]);
    if (options_.executor == Executor::Alltoallw) {
        int size = 1;
        MPI_Comm_size(comm_, &size);
        counts_out_.assign(static_cast<std::size_t>(size), 0), counts_in_.assign(static_cast<std::size_t>(size), 0);
        displs_.assign(static_cast<std::size_t>(size), 0);
        types_out_.assign(static_cast<std::size_t>(size), MPI_BYTE), types_in_.assign(static_cast<std::size_t>(size), MPI_BYTE);
    }
    finished_ = true;
}

void Plan::make_type(Message &m, const void *const *slots) const {
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
    for (std::size_t i = 0; i < m.blocks.size();) {
        std::size_t j = i + 1;
        while (j < m.blocks.size() && m.blocks[j].same_shape(m.blocks[i])) ++j;
        const Block &b = m.blocks[i];
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
        for (std::size_t k = i; k < j; ++k) displs.push_back(where(m.blocks[k]));
        MPI_Datatype group;
        check_mpi(MPI_Type_create_hindexed_block(static_cast<int>(j - i), 1, displs.data(), unit, &group),
                  "MPI_Type_create_hindexed_block");
        MPI_Type_free(&unit);
        groups.push_back(group);
        i = j;
    }
    if (groups.size() == 1) {
        m.type = groups[0];
    } else {
        std::vector<int> ones(groups.size(), 1);
        std::vector<MPI_Aint> zeros(groups.size(), 0);
        check_mpi(MPI_Type_create_struct(static_cast<int>(groups.size()), ones.data(), zeros.data(), groups.data(),
                                         &m.type),
                  "MPI_Type_create_struct");
        for (MPI_Datatype &g : groups) MPI_Type_free(&g);
    }
    check_mpi(MPI_Type_commit(&m.type), "MPI_Type_commit");
}

void Plan::free_types(bool absolute_only) {
    for (auto *list : {&sends_, &recvs_})
        for (Message &m : *list)
            if (m.type != MPI_DATATYPE_NULL && (m.absolute || !absolute_only)) MPI_Type_free(&m.type);
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
            if (m.way == Way::Datatype && m.absolute) make_type(m, slots);
    bound_.assign(slots, slots + slots_);
    bound_staged_ = staged;
    if (options_.executor == Executor::Alltoallw) return;  // no point-to-point requests

    auto base = [&](const Block &b) { return const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot])); };
    // The buffer, count and type of one side of a message.
    auto endpoint = [&](const Message &m, std::byte *packed, std::int64_t staged_at, void *&buffer, int &count,
                        MPI_Datatype &type, MPI_Datatype &owned) {
        owned = MPI_DATATYPE_NULL;
        if (m.way == Way::Datatype && staged_at < 0) {
            buffer = m.absolute ? MPI_BOTTOM : base(m.blocks[0]);
            count = 1, type = m.type;
            return;
        }
        buffer = staged_at >= 0 ? stage_buffer_.get() + staged_at
                 : m.way == Way::Packed ? packed + m.at
                                         : base(m.blocks[0]) + m.blocks[0].offset;
        if (m.bytes <= INT_MAX) {
            count = static_cast<int>(m.bytes), type = MPI_BYTE;
        } else {
            owned = type = bytes_type(m.bytes);
            check_mpi(MPI_Type_commit(&owned), "MPI_Type_commit");
            count = 1;
        }
    };
    recv_requests_.assign(recvs_.size(), MPI_REQUEST_NULL);
    send_requests_.assign(sends_.size(), MPI_REQUEST_NULL);
    void *buffer = nullptr;
    int count = 0;
    MPI_Datatype type, owned;
    for (std::size_t i = 0; i < recvs_.size(); ++i) {
        endpoint(recvs_[i], recv_buffer_.get(), -1, buffer, count, type, owned);
        check_mpi(MPI_Recv_init(buffer, count, type, recvs_[i].peer, tag_, comm_, &recv_requests_[i]), "MPI_Recv_init");
        if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
    }
    std::int64_t staged_at = 0;
    for (std::size_t i = 0; i < sends_.size(); ++i) {
        endpoint(sends_[i], send_buffer_.get(), staged ? staged_at : -1, buffer, count, type, owned);
        staged_at += sends_[i].bytes;
        check_mpi(MPI_Send_init(buffer, count, type, sends_[i].peer, tag_, comm_, &send_requests_[i]), "MPI_Send_init");
        if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
    }
}

void Plan::start_round(std::size_t r, bool staged) {
    const Round &round = rounds_[r];
    if (round.end_recv > round.first_recv)
        check_mpi(MPI_Startall(static_cast<int>(round.end_recv - round.first_recv), &recv_requests_[round.first_recv]),
                  "MPI_Startall");
    if (!staged)
        for (std::size_t i = round.first_send; i < round.end_send; ++i) {
            const Message &m = sends_[i];
            if (m.way != Way::Packed) continue;
            std::byte *out = send_buffer_.get() + m.at;
            for (const Block &b : m.blocks) out = pack(out, static_cast<const std::byte *>(slot_values_[b.slot]), b);
        }
    if (round.end_send > round.first_send)
        check_mpi(MPI_Startall(static_cast<int>(round.end_send - round.first_send), &send_requests_[round.first_send]),
                  "MPI_Startall");
}

void Plan::finish_round(std::size_t r) {
    const Round &round = rounds_[r];
    const int n = static_cast<int>(round.end_recv - round.first_recv);
    for (int done = 0; done < n; ++done) {  // unpack each message as it arrives
        int index = MPI_UNDEFINED;
        check_mpi(MPI_Waitany(n, &recv_requests_[round.first_recv], &index, MPI_STATUS_IGNORE), "MPI_Waitany");
        if (index == MPI_UNDEFINED) break;
        const Message &m = recvs_[round.first_recv + static_cast<std::size_t>(index)];
        if (m.way != Way::Packed) continue;
        const std::byte *in = recv_buffer_.get() + m.at;
        for (const Block &b : m.blocks)
            in = unpack(const_cast<std::byte *>(static_cast<const std::byte *>(slot_values_[b.slot])), b, in);
    }
    if (round.end_send > round.first_send)
        check_mpi(MPI_Waitall(static_cast<int>(round.end_send - round.first_send), &send_requests_[round.first_send],
                              MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
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
    if (options_.executor == Executor::Alltoallw) {
        for (const Message &m : sends_) counts_out_[static_cast<std::size_t>(m.peer)] = 1, types_out_[static_cast<std::size_t>(m.peer)] = m.type;
        for (const Message &m : recvs_) counts_in_[static_cast<std::size_t>(m.peer)] = 1, types_in_[static_cast<std::size_t>(m.peer)] = m.type;
        check_mpi(MPI_Ialltoallw(MPI_BOTTOM, counts_out_.data(), displs_.data(), types_out_.data(), MPI_BOTTOM,
                                 counts_in_.data(), displs_.data(), types_in_.data(), comm_, &collective_),
                  "MPI_Ialltoallw");
    } else {
        start_round(0, staged_);
    }
    if (staged_) {
        const std::byte *in = stage_buffer_.get();
        for (const Message &m : sends_) in += m.bytes;
        for (const Copy &c : copies_) in = unpack(to(c.to), c.to, in);
    } else {
        for (const Copy &c : copies_) exchange::copy(to(c.to), c.to, from(c.from), c.from);
    }
    in_flight_ = true;
}

void Plan::end() {
    if (!in_flight_) fail(DM_ERR_STATE, name_, ": end without begin");
    in_flight_ = false;
    if (options_.executor == Executor::Alltoallw) {
        check_mpi(MPI_Wait(&collective_, MPI_STATUS_IGNORE), "MPI_Wait");
        return;
    }
    for (std::size_t r = 0; r < rounds_.size(); ++r) {
        if (r > 0) start_round(r, staged_);
        finish_round(r);
    }
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
    std::ostringstream s;
    const Volume v = volume();
    s << name_ << " on rank " << me << " of " << size << ": executor " << executor_name(options_.executor);
    if (options_.executor == Executor::Auto) s << " (" << library_ << " cost model)";
    s << ", " << v.rounds << (v.rounds == 1 ? " round" : " rounds") << "\n";
    auto side = [&](const char *what, const std::vector<Message> &list) {
        std::int64_t n[3] = {0, 0, 0}, bytes = 0, runs = 0;
        for (const Message &m : list) ++n[static_cast<int>(m.way)], bytes += m.bytes, runs += m.runs;
        s << "  " << what << ": " << list.size() << " messages, " << human_bytes(bytes) << " in " << runs
          << " runs; " << n[0] << " direct, " << n[1] << " packed, " << n[2] << " datatype\n";
    };
    side("send", sends_);
    side("receive", recvs_);
    s << "  local: " << copies_.size() << " copies, " << human_bytes(v.bytes_copied) << " (no MPI)\n";
    s << "  why: contiguous messages go as pointer and count";
    if (options_.executor == Executor::Auto && library_ == "MPICH")
        s << "; a sender's datatype when >= " << kSingleCopyBytes << " B in <= " << kSingleCopyRuns
          << " runs (MPICH's single-copy limits), a receiver's when >= " << kSingleCopyBytes << " B with runs of >= "
          << kScatterRunBytes << " B on average; otherwise packed";
    else if (options_.executor == Executor::Auto)
        s << "; datatypes for messages >= " << kDatatypeBytes << " B with runs of >= " << kScatterRunBytes
          << " B on average; otherwise packed";
    else
        s << "; the rest as the executor chosen by option or DM_EXCHANGE says";
    if (options_.read_before_write) s << "\n  aliased buffers are staged: every byte is read before any is written";
    return s.str();
}

}  // namespace dm::exchange
