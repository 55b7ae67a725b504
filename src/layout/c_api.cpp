// extern "C" entry points of the layout layer.
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/handles.hpp"
#include "layout/distribution.hpp"
#include "layout/handle.hpp"

#include <algorithm>

namespace dm::layout {
ProcessGrid &grid_of(dm_grid handle) {
    handles::require_live(handle, "grid", "dm_grid_create");
    return *handle->grid;
}
}  // namespace dm::layout

namespace {
using dm::c_boundary;
using dm::fail;
using dm::layout::grid_of;
}  // namespace

extern "C" {

int dm_grid_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                   dm_grid_order order, dm_grid *grid) {
    return c_boundary(__func__, [&] {
        // A NULL output on one rank fails on every rank (one MPI_Allreduce; grids are
        // made once, and the others would wait in the grid's MPI_Comm_dup).
        dm::require_mpi_initialized();
        if (comm == MPI_COMM_NULL) fail(DM_ERR_ARG, "dm_grid_create: communicator is MPI_COMM_NULL");
        dm::collective(comm, [&] { dm::require_pointer(grid, "dm_grid_create: grid"); });
        *grid = nullptr;
        // Copy the arguments whatever their validity (at most one entry past the
        // largest rank); the grid constructor checks them collectively.
        int n = std::clamp(ndims, 0, DM_MAX_DIMS + 1);
        std::vector<int> d(static_cast<size_t>(n), 0), p;
        if (dims) std::copy(dims, dims + n, d.begin());
        if (periods) p.assign(periods, periods + n);
        auto handle = std::make_unique<dm_grid_s>();
        handle->grid = std::make_shared<dm::layout::ProcessGrid>(comm, d, p, dm::enum_value(order));
        dm::handles::add(handle.get(), "grid");
        *grid = handle.release();
    });
}

int dm_grid_free(dm_grid *grid) {
    return c_boundary(__func__, [&] {
        if (!grid || !*grid) return;
        dm::handles::require_live(*grid, "grid", "dm_grid_create");
        if ((*grid)->borrowed)
            fail(DM_ERR_STATE, "dm_grid_free: this grid handle came from dm_array_grid and belongs to the array; "
                               "free the array instead");
        dm::handles::remove(*grid);
        delete *grid;
        *grid = nullptr;
    });
}

int dm_grid_ndims(dm_grid grid, int *ndims) {
    return c_boundary(__func__, [&] { dm::require_pointer(ndims, "ndims"); *ndims = grid_of(grid).ndims(); });
}
int dm_grid_dims(dm_grid grid, int dims[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(dims, "dims");
        const auto &g = grid_of(grid);
        std::copy(g.dims().begin(), g.dims().end(), dims);
    });
}
int dm_grid_periods(dm_grid grid, int periods[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(periods, "periods");
        const auto &g = grid_of(grid);
        std::copy(g.periods().begin(), g.periods().end(), periods);
    });
}
int dm_grid_coords(dm_grid grid, int coords[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(coords, "coords");
        const auto &g = grid_of(grid);
        std::copy(g.coords().begin(), g.coords().end(), coords);
    });
}
int dm_grid_rank(dm_grid grid, int *rank) {
    return c_boundary(__func__, [&] { dm::require_pointer(rank, "rank"); *rank = grid_of(grid).rank(); });
}
int dm_grid_comm(dm_grid grid, MPI_Comm *comm) {
    return c_boundary(__func__, [&] { dm::require_pointer(comm, "comm"); *comm = grid_of(grid).comm(); });
}
int dm_grid_rank_of(dm_grid grid, const int coords[], int *rank) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(coords, "coords");
        dm::require_pointer(rank, "rank");
        *rank = grid_of(grid).rank_of(coords);
    });
}
int dm_grid_coords_of(dm_grid grid, int rank, int coords[]) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(coords, "coords");
        grid_of(grid).coords_of(rank, coords);
    });
}
int dm_grid_axis_comm(dm_grid grid, int axis, MPI_Comm *comm) {
    return c_boundary(__func__, [&] { dm::require_pointer(comm, "comm"); *comm = grid_of(grid).axis_comm(axis); });
}

dm_dist dm_dist_block(void) { return dm_dist{DM_DIST_BLOCK, 0, 0, 0, nullptr}; }
dm_dist dm_dist_cyclic(void) { return dm_dist{DM_DIST_CYCLIC, 1, 0, 0, nullptr}; }
dm_dist dm_dist_block_cyclic(int64_t block, int src) { return dm_dist{DM_DIST_BLOCK_CYCLIC, block, src, 0, nullptr}; }
dm_dist dm_dist_sizes(const int64_t *sizes, int count) { return dm_dist{DM_DIST_SIZES, 0, 0, count, sizes}; }

int64_t dm_numroc(int64_t n, int64_t block, int coord, int src, int nprocs) {
    if (n < 0 || block < 1 || nprocs < 1 || coord < 0 || coord >= nprocs || src < 0 || src >= nprocs) return 0;
    return dm::layout::numroc(n, block, coord, src, nprocs);
}

int dm_dist_to_local(dm_dist dist, int64_t n, int nprocs, int64_t g, int *coord, int64_t *local) {
    return c_boundary(__func__, [&] {
        dm::layout::AxisMap map(dist, n, nprocs);
        if (g < 0 || g >= n) fail(DM_ERR_ARG, "global index ", g, " out of range [0, ", n, ")");
        if (coord) *coord = map.owner(g);
        if (local) *local = map.local_index(g);
    });
}

int dm_dist_to_global(dm_dist dist, int64_t n, int nprocs, int coord, int64_t local, int64_t *g) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(g, "g");
        dm::layout::AxisMap map(dist, n, nprocs);
        if (coord < 0 || coord >= nprocs) fail(DM_ERR_ARG, "coordinate ", coord, " out of range [0, ", nprocs, ")");
        int64_t extent = map.extent(coord);
        if (local < 0 || local >= extent)
            fail(DM_ERR_ARG, "local index ", local, " out of range [0, ", extent, ") on coordinate ", coord);
        *g = map.global_index(coord, local);
    });
}

int dm_dist_local_extent(dm_dist dist, int64_t n, int nprocs, int coord, int64_t *extent) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(extent, "extent");
        dm::layout::AxisMap map(dist, n, nprocs);
        if (coord < 0 || coord >= nprocs) fail(DM_ERR_ARG, "coordinate ", coord, " out of range [0, ", nprocs, ")");
        *extent = map.extent(coord);
    });
}

int dm_descinit(int desc[9], int m, int n, int mb, int nb, int rsrc, int csrc, int ctxt,
                int nprow, int npcol, int myrow, int lld) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(desc, "desc");
        // The checks and their order follow ScaLAPACK's DESCINIT.
        if (m < 0) fail(DM_ERR_ARG, "descinit: m must be non-negative, got ", m);
        if (n < 0) fail(DM_ERR_ARG, "descinit: n must be non-negative, got ", n);
        if (mb < 1) fail(DM_ERR_ARG, "descinit: row block size mb must be positive, got ", mb);
        if (nb < 1) fail(DM_ERR_ARG, "descinit: column block size nb must be positive, got ", nb);
        if (nprow < 1 || npcol < 1) fail(DM_ERR_ARG, "descinit: grid extents must be positive");
        if (rsrc < 0 || rsrc >= nprow) fail(DM_ERR_ARG, "descinit: rsrc ", rsrc, " out of range [0, ", nprow, ")");
        if (csrc < 0 || csrc >= npcol) fail(DM_ERR_ARG, "descinit: csrc ", csrc, " out of range [0, ", npcol, ")");
        int64_t local_rows = dm::layout::numroc(m, mb, myrow, rsrc, nprow);
        if (lld < std::max<int64_t>(1, local_rows))
            fail(DM_ERR_ARG, "descinit: lld ", lld, " is less than max(1, local rows = ", local_rows, ")");
        const int values[9] = {1, ctxt, m, n, mb, nb, rsrc, csrc, lld};
        std::copy(values, values + 9, desc);
    });
}

}  // extern "C"
