/*
 * scatter_gather.c — distribute a matrix over a 2-d process grid, work on the
 * local blocks, and gather the result.
 *
 *   mpiexec -n 4 ./scatter_gather
 *   (with the mpiexec of the MPI datamotion was built with: .venv/bin/mpiexec after ./dev install)
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

enum { LINE = 128 }; /* bytes of one rank's line of output */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* A 2-d grid whose extents MPI_Dims_create chooses, in Gray-code (NEWS) order. */
    dm_grid grid = NULL;
    DM_CHECK(dm_grid_create(MPI_COMM_WORLD, 2, NULL, NULL, DM_ORDER_NEWS, &grid));
    int dims[2], coords[2];
    DM_CHECK(dm_grid_dims(grid, dims));
    DM_CHECK(dm_grid_coords(grid, coords));

    /* 9 x 10 doubles: rows block-cyclic in blocks of 2, columns in CM blocks. */
    const int64_t shape[2] = {9, 10};
    const dm_dist dists[2] = {dm_dist_block_cyclic(2, 0), dm_dist_block()};
    dm_array a = NULL;
    DM_CHECK(dm_array_create(grid, DM_FLOAT64, 2, shape, dists, NULL, &a));

    double *global = NULL;
    if (rank == 0) {
        global = malloc(sizeof(double) * 90);
        for (int i = 0; i < 90; ++i) global[i] = i;
    }
    DM_CHECK(dm_array_scatter(a, global, 0));

    /* Double every owned element in place, walking the local block by its strides. */
    void *data;
    int64_t extent[2], stride[2];
    DM_CHECK(dm_array_local(a, &data, extent, stride));
    for (int64_t i = 0; i < extent[0]; ++i)
        for (int64_t j = 0; j < extent[1]; ++j) *(double *)((char *)data + i * stride[0] + j * stride[1]) *= 2.0;
    /* Each rank's line goes to rank 0, which prints them in rank order: lines printed
       by several ranks at once reach the terminal interleaved. */
    char line[LINE];
    snprintf(line, sizeof line, "rank %d at grid (%d, %d) of %d x %d owns %lld x %lld elements", rank, coords[0],
             coords[1], dims[0], dims[1], (long long)extent[0], (long long)extent[1]);
    char *lines = rank == 0 ? malloc((size_t)size * LINE) : NULL;
    MPI_Gather(line, LINE, MPI_CHAR, lines, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; ++r) printf("%s\n", lines + (size_t)r * LINE);
        free(lines);
    }

    DM_CHECK(dm_array_gather(a, global, 0));
    if (rank == 0) {
        int wrong = 0;
        for (int i = 0; i < 90; ++i) wrong += global[i] != 2.0 * i;
        printf("gathered 9 x 10 matrix: %s\n", wrong ? "WRONG" : "every element doubled, ok");
        free(global);
        if (wrong) MPI_Abort(MPI_COMM_WORLD, 1);
    }

    DM_CHECK(dm_array_free(&a));
    DM_CHECK(dm_grid_free(&grid));
    MPI_Finalize();
    return 0;
}
