// The two data-dependent movements behind permutations, extract/replace and ranking,
// on the engine's variable exchange (src/exchange/variable.hpp).
//
// scatter: every local source element k with a target t(k) >= 0 is written to global
//   position t(k) of the destination. One pass counts the elements per destination
//   rank (and checks the targets); one MPI_Alltoall of the counts agrees on faults, so
//   a bad index fails every rank before anything moves; a second pass places each
//   element's receiver-local offset (int32) and value into its rank's segment of one
//   buffer (a counting sort by rank); one message per peer carries the segment, and
//   each arrives straight into the destination. Segments are handed over in rank
//   order, this rank's own from the send buffer, so with duplicate targets the
//   highest source position wins.
// gather: every local destination element k with t(k) >= 0 reads global position
//   t(k) of the source. A counting pass and the count exchange as above; requests
//   (int32 offsets) go to the owners, which answer each peer as its requests arrive;
//   a last pass in destination order takes each answer from its rank's segment.
//   Requests to this rank itself are answered without MPI while the others travel.
//
// Targets are a function t(k) returning the global position or -1 (nothing to
// move); it records a bad index in the call's fault and returns -1. The source is
// read completely before `prepare()` runs (after the agreement) and before any
// destination element is written (default permutations copy their default vector
// in prepare).
#pragma once

#include "vector/exchange.hpp"
#include "vector/state.hpp"

#include <cstring>
#include <functional>

namespace dm::vector {

// t(k) from an array of global positions (-1: nothing to move).
template <class I>
struct Positions {
    const I *at;
    int64_t operator()(int64_t k) const { return at[k]; }
};

namespace detail {

// Where the receiver-local offsets (int32) and the values of the records for one
// rank go: segments of `padded` records, offsets first, so that both arrays stay
// aligned (counts rounded up to 8 records).
inline int64_t padded(int64_t n) { return (n + 7) & ~int64_t(7); }

// Adds to count[r] the number of targets that rank r owns. Four interleaved tallies
// (in `tally`, 4 p entries): consecutive elements often go to the same rank, and a
// single tally would make each increment wait for the previous one.
template <class Targets>
void count_owners(Targets target, int64_t n, const Block block, int p, int64_t *tally, int64_t *count) {
    std::fill(tally, tally + 4 * static_cast<std::size_t>(p), int64_t(0));
    int64_t k = 0;
    for (; k + 4 <= n; k += 4)
        for (int j = 0; j < 4; ++j) {
            const int64_t g = target(k + j);
            if (g >= 0) ++tally[j * p + block.owner(g)];
        }
    for (; k < n; ++k) {
        const int64_t g = target(k);
        if (g >= 0) ++tally[block.owner(g)];
    }
    for (int r = 0; r < p; ++r) count[r] += tally[r] + tally[p + r] + tally[2 * p + r] + tally[3 * p + r];
}

// The counting sort's placing pass: each element's receiver-local offset and value
// go to the cursors of its rank's segment.
template <class T, class Targets>
void place(Targets target, const T *values, int64_t n, const Block block, const int64_t *begin, int32_t **offset,
           T **value) {
    for (int64_t k = 0; k < n; ++k) {
        const int64_t g = target(k);
        if (g < 0) continue;
        const int r = block.owner(g);
        *offset[r]++ = static_cast<int32_t>(g - begin[r]);
        *value[r]++ = values[k];
    }
}

// dst[offset[t]] = value[t]: the writes land at random, so the lines are fetched
// ahead of them.
template <class T>
void scatter_into(T *dst, const int32_t *offset, const T *value, int64_t n) {
    constexpr int64_t ahead = 16;
    int64_t t = 0;
    for (; t + ahead < n; ++t) {
        __builtin_prefetch(dst + offset[t + ahead], 1, 0);
        dst[offset[t]] = value[t];
    }
    for (; t < n; ++t) dst[offset[t]] = value[t];
}

// Whether [a, a + an) and [b, b + bn) share a byte.
template <class A, class B>
bool overlap(const A *a, int64_t an, const B *b, int64_t bn) {
    const auto *a0 = reinterpret_cast<const std::byte *>(a), *b0 = reinterpret_cast<const std::byte *>(b);
    const std::less<const std::byte *> less;
    return an > 0 && bn > 0 && less(a0, b0 + bn * static_cast<int64_t>(sizeof(B))) &&
           less(b0, a0 + an * static_cast<int64_t>(sizeof(A)));
}

}  // namespace detail

// Uses slots kSend, kRecv, kOwner, kMisc.
template <class T, class Targets, class Prepare>
void scatter(Context &c, Targets target, const T *values, int64_t nsrc, T *dst, const Block &dst_block,
             const LocalFault &fault, Prepare prepare) {
    zero(c.scount);
    if (c.nranks == 1) {  // nothing to move: write directly, in source order
        for (int64_t k = 0; k < nsrc; ++k) c.scount[0] += target(k) >= 0;
        exchange_counts(c, &fault);
        prepare();
        for (int64_t k = 0; k < nsrc; ++k) {
            const int64_t g = target(k);
            if (g >= 0) dst[g] = values[k];
        }
        return;
    }
    const std::size_t p = static_cast<std::size_t>(c.nranks);
    detail::count_owners(target, nsrc, dst_block, c.nranks, c.ws.get<int64_t>(kOwner, 4 * p), c.scount.data());
    exchange_counts(c, &fault);

    constexpr int64_t record = sizeof(int32_t) + sizeof(T);
    int64_t *sp = c.ws.get<int64_t>(kMisc, 3 * p), *rp = sp + p, *begin = rp + p;
    for (int r = 0; r < c.nranks; ++r) {
        sp[r] = detail::padded(c.scount[r]);
        rp[r] = r == c.rank ? 0 : detail::padded(c.rcount[r]);  // the own segment is read from the send buffer
        begin[r] = dst_block.begin(r);
    }
    const int64_t nsend = prefix_sums_of(sp, c.sdispl, p), nrecv = prefix_sums_of(rp, c.rdispl, p);
    auto *send = c.ws.get<std::byte>(kSend, static_cast<std::size_t>(nsend * record));
    auto *recv = c.ws.get<std::byte>(kRecv, static_cast<std::size_t>(nrecv * record));
    // Cursors: where rank r's next offset and value go.
    auto **offset = c.ws.get<int32_t *>(kOwner, 2 * p);
    auto **value = reinterpret_cast<T **>(offset + p);
    for (std::size_t r = 0; r < p; ++r) {
        std::byte *at = send + c.sdispl[r] * record;
        offset[r] = reinterpret_cast<int32_t *>(at);
        value[r] = reinterpret_cast<T *>(at + sp[r] * int64_t(sizeof(int32_t)));
    }
    run_exchange(c, [&] {
        dm::exchange::VariableExchange x(c.comm, kTagData, record);
        x.receive(recv, rp, c.rdispl.data());
        detail::place(target, values, nsrc, dst_block, begin, offset, value);
        for (std::size_t r = 0; r < p; ++r) {  // the padding travels too: make it defined
            const int64_t pad = sp[r] - c.scount[r];
            std::memset(offset[r], 0, static_cast<std::size_t>(pad) * sizeof(int32_t));
            std::memset(static_cast<void *>(value[r]), 0, static_cast<std::size_t>(pad) * sizeof(T));
        }
        x.send(send, sp, c.sdispl.data());
        prepare();
        x.finish(dm::exchange::ArrivalOrder::Rank, [&](const dm::exchange::Arrival &a) {
            const int64_t n = a.peer == c.rank ? c.scount[a.peer] : c.rcount[a.peer];
            detail::scatter_into(dst, reinterpret_cast<const int32_t *>(a.records),
                                 reinterpret_cast<const T *>(a.records + a.count * int64_t(sizeof(int32_t))), n);
        });
    });
}

// Uses slots kSend, kRecv, kReply, kAnswer, kOwner, kMisc. Destination elements with
// target < 0 get `fill`.
template <class T, class Targets, class Prepare>
void gather(Context &c, Targets target, int64_t ndst, T *dst, const T *src, const Block &src_block, T fill,
            const LocalFault &fault, Prepare prepare) {
    zero(c.scount);
    if (c.nranks == 1) {
        for (int64_t k = 0; k < ndst; ++k) c.scount[0] += target(k) >= 0;
        exchange_counts(c, &fault);
        // Read everything first when the destination is (part of) the source.
        T *got = detail::overlap(dst, ndst, src, src_block.count(0)) ? c.ws.get<T>(kReply, static_cast<std::size_t>(ndst))
                                                                       : dst;
        for (int64_t k = 0; k < ndst; ++k) {
            const int64_t g = target(k);
            got[k] = g >= 0 ? src[g] : fill;
        }
        prepare();
        if (got != dst) std::memcpy(static_cast<void *>(dst), got, static_cast<std::size_t>(ndst) * sizeof(T));
        return;
    }
    const std::size_t p = static_cast<std::size_t>(c.nranks);
    detail::count_owners(target, ndst, src_block, c.nranks, c.ws.get<int64_t>(kOwner, 4 * p), c.scount.data());
    exchange_counts(c, &fault);

    // This rank's own elements take the request path too, without MPI: the last
    // pass then has no branch on the owner (whose outcome is random and would stall
    // the reads behind it), and every read precedes every write, whatever overlaps.
    const int self = c.rank;
    int64_t *begin = c.ws.get<int64_t>(kMisc, p);
    for (int r = 0; r < c.nranks; ++r) begin[r] = src_block.begin(r);
    const int64_t nask = prefix_sums(c.scount, c.sdispl), nserve = prefix_sums(c.rcount, c.rdispl);
    auto *request = c.ws.get<int32_t>(kSend, static_cast<std::size_t>(nask));
    auto *incoming = c.ws.get<int32_t>(kRecv, static_cast<std::size_t>(nserve));
    T *reply = c.ws.get<T>(kReply, static_cast<std::size_t>(nserve));
    T *answer = c.ws.get<T>(kAnswer, static_cast<std::size_t>(nask));
    auto **cursor = c.ws.get<int32_t *>(kOwner, p);
    for (std::size_t r = 0; r < p; ++r) cursor[r] = request + c.sdispl[r];
    // The own requests are answered straight into the answers: no copy.
    const int64_t mine = c.scount[self];
    c.scount[self] = c.rcount[self] = 0;
    run_exchange(c, [&] {
        dm::exchange::VariableExchange requests(c.comm, kTagRequest, sizeof(int32_t));
        dm::exchange::VariableExchange replies(c.comm, kTagReply, sizeof(T));
        requests.receive(incoming, c.rcount.data(), c.rdispl.data());
        replies.receive(answer, c.scount.data(), c.sdispl.data());
        for (int64_t k = 0; k < ndst; ++k) {
            const int64_t g = target(k);
            if (g < 0) continue;
            const int r = src_block.owner(g);
            *cursor[r]++ = static_cast<int32_t>(g - begin[r]);
        }
        requests.send(request, c.scount.data(), c.sdispl.data());
        auto serve = [&](const int32_t *offset, int64_t n, T *out) {
            for (int64_t t = 0; t < n; ++t) out[t] = src[offset[t]];
        };
        serve(request + c.sdispl[self], mine, answer + c.sdispl[self]);  // while the requests travel
        // Answer each peer as soon as its requests are in.
        requests.finish(dm::exchange::ArrivalOrder::Any, [&](const dm::exchange::Arrival &a) {
            T *out = reply + c.rdispl[static_cast<std::size_t>(a.peer)];
            serve(reinterpret_cast<const int32_t *>(a.records), a.count, out);
            replies.send_to(a.peer, out, a.count);
        });
        replies.finish();
    });
    c.scount[self] = c.rcount[self] = mine;
    prepare();
    auto **from = c.ws.get<const T *>(kOwner, p);
    for (std::size_t r = 0; r < p; ++r) from[r] = answer + c.sdispl[r];
    for (int64_t k = 0; k < ndst; ++k) {
        const int64_t g = target(k);
        dst[k] = g >= 0 ? *from[src_block.owner(g)]++ : fill;
    }
}

}  // namespace dm::vector
