// The two data-dependent movements behind permutations, extract/replace and ranking,
// on the engine's variable exchange (src/exchange/variable.hpp).
//
// Both sort the elements by destination with a counting sort whose buckets are
// (rank, window): the window is the receiver-local offset >> 16, so an offset travels
// as 16 bits and the receiver's random accesses stay inside one window of 2^16
// elements (at most 512 KiB, in cache) at a time instead of roaming its whole block.
//
// scatter: every local source element k with a target t(k) >= 0 is written to global
//   position t(k) of the destination. One pass counts the elements per bucket (and
//   checks the targets); one all-to-all of the per-rank counts agrees on faults, so
//   a bad index fails every rank before anything moves; a second pass places each
//   element's (16-bit offset, value) record in its bucket of the send buffer (the
//   source is read completely there). Each receiver writes its segments into the
//   destination in rank order, this rank's own from the send buffer, and the sort is
//   stable, so with duplicate targets the highest source position wins. The segments
//   travel in one of two ways, decided alike on every rank:
//   - On one node (every rank of the communicator on this node, with node memory),
//     for destination blocks of at least the on-node transport's minimum (smaller
//     ones go by message: the barrier would cost more than the copy it saves), the
//     send buffer is node memory kept in the workspace (c.ws.node). The records
//     are placed before the counts leave, and the count exchange also tells each
//     receiver where its segments lie (window, offset); each rank then reads its
//     segments straight out of the senders' buffers (no MPI copy), and a barrier
//     keeps every buffer unchanged until all ranks have read it. Where some rank's
//     pool has no room for its records, or its DM_EXCHANGE names a message executor
//     (pack, datatype, hybrid), it says so in the count exchange and the records
//     travel by message; after a call that lacked room every rank makes room
//     (collectively), so that the next one reads in place.
//   - Otherwise the records are placed while the counts travel (this rank's own
//     work only, so a rank that waits for a slower peer's counts has its records
//     ready), and one message per peer carries its rank's buckets behind their
//     counts, each written into the destination on arrival.
// gather: every local destination element k with t(k) >= 0 reads global position
//   t(k) of the source. A counting pass and the count exchange as above, the requests
//   (16-bit offsets by bucket) placed while it travels; they go to the owners, which answer each peer as its
//   requests arrive (this rank's own without MPI while the others travel); a last
//   pass in destination order takes each answer from its bucket.
//
// On one node, gather reads in place instead (gather_in_place): when every rank's
// source block is node memory that all ranks map, no rank's destination overlaps its
// source and no rank's DM_EXCHANGE names a message executor, one row gather agrees on
// faults and on where the blocks are, each rank reads its values straight out of the
// owners' blocks, and a barrier keeps every source unchanged until all ranks have
// read it. Each value is copied once.
//
// Targets are a function t(k) returning the global position or -1 (nothing to
// move); it records a bad index in the call's fault and returns -1; check(n)
// records the first bad one of [0, n) without computing positions. The source is
// read completely before `prepare()` runs (after the agreement) and before any
// destination element is written (default permutations copy their default vector
// in prepare).
#pragma once

#include "core/node_memory.hpp"
#include "exchange/peer_memory.hpp"
#include "exchange/plan.hpp"
#include "vector/exchange.hpp"
#include "vector/state.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

namespace dm::vector {

// t(k) from an array of global positions (-1: nothing to move).
template <class I>
struct Positions {
    const I *at;
    int64_t operator()(int64_t k) const { return at[k]; }
    void check(int64_t) const {}  // made by the caller, which records its own faults
};

namespace detail {

constexpr int kWindowBits = 16;

// The buckets (rank, window) of a vector's block distribution, for global positions.
class Buckets {
public:
    static int64_t windows_of(const BlockRule &block) {
        return std::max<int64_t>(1, (block.max_count() + (int64_t(1) << kWindowBits) - 1) >> kWindowBits);
    }
    // `begin`: scratch for p entries.
    Buckets(const BlockRule &block, int p, int64_t *begin)
        : block_(block), begin_(begin), windows_(windows_of(block)), count_(p * windows_) {
        for (int r = 0; r < p; ++r) begin[r] = block.begin(r);
    }
    int64_t windows() const { return windows_; }
    int64_t count() const { return count_; }
    // The bucket of global position g; `low` gets the offset within its window.
    int64_t of(int64_t g, uint16_t &low) const {
        const int r = block_.owner(g);
        const int64_t offset = g - begin_[r];
        low = static_cast<uint16_t>(offset);
        return r * windows_ + (offset >> kWindowBits);
    }

private:
    BlockRule block_;
    const int64_t *begin_;
    int64_t windows_, count_;
};

// count[b] = the number of targets in bucket b. Four interleaved tallies (in `tally`,
// 4 x buckets entries): consecutive elements often fall in the same bucket, and a
// single tally would make each increment wait for the previous one.
template <class Targets>
[[gnu::noinline]] void count_buckets(Targets target, int64_t n, const Buckets buckets, int64_t *tally,
                                     int64_t *count) {
    const int64_t nb = buckets.count();
    std::fill(tally, tally + 4 * nb, int64_t(0));
    uint16_t low = 0;
    int64_t k = 0;
    for (; k + 4 <= n; k += 4)
        for (int j = 0; j < 4; ++j) {
            const int64_t g = target(k + j);
            if (g >= 0) ++tally[j * nb + buckets.of(g, low)];
        }
    for (; k < n; ++k) {
        const int64_t g = target(k);
        if (g >= 0) ++tally[buckets.of(g, low)];
    }
    for (int64_t b = 0; b < nb; ++b) count[b] = tally[b] + tally[nb + b] + tally[2 * nb + b] + tally[3 * nb + b];
}

// The counting sort's placing pass: the record of each element (its 16-bit offset,
// then `Payload` bytes from payload + k * Payload, if any) goes to its bucket's
// cursor. A function of its own (not inlined into its large caller, whose spilled
// variables the byte stores would make it reload), with its invariants in
// parameters, so that they stay in registers.
template <std::size_t Payload, class Targets>
[[gnu::noinline]] void place_records(Targets target, const std::byte *payload, int64_t n, const Buckets buckets,
                                     std::byte **cursor) {
    constexpr std::size_t record = sizeof(uint16_t) + Payload;
    uint16_t low = 0;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t g = target(k);
        if (g < 0) continue;
        std::byte *&at = cursor[buckets.of(g, low)];
        std::byte *to = at;
        at = to + record;
        std::memcpy(to, &low, sizeof low);
        if constexpr (Payload > 0) std::memcpy(to + sizeof low, payload + k * int64_t(Payload), Payload);
    }
}

// A rank's segment of a message: its windows' record counts (int64), then the
// records bucket by bucket. Returns the segment's bytes (0 without records).
inline int64_t segment_bytes(int64_t windows, int64_t records, int64_t record_bytes) {
    return records > 0 ? windows * int64_t(sizeof(int64_t)) + records * record_bytes : 0;
}

// Writes the counts of rank r's windows at `at` and points cursor[b] at each of its
// buckets' first record.
inline void start_segment(std::byte *at, int r, const Buckets &buckets, const int64_t *count, int64_t record_bytes,
                          std::byte **cursor) {
    const int64_t w = buckets.windows(), first = r * w;
    std::memcpy(at, count + first, static_cast<std::size_t>(w) * sizeof(int64_t));
    std::byte *next = at + w * int64_t(sizeof(int64_t));
    for (int64_t b = first; b < first + w; ++b) {
        cursor[b] = next;
        next += count[b] * record_bytes;
    }
}

// Runs body(window, low offsets at, count) over the windows of a segment whose
// records are `record_bytes` bytes, each starting with its 16-bit offset.
template <class F>
void for_each_window(const std::byte *segment, int64_t windows, int64_t record_bytes, F &&body) {
    const std::byte *at = segment + windows * int64_t(sizeof(int64_t));
    for (int64_t w = 0; w < windows; ++w) {
        int64_t n = 0;
        std::memcpy(&n, segment + w * int64_t(sizeof(int64_t)), sizeof n);
        body(w << kWindowBits, at, n);
        at += n * record_bytes;
    }
}

// Whether [a, a + an) and [b, b + bn) share a byte.
template <class A, class B>
bool overlap(const A *a, int64_t an, const B *b, int64_t bn) {
    const auto *a0 = reinterpret_cast<const std::byte *>(a), *b0 = reinterpret_cast<const std::byte *>(b);
    const std::less<const std::byte *> less;
    return an > 0 && bn > 0 && less(a0, b0 + bn * static_cast<int64_t>(sizeof(B))) &&
           less(b0, a0 + an * static_cast<int64_t>(sizeof(A)));
}

// What a rank tells its peers in place of a window number where they cannot read its
// data in place: nothing to read there, or its node pool had no room (-1: not node
// memory, or messages asked for).
constexpr int64_t kNothing = -2, kNoRoom = -3;

// Local. Whether every rank of c's communicator is on this node and has node memory
// (the same answer on every rank).
inline bool all_on_node(const Context &c) { return dm::exchange::all_on_node(c.comm); }

// Local. Where this rank's `count` elements at `block` lie in node memory that every
// rank of c's communicator maps: {window, offset}, or {-1, 0} where they do not.
inline dm::node::Location shared_location(const Context &c, const void *block, int64_t count) {
    if (count == 0) return {kNothing, 0};  // any location will do
    return dm::exchange::shared_with(c.comm, block);
}

// dst[k] = the source element at global position target(k) (fill where it is < 0),
// read through origin[r], the address rank r's element 0 would have. The positions
// of a chunk are computed and prefetched before any of its values is loaded, so that
// many cache misses are in flight at once; a function of its own, with its
// invariants in parameters, so that they stay in registers.
template <class T, class Targets>
[[gnu::noinline]] void read_in_place(Targets target, int64_t n, T *dst, const std::uintptr_t *origin,
                                     const BlockRule block, T fill) {
    constexpr int64_t kChunk = 32;
    const T *from[kChunk];
    for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
        const int64_t m = std::min(kChunk, n - k0);
        for (int64_t j = 0; j < m; ++j) {
            const int64_t g = target(k0 + j);
            from[j] = g < 0 ? &fill
                            : reinterpret_cast<const T *>(origin[block.owner(g)] +
                                                          static_cast<std::uintptr_t>(g) * sizeof(T));
            __builtin_prefetch(from[j]);
        }
        for (int64_t j = 0; j < m; ++j) dst[k0 + j] = *from[j];
    }
}

// gather's one-copy form on a node (see the top of this file). Collective; returns
// false having moved nothing when some rank's source is not shared or its destination
// overlaps its source (every rank returns the same), and throws the agreed fault.
template <class T, class Targets>
bool gather_in_place(Context &c, Targets target, int64_t ndst, T *dst, const T *src, const BlockRule &src_block, T fill,
                     const LocalFault &fault) {
    if (!all_on_node(c)) return false;
    target.check(ndst);  // records the first bad index in `fault`
    const int64_t nsrc = src_block.count(c.rank);
    const dm::node::Location at = shared_location(c, src, nsrc);
    const int64_t mine[3] = {at.window != -1 && !overlap(dst, ndst, src, nsrc) && dm::exchange::may_read_in_place(), at.window,
                             at.offset};
    const int64_t *rows = gather_checked(c, mine, 3, fault);
    for (int r = 0; r < c.nranks; ++r)
        if (!rows[3 * r]) return false;
    std::uintptr_t *origin = c.ws.get<std::uintptr_t>(kOwner, static_cast<std::size_t>(c.nranks));
    for (int r = 0; r < c.nranks; ++r) {
        const int64_t *row = rows + 3 * r;
        const void *block = row[1] == kNothing ? nullptr : dm::exchange::peer_address(c.comm, r, {row[1], row[2]});
        const auto at = reinterpret_cast<std::uintptr_t>(block);
        origin[r] = at - static_cast<std::uintptr_t>(src_block.begin(r)) * sizeof(T);
    }
    read_in_place(target, ndst, dst, origin, src_block, fill);
    // No rank may change its source (or free it) while another still reads it.
    dm::exchange::done_reading(c.comm);
    return true;
}

// scatter on one rank: nothing moves; values are written directly, in source order.
template <class T, class Targets, class Prepare>
void scatter_alone(Context &c, Targets &target, const T *values, int64_t nsrc, T *dst, const BlockRule &dst_block,
                   const LocalFault &fault, Prepare prepare) {
    for (int64_t k = 0; k < nsrc; ++k) c.scount[0] += target(k) >= 0;
    exchange_counts(c, &fault);
    if (overlap(dst, dst_block.count(0), values, nsrc)) {  // read every value before writing one
        T *copy = c.ws.get<T>(kSend, static_cast<std::size_t>(nsrc));
        std::memcpy(static_cast<void *>(copy), values, static_cast<std::size_t>(nsrc) * sizeof(T));
        values = copy;
    }
    prepare();
    for (int64_t k = 0; k < nsrc; ++k) {
        const int64_t g = target(k);
        if (g >= 0) dst[g] = values[k];
    }
}

// scatter's send buffer on one node: node memory where its records may be read in
// place (else nullptr), and in sent_at[2r], sent_at[2r + 1] where rank r's segment
// lies in it (window, offset; -1: no node memory here, so messages), which the count
// exchange tells each receiver. Small blocks (of `block_bytes`) go by message, as
// the on-node transport's small messages: the barrier costs more than the copy it
// saves.
inline std::byte *scatter_node_buffer(Context &c, int64_t nsend, int64_t block_bytes, int64_t *sent_at) {
    std::byte *send = nullptr;
    dm::node::Location at{kNothing, 0};
    const bool small = !dm::exchange::worth_reading_in_place(block_bytes);
    if (nsend > 0 && (small || !dm::exchange::may_read_in_place())) {
        at = {};
    } else if (nsend > 0) {
        std::byte *node = c.ws.node.get(c.comm, nsend);
        at = node ? shared_location(c, node, nsend) : dm::node::Location{kNoRoom, 0};
        if (at.window >= 0) send = node;
    }
    for (int r = 0; r < c.nranks; ++r) {
        sent_at[2 * r] = at.window;
        sent_at[2 * r + 1] = at.offset + c.sdispl[r];
    }
    return send;
}

// Writes a segment of scatter's records (16-bit offset, value) into the destination,
// window by window.
template <class T>
void write_records(T *dst, const std::byte *segment, int64_t windows) {
    constexpr int64_t record = sizeof(uint16_t) + sizeof(T);
    for_each_window(segment, windows, record, [&](int64_t first, const std::byte *at, int64_t n) {
        T *base = dst + first;
        for (int64_t t = 0; t < n; ++t, at += record) {
            uint16_t offset;
            T value;
            std::memcpy(&offset, at, sizeof offset);
            std::memcpy(&value, at + sizeof offset, sizeof value);
            base[offset] = value;
        }
    });
}

// gather on one rank: read in place, everything first when the destination is (part
// of) the source.
template <class T, class Targets, class Prepare>
void gather_alone(Context &c, Targets &target, int64_t ndst, T *dst, const T *src, const BlockRule &src_block, T fill,
                  const LocalFault &fault, Prepare prepare) {
    for (int64_t k = 0; k < ndst; ++k) c.scount[0] += target(k) >= 0;
    exchange_counts(c, &fault);
    const bool aliased = overlap(dst, ndst, src, src_block.count(0));
    T *got = aliased ? c.ws.get<T>(kReply, static_cast<std::size_t>(ndst)) : dst;
    const auto origin = reinterpret_cast<std::uintptr_t>(src);
    read_in_place(target, ndst, got, &origin, src_block, fill);
    prepare();
    if (got != dst) std::memcpy(static_cast<void *>(dst), got, static_cast<std::size_t>(ndst) * sizeof(T));
}

// out[t] = the source elements a segment of gather's requests (16-bit offsets) names,
// in its order.
template <class T>
void serve_requests(const T *src, const std::byte *segment, int64_t windows, T *out) {
    constexpr int64_t record = sizeof(uint16_t);
    for_each_window(segment, windows, record, [&](int64_t first, const std::byte *at, int64_t n) {
        const T *base = src + first;
        for (int64_t t = 0; t < n; ++t, at += record) {
            uint16_t offset;
            std::memcpy(&offset, at, sizeof offset);
            *out++ = base[offset];
        }
    });
}

// gather's last step: dst[k] = the answer to its request (in bucket order, from rank
// r's answers at answer + adispl[r]), or `fill` where target(k) < 0.
template <class T, class Targets>
void place_answers(Context &c, Targets &target, int64_t ndst, T *dst, T fill, const Buckets &buckets,
                   const int64_t *count, const T *answer, const int64_t *adispl, int64_t windows) {
    auto **from = c.ws.get<const T *>(kOwner, static_cast<std::size_t>(c.nranks * windows));
    for (int r = 0; r < c.nranks; ++r) {
        const T *next = answer + adispl[r];
        for (int64_t b = r * windows; b < (r + 1) * windows; ++b) {
            from[b] = next;
            next += count[b];
        }
    }
    uint16_t low = 0;
    for (int64_t k = 0; k < ndst; ++k) {
        const int64_t g = target(k);
        dst[k] = g >= 0 ? *from[buckets.of(g, low)]++ : fill;
    }
}

}  // namespace detail

// Uses slots kSend, kRecv, kOwner, kMisc and the workspace's node memory.
template <class T, class Targets, class Prepare>
void scatter(Context &c, Targets target, const T *values, int64_t nsrc, T *dst, const BlockRule &dst_block,
             const LocalFault &fault, Prepare prepare) {
    zero(c.scount);
    if (c.nranks == 1) return detail::scatter_alone(c, target, values, nsrc, dst, dst_block, fault, prepare);
    const int p = c.nranks, self = c.rank;
    const std::size_t np = static_cast<std::size_t>(p);
    const int64_t w = detail::Buckets::windows_of(dst_block), nb = p * w;
    int64_t *begin = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(nb) + 7 * np);
    int64_t *count = begin + p, *sbytes = count + nb, *rbytes = sbytes + p, *sent_at = rbytes + p,
            *segment_at = sent_at + 2 * np;
    const detail::Buckets buckets(dst_block, p, begin);
    detail::count_buckets(target, nsrc, buckets, c.ws.get<int64_t>(kOwner, static_cast<std::size_t>(4 * nb)), count);
    for (int r = 0; r < p; ++r) c.scount[r] = std::accumulate(count + r * w, count + (r + 1) * w, int64_t(0));
    constexpr int64_t record = sizeof(uint16_t) + sizeof(T);
    for (int r = 0; r < p; ++r) sbytes[r] = detail::segment_bytes(w, c.scount[r], record);
    const int64_t nsend = prefix_sums_of(sbytes, c.sdispl, np);

    // On one node the send buffer is node memory, and the count exchange also tells
    // each receiver where its segment lies in it (window, offset; -1: no node memory
    // here, so messages); the same `words` on every rank.
    const bool on_node = detail::all_on_node(c);
    const int words = on_node ? 2 : 0;
    const int64_t block_bytes = dst_block.max_count() * int64_t(sizeof(T));
    std::byte *send = on_node ? detail::scatter_node_buffer(c, nsend, block_bytes, sent_at) : nullptr;
    if (!send) send = c.ws.get<std::byte>(kSend, static_cast<std::size_t>(nsend));
    auto **cursor = c.ws.get<std::byte *>(kOwner, static_cast<std::size_t>(nb));
    auto place = [&] {
        for (int r = 0; r < p; ++r)
            if (sbytes[r] > 0) detail::start_segment(send + c.sdispl[r], r, buckets, count, record, cursor);
        detail::place_records<sizeof(T)>(target, reinterpret_cast<const std::byte *>(values), nsrc, buckets, cursor);
    };
    // Read in place, the records must be placed before the counts leave (a receiver
    // reads as soon as they arrive); by message they are placed while the counts
    // travel (this rank's own work only, so a rank that waits for a slower peer's
    // counts has its records ready). Nothing is read by a peer before the agreement.
    if (on_node) place();
    dm::exchange::RowExchange agreement = start_count_exchange(c, &fault, sent_at, words);
    if (!on_node) place();
    finish_count_exchange(c, &fault, agreement, segment_at, words);

    auto write_segment = [&](const std::byte *segment) { detail::write_records(dst, segment, w); };
    bool in_place = on_node, no_room = false;
    for (int r = 0; r < p && on_node; ++r) {
        in_place = in_place && (segment_at[2 * r] >= 0 || segment_at[2 * r] == detail::kNothing);
        no_room = no_room || segment_at[2 * r] == detail::kNoRoom;
    }
    if (in_place) {
        prepare();
        for (int r = 0; r < p; ++r) {  // in rank order: the highest source position wins
            if (c.rcount[r] == 0) continue;
            const std::byte *segment =
                r == self ? send + c.sdispl[r]
                          : dm::exchange::peer_address(c.comm, r, {segment_at[2 * r], segment_at[2 * r + 1]});
            write_segment(segment);
        }
        // No rank may place records into its buffer again while another still reads it.
        dm::exchange::done_reading(c.comm);
        return;
    }

    for (int r = 0; r < p; ++r)  // the own segment stays in `send`
        rbytes[r] = r == self ? 0 : detail::segment_bytes(w, c.rcount[r], record);
    const int64_t nrecv = prefix_sums_of(rbytes, c.rdispl, np);
    auto *recv = c.ws.get<std::byte>(kRecv, static_cast<std::size_t>(nrecv));
    run_exchange(c, [&] {
        dm::exchange::VariableExchange x(c.comm, dm::exchange::Lane::first, 1);
        x.receive(recv, rbytes, c.rdispl.data());
        x.send(send, sbytes, c.sdispl.data());
        prepare();
        x.finish(dm::exchange::ArrivalOrder::Rank, [&](const dm::exchange::Arrival &a) { write_segment(a.records); });
    });
    // Some rank's pool had no room for its records: every rank makes room now
    // (collectively, a window only where one is needed), so that the next call of this
    // size reads in place. Not where a rank asked for messages.
    bool asked_messages = false;
    for (int r = 0; r < p && on_node; ++r) asked_messages = asked_messages || segment_at[2 * r] == -1;
    if (no_room && !asked_messages) c.ws.node.reserve(c.comm, nsend);
}

// Uses slots kSend, kRecv, kReply, kAnswer, kOwner, kMisc. Destination elements with
// target < 0 get `fill`.
template <class T, class Targets, class Prepare>
void gather(Context &c, Targets target, int64_t ndst, T *dst, const T *src, const BlockRule &src_block, T fill,
            const LocalFault &fault, Prepare prepare) {
    zero(c.scount);
    if (c.nranks == 1) return detail::gather_alone(c, target, ndst, dst, src, src_block, fill, fault, prepare);
    if (detail::gather_in_place(c, target, ndst, dst, src, src_block, fill, fault)) {
        prepare();
        return;
    }
    const int p = c.nranks, self = c.rank;
    const std::size_t np = static_cast<std::size_t>(p);
    const int64_t w = detail::Buckets::windows_of(src_block), nb = p * w;
    int64_t *begin = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(nb) + 7 * np);
    int64_t *count = begin + p, *sbytes = count + nb, *sdispl = sbytes + p, *rbytes = sdispl + p,
            *rdispl = rbytes + p, *asked = rdispl + p, *served = asked + p;
    const detail::Buckets buckets(src_block, p, begin);
    detail::count_buckets(target, ndst, buckets, c.ws.get<int64_t>(kOwner, static_cast<std::size_t>(4 * nb)), count);
    for (int r = 0; r < p; ++r) c.scount[r] = std::accumulate(count + r * w, count + (r + 1) * w, int64_t(0));
    dm::exchange::RowExchange agreement = start_count_exchange(c, &fault);

    // Requests: per rank a segment of 16-bit offsets (this rank's own one is answered
    // without MPI), sorted while the counts travel. Answers: scount[r] values from
    // rank r, in the order asked.
    constexpr int64_t record = sizeof(uint16_t);
    int64_t total_s = 0;
    for (int r = 0; r < p; ++r) {
        sbytes[r] = detail::segment_bytes(w, c.scount[r], record);
        sdispl[r] = total_s;
        total_s += sbytes[r];
    }
    auto *request = c.ws.get<std::byte>(kSend, static_cast<std::size_t>(total_s));
    auto **cursor = c.ws.get<std::byte *>(kOwner, static_cast<std::size_t>(nb));
    for (int r = 0; r < p; ++r)
        if (sbytes[r] > 0) detail::start_segment(request + sdispl[r], r, buckets, count, record, cursor);
    detail::place_records<0>(target, nullptr, ndst, buckets, cursor);
    finish_count_exchange(c, &fault, agreement);

    for (int r = 0; r < p; ++r) {
        rbytes[r] = r == self ? 0 : detail::segment_bytes(w, c.rcount[r], record);
        asked[r] = r == self ? 0 : c.scount[r];
        served[r] = r == self ? 0 : c.rcount[r];
    }
    std::vector<int64_t> &adispl = c.sdispl, &vdispl = c.rdispl;  // answers and replies, in values
    int64_t total_r = 0, total_a = 0, total_v = 0;
    for (int r = 0; r < p; ++r) {
        rdispl[r] = total_r;
        total_r += rbytes[r];
        adispl[r] = total_a;
        total_a += c.scount[r];
        vdispl[r] = total_v;
        total_v += served[r];
    }
    auto *incoming = c.ws.get<std::byte>(kRecv, static_cast<std::size_t>(total_r));
    T *reply = c.ws.get<T>(kReply, static_cast<std::size_t>(total_v));
    T *answer = c.ws.get<T>(kAnswer, static_cast<std::size_t>(total_a));
    auto serve = [&](const std::byte *segment, T *out) { detail::serve_requests(src, segment, w, out); };
    run_exchange(c, [&] {
        dm::exchange::VariableExchange requests(c.comm, dm::exchange::Lane::first, 1);
        dm::exchange::VariableExchange replies(c.comm, dm::exchange::Lane::second, sizeof(T));
        requests.receive(incoming, rbytes, rdispl);
        replies.receive(answer, asked, adispl.data());
        for (int r = 0; r < p; ++r)
            if (r != self) requests.send_to(r, request + sdispl[r], sbytes[r]);
        if (sbytes[self] > 0) serve(request + sdispl[self], answer + adispl[self]);  // while the others travel
        // Answer each peer as soon as its requests are in.
        requests.finish(dm::exchange::ArrivalOrder::Any, [&](const dm::exchange::Arrival &a) {
            T *out = reply + vdispl[static_cast<std::size_t>(a.peer)];
            serve(a.records, out);
            replies.send_to(a.peer, out, served[a.peer]);
        });
        replies.finish();
    });
    prepare();
    detail::place_answers(c, target, ndst, dst, fill, buckets, count, answer, adispl.data(), w);
}

}  // namespace dm::vector
