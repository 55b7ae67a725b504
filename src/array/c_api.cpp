// extern "C" entry points of the array layer.
#include "array/dist_array.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/handles.hpp"
#include "array/handle.hpp"

#include <algorithm>
#include <string>

namespace dm::array {
DistArray &array_of(dm_array handle) {
    handles::require_live(handle, "array", "dm_array_create");
    return *handle->array;
}
}  // namespace dm::array

namespace {
using dm::c_boundary;
using dm::fail;
using dm::array::array_of;
}  // namespace

extern "C" {

namespace {
// dm_array_create and its variants: one path, differing in where the storage comes from.
// dtype is bound, not copied: copying loads it as an enum, undefined for a code outside
// the enum that a C caller may pass (dm::enum_value reads its bytes).
int create(const char *call, dm_grid grid, const dm_dtype &dtype, int ndims, const int64_t shape[], const dm_dist dists[],
           const int ghost[], const dm::array::Storage &storage, dm_array *array) {
    return c_boundary(call, [&] {
        auto &g = dm::communicator_handle(call, [&]() -> auto & { return dm::layout::grid_of(grid); });
        // Nothing is read from the arrays before ndims is known to be valid everywhere.
        dm::collective(g.comm(), [&] {
            if (!array) fail(DM_ERR_ARG, call, ": array is NULL");
            if (ndims < 1 || ndims > DM_MAX_DIMS)
                fail(DM_ERR_ARG, call, ": ndims must be in [1, ", DM_MAX_DIMS, "], got ", ndims);
            if (!shape) fail(DM_ERR_ARG, call, ": shape is NULL");
        });
        *array = nullptr;
        std::vector<int64_t> s(shape, shape + ndims);
        std::vector<dm_dist> d;
        std::vector<int> gh;
        if (dists) d.assign(dists, dists + ndims);
        if (ghost) gh.assign(ghost, ghost + ndims);
        auto handle = std::make_unique<dm_array_s>();
        handle->grid.grid = grid->grid;
        handle->grid.borrowed = true;
        handle->array = std::make_unique<dm::array::DistArray>(grid->grid, dm::enum_value(dtype), s, d, gh, storage);
        dm::handles::add(handle.get(), "array");
        dm::handles::add(&handle->grid, "grid");  // what dm_array_grid hands out
        *array = handle.release();
    });
}
}  // namespace

int dm_array_create(dm_grid grid, dm_dtype dtype, int ndims, const int64_t shape[], const dm_dist dists[],
                    const int ghost[], dm_array *array) {
    return create("dm_array_create", grid, dtype, ndims, shape, dists, ghost, {}, array);
}

int dm_array_create_empty(dm_grid grid, dm_dtype dtype, int ndims, const int64_t shape[], const dm_dist dists[],
                          const int ghost[], dm_array *array) {
    dm::array::Storage storage;
    storage.fill = dm::array::Storage::Uninitialised;
    return create("dm_array_create_empty", grid, dtype, ndims, shape, dists, ghost, storage, array);
}

int dm_array_adopt(dm_grid grid, dm_dtype dtype, int ndims, const int64_t shape[], const dm_dist dists[],
                   const int ghost[], void *memory, int64_t bytes, dm_array *array) {
    dm::array::Storage storage;
    storage.adopt = true, storage.memory = memory, storage.bytes = bytes;
    return create("dm_array_adopt", grid, dtype, ndims, shape, dists, ghost, storage, array);
}

int dm_array_free(dm_array *array) {
    return c_boundary(__func__, [&] {
        if (!array || !*array) return;
        if (array_of(*array).held())
            fail(DM_ERR_STATE, "dm_array_free: the array is in an exchange in flight (call the plan's end first)");
        dm::handles::remove(&(*array)->grid);
        dm::handles::remove(*array);
        delete *array;
        *array = nullptr;
    });
}

int dm_array_scatter(dm_array array, const void *global, int root) {
    return c_boundary(__func__, [&] {
        dm::communicator_handle("dm_array_scatter", [&]() -> auto & { return array_of(array); }).scatter(global, root);
    });
}

int dm_array_gather(dm_array array, void *global, int root) {
    return c_boundary(__func__, [&] {
        dm::communicator_handle("dm_array_gather", [&]() -> auto & { return array_of(array); }).gather(global, root);
    });
}

int dm_array_ndims(dm_array array, int *ndims) {
    return c_boundary(__func__, [&] { dm::require_pointer(ndims, "ndims"); *ndims = array_of(array).ndims(); });
}

int dm_array_shape(dm_array array, int64_t shape[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(shape, "shape");
        const auto &s = array_of(array).shape();
        std::copy(s.begin(), s.end(), shape);
    });
}

int dm_array_dtype(dm_array array, dm_dtype *dtype) {
    return c_boundary(__func__, [&] { dm::require_pointer(dtype, "dtype"); *dtype = array_of(array).dtype(); });
}

int dm_array_grid(dm_array array, dm_grid *grid) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(grid, "grid");
        array_of(array);
        *grid = &array->grid;
    });
}

int dm_array_dists(dm_array array, dm_dist dists[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(dists, "dists");
        const auto &a = array_of(array);
        for (int i = 0; i < a.ndims(); ++i) dists[i] = a.axis_map(i).resolved();
    });
}

int dm_array_ghost(dm_array array, int ghost[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(ghost, "ghost");
        const auto &g = array_of(array).ghost();
        std::copy(g.begin(), g.end(), ghost);
    });
}

int dm_array_local(dm_array array, void **data, int64_t extents[], int64_t strides[]) {
    return c_boundary(__func__, [&] {
        auto &a = array_of(array);
        if (data) *data = a.local_data();
        if (extents) std::copy(a.local_shape().begin(), a.local_shape().end(), extents);
        if (strides) {
            auto s = a.byte_strides();
            std::copy(s.begin(), s.end(), strides);
        }
    });
}

int dm_array_storage(dm_array array, void **data, int64_t extents[]) {
    return c_boundary(__func__, [&] {
        auto &a = array_of(array);
        if (data) *data = a.storage();
        if (extents) std::copy(a.storage_shape().begin(), a.storage_shape().end(), extents);
    });
}

}  // extern "C"
