// Segment descriptors: what a segmented operation needs to know about n elements in m
// segments, stored per rank so that most operations need no communication beyond
// their own data movement.
//
// Layout on every rank, in 32-bit words (every CVL length is an int, so positions,
// lengths and segment numbers fit), rounded up to 64-bit units; bn = ceil(n/p) and
// bm = ceil(m/p) are the most elements per rank of an n- and an m-vector:
//   check       1 word: a hash of (n, m) whose low bit says which form the element
//               side takes on this rank
//   segment     bm + 1 words (none when m = 0): the global start of each segment of
//   side        this rank's m-block, then the end of its last one; a length is the
//               difference of consecutive bounds
//   element     E = min(2 min(bn, m) + 2, bn + 2) words (E = 0 when n = 0) about the
//   side        records: the nonempty segments holding this rank's elements, in order
//               (at most min(bn, m) of them), in one of two forms:
//                 sparse: the record count, a (segment number, global start) pair per
//                         record, the end of the last record's segment (2 nrec + 2)
//                 dense:  the start of the first record's segment, the end of the
//                         last one's, the segment number of every local element
//                         (elements + 2)
//               A rank takes the sparse form when it fits: always when m <= bn / 2,
//               otherwise unless its segments average under about two elements.
// Empty segments have no record: they exist only on the segment side. The first
// record may have begun on an earlier rank and the last may go on at a later one;
// every other record's length is the next record's start less its own.
// siz_fos is ceil((2 + bm + E) / 2) units (1 when m = 0), at most the 1995 MPI
// CVL's 2 ceil(bm/2) + ceil(bn/2) + 1 for every n, m and rank count (docs/cvl.md).
#pragma once

#include "vector/state.hpp"

#include <cstdint>

namespace dm::vector {

// Units per rank of a descriptor for n elements in m segments.
int64_t descriptor_units(const Context &c, int64_t n, int64_t m);

// A nonempty segment with elements on this rank.
struct SegRecord {
    int64_t j;       // segment number
    int64_t start;   // global position of its first element
    int64_t len;     // its length
    int64_t lo, hi;  // its elements on this rank: local positions [lo, hi)
};

// A validated view of a descriptor on this rank.
class Descriptor {
public:
    // Throws DM_ERR_ARG (on every rank alike) unless `sd` holds a descriptor built by
    // mke_fov for n elements in m segments. `what` names the argument.
    Descriptor(const Context &c, Handle sd, int64_t n, int64_t m, const char *what);

    int64_t n() const { return n_; }
    int64_t m() const { return m_; }
    Handle handle() const { return handle_; }
    const Block &elements() const { return nb_; }
    const Block &segments() const { return mb_; }
    int64_t elem_begin() const { return e0_; }
    int64_t elem_count() const { return cnt_; }
    int64_t seg_begin() const { return s0_; }
    int64_t seg_count() const { return scnt_; }
    // Segment side: global start and length of this rank's segment seg_begin() + t.
    int64_t seg_start(int64_t t) const { return bound_[t]; }
    int64_t seg_len(int64_t t) const { return int64_t{bound_[t + 1]} - bound_[t]; }
    // This rank's last element belongs to a segment that goes on at a later rank.
    bool continues_to_next() const { return cnt_ > 0 && last_end_ > e0_ + cnt_; }

    // The records of this rank's elements, in order, in workspace slot kRecords.
    const SegRecord *records(Context &c, int64_t *count) const;

private:
    Handle handle_;
    const int32_t *bound_ = nullptr;  // segment side
    const int32_t *elem_ = nullptr;   // element side
    bool dense_ = false;
    int64_t n_, m_;
    Block nb_, mb_;
    int64_t e0_, cnt_, s0_, scnt_;
    int64_t last_end_ = 0;
};

// The source and destination descriptors of a segmented permutation or pack, which
// need the same number of segments on both sides (DM_ERR_ARG otherwise).
struct DescriptorPair {
    DescriptorPair(const Context &c, Handle sd_s, int64_t n_s, int64_t m_s, Handle sd_d, int64_t n_d, int64_t m_d);
    Descriptor src, dst;
};

// Collective. For every record of `d` on this rank, the payload of its segment, which
// `payload(t)` gives on the rank holding that segment on the segment side (t is the
// local index there). Returns an array in workspace slot kPayload, in record order.
// Uses slots kSend and kMisc. One variable exchange; every rank computes its own counts.
template <class P, class F>
const P *seg_to_elem(Context &c, const Descriptor &d, const SegRecord *recs, int64_t nrec, F payload);

}  // namespace dm::vector

#include "vector/segdes_impl.hpp"
