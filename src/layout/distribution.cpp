#include "layout/distribution.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"

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
        case DM_DIST_BLOCK:  // CM canonical: ceil(n / nprocs) per coordinate, without forming n + nprocs - 1
            block_ = n > 0 ? n / nprocs + (n % nprocs != 0) : 1;
            break;
        case DM_DIST_CYCLIC: block_ = 1; break;
        case DM_DIST_BLOCK_CYCLIC:
            block_ = dist.block;
            src_ = dist.src;
            break;
    }
}

dm_dist AxisMap::resolved() const { return dm_dist{kind_, block_, src_}; }

}  // namespace dm::layout
