// Axis distributions: block-cyclic kinds, resolved to a block size and a source
// against the axis length and the number of grid coordinates, and irregular
// blocks (DM_DIST_SIZES), one size per coordinate. Capabilities ask an AxisMap,
// never the kind.
#pragma once

#include <datamotion/layout.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dm::layout {

// ScaLAPACK's NUMROC with 0-based coordinates.
std::int64_t numroc(std::int64_t n, std::int64_t block, int coord, int src, int nprocs);

// Throws DM_ERR_ARG for an unknown kind (read as an integer: any value a C caller
// passes is reported, not loaded as the enum), a block size < 1, src outside
// [0, nprocs), or sizes that are not `nprocs` values >= 0 summing to `n`. `where`
// names the argument in the message (e.g. "axis 1").
void validate(const dm_dist &dist, std::int64_t n, int nprocs, const std::string &where);

// A valid distribution as integers, the one form that ranks compare, plans share
// and messages print: kind, block, src (0 where the kind reads none), then for
// DM_DIST_SIZES the count and the sizes. Appended to `out`.
void append_words(const dm_dist &dist, std::vector<std::int64_t> &out);
// The distribution append_words wrote at words[at], advancing `at` past it; its
// sizes point into `words`. DM_ERR_ARG if the words end early.
dm_dist dist_from_words(const std::vector<std::int64_t> &words, std::size_t &at);
// Distributions written by append_words, one after another, as Python writes them:
// "(Block(), Sizes([3, 0, 2]))". Any words are shown (those of another rank too).
std::string dists_text(const std::vector<std::int64_t> &words);

// Local indices [local, local + length) of one coordinate that hold the consecutive
// global indices [global, global + length).
struct OwnedRun {
    std::int64_t local, global, length;
};

// A distribution of one axis of n elements over nprocs coordinates, resolved.
// Any n in [0, INT64_MAX] is valid: every index computation below stays within
// [0, n], so none overflows. Block-cyclic kinds answer by formulas, DM_DIST_SIZES
// by the first index of every coordinate (owner: a binary search). Copies share
// the sizes.
class AxisMap {
public:
    AxisMap() = default;
    AxisMap(const dm_dist &dist, std::int64_t n, int nprocs);  // validates; copies the sizes

    std::int64_t length() const { return n_; }
    int nprocs() const { return nprocs_; }
    dm_dist_kind kind() const { return kind_; }
    // Block-cyclic (DM_DIST_BLOCK, DM_DIST_CYCLIC, DM_DIST_BLOCK_CYCLIC): only such a
    // map has a block size and a source, for what needs them (schedules, descriptors).
    bool block_cyclic() const { return !sizes_; }
    std::int64_t block() const { return block_; }  // block_cyclic() maps only
    int src() const { return src_; }                // block_cyclic() maps only
    // Every coordinate owns one run of consecutive indices or none, in coordinate
    // order (Block and Sizes axes): what ghost regions need.
    bool contiguous() const { return kind_ == DM_DIST_BLOCK || kind_ == DM_DIST_SIZES; }
    // Whether every index both maps have lies on the same coordinate under both
    // (lengths aside for block-cyclic maps, whose owners do not depend on them).
    bool same_owners(const AxisMap &other) const;
    // Kind kept, block and src filled in; the sizes of DM_DIST_SIZES point into
    // this map's copy (valid while it or a copy lives).
    dm_dist resolved() const;
    // append_words of resolved(): what makes two maps of equal length equal.
    void append_words(std::vector<std::int64_t> &out) const { layout::append_words(resolved(), out); }

    int owner(std::int64_t g) const {
        return sizes_ ? sizes_owner(g) : static_cast<int>(((g / block_) % nprocs_ + src_) % nprocs_);
    }
    std::int64_t local_index(std::int64_t g) const {
        return sizes_ ? g - sizes_->first[static_cast<std::size_t>(owner(g))]
                      : (g / block_ / nprocs_) * block_ + g % block_;
    }
    std::int64_t global_index(int coord, std::int64_t l) const {
        if (sizes_) return sizes_->first[static_cast<std::size_t>(coord)] + l;
        const std::int64_t shifted = (std::int64_t{coord} - src_ + nprocs_) % nprocs_;  // int would overflow
        return ((l / block_) * nprocs_ + shifted) * block_ + l % block_;
    }
    std::int64_t extent(int coord) const {
        return sizes_ ? sizes_->sizes[static_cast<std::size_t>(coord)] : numroc(n_, block_, coord, src_, nprocs_);
    }
    // One past the last index of the distribution block holding g (0 <= g < n): the
    // run of consecutive indices from g that one coordinate owns ends there.
    std::int64_t block_end(std::int64_t g) const;
    // The runs of the elements coordinate `coord` owns whose global indices lie in
    // [begin, end): one per distribution block, cut at the window's ends, in local
    // (and so global) order. What capabilities walk instead of the block size and
    // source: the one rule for which positions of an axis a coordinate holds.
    std::vector<OwnedRun> owned_runs(int coord, std::int64_t begin = 0, std::int64_t end = INT64_MAX) const;

private:
    // DM_DIST_SIZES: the sizes and the first index of every coordinate (nprocs + 1
    // entries, the last n).
    struct Sizes {
        std::vector<std::int64_t> sizes, first;
    };
    int sizes_owner(std::int64_t g) const;

    dm_dist_kind kind_ = DM_DIST_BLOCK;
    std::int64_t n_ = 0, block_ = 1;
    int nprocs_ = 1, src_ = 0;
    std::shared_ptr<const Sizes> sizes_;  // null for block-cyclic kinds
};

}  // namespace dm::layout
