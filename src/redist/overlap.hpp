// What two distributions of one axis have in common: the runs of global indices
// that a coordinate owns under one and some peer coordinate owns under the other,
// and the MPI datatypes that select the product of such runs over the axes.
#pragma once

#include "layout/distribution.hpp"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace dm::redist {

// Global indices [global, global + length), local index `local` of the first on
// this side, owned by coordinate `peer` on the other side; `phase` is the
// communication phase the run belongs to (0 unless a schedule splits the axis).
struct Run {
    std::int64_t global, length, local;
    int peer, phase;
};

// Maps a global index along the axis to a phase (called once per run, at its start).
using PhaseOf = std::function<int(std::int64_t)>;

// The window [offset, offset + count) of an axis as seen from coordinate `coord`
// of `mine`: the window positions s whose global index offset + s it owns, in
// increasing order, cut where the owner of other_offset + s under `other`
// changes and, with `split`, where a block of `split` positions ends (so each
// run lies in one such block and `phase_of` sees its start). Run::global is
// the window position.
std::vector<Run> overlaps(const layout::AxisMap &mine, int coord, std::int64_t offset, const layout::AxisMap &other,
                          std::int64_t other_offset, std::int64_t count, std::int64_t split = 0,
                          const PhaseOf &phase_of = {});

// The committed datatype selecting, in a storage with `byte_strides` per axis whose
// local index (0, ..., 0) lies at byte `origin`, the product of the runs of each
// axis (elements of `element`). Order: row-major over the product, runs in order,
// which is the same on both sides of a message. Throws DM_ERR_UNSUPPORTED when an
// offset or count exceeds what MPI can describe.
MPI_Datatype product_datatype(const std::vector<std::vector<const Run *>> &runs,
                              const std::vector<std::int64_t> &byte_strides, std::int64_t origin,
                              MPI_Datatype element);

// Elements in the product of the runs.
std::int64_t product_count(const std::vector<std::vector<const Run *>> &runs);

}  // namespace dm::redist
