// Scans and reductions, unsegmented and segmented, for every operator and type.
//
// Scan: each rank folds the part of its block after its last segment start, one
// MPI_Exscan of (value, flag) pairs with the segmented operator carries the open
// segment's partial result in from the lower ranks, then one local pass writes the
// exclusive scan (restarting at every start). Empty segments hold no element and so
// need nothing.
//
// Segmented reduction: each rank folds each of its records; the same MPI_Exscan
// completes the segment that continues from lower ranks; the rank holding a segment's
// last element sends its value to the rank holding the segment on the segment side
// (one variable exchange whose counts both sides compute from the descriptor), which writes
// the identity for its empty segments.
#pragma once

#include "vector/exchange.hpp"
#include "vector/ops.hpp"
#include "vector/segdes.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace dm::vector {

// A run of local elements scanned with one accumulator: [lo, hi), and whether it
// continues a segment that began on a lower rank.
struct ScanRun {
    int64_t lo, hi;
    bool continues;
};

// Collective. The carry into this rank: the fold of the open segment over lower ranks
// (Op::id() on rank 0). `tail` folds this rank's elements after its last segment start,
// `has_start` tells whether the rank holds a segment start. The call's signature rides
// along: a rank whose arguments differ from a lower rank's ends the job (the lowest
// such rank always sees the difference; checked mode compared the arguments before).
template <OpKind K, class T>
T carry_in(Context &c, T tail, bool has_start) {
    if (c.nranks == 1) return Op<K, T>::id();
    const int64_t sig = c.sig.hash();
    Pair<T> mine{tail, has_start ? 1 : 0, sig, sig}, before{Op<K, T>::id(), 0, sig, sig};
    check_mpi(MPI_Exscan(&mine, &before, 1, c.pair_type(elem_kind<T>()), c.pair_op(K, elem_kind<T>()), c.comm),
              "MPI_Exscan");
    if (c.rank > 0 && (before.sig_lo != sig || before.sig_hi != sig))
        dm::abort_job(c.call(), DM_ERR_MISMATCH, "this rank's arguments differ from a lower rank's (lengths, handles or the calls made so far); "
                      "every rank must make the same calls with the same arguments (DATAMOTION_CHECK=1 names the "
                      "argument)");
    return c.rank == 0 ? Op<K, T>::id() : before.value;
}

// Whether the order of combination changes the result beyond the sign of a zero: the
// rounding of double sums and products. Every other operator here is associative and
// commutative (int arithmetic wraps; the minimum and maximum of doubles never take a NaN,
// which `b < a` and `b > a` pass over, whatever the order).
template <OpKind K, class T>
constexpr bool rounds() {
    return std::is_floating_point_v<T> && (K == OpKind::add || K == OpKind::mul);
}

// Independent accumulators of a fold: 8 (as in NumPy's pairwise sum), 32 for 1-byte
// bools; the compiler turns them into vector registers.
template <class T>
constexpr int kLanes = sizeof(T) == 1 ? 32 : 8;
// Blocks of a pairwise fold: a lane accumulator takes 128 / 8 values in sequence.
constexpr int64_t kPairwiseBlock = 128;
// The and and ior folds check for their absorbing value every so many elements.
constexpr int64_t kAbsorbBlock = 4096;
// Shorter ranges fold in one inline loop: no kernel call per short segment.
constexpr int64_t kInlineFold = 64;

// Folds load(i) for i in [lo, hi) into kLanes accumulators combined as a tree, the
// elements after the last whole group of kLanes one by one.
template <OpKind K, class T, class Load>
inline T fold_lanes(int64_t lo, int64_t hi, const Load &load) {
    using O = Op<K, T>;
    constexpr int L = kLanes<T>;
    T acc = O::id();
    if (hi - lo >= L) {
        T r[L];
        for (int j = 0; j < L; ++j) r[j] = O::id();
        for (; lo + L <= hi; lo += L)
            for (int j = 0; j < L; ++j) r[j] = O::apply(r[j], O::load(load(lo + j)));
        for (int w = L / 2; w > 0; w /= 2)
            for (int j = 0; j < w; ++j) r[j] = O::apply(r[j], r[j + w]);
        acc = r[0];
    }
    for (; lo < hi; ++lo) acc = O::apply(acc, O::load(load(lo)));
    return acc;
}

// The vector kernel of fold(). Double sums and products fold pairwise: blocks of
// kPairwiseBlock combined as a balanced binary tree (a binary counter of partial results,
// earlier ones on the left), so a result carries O(log n) roundings instead of the
// sequential fold's n: more accurate, not merely different.
// And and ior stop at the value that absorbs every other (0 / false, all bits / true),
// looked for every kAbsorbBlock elements.
template <OpKind K, class T, class Load>
DM_VECTOR_KERNEL T fold_kernel(int64_t lo, int64_t hi, Load load) {
    using O = Op<K, T>;
    if constexpr (K == OpKind::and_ || K == OpKind::ior) {
        const T absorbing = K == OpKind::and_ ? T(0) : O::load(T(~0));
        T acc = O::id();
        for (; lo < hi && acc != absorbing; lo += kAbsorbBlock)
            acc = O::apply(acc, fold_lanes<K, T>(lo, std::min(hi, lo + kAbsorbBlock), load));
        return acc;
    } else if constexpr (!rounds<K, T>()) {
        return fold_lanes<K, T>(lo, hi, load);
    } else {
        T level[64];
        std::uint64_t count = 0;
        for (; lo < hi; lo += kPairwiseBlock) {
            T v = fold_lanes<K, T>(lo, std::min(hi, lo + kPairwiseBlock), load);
            int l = 0;
            for (std::uint64_t k = count; k & 1; k >>= 1, ++l) v = O::apply(level[l], v);
            level[l] = v;
            ++count;
        }
        T acc = O::id();
        for (int l = 63; l >= 0; --l)
            if ((count >> l) & 1) acc = O::apply(acc, level[l]);
        return acc;
    }
}

// Folds load(i) for i in [lo, hi), starting from Op::id(). Only the sign of a zero
// result of min/max and the rounding of double sums and products (see fold_kernel)
// depend on the order.
template <OpKind K, class T, class Load>
T fold(int64_t lo, int64_t hi, Load load) {
    using O = Op<K, T>;
    if (hi - lo >= kInlineFold) return fold_kernel<K, T>(lo, hi, load);
    T acc = O::id();
    for (int64_t i = lo; i < hi; ++i) acc = O::apply(acc, O::load(load(i)));
    return acc;
}

// The exclusive scan of one run [lo, hi) of s into d (d may be s). A prefix carries a
// dependency from element to element, which the loop's speed is bound by (4 cycles per
// double sum): a long run is cut into kChains pieces, each piece's fold (vectorised, one
// read) gives the carries into the others, and one loop then advances the kChains
// independent scans together.
template <OpKind K, class T>
class RunScan {
    using O = Op<K, T>;

public:
    static constexpr int kChains = 4;
    static constexpr int64_t kChainedFrom = 1 << 12;  // a second read pays off from here

    // `need_total`: total() will be asked for (the fold of a rank's last run).
    RunScan(const T *s, int64_t lo, int64_t hi, bool need_total) : lo_(lo), hi_(hi) {
        chains_ = hi - lo >= kChainedFrom ? kChains : 1;
        step_ = (hi - lo) / chains_;
        if (chains_ == 1) {
            if (need_total) piece_[0] = fold<K, T>(lo, hi, [s](int64_t i) { return s[i]; });
            return;
        }
        for (int k = 0; k < chains_; ++k) {
            const int64_t a = lo + k * step_, b = k + 1 < chains_ ? a + step_ : hi;
            piece_[k] = fold<K, T>(a, b, [s](int64_t i) { return s[i]; });
        }
    }

    // The fold of the run, from Op::id().
    T total() const {
        T acc = piece_[0];
        for (int k = 1; k < chains_; ++k) acc = O::apply(acc, piece_[k]);
        return acc;
    }

    // Writes the scan starting from `carry`; `starts`: the run begins a segment (its
    // first element shows Op::empty(), the fold restarts from Op::id()).
    void write(const T *s, T *d, T carry, bool starts) const {
        if (lo_ >= hi_) return;
        if (starts) carry = O::id();
        if (chains_ == 1) {
            T acc = carry;
            for (int64_t i = lo_; i < hi_; ++i) {
                const T x = O::load(s[i]);
                d[i] = acc;
                acc = O::apply(acc, x);
            }
        } else {
            T acc[kChains];
            acc[0] = carry;
            for (int k = 1; k < kChains; ++k) acc[k] = O::apply(acc[k - 1], piece_[k - 1]);
            const T *s0 = s + lo_;
            T *d0 = d + lo_;
            for (int64_t i = 0; i < step_; ++i) {
                T x[kChains];
                for (int k = 0; k < kChains; ++k) x[k] = O::load(s0[k * step_ + i]);  // all read before d is written
                for (int k = 0; k < kChains; ++k) d0[k * step_ + i] = acc[k];
                for (int k = 0; k < kChains; ++k) acc[k] = O::apply(acc[k], x[k]);
            }
            T last = acc[kChains - 1];
            for (int64_t i = lo_ + kChains * step_; i < hi_; ++i) {
                const T x = O::load(s[i]);
                d[i] = last;
                last = O::apply(last, x);
            }
        }
        if (starts) d[lo_] = O::empty();
    }

private:
    int64_t lo_, hi_, step_;
    int chains_;
    T piece_[kChains];
};

// Collective. Exclusive scan of s into d (both this rank's block) over `runs`, in order
// and covering the block.
template <OpKind K, class T>
void scan_runs(Context &c, const T *s, T *d, const ScanRun *runs, int64_t nruns) {
    using O = Op<K, T>;
    bool has_start = false;
    for (int64_t t = 0; t < nruns; ++t) has_start |= !runs[t].continues;
    if (nruns == 0) {
        carry_in<K, T>(c, O::id(), has_start);
        return;
    }
    // The last run's fold goes to the lower ranks' carry; its pieces serve its scan.
    const ScanRun &last = runs[nruns - 1];
    const RunScan<K, T> last_scan(s, last.lo, last.hi, true);
    const T carry = carry_in<K, T>(c, last_scan.total(), has_start);
    for (int64_t t = 0; t + 1 < nruns; ++t)
        RunScan<K, T>(s, runs[t].lo, runs[t].hi, false).write(s, d, carry, !runs[t].continues);
    last_scan.write(s, d, carry, !last.continues);
}

// Collective. Segmented reduction: d (segment side, m elements) gets the fold of every
// segment of desc, the values coming from load(i) for this rank's elements i.
// Uses slots kRecords, kPartial, kSend, kRecv.
template <OpKind K, class T, class Load>
void reduce_segments(Context &c, const Descriptor &desc, Load load, T *d) {
    using O = Op<K, T>;
    int64_t nrec = 0;
    const SegRecord *recs = desc.records(c, &nrec);
    const int64_t e0 = desc.elem_begin();
    T *part = c.ws.get<T>(kPartial, static_cast<std::size_t>(nrec));
    for (int64_t t = 0; t < nrec; ++t) part[t] = fold<K, T>(recs[t].lo, recs[t].hi, load);
    const bool first_continues = nrec > 0 && recs[0].start < e0;
    const bool starts_here = nrec > 0 && recs[nrec - 1].start >= e0;  // a segment begins at a local element
    const T carry = carry_in<K, T>(c, nrec > 0 ? part[nrec - 1] : O::id(), starts_here);
    if (first_continues) part[0] = O::apply(carry, part[0]);

    // Values of the segments that end here go to their segment-side owners.
    const BlockRule &nb = desc.elements(), &mb = desc.segments();
    const int64_t nsend = nrec - (desc.continues_to_next() ? 1 : 0);
    zero(c.scount);
    for (int64_t t = 0; t < nsend; ++t) ++c.scount[mb.owner(recs[t].j)];
    const int64_t scnt = desc.seg_count();
    zero(c.rcount);
    int64_t nrecv = 0;
    for (int64_t t = 0; t < scnt; ++t)
        if (desc.seg_len(t) > 0) {
            ++c.rcount[nb.owner(desc.seg_start(t) + desc.seg_len(t) - 1)];
            ++nrecv;
        }
    T *recv = c.ws.get<T>(kRecv, static_cast<std::size_t>(nrecv));
    exchange(c, part, c.scount, recv, c.rcount, sizeof(T));
    for (int64_t t = 0, k = 0; t < scnt; ++t) d[t] = desc.seg_len(t) > 0 ? recv[k++] : O::empty();
}

}  // namespace dm::vector
