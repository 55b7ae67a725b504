// The exchange engine's variable exchange (src/exchange/variable.hpp): random uneven
// counts with zeros, ranks sending or receiving nothing, records of odd sizes,
// messages split into chunks, arrival callbacks in rank order and as they arrive,
// answers sent per peer on arrival; on WORLD, SELF and a split communicator. Every
// byte is a function of (source rank, destination rank, position), checked where it
// lands.
#include "harness.hpp"

#include "core/error.hpp"
#include "exchange/variable.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace {

using dm::exchange::Arrival;
using dm::exchange::ArrivalOrder;
using dm::exchange::Lane;
using dm::exchange::VariableExchange;

std::byte value_of(int from, int to, std::int64_t at) {
    return static_cast<std::byte>((from * 131 + to * 31 + at * 7 + (at >> 8)) & 0xff);
}

// A count matrix the same on every rank: counts[s * p + d] records from s to d.
std::vector<std::int64_t> count_matrix(int p, unsigned seed, int pattern) {
    std::mt19937 rng(seed);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(p) * p, 0);
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) {
            std::int64_t n = 0;
            switch (pattern) {
                case 0: n = static_cast<std::int64_t>(rng() % 50); break;                   // dense, uneven
                case 1: n = rng() % 3 == 0 ? static_cast<std::int64_t>(rng() % 200) : 0; break;  // sparse
                case 2: n = s == 0 ? 0 : static_cast<std::int64_t>(rng() % 20); break;       // rank 0 sends nothing
                case 3: n = d == p - 1 ? 0 : static_cast<std::int64_t>(rng() % 20); break;  // last receives nothing
                case 4: n = d == (s + 1) % p ? 1000 : 0; break;                                // a ring
                default: n = 0; break;                                                         // nothing at all
            }
            counts[static_cast<std::size_t>(s) * p + d] = n;
        }
    return counts;
}

struct Case {
    int p, rank;
    std::int64_t record;
    std::vector<std::int64_t> scount, sdispl, rcount, rdispl;
    std::vector<std::byte> send, recv;
    Case(MPI_Comm comm, const std::vector<std::int64_t> &counts, std::int64_t record_bytes, bool gaps)
        : record(record_bytes) {
        MPI_Comm_size(comm, &p);
        MPI_Comm_rank(comm, &rank);
        scount.resize(p);
        rcount.resize(p);
        sdispl.resize(p);
        rdispl.resize(p);
        std::int64_t s = 0, r = 0;
        // Peers in reverse order in the buffers, with gaps when asked: displacements
        // need not follow the rank order.
        for (int q = p - 1; q >= 0; --q) {
            scount[q] = counts[static_cast<std::size_t>(rank) * p + q];
            rcount[q] = counts[static_cast<std::size_t>(q) * p + rank];
            sdispl[q] = s;
            rdispl[q] = r;
            s += scount[q] + (gaps ? 2 : 0);
            r += rcount[q] + (gaps ? 3 : 0);
        }
        send.resize(static_cast<std::size_t>(s * record) + 1);
        recv.assign(static_cast<std::size_t>(r * record) + 1, std::byte{0xee});
        for (int q = 0; q < p; ++q)
            for (std::int64_t b = 0; b < scount[q] * record; ++b)
                send[static_cast<std::size_t>(sdispl[q] * record + b)] = value_of(rank, q, b);
    }
    // Peer q's records as they must arrive here.
    bool holds(int q, const std::byte *at) const {
        for (std::int64_t b = 0; b < rcount[q] * record; ++b)
            if (at[b] != value_of(q, rank, b)) return false;
        return true;
    }
    bool all_arrived() const {
        for (int q = 0; q < p; ++q)
            if (!holds(q, recv.data() + rdispl[q] * record)) return false;
        return true;
    }
};

std::vector<MPI_Comm> communicators() {
    MPI_Comm split = MPI_COMM_NULL;
    const int rank = dmtest::world_rank();
    // Two groups of uneven sizes, ranks in reverse order within each.
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0, -rank, &split);
    return {MPI_COMM_WORLD, MPI_COMM_SELF, split};
}

void free_communicators(std::vector<MPI_Comm> &comms) { MPI_Comm_free(&comms[2]); }

int nonzero_peers(const std::vector<std::int64_t> &counts, int self) {
    int n = 0;
    for (std::size_t q = 0; q < counts.size(); ++q) n += counts[q] > 0 && static_cast<int>(q) != self;
    return n;
}

}  // namespace

DM_TEST(variable_exchange_like_alltoallv) {
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1;
        MPI_Comm_size(comm, &p);
        for (int pattern = 0; pattern <= 5; ++pattern)
            for (std::int64_t record : {1, 3, 8, 12}) {
                Case c(comm, count_matrix(p, 17u * pattern + record, pattern), record, pattern % 2 == 0);
                dm::exchange::exchange_variable(comm, Lane::second, c.send.data(), c.scount.data(), c.sdispl.data(),
                                                c.recv.data(), c.rcount.data(), c.rdispl.data(),
                                                static_cast<std::size_t>(record));
                CHECK(c.all_arrived());
                // The gaps are untouched.
                CHECK(c.recv.back() == std::byte{0xee});
            }
    }
    free_communicators(comms);
}

DM_TEST(variable_exchange_one_message_per_nonzero_peer) {
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1;
        MPI_Comm_size(comm, &p);
        for (int pattern : {1, 4, 5}) {
            Case c(comm, count_matrix(p, 5u + pattern, pattern), 8, false);
            VariableExchange x(comm, Lane::first, 8);
            x.receive(c.recv.data(), c.rcount.data(), c.rdispl.data());
            x.send(c.send.data(), c.scount.data(), c.sdispl.data());
            x.finish();
            CHECK(c.all_arrived());
            CHECK_EQ(x.messages_sent(), static_cast<std::int64_t>(nonzero_peers(c.scount, c.rank)));
            CHECK_EQ(x.messages_received(), static_cast<std::int64_t>(nonzero_peers(c.rcount, c.rank)));
        }
    }
    free_communicators(comms);
}

DM_TEST(variable_exchange_splits_large_messages) {
    // Messages of at most 10 bytes: 3 records of 3 bytes each, so a peer's records
    // travel as several messages and arrive whole.
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1;
        MPI_Comm_size(comm, &p);
        for (int pattern : {0, 1, 2}) {
            for (ArrivalOrder order : {ArrivalOrder::Rank, ArrivalOrder::Any}) {
                Case c(comm, count_matrix(p, 23u + pattern, pattern), 3, true);
                VariableExchange x(comm, Lane::third, 3, 10);
                x.receive(c.recv.data(), c.rcount.data(), c.rdispl.data());
                x.send(c.send.data(), c.scount.data(), c.sdispl.data());
                std::vector<int> seen(static_cast<std::size_t>(p), 0);
                bool whole = true;
                x.finish(order, [&](const Arrival &a) {
                    ++seen[static_cast<std::size_t>(a.peer)];
                    whole = whole && a.count == (a.peer == c.rank ? c.scount[a.peer] : c.rcount[a.peer]) &&
                            (a.peer == c.rank || c.holds(a.peer, a.records));
                });
                CHECK(whole);
                std::int64_t chunks = 0;
                for (int q = 0; q < p; ++q) {
                    if (q != c.rank) chunks += (c.rcount[q] + 2) / 3;
                    CHECK_EQ(seen[static_cast<std::size_t>(q)],
                             (q == c.rank ? c.scount[q] : c.rcount[q]) > 0 ? 1 : 0);
                }
                CHECK_EQ(x.messages_received(), chunks);
            }
        }
    }
    free_communicators(comms);
}

DM_TEST(variable_exchange_arrivals_in_rank_order) {
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1;
        MPI_Comm_size(comm, &p);
        for (int pattern : {0, 1, 3}) {
            Case c(comm, count_matrix(p, 41u + pattern, pattern), 12, false);
            VariableExchange x(comm, Lane::fourth, 12);
            x.receive(c.recv.data(), c.rcount.data(), c.rdispl.data());
            x.send(c.send.data(), c.scount.data(), c.sdispl.data());
            std::vector<int> order;
            bool self_from_send = true;
            x.finish(ArrivalOrder::Rank, [&](const Arrival &a) {
                order.push_back(a.peer);
                if (a.peer == c.rank)  // handed from the send buffer, not copied
                    self_from_send = self_from_send && a.records == c.send.data() + c.sdispl[c.rank] * 12;
            });
            CHECK(self_from_send);
            std::vector<int> expect;
            for (int q = 0; q < p; ++q)
                if ((q == c.rank ? c.scount[q] : c.rcount[q]) > 0) expect.push_back(q);
            CHECK(order == expect);
            for (int q = 0; q < p; ++q)
                if (q != c.rank) CHECK(c.holds(q, c.recv.data() + c.rdispl[q] * 12));
        }
    }
    free_communicators(comms);
}

DM_TEST(variable_exchange_answers_on_arrival) {
    // Each rank asks every peer for count[s][d] values; the owner answers each peer
    // as its request arrives (send_to), the way a gather serves requests.
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1, rank = 0;
        MPI_Comm_size(comm, &p);
        MPI_Comm_rank(comm, &rank);
        const auto counts = count_matrix(p, 99, 1);
        std::vector<std::int64_t> ask(p), serve(p), adispl(p), sdispl(p);
        std::int64_t na = 0, ns = 0;
        for (int q = 0; q < p; ++q) {
            ask[q] = counts[static_cast<std::size_t>(rank) * p + q];
            serve[q] = counts[static_cast<std::size_t>(q) * p + rank];
            adispl[q] = na;
            sdispl[q] = ns;
            na += ask[q];
            ns += serve[q];
        }
        std::vector<std::int32_t> questions(static_cast<std::size_t>(na) + 1);
        std::vector<std::int32_t> incoming(static_cast<std::size_t>(ns) + 1);
        std::vector<double> replies(static_cast<std::size_t>(ns) + 1), answers(static_cast<std::size_t>(na) + 1, -1.0);
        for (int q = 0; q < p; ++q)
            for (std::int64_t t = 0; t < ask[q]; ++t)
                questions[static_cast<std::size_t>(adispl[q] + t)] = static_cast<std::int32_t>(rank * 1000 + t);
        VariableExchange requests(comm, Lane::first, sizeof(std::int32_t)), reply(comm, Lane::second, sizeof(double));
        requests.receive(incoming.data(), serve.data(), sdispl.data());
        reply.receive(answers.data(), ask.data(), adispl.data());
        requests.send(questions.data(), ask.data(), adispl.data());
        requests.finish(ArrivalOrder::Any, [&](const Arrival &a) {
            const auto *in = reinterpret_cast<const std::int32_t *>(a.records);
            double *out = replies.data() + sdispl[a.peer];
            for (std::int64_t t = 0; t < a.count; ++t) out[t] = 0.5 * in[t] + rank;
            reply.send_to(a.peer, out, a.count);
        });
        reply.finish();
        bool right = true;
        for (int q = 0; q < p; ++q)
            for (std::int64_t t = 0; t < ask[q]; ++t)
                right = right && answers[static_cast<std::size_t>(adispl[q] + t)] == 0.5 * (rank * 1000 + t) + q;
        CHECK(right);
    }
    free_communicators(comms);
}

DM_TEST(variable_exchange_refuses_bad_use) {
    int code = DM_OK;
    try {
        VariableExchange x(MPI_COMM_SELF, Lane::first, 0);
    } catch (const dm::Error &e) {
        code = e.code();
    }
    CHECK_EQ(code, DM_ERR_ARG);
    // A self part whose counts differ on the two sides.
    std::int64_t one = 1, two = 2, zero = 0;
    char buf[4] = {};
    code = DM_OK;
    try {
        VariableExchange x(MPI_COMM_SELF, Lane::first, 1);
        x.receive(buf, &two, &zero);
        x.send(buf, &one, &zero);
        x.finish();
    } catch (const dm::Error &e) {
        code = e.code();
    }
    CHECK_EQ(code, DM_ERR_ARG);
    code = DM_OK;
    try {
        VariableExchange x(MPI_COMM_SELF, Lane::first, 1);
        x.finish();
        x.finish();
    } catch (const dm::Error &e) {
        code = e.code();
    }
    CHECK_EQ(code, DM_ERR_STATE);
}
