// The C handle behind dm_grid: shared so that arrays keep their grid alive.
#pragma once

#include "layout/grid.hpp"

#include <memory>

struct dm_grid_s {
    std::shared_ptr<dm::layout::ProcessGrid> grid;
    bool borrowed = false;  // handed out by dm_array_grid: owned by the array, never freed alone
};

namespace dm::layout {
// Throws DM_ERR_STATE for a NULL handle.
ProcessGrid &grid_of(dm_grid handle);
}  // namespace dm::layout
