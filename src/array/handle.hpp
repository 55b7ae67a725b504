// The C handle behind dm_array.
#pragma once

#include "array/dist_array.hpp"
#include "layout/handle.hpp"

#include <memory>

struct dm_array_s {
    std::unique_ptr<dm::array::DistArray> array;
    dm_grid_s grid;  // shares the grid, so dm_array_grid can hand out a handle
};

namespace dm::array {
// Throws DM_ERR_STATE for a NULL handle.
DistArray &array_of(dm_array handle);
}  // namespace dm::array
