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
//   Elements this rank owns itself are read directly, never requested.
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

// Per rank: first global position (for offsets) and the segment cursors.
template <class T>
struct Cursor {
    int32_t *offset;
    T *value;
};

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
    int64_t *count = c.scount.data();
    for (int64_t k = 0; k < nsrc; ++k) {
        const int64_t g = target(k);
        if (g >= 0) ++count[dst_block.owner(g)];
    }
    exchange_counts(c, &fault);

    const std::size_t p = static_cast<std::size_t>(c.nranks);
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
    auto *cursor = c.ws.get<detail::Cursor<T>>(kOwner, p);
    for (std::size_t r = 0; r < p; ++r) {
        std::byte *at = send + c.sdispl[r] * record;
        cursor[r] = {reinterpret_cast<int32_t *>(at), reinterpret_cast<T *>(at + sp[r] * int64_t(sizeof(int32_t)))};
    }
    run_exchange(c, [&] {
        dm::exchange::VariableExchange x(c.comm, kTagData, record);
        x.receive(recv, rp, c.rdispl.data());
        for (int64_t k = 0; k < nsrc; ++k) {
            const int64_t g = target(k);
            if (g < 0) continue;
            const int r = dst_block.owner(g);
            *cursor[r].offset++ = static_cast<int32_t>(g - begin[r]);
            *cursor[r].value++ = values[k];
        }
        for (std::size_t r = 0; r < p; ++r) {  // the padding travels too: make it defined
            const int64_t pad = sp[r] - c.scount[r];
            std::memset(cursor[r].offset, 0, static_cast<std::size_t>(pad) * sizeof(int32_t));
            std::memset(static_cast<void *>(cursor[r].value), 0, static_cast<std::size_t>(pad) * sizeof(T));
        }
        x.send(send, sp, c.sdispl.data());
        prepare();
        x.finish(dm::exchange::ArrivalOrder::Rank, [&](const dm::exchange::Arrival &a) {
            const int64_t n = a.peer == c.rank ? c.scount[a.peer] : c.rcount[a.peer];
            const auto *offset = reinterpret_cast<const int32_t *>(a.records);
            const auto *value = reinterpret_cast<const T *>(a.records + a.count * int64_t(sizeof(int32_t)));
            for (int64_t t = 0; t < n; ++t) dst[offset[t]] = value[t];
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
    int64_t *count = c.scount.data();
    for (int64_t k = 0; k < ndst; ++k) {
        const int64_t g = target(k);
        if (g >= 0) ++count[src_block.owner(g)];
    }
    exchange_counts(c, &fault);

    // The elements this rank owns are read in the last pass, unless the destination
    // overlaps the source: then they take the request path too (without MPI), so
    // that every read precedes every write.
    const int self = c.rank;
    const int64_t e0 = src_block.begin(self);
    const bool direct = !detail::overlap(dst, ndst, src, src_block.count(self));
    const std::size_t p = static_cast<std::size_t>(c.nranks);
    int64_t *asked = c.ws.get<int64_t>(kMisc, 3 * p), *serve = asked + p, *begin = serve + p;
    for (int r = 0; r < c.nranks; ++r) {
        asked[r] = r == self && direct ? 0 : c.scount[r];
        serve[r] = r == self && direct ? 0 : c.rcount[r];
        begin[r] = src_block.begin(r);
    }
    const int64_t nask = prefix_sums_of(asked, c.sdispl, p), nserve = prefix_sums_of(serve, c.rdispl, p);
    auto *request = c.ws.get<int32_t>(kSend, static_cast<std::size_t>(nask));
    auto *incoming = c.ws.get<int32_t>(kRecv, static_cast<std::size_t>(nserve));
    T *reply = c.ws.get<T>(kReply, static_cast<std::size_t>(nserve));
    T *answer = c.ws.get<T>(kAnswer, static_cast<std::size_t>(nask));
    auto *cursor = c.ws.get<int32_t *>(kOwner, p);
    for (std::size_t r = 0; r < p; ++r) cursor[r] = request + c.sdispl[r];
    run_exchange(c, [&] {
        dm::exchange::VariableExchange requests(c.comm, kTagRequest, sizeof(int32_t));
        dm::exchange::VariableExchange replies(c.comm, kTagReply, sizeof(T));
        requests.receive(incoming, serve, c.rdispl.data());
        replies.receive(answer, asked, c.sdispl.data());
        for (int64_t k = 0; k < ndst; ++k) {
            const int64_t g = target(k);
            if (g < 0) continue;
            const int r = src_block.owner(g);
            if (r == self && direct) continue;
            *cursor[r]++ = static_cast<int32_t>(g - begin[r]);
        }
        requests.send(request, asked, c.sdispl.data());
        // Answer each peer as soon as its requests are in.
        requests.finish(dm::exchange::ArrivalOrder::Any, [&](const dm::exchange::Arrival &a) {
            const auto *offset = reinterpret_cast<const int32_t *>(a.records);
            T *out = reply + c.rdispl[static_cast<std::size_t>(a.peer)];
            for (int64_t t = 0; t < a.count; ++t) out[t] = src[offset[t]];
            replies.send_to(a.peer, out, a.count);
        });
        replies.finish();
    });
    prepare();
    auto **from = c.ws.get<const T *>(kOwner, p);
    for (std::size_t r = 0; r < p; ++r) from[r] = answer + c.sdispl[r];
    for (int64_t k = 0; k < ndst; ++k) {
        const int64_t g = target(k);
        if (g < 0) {
            dst[k] = fill;
            continue;
        }
        const int r = src_block.owner(g);
        dst[k] = r == self && direct ? src[g - e0] : *from[r]++;
    }
}

}  // namespace dm::vector
