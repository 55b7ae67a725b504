// What two distributions of one axis have in common: the runs of global indices
// that a coordinate owns under one and some peer coordinate owns under the other.
#pragma once

#include "layout/distribution.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace dm::redist {

// Global indices [global, global + length), local index `local` of the first on
// this side, owned by coordinate `peer` on the other side; `phase` is the
// communication phase the run belongs to (0 unless a schedule splits the axis).
struct OverlapRun {
    std::int64_t global, length, local;
    int peer, phase;
};

// Maps a global index along the axis to a phase (called once per run, at its start).
using PhaseOf = std::function<int(std::int64_t)>;

// The window [offset, offset + count) of an axis as seen from coordinate `coord`
// of `mine`: the window positions s whose global index offset + s it owns, in
// increasing order, cut where the owner of other_offset + s under `other`
// changes and, with `split`, where a block of `split` positions ends (so each
// run lies in one such block and `phase_of` sees its start). OverlapRun::global is
// the window position.
std::vector<OverlapRun> overlaps(const layout::AxisMap &mine, int coord, std::int64_t offset, const layout::AxisMap &other,
                          std::int64_t other_offset, std::int64_t count, std::int64_t split = 0,
                          const PhaseOf &phase_of = {});

}  // namespace dm::redist
