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

namespace dm::vector {

// A run of local elements scanned with one accumulator: [lo, hi), and whether it
// continues a segment that began on a lower rank.
struct Run {
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
        fatal(c.call(), "this rank's arguments differ from a lower rank's (lengths, handles or the calls made so far); "
                      "every rank must make the same calls with the same arguments (DATAMOTION_CHECK=1 names the "
                      "argument)");
    return c.rank == 0 ? Op<K, T>::id() : before.value;
}

// Folds load(i) for i in [lo, hi).
template <OpKind K, class T, class Load>
T fold(int64_t lo, int64_t hi, Load load) {
    T acc = Op<K, T>::id();
    for (int64_t i = lo; i < hi; ++i) acc = Op<K, T>::apply(acc, Op<K, T>::load(load(i)));
    return acc;
}

// Collective. Exclusive scan of s into d (both this rank's block) over `runs`, in order
// and covering the block.
template <OpKind K, class T>
void scan_runs(Context &c, const T *s, T *d, const Run *runs, int64_t nruns) {
    using O = Op<K, T>;
    bool has_start = false;
    for (int64_t t = 0; t < nruns; ++t) has_start |= !runs[t].continues;
    const T tail = nruns > 0 ? fold<K, T>(runs[nruns - 1].lo, runs[nruns - 1].hi, [&](int64_t i) { return s[i]; })
                             : O::id();
    const T carry = carry_in<K, T>(c, tail, has_start);
    for (int64_t t = 0; t < nruns; ++t) {
        int64_t i = runs[t].lo;
        const int64_t hi = runs[t].hi;
        T acc = carry;
        if (!runs[t].continues) {
            if (i >= hi) continue;
            const T x = O::load(s[i]);
            d[i] = O::empty();
            acc = O::apply(O::id(), x);
            ++i;
        }
        for (; i < hi; ++i) {
            const T x = O::load(s[i]);
            d[i] = acc;
            acc = O::apply(acc, x);
        }
    }
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
    const Block &nb = desc.elements(), &mb = desc.segments();
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
