#include "exchange/plan.hpp"

#include "core/error.hpp"
#include "core/node_memory.hpp"
#include "core/text.hpp"
#include "exchange/point_to_point.hpp"
#include "exchange/tags.hpp"
#include "exchange/transport.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>

namespace dm::exchange {
namespace {

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
    if (c.to.bytes() != 0) append_copy(copies_, c);
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

Locality locality_of(MPI_Comm comm, int peer) {
    const node::Topology &nodes = node::topology(comm);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    return nodes.node[static_cast<std::size_t>(peer)] == nodes.node[static_cast<std::size_t>(me)] ? Locality::OnNode
                                                                                                 : Locality::AcrossNodes;
}

void Plan::locate() {
    // Which messages cross nodes: the model prices them by the lines of their locality.
    node::topology(comm_);  // collective on the first plan of comm_, on every rank (with messages or not)
    for (auto *list : {&sends_, &recvs_})
        for (Message &m : *list) m.where = locality_of(comm_, m.peer);
}

void Plan::make_transports() {
    // Point to point is the executor's (a way it forces) or else the model's; the
    // others hand messages back to it through this plan.
    const std::string executor = options_.executor.name();
    TransportSetup setup{comm_, slots_, control_tag_, done_tag_, node_tag_, model_, false, executor == "auto",
                         this, &kinds_};
    for (const Registration &r : transports()) {
        setup.chosen = executor == r.name;
        std::unique_ptr<Transport> t = r.make(setup);
        if (!t) continue;
        if (t->fallback()) {
            point_to_point_ = std::move(t);
            continue;
        }
        collective_ = collective_ || (setup.chosen && t->collective());
        transports_.push_back(std::move(t));
    }
    if (!point_to_point_) setup.chosen = false, point_to_point_ = make_point_to_point<Force::None>(setup);
    point_to_point_fallback_ = point_to_point_->fallback();
}

void Plan::finish(const Options &options) {
    options_ = options;
    if (options_.executor == Executor::Auto) options_.executor = executor_from_environment(Executor::Auto);
    model_ = &cost_model();
    kinds_ = SlotKinds(options_.kinds, slots_, name_.c_str());
    if (checked_mode()) {  // both ends of a message decide its transport from the kinds alike
        std::vector<std::int64_t> kinds;
        for (int slot = 0; slot < slots_; ++slot) kinds.push_back(static_cast<std::int64_t>(kinds_.kind(slot)));
        require_same(comm_, kinds, name_ + ": memory kinds of the slots");
    }
    tag_ = next_plan_tag(comm_), control_tag_ = next_plan_tag(comm_), done_tag_ = next_plan_tag(comm_);
    node_tag_ = next_plan_tag(comm_);
    group(send_pieces_, sends_);
    group(recv_pieces_, recvs_);
    locate();
    make_transports();

    // Rounds: the distinct round numbers of either side, in order.
    std::vector<int> numbers;
    for (const auto *list : {&sends_, &recvs_})
        for (const Message &m : *list) numbers.push_back(m.round);
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    if (numbers.empty()) numbers.push_back(0);
    if (collective_ && numbers.size() > 1)
        fail(DM_ERR_ARG, name_, ": the alltoallw executor runs one round");
    if (collective_ && !kinds_.host_only())  // datatypes over the slots' addresses
        fail(DM_ERR_ARG, name_, ": the alltoallw executor moves host memory only");
    std::size_t s = 0, r = 0;
    for (int number : numbers) {
        Round round{s, s, r, r};
        while (round.end_send < sends_.size() && sends_[round.end_send].round == number) ++round.end_send;
        while (round.end_recv < recvs_.size() && recvs_[round.end_recv].round == number) ++round.end_recv;
        s = round.end_send, r = round.end_recv;
        rounds_.push_back(round);
    }

    std::int64_t staged = 0;
    for (Message &m : sends_) {
        m.staged_at = staged;
        staged += m.bytes;
        for (const Block &b : m.blocks) read_slot_[static_cast<std::size_t>(b.slot)] = true;
    }
    for (const Message &m : recvs_)
        for (const Block &b : m.blocks) written_slot_[static_cast<std::size_t>(b.slot)] = true;
    if (collective_) {  // one datatype per side, uncut: the collective transport makes them
        point_to_point_.reset();
        point_to_point_fallback_ = nullptr;
    } else {
        point_to_point_->prepare(sends_, recvs_, rounds_, tag_);
    }
    place();
    for (const Copy &c : copies_) {
        staged += c.to.bytes();
        read_slot_[static_cast<std::size_t>(c.from.slot)] = true;
        written_slot_[static_cast<std::size_t>(c.to.slot)] = true;
    }
    if (options_.read_before_write && collective_)
        fail(DM_ERR_ARG, name_, ": the alltoallw executor cannot stage aliased buffers");
    if (options_.read_before_write) stage_bytes_ = staged;
    for (int i = 0; options_.read_before_write && i < slots_; ++i)  // what aliased() compares at each begin
        for (int j = 0; j < slots_; ++j)
            if (i != j && read_slot_[static_cast<std::size_t>(i)] && written_slot_[static_cast<std::size_t>(j)])
                alias_pairs_.push_back({i, j});
    if (const std::int64_t bounce = kinds_.bounce_bytes(copies_)) bounce_.reset(new std::byte[static_cast<std::size_t>(bounce)]);
    finished_ = true;
}

bool Plan::aliased(const void *const *slots) const {
    for (const auto &[read, written] : alias_pairs_)
        if (slots[read] == slots[written]) return true;
    return false;
}

void Plan::bind(const void *const *slots, bool staged) {
    const bool same = bound_.size() == static_cast<std::size_t>(slots_) && staged == bound_staged_ &&
                      std::equal(bound_.begin(), bound_.end(), slots);
    if (same) return;
    bound_.assign(slots, slots + slots_);
    bound_staged_ = staged;
    const std::byte *stage = staged ? stage_buffer_.get() : nullptr;
    for (const auto &t : transports_) t->bind(slots, stage);
    if (point_to_point_) point_to_point_->bind(slots, stage);
}

void Plan::place() {
    // Each message goes to the first registered transport that takes it, else point
    // to point. Both sides decide alike from what both know.
    const char *same = node::same_node(comm_);  // collective on the first plan of comm_
    const node::Topology &nodes = node::topology(comm_);
    const int *world = node::world_ranks(comm_);
    int me = 0;
    MPI_Comm_rank(comm_, &me);
    const int my_node = nodes.node[static_cast<std::size_t>(me)];
    int size = 1;
    MPI_Comm_size(comm_, &size);
    std::vector<int> sends_to(static_cast<std::size_t>(size)), recvs_from(static_cast<std::size_t>(size));
    for (const Message &m : sends_) ++sends_to[static_cast<std::size_t>(m.peer)];
    for (const Message &m : recvs_) ++recvs_from[static_cast<std::size_t>(m.peer)];
    auto place = [&](std::size_t k, Message &m, int messages, bool sending) {
        const std::size_t p = static_cast<std::size_t>(m.peer);
        const int node = nodes.node[p];
        const Peer peer{same[p] != 0 && world[p] >= 0, world[p], messages, node,
                        nodes.ranks[static_cast<std::size_t>(node)], my_node,
                        nodes.ranks[static_cast<std::size_t>(my_node)]};
        m.transport_reason = "";
        for (const auto &t : transports_) {
            const char *why = "";
            const bool taken = !m.transport && t->takes(m, peer, why);
            if (!*m.transport_reason) m.transport_reason = why;  // the first reason given
            if (taken) m.transport = t.get(), t->add(k, m, peer, sending);
        }
        if (!m.transport && point_to_point_) m.transport = point_to_point_.get(), point_to_point_->add(k, m, peer, sending);
    };
    for (std::size_t k = 0; k < sends_.size(); ++k)
        place(k, sends_[k], sends_to[static_cast<std::size_t>(sends_[k].peer)], true);
    for (std::size_t k = 0; k < recvs_.size(); ++k)
        place(k, recvs_[k], recvs_from[static_cast<std::size_t>(recvs_[k].peer)], false);
    std::size_t kept = 0;  // those with nothing to run are dropped
    for (auto &t : transports_)
        if (t->setup(tag_)) transports_[kept++] = std::move(t);
    transports_.resize(kept);
    if (point_to_point_ && !point_to_point_->setup(tag_)) point_to_point_.reset(), point_to_point_fallback_ = nullptr;
}

void Plan::send_by_message(std::size_t send) { point_to_point_fallback_->send_by_message(send); }

void Plan::receive_by_message(std::size_t recv) { point_to_point_fallback_->receive_by_message(recv); }

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
            for (const Block &b : m.blocks) stage = kinds_.pack(stage, from(b), b);
        for (const Copy &c : copies_) stage = kinds_.pack(stage, from(c.from), c.from);
    }
    round_ = 0;
    if (point_to_point_) point_to_point_->start_round(0, slot_values_.data(), staged_);
    if (staged_) {
        const std::byte *in = stage_buffer_.get();
        for (const Message &m : sends_) in += m.bytes;
        for (const Copy &c : copies_) in = kinds_.unpack(to(c.to), c.to, in);
    } else {
        for (const Copy &c : copies_) kinds_.copy(to(c.to), c.to, from(c.from), c.from, bounce_.get());
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
            if (point_to_point_ && round_ < rounds_.size()) point_to_point_->receive(round_, false);
            return false;
        }
    }
    if (!point_to_point_) return true;
    for (; round_ < rounds_.size(); ++round_) {
        if (wait) {
            while (!point_to_point_->receive(round_, true)) {
            }
            point_to_point_->sent(round_, true);
        } else if (!point_to_point_->receive(round_, false) || !point_to_point_->sent(round_, false)) {
            // Receives that have arrived are unpacked; the next round starts only
            // once this one's sends have left too.
            return false;
        }
        if (round_ + 1 < rounds_.size()) point_to_point_->start_round(round_ + 1, slot_values_.data(), staged_);
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
    if (point_to_point_) point_to_point_->finish();
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

namespace {
const char *const kWayNames[3] = {"direct", "packed", "datatype"};

// describe(): the slots' memory kinds, where one is not host memory.
std::string memory_line(const SlotKinds &kinds, int slots) {
    if (kinds.host_only()) return "";
    Text s;
    s << "  memory:";
    for (int slot = 0; slot < slots; ++slot)
        s << (slot ? ", slot " : " slot ") << slot << " " << memory::info(kinds.kind(slot)).name;
    s << "; a side in memory other than host goes packed through host memory, never read in place\n";
    return s.out;
}
}  // namespace

const Side &Plan::carried(std::size_t k, bool sending) const {
    static const Side collective = [] {
        Side s;
        s.way = Way::Datatype, s.why = Why::Option, s.cuts = {0, 0};
        return s;
    }();
    const auto *carrier = dynamic_cast<const PointToPoint *>(point_to_point_.get());
    return carrier ? carrier->side(k, sending) : collective;
}

std::vector<MessageShape> Plan::messages() const {
    std::vector<MessageShape> out;
    auto shape = [&](const Message &m, std::size_t k, bool sending) {
        MessageShape s{m.peer, m.round, m.bytes, m.runs, sending, m.transport ? m.transport->name() : "point to point"};
        if (!(m.transport && m.transport->carries())) {  // MPI carries it: point to point's way
            const Side &w = carried(k, sending);
            s.way = kWayNames[static_cast<int>(w.way)];
            s.pieces = static_cast<std::int64_t>(w.count());
        }
        return s;
    };
    for (std::size_t k = 0; k < sends_.size(); ++k) out.push_back(shape(sends_[k], k, true));
    for (std::size_t k = 0; k < recvs_.size(); ++k) out.push_back(shape(recvs_[k], k, false));
    for (const Copy &c : copies_)
        out.push_back({-1, 0, c.to.bytes(), std::max(c.from.runs(), c.to.runs()), true, "copy"});
    return out;
}

std::string Plan::describe() const {
    int me = 0, size = 1;
    MPI_Comm_rank(comm_, &me);
    MPI_Comm_size(comm_, &size);
    Text s;
    const Volume v = volume();
    s << name_ << " on rank " << me << " of " << size << ": executor " << executor_name(options_.executor);
    if (model_) s << " (" << model_->family << " cost model, " << model_->source << ")";
    s << ", " << v.rounds << (v.rounds == 1 ? " round" : " rounds") << "\n";
    const node::Topology &nodes = node::topology(comm_);
    if (!nodes.one_node()) {
        const int mine = nodes.node[static_cast<std::size_t>(me)];
        s << "  nodes: " << nodes.nodes << "; this rank on node " << mine << " with "
          << nodes.ranks[static_cast<std::size_t>(mine)] << " ranks, led by rank " << nodes.leader[static_cast<std::size_t>(mine)]
          << "; a small message takes " << nodes.across_us << " us between nodes, " << nodes.within_us << " us within one\n";
    }
    auto side = [&](const char *what, const std::vector<Message> &list) {
        std::int64_t n[3] = {0, 0, 0}, bytes = 0, runs = 0, pieces = 0;
        for (std::size_t k = 0; k < list.size(); ++k) {
            const Side &w = carried(k, &list == &sends_);
            ++n[static_cast<int>(w.way)], bytes += list[k].bytes, runs += list[k].runs;
            pieces += static_cast<std::int64_t>(w.count());
        }
        s << "  " << what << ": " << list.size() << " messages, " << human_bytes(bytes) << " in " << runs << " runs, "
          << pieces << " MPI messages; " << n[0] << " direct, " << n[1] << " packed, " << n[2] << " datatype\n";
    };
    side("send", sends_);
    side("receive", recvs_);
    s << "  local: " << copies_.size() << " copies, " << human_bytes(v.bytes_copied) << " (no MPI)\n";
    s << memory_line(kinds_, slots_);
    // Each message, and why it travels as it does (the first few of each side).
    constexpr std::size_t kShown = 8;
    auto each = [&](const char *to, const std::vector<Message> &list) {
        for (std::size_t k = 0; k < list.size() && k < kShown; ++k) {
            const Message &m = list[k];
            s << "  " << to << " rank " << m.peer;
            if (rounds_.size() > 1) s << " (round " << m.round << ")";
            s << ": " << human_bytes(m.bytes) << " in " << m.runs << " runs, ";
            if (const char *carried = m.transport ? m.transport->carries() : nullptr) {
                s << carried << m.transport_reason << "\n";
                continue;
            }
            const Side &w = carried(k, &list == &sends_);
            s << kWayNames[static_cast<int>(w.way)];
            if (w.count() > 1) s << " in " << w.count() << " pieces";
            switch (w.why) {
                case Why::Contiguous: s << " (contiguous: pointer and count)"; break;
                case Why::Limits: s << " (too large for an MPI datatype's int counts)"; break;
                case Why::Memory: s << " (memory other than host: its kind's kernels move it through host memory)"; break;
                case Why::Transposed: s << " (a transposed side: packed in tiles, where a datatype walks one element at a time)"; break;
                case Why::Option: s << " (executor " << executor_name(options_.executor) << " by option or DM_EXCHANGE)"; break;
                case Why::Model:
                    s << " (model" << (m.where == Locality::AcrossNodes ? " across nodes" : "") << ": packed "
                      << w.cost[1] << " us, datatype " << w.cost[2] << " us)";
                    break;
            }
            s << m.transport_reason;
            if (m.transport && &list == &sends_)
                if (const char *why = m.transport->last_execution(static_cast<std::size_t>(&m - sends_.data())))
                    s << "; the last execution " << why;
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
