// The C handle behind dm_grid: shared so that arrays keep their grid alive.
#pragma once

#include "layout/grid.hpp"

#include <memory>

struct dm_grid_s {
    std::shared_ptr<dm::layout::ProcessGrid> grid;
};

namespace dm::layout {
// Throws DM_ERR_STATE for a NULL handle.
ProcessGrid &grid_of(dm_grid handle);
}  // namespace dm::layout
