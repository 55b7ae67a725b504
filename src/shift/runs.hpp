// Where a range of positions along one axis comes from: runs of consecutive
// positions that one grid coordinate owns, shared by shifts and halos.
#pragma once

#include "layout/distribution.hpp"

#include <cstdint>
#include <vector>

namespace dm::shift {

struct SourceRun {
    std::int64_t offset, length;  // positions [offset, offset + length) of the range
    int coord;                    // owner of their sources, or -1: outside a non-periodic axis
    std::int64_t local;           // local index of the first source on `coord`
};

// The runs of `count` positions along an axis mapped by `map` (any distribution:
// a run ends where a distribution block does) whose sources are the global indices start + offset,
// start + offset + 1, ... Any start and offset are valid: the sum is never formed
// where it could overflow. On a periodic axis indices wrap around (any number of
// times); on others those outside [0, n) form runs with coord -1. An empty axis
// gives no runs.
std::vector<SourceRun> source_runs(const layout::AxisMap &map, std::int64_t start, std::int64_t offset,
                                   std::int64_t count, bool periodic);

// The runs of the positions that grid coordinate `coord` owns along the axis, each
// reading the global index `offset` further on (as source_runs), with `offset` of
// each run its local index on `coord`: the owned positions in local order, block by
// block, runs that continue each other on both sides joined.
std::vector<SourceRun> owned_source_runs(const layout::AxisMap &map, int coord, std::int64_t offset, bool periodic);

}  // namespace dm::shift
