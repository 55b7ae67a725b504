/* See c_enums.h. */
#include "c_enums.h"

size_t dmtest_dtype_size(int dtype) { return dm_dtype_size((dm_dtype)dtype); }

const char *dmtest_dtype_name(int dtype) { return dm_dtype_name((dm_dtype)dtype); }

int dmtest_dtype_mpi(int dtype, MPI_Datatype *out) { return dm_dtype_mpi((dm_dtype)dtype, out); }

int dmtest_grid_create(MPI_Comm comm, int ndims, int order, dm_grid *grid) {
    return dm_grid_create(comm, ndims, NULL, NULL, (dm_grid_order)order, grid);
}

int dmtest_array_create(dm_grid grid, int dtype, int ndims, const int64_t shape[], int kind0, dm_array *array) {
    dm_dist dists[DM_MAX_DIMS];
    int a;
    for (a = 0; a < DM_MAX_DIMS; ++a) dists[a] = dm_dist_block();
    dists[0].kind = (dm_dist_kind)kind0;
    return dm_array_create(grid, (dm_dtype)dtype, ndims, shape, dists, NULL, array);
}

int dmtest_dist_to_local(int kind, int64_t n, int nprocs, int64_t g, int *coord, int64_t *local) {
    dm_dist dist = dm_dist_block_cyclic(1, 0);
    dist.kind = (dm_dist_kind)kind;
    return dm_dist_to_local(dist, n, nprocs, g, coord, local);
}

int dmtest_pshift_setup(dm_array prototype, int kind, int axis, int64_t shift, int boundary, dm_pshift *plan) {
    dm_shift_spec spec;
    spec.kind = (dm_shift_kind)kind;
    spec.axis = axis;
    spec.shift = shift;
    spec.boundary = (dm_boundary_kind)boundary;
    return dm_pshift_setup(prototype, 1, &spec, plan);
}

int dmtest_redist_setup(dm_array src, dm_array dst, int method, dm_redist *plan) {
    return dm_redist_setup(src, dst, (dm_redist_method)method, plan);
}
