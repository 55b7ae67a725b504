// Segment descriptors: what a segmented operation needs to know about n elements in m
// segments, stored per rank so that most operations need no communication beyond
// their own data movement.
//
// Layout on every rank, in 64-bit words (units), with bn = most elements per rank of an
// n-vector and bm = most elements per rank of an m-vector:
//   [0, 16)             header: magic, n, m, nstarts, then (j, start, length) of the
//                       segment holding this rank's first element and of the one
//                       holding its last element (-1 when the rank holds no element)
//   [16, 16 + bm)       segment side: global start of each of this rank's m-block
//   [16 + bm, 16 + 2bm)            segments, then their lengths
//   [16 + 2bm, ...)     element side: for each element of this rank that begins a
//                       (nonempty) segment, the pair (segment number, local position),
//                       nstarts pairs in order (2 bn units reserved)
// Empty segments have no element and so no start pair: they exist only on the segment
// side. The header lets a rank tell whether its first segment continues from an
// earlier rank and whether its last one continues on a later rank.
#pragma once

#include "vector/state.hpp"

#include <cstdint>

namespace dm::vector {

constexpr int64_t kDescriptorMagic = 0x312d44532d4c5643;  // "CVL-SD-1"
constexpr int64_t kDescriptorHeader = 16;

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
    // Segment side: start and length of this rank's segments seg_begin() + t.
    const int64_t *seg_start() const { return words_ + kDescriptorHeader; }
    const int64_t *seg_len() const { return words_ + kDescriptorHeader + bm_; }
    // Number of local elements that begin a segment.
    int64_t nstarts() const { return words_[3]; }
    // This rank's last element belongs to a segment that goes on at a later rank.
    bool continues_to_next() const { return cnt_ > 0 && words_[8] + words_[9] > e0_ + cnt_; }

    // The records of this rank's elements, in order, in workspace slot kRecords.
    const SegRecord *records(Context &c, int64_t *count) const;

private:
    const int64_t *starts() const { return words_ + kDescriptorHeader + 2 * bm_; }

    Handle handle_;
    const int64_t *words_;
    int64_t n_, m_, bm_;
    Block nb_, mb_;
    int64_t e0_, cnt_, s0_, scnt_;
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
