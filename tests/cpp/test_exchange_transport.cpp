// A transport outside the library is one file behind exchange/transport.hpp plus one
// registration (a built-in one touches more: docs/architecture.md): this file is that
// file. "mailbox" packs every message it takes into a buffer of its own and sends it
// as one MPI message on a tag the plan hands every transport (control_tag); the
// plan's other parts (grouping, rounds, staging of aliased buffers, split phase,
// describe(), messages()) are the engine's. Checked against an oracle in which every
// byte is a function of where it came from and where it went, at any rank count,
// twice per plan and split phase, with buffers that alias (staged).
#include "harness.hpp"

#include "core/error.hpp"
#include "exchange/block.hpp"
#include "exchange/plan.hpp"
#include "exchange/transport.hpp"

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using dm::exchange::Block;
using dm::exchange::Message;

class Mailbox final : public dm::exchange::Transport {
public:
    explicit Mailbox(const dm::exchange::TransportSetup &setup)
        : comm_(setup.comm), tag_(setup.control_tag), chosen_(setup.chosen) {}
    ~Mailbox() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && !requests_.empty())
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    }

    const char *name() const override { return "mailbox"; }
    bool takes(const Message &, const dm::exchange::Peer &, const char *&why) const override {
        why = chosen_ ? "" : "; mailbox: only when named";
        return chosen_;
    }
    void add(std::size_t, const Message &m, const dm::exchange::Peer &, bool sending) override {
        (sending ? sends_ : recvs_).push_back(&m);
    }
    bool setup(int) override {
        for (auto *list : {&recvs_, &sends_})  // in the order start() posts them
            for (const Message *m : *list) buffers_.emplace_back(static_cast<std::size_t>(m->bytes));
        requests_.assign(buffers_.size(), MPI_REQUEST_NULL);
        return !buffers_.empty();
    }
    void bind(const void *const *, const std::byte *staged) override { staged_ = staged; }
    void start(const void *const *slots, bool staged) override {
        std::size_t k = 0;
        for (const Message *m : recvs_) post(MPI_Irecv(buffers_[k].data(), int_of(m->bytes), MPI_BYTE, m->peer, tag_, comm_, &requests_[k]), k);
        for (const Message *m : sends_) {
            std::byte *out = buffers_[k].data();
            if (staged) {  // the engine's copy of every send, taken before anything was written
                std::memcpy(out, staged_ + m->staged_at, static_cast<std::size_t>(m->bytes));
            } else {
                for (const Block &b : m->blocks) out = dm::exchange::pack(out, base(slots, b), b);
            }
            post(MPI_Isend(buffers_[k].data(), int_of(m->bytes), MPI_BYTE, m->peer, tag_, comm_, &requests_[k]), k);
        }
    }
    bool progress(const void *const *slots, bool wait) override {
        int done = 1;
        if (wait) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        else MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
        if (!done) return false;
        for (std::size_t k = 0; k < recvs_.size() && !unpacked_; ++k) {
            const std::byte *in = buffers_[k].data();
            for (const Block &b : recvs_[k]->blocks) in = dm::exchange::unpack(base(slots, b), b, in);
        }
        unpacked_ = true;
        return true;
    }
    void finish() override { unpacked_ = false; }
    const char *carries() const override { return "packed into one mailbox message"; }

private:
    static std::byte *base(const void *const *slots, const Block &b) {
        return const_cast<std::byte *>(static_cast<const std::byte *>(slots[b.slot]));
    }
    static int int_of(std::int64_t bytes) { return static_cast<int>(bytes); }  // the test's messages are small
    void post(int rc, std::size_t &k) {
        dm::check_mpi(rc, "mailbox");
        ++k;
    }

    MPI_Comm comm_;
    int tag_;
    bool chosen_;
    std::vector<const Message *> sends_, recvs_;
    std::vector<std::vector<std::byte>> buffers_;  // the receives', then the sends'
    std::vector<MPI_Request> requests_;
    const std::byte *staged_ = nullptr;
    bool unpacked_ = false;
};

std::unique_ptr<dm::exchange::Transport> make_mailbox(const dm::exchange::TransportSetup &setup) {
    return std::make_unique<Mailbox>(setup);
}

// The one registration.
void register_mailbox() {
    static const bool registered = (dm::exchange::register_transport({"mailbox", make_mailbox, true}), true);
    (void)registered;
}

std::byte byte_of(int from, int to, std::int64_t at) {
    return static_cast<std::byte>((from * 131 + to * 17 + at * 7 + (at >> 8)) & 0xff);
}

// Every rank sends to every other rank `bytes_to(r, q)` bytes, as runs of 3 bytes
// 5 apart in slot 0 (or slot 1 where `aliased`), and receives them as runs of 2
// bytes 4 apart in slot 1: the layouts differ on the two sides, as in a
// redistribution. Returns the plan and sizes the buffers.
struct Ring {
    std::vector<std::byte> source, target;
    std::vector<std::int64_t> sent_at, received_at;  // per peer: the first byte's offset
};

std::int64_t bytes_to(int from, int to) { return 6 * (1 + (from + 2 * to) % 4); }

std::unique_ptr<dm::exchange::Plan> all_pairs(Ring &ring, const char *executor, int round_of_peer,
                                              bool read_before_write = false) {
    const int me = dmtest::world_rank(), p = dmtest::world_size();
    auto plan = std::make_unique<dm::exchange::Plan>(MPI_COMM_WORLD, 2, "mailbox test");
    std::int64_t out = 0, in = 0;
    ring.sent_at.assign(static_cast<std::size_t>(p), 0), ring.received_at.assign(static_cast<std::size_t>(p), 0);
    for (int q = 0; q < p; ++q) {
        if (q == me) continue;
        Block send;
        send.slot = 0, send.levels = 1, send.run = 3, send.offset = out, send.count[0] = bytes_to(me, q) / 3;
        send.stride[0] = 5;
        ring.sent_at[static_cast<std::size_t>(q)] = out;
        out += 5 * send.count[0];
        Block recv;
        recv.slot = 1, recv.levels = 1, recv.run = 2, recv.offset = in, recv.count[0] = bytes_to(q, me) / 2;
        recv.stride[0] = 4;
        ring.received_at[static_cast<std::size_t>(q)] = in;
        in += 4 * recv.count[0];
        const int round = round_of_peer ? (q + me) % round_of_peer : 0;  // the same on both sides
        plan->send(q, send, round);
        plan->recv(q, recv, round);
    }
    ring.source.assign(static_cast<std::size_t>(std::max<std::int64_t>(out, 1)), std::byte{0});
    ring.target.assign(static_cast<std::size_t>(std::max<std::int64_t>(in, 1)), std::byte{0});
    plan->finish({dm::exchange::executor_named(executor), read_before_write});
    return plan;
}

void fill(Ring &ring) {
    const int me = dmtest::world_rank(), p = dmtest::world_size();
    std::fill(ring.target.begin(), ring.target.end(), std::byte{0});
    for (int q = 0; q < p; ++q) {
        if (q == me) continue;
        const std::int64_t n = bytes_to(me, q);
        for (std::int64_t i = 0; i < n; ++i)
            ring.source[static_cast<std::size_t>(ring.sent_at[static_cast<std::size_t>(q)] + i / 3 * 5 + i % 3)] =
                byte_of(me, q, i);
    }
}

bool arrived(const Ring &ring) {
    const int me = dmtest::world_rank(), p = dmtest::world_size();
    bool right = true;
    for (int q = 0; q < p; ++q) {
        if (q == me) continue;
        const std::int64_t n = bytes_to(q, me);
        for (std::int64_t i = 0; i < n; ++i)
            right = right && ring.target[static_cast<std::size_t>(ring.received_at[static_cast<std::size_t>(q)] +
                                                                   i / 2 * 4 + i % 2)] == byte_of(q, me, i);
    }
    return right;
}

}  // namespace

DM_TEST(a_registered_transport_is_an_executor_by_name) {
    register_mailbox();
    const std::vector<std::string> names = dm::exchange::executor_names(true);
    CHECK(std::find(names.begin(), names.end(), "mailbox") != names.end());
    CHECK_TEXT(dm::exchange::executor_named("mailbox").name(), "mailbox");
    for (const char *taken : {"mailbox", "pack", "auto", ""}) {
        int code = DM_OK;
        try {
            dm::exchange::register_transport({taken, make_mailbox, true});
        } catch (const dm::Error &e) {
            code = e.code();
        }
        CHECK_EQ(code, DM_ERR_ARG);
    }
}

DM_TEST(a_registered_transport_carries_every_message_it_takes) {
    register_mailbox();
    const int p = dmtest::world_size();
    for (int rounds : {0, 3}) {
        Ring ring;
        std::unique_ptr<dm::exchange::Plan> plan = all_pairs(ring, "mailbox", rounds);
        for (const dm::exchange::MessageShape &m : plan->messages())
            if (m.peer >= 0) CHECK_TEXT(m.transport, "mailbox");
        CHECK(p == 1 || plan->describe().find("packed into one mailbox message") != std::string::npos);
        for (int pass = 0; pass < 2; ++pass) {  // reused
            fill(ring);
            const void *slots[2] = {ring.source.data(), ring.target.data()};
            plan->begin(slots);
            if (pass == 1)
                while (!plan->test()) {
                }
            plan->end();
            CHECK(arrived(ring));
        }
        // One buffer as both slots: the engine stages what is sent before anything
        // is written, and the mailbox sends from that copy.
        Ring same;
        std::unique_ptr<dm::exchange::Plan> staged = all_pairs(same, "mailbox", rounds, true);
        fill(same);
        std::vector<std::byte> both(std::max(same.source.size(), same.target.size()), std::byte{0});
        std::copy(same.source.begin(), same.source.end(), both.begin());
        const void *aliased[2] = {both.data(), both.data()};
        staged->begin(aliased);
        staged->end();
        std::copy(both.begin(), both.begin() + static_cast<std::ptrdiff_t>(same.target.size()), same.target.begin());
        CHECK(arrived(same));
        // The same plan under auto takes nothing through the mailbox.
        Ring other;
        std::unique_ptr<dm::exchange::Plan> automatic = all_pairs(other, "auto", rounds);
        for (const dm::exchange::MessageShape &m : automatic->messages()) CHECK(std::string(m.transport) != "mailbox");
        fill(other);
        const void *slots[2] = {other.source.data(), other.target.data()};
        automatic->begin(slots);
        automatic->end();
        CHECK(arrived(other));
    }
}
