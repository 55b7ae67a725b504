// Segment descriptors: what a segmented operation needs to know about n elements in m
// segments, kept per rank so that most operations need no communication beyond their
// own data movement.
//
// In vector memory, on every rank, in 32-bit words (every CVL length is an int, so
// positions, lengths and segment numbers fit), rounded up to 64-bit units; bn = ceil(n/p)
// and bm = ceil(m/p) are the most elements per rank of an n- and an m-vector:
//   check       1 word: a hash of (n, m)
//   identity    1 word: which mke_fov call made it (the same on every rank), the key of
//               its element side; a copy (cpy_wus, mov_fov) shares it
//   segment     bm + 1 words (none when m = 0): the global start of each segment of
//   side        this rank's m-block, then the end of its last one; a length is the
//               difference of consecutive bounds
// so siz_fos is ceil((3 + bm) / 2) units (1 when m = 0): per rank about 1/p of the serial
// CVL's m ints, so that a program fits in as much vector memory at p ranks as serially.
//
// The element side is kept by the library (ElementSides, state.hpp), built by mke_fov and
// rebuilt from the segment sides (one exchange) when it was dropped: E = min(2 min(bn, m)
// + 2, bn + 2) words at most (none when n = 0) about the records, the nonempty segments
// holding this rank's elements, in order (at most min(bn, m) of them), after a word
// that says which of two forms they take:
//   sparse: the record count, a (segment number, global start) pair per record, the end
//           of the last record's segment (2 nrec + 2)
//   dense:  the start of the first record's segment, the end of the last one's, the
//           segment number of every local element (elements + 2)
// A rank takes the sparse form when it fits: always when m <= bn / 2, otherwise unless
// its segments average under about two elements. Empty segments have no record: they
// exist only on the segment side. The first record may have begun on an earlier rank
// and the last may go on at a later one; every other record's length is the next
// record's start less its own.
#pragma once

#include "vector/state.hpp"

#include <cstdint>
#include <vector>

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
    const BlockRule &elements() const { return nb_; }
    const BlockRule &segments() const { return mb_; }
    int64_t elem_begin() const { return e0_; }
    int64_t elem_count() const { return cnt_; }
    int64_t seg_begin() const { return s0_; }
    int64_t seg_count() const { return scnt_; }
    // Segment side: global start and length of this rank's segment seg_begin() + t.
    int64_t seg_start(int64_t t) const { return bound_[t]; }
    int64_t seg_len(int64_t t) const { return int64_t{bound_[t + 1]} - bound_[t]; }
    // Collective when this descriptor's element side must be rebuilt (the same on every
    // rank): the records of this rank's elements, in order, in workspace slot kRecords.
    // Uses slots kSend, kRecv and kMisc first, so call it before filling those.
    const SegRecord *records(Context &c, int64_t *count) const;
    // This rank's last element belongs to a segment that goes on at a later rank; valid
    // after records().
    bool continues_to_next() const { return cnt_ > 0 && last_end_ > e0_ + cnt_; }

private:
    void load_elements(Context &c) const;

    Handle handle_;
    const int32_t *bound_ = nullptr;  // segment side
    uint32_t id_ = 0;
    int64_t n_, m_;
    BlockRule nb_, mb_;
    int64_t e0_, cnt_, s0_, scnt_;
    // The element side, loaded by records(): kept by the library, or owned here when it
    // did not fit there.
    mutable const int32_t *elem_ = nullptr;
    mutable std::vector<int32_t> own_;
    mutable bool dense_ = false;
    mutable int64_t last_end_ = 0;
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
