// Axis distributions: every kind is block-cyclic once the block size is resolved
// against the axis length and the number of grid coordinates.
#pragma once

#include <datamotion/layout.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dm::layout {

// ScaLAPACK's NUMROC with 0-based coordinates.
std::int64_t numroc(std::int64_t n, std::int64_t block, int coord, int src, int nprocs);

// Throws DM_ERR_ARG for an unknown kind (read as an integer: any value a C caller
// passes is reported, not loaded as the enum), a block size < 1 or src outside
// [0, nprocs). `where` names the argument in the message (e.g. "axis 1").
void validate(const dm_dist &dist, int nprocs, const std::string &where);

// Local indices [local, local + length) of one coordinate that hold the consecutive
// global indices [global, global + length).
struct OwnedRun {
    std::int64_t local, global, length;
};

// A distribution of one axis of n elements over nprocs coordinates, resolved.
// Any n in [0, INT64_MAX] is valid: every index computation below stays within
// [0, n], so none overflows.
class AxisMap {
public:
    AxisMap() = default;
    AxisMap(const dm_dist &dist, std::int64_t n, int nprocs);  // validates

    std::int64_t length() const { return n_; }
    int nprocs() const { return nprocs_; }
    std::int64_t block() const { return block_; }
    int src() const { return src_; }
    dm_dist resolved() const;  // kind kept, block and src filled in

    int owner(std::int64_t g) const { return static_cast<int>(((g / block_) % nprocs_ + src_) % nprocs_); }
    std::int64_t local_index(std::int64_t g) const { return (g / block_ / nprocs_) * block_ + g % block_; }
    std::int64_t global_index(int coord, std::int64_t l) const {
        const std::int64_t shifted = (std::int64_t{coord} - src_ + nprocs_) % nprocs_;  // int would overflow
        return ((l / block_) * nprocs_ + shifted) * block_ + l % block_;
    }
    std::int64_t extent(int coord) const { return numroc(n_, block_, coord, src_, nprocs_); }
    // The runs of the elements coordinate `coord` owns whose global indices lie in
    // [begin, end): one per distribution block, cut at the window's ends, in local
    // (and so global) order. What capabilities walk instead of the block size and
    // source: the one rule for which positions of an axis a coordinate holds.
    std::vector<OwnedRun> owned_runs(int coord, std::int64_t begin = 0, std::int64_t end = INT64_MAX) const;

private:
    dm_dist_kind kind_ = DM_DIST_BLOCK;
    std::int64_t n_ = 0, block_ = 1;
    int nprocs_ = 1, src_ = 0;
};

}  // namespace dm::layout
