#include "layout/distribution.hpp"

#include "layout/block_rule.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"

#include <algorithm>

namespace dm::layout {

std::int64_t numroc(std::int64_t n, std::int64_t block, int coord, int src, int nprocs) {
    std::int64_t mydist = (std::int64_t{nprocs} + coord - src) % nprocs;  // distance from the source coordinate
    std::int64_t nblocks = n / block;
    std::int64_t count = (nblocks / nprocs) * block;
    std::int64_t extra = nblocks % nprocs;
    if (mydist < extra) count += block;
    else if (mydist == extra) count += n % block;
    return count;
}

void validate(const dm_dist &dist, int nprocs, const std::string &where) {
    if (nprocs < 1) fail(DM_ERR_ARG, where, ": number of grid coordinates must be positive");
    const int kind = enum_value(dist.kind);
    if (kind == DM_DIST_BLOCK || kind == DM_DIST_CYCLIC) return;
    if (kind != DM_DIST_BLOCK_CYCLIC) fail(DM_ERR_ARG, where, ": unknown distribution kind ", kind);
    if (dist.block < 1) fail(DM_ERR_ARG, where, ": block size must be positive, got ", dist.block);
    if (dist.src < 0 || dist.src >= nprocs)
        fail(DM_ERR_ARG, where, ": source coordinate ", dist.src, " out of range [0, ", nprocs, ")");
}

AxisMap::AxisMap(const dm_dist &dist, std::int64_t n, int nprocs) : n_(n), nprocs_(nprocs) {
    validate(dist, nprocs, "distribution");
    if (n < 0) fail(DM_ERR_ARG, "axis length must be non-negative, got ", n);
    kind_ = dist.kind;  // valid from here on
    switch (kind_) {
        case DM_DIST_BLOCK:  // CM canonical: the block rule's ceil(n / nprocs) per coordinate
            block_ = n > 0 ? BlockRule(n, nprocs).max_count() : 1;
            break;
        case DM_DIST_CYCLIC: block_ = 1; break;
        case DM_DIST_BLOCK_CYCLIC:
            block_ = dist.block;
            src_ = dist.src;
            break;
    }
}

dm_dist AxisMap::resolved() const { return dm_dist{kind_, block_, src_}; }

std::vector<OwnedRun> AxisMap::owned_runs(int coord, std::int64_t begin, std::int64_t end) const {
    std::vector<OwnedRun> runs;
    const std::int64_t extent = this->extent(coord);
    if (extent == 0) return runs;
    // The local blocks before `first` end before index `begin`: every round of
    // blocks covers block * nprocs global indices.
    std::int64_t first = begin > 0 ? std::min(extent, (begin / (block_ * nprocs_)) * block_) : 0;
    for (; first < extent; first += block_) {
        const std::int64_t size = std::min(block_, extent - first);
        std::int64_t global = global_index(coord, first), local = first;
        if (global >= end) break;
        if (global < begin) {  // the window starts inside this block
            local += std::min(begin - global, size);
            global = begin;
        }
        const std::int64_t length = std::min(first + size - local, end - global);
        if (length > 0) runs.push_back({local, global, length});
        if (size == extent - first) break;  // the last block: first + block may not be formed
    }
    return runs;
}

}  // namespace dm::layout
