/*
 * stencil_pshift.c — the 5-point stencil with one PSHIFT per step.
 *
 *   mpiexec -n 4 ./stencil_pshift
 *   (with the mpiexec of the MPI datamotion was built with: .venv/bin/mpiexec after ./dev install)
 *
 * The four shifts (N, E, W, S) are set up once and executed every step as one
 * concurrent exchange; the centre term, which needs no neighbour, is computed
 * between dm_pshift_begin and dm_pshift_end, while the messages travel. The
 * result is checked against a serial stencil on rank 0.
 */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { NX = 20, NY = 16, STEPS = 4 };

/* One serial step of the periodic stencil, the oracle. */
static void serial_step(const double *u, double *v) {
    for (int i = 0; i < NX; ++i)
        for (int j = 0; j < NY; ++j)
            v[i * NY + j] = 0.5 * u[i * NY + j] +
                            0.125 * (u[((i + NX - 1) % NX) * NY + j] + u[((i + 1) % NX) * NY + j] +
                                     u[i * NY + (j + NY - 1) % NY] + u[i * NY + (j + 1) % NY]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    dm_grid grid;
    DM_CHECK(dm_grid_create(MPI_COMM_WORLD, 2, NULL, NULL, DM_ORDER_NEWS, &grid));
    const int64_t shape[2] = {NX, NY};
    dm_array u, nb[4];
    DM_CHECK(dm_array_create(grid, DM_FLOAT64, 2, shape, NULL, NULL, &u));
    for (int k = 0; k < 4; ++k) /* every element is written by the shifts: no zero fill */
        DM_CHECK(dm_array_create_empty(grid, DM_FLOAT64, 2, shape, NULL, NULL, &nb[k]));

    double *global = malloc(sizeof(double) * NX * NY), *next = malloc(sizeof(double) * NX * NY);
    for (int i = 0; i < NX * NY; ++i) global[i] = sin(0.1 * i);
    DM_CHECK(dm_array_scatter(u, global, DM_ALL_RANKS));

    /* r[i] = u[i - 1] along axis 0 is the north neighbour, and so on. */
    const dm_shift_spec specs[4] = {{DM_CSHIFT, 0, -1, DM_BOUNDARY_ZERO}, {DM_CSHIFT, 0, +1, DM_BOUNDARY_ZERO},
                                    {DM_CSHIFT, 1, -1, DM_BOUNDARY_ZERO}, {DM_CSHIFT, 1, +1, DM_BOUNDARY_ZERO}};
    dm_pshift plan;
    DM_CHECK(dm_pshift_setup(u, 4, specs, &plan));
    const dm_array srcs[4] = {u, u, u, u};

    double *local[5];
    int64_t extent[2], stride[2];
    DM_CHECK(dm_array_local(u, (void **)&local[4], extent, stride));
    for (int k = 0; k < 4; ++k) DM_CHECK(dm_array_local(nb[k], (void **)&local[k], NULL, NULL));
    const int64_t count = extent[0] * extent[1];
    double *centre = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    for (int step = 0; step < STEPS; ++step) {
        DM_CHECK(dm_pshift_begin(plan, nb, srcs, NULL));
        for (int64_t i = 0; i < count; ++i) centre[i] = 0.5 * local[4][i]; /* reads u only: allowed in flight */
        DM_CHECK(dm_pshift_end(plan));
        for (int64_t i = 0; i < count; ++i) /* no ghosts: owned blocks are contiguous */
            local[4][i] = centre[i] + 0.125 * (local[0][i] + local[1][i] + local[2][i] + local[3][i]);
        serial_step(global, next);
        double *t = global;
        global = next;
        next = t;
    }

    double *result = rank == 0 ? malloc(sizeof(double) * NX * NY) : NULL;
    DM_CHECK(dm_array_gather(u, result, 0));
    if (rank == 0) {
        double err = 0;
        for (int i = 0; i < NX * NY; ++i) err = fmax(err, fabs(result[i] - global[i]));
        printf("5-point stencil, %d steps with one PSHIFT each: max difference from serial %.1e (%s)\n", STEPS, err,
               err < 1e-12 ? "ok" : "WRONG");
        free(result);
        if (err >= 1e-12) MPI_Abort(MPI_COMM_WORLD, 1);
    }

    DM_CHECK(dm_pshift_free(&plan));
    for (int k = 0; k < 4; ++k) DM_CHECK(dm_array_free(&nb[k]));
    DM_CHECK(dm_array_free(&u));
    DM_CHECK(dm_grid_free(&grid));
    free(global);
    free(next);
    free(centre);
    MPI_Finalize();
    return 0;
}
