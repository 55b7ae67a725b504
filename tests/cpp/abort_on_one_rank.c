/* Mistakes made on the last rank only that no other rank can be told about, outside
 * checked mode: a NULL or freed handle in a collective call (the rank does not know
 * the communicator the others wait on) and a wrong argument of a hot path (execute,
 * exchange: the others are already exchanging). The job must end at once with
 * "datamotion: error on rank R of P: CALL: MISTAKE"; no rank may hang. Run as
 *   abort_on_one_rank CASE
 * Prints "NOT ENDED" if the call returned on every rank (the test then fails). */
#include <datamotion/datamotion.h>
#include <mpi.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int odd = rank == size - 1; /* the rank that makes the mistake */
    const char *which = argc > 1 ? argv[1] : "";

    dm_grid grid = NULL;
    dm_array a = NULL, b = NULL, other = NULL, freed = NULL, stale = NULL;
    const int64_t n = 11, m = 7;
    const int ghost = 1;
    dm_grid_create(MPI_COMM_WORLD, 1, NULL, NULL, DM_ORDER_NEWS, &grid);
    dm_array_create(grid, DM_FLOAT64, 1, &n, NULL, &ghost, &a);
    dm_array_create(grid, DM_FLOAT64, 1, &n, NULL, &ghost, &b);
    dm_array_create(grid, DM_FLOAT64, 1, &m, NULL, &ghost, &other);
    dm_array_create(grid, DM_FLOAT64, 1, &n, NULL, &ghost, &freed);
    stale = freed;
    dm_array_free(&freed);
    const dm_shift_spec spec = {DM_CSHIFT, 0, 3, DM_BOUNDARY_ZERO};
    dm_pshift pshift = NULL;
    dm_halo halo = NULL;
    dm_redist redist = NULL;
    dm_pshift_setup(a, 1, &spec, &pshift);
    dm_halo_setup(a, 0, &halo);
    dm_redist_setup(a, b, DM_REDIST_AUTO, &redist);
    dm_array dst[1] = {b}, src[1] = {a};
    double global[11] = {0};
    int64_t later = 5;
    dm_array made = NULL;

    if (strcmp(which, "array-create-null-grid") == 0) {
        dm_array_create(odd ? NULL : grid, DM_FLOAT64, 1, &later, NULL, NULL, &made);
    } else if (strcmp(which, "scatter-freed-array") == 0) {
        dm_array_scatter(odd ? stale : a, global, DM_ALL_RANKS);
    } else if (strcmp(which, "pshift-setup-freed-prototype") == 0) {
        dm_pshift other_plan = NULL;
        dm_pshift_setup(odd ? stale : a, 1, &spec, &other_plan);
    } else if (strcmp(which, "pshift-execute-null-plan") == 0) {
        dm_pshift_execute(odd ? NULL : pshift, dst, src, NULL);
    } else if (strcmp(which, "pshift-execute-wrong-array") == 0) {
        src[0] = odd ? other : a;
        dm_pshift_execute(pshift, dst, src, NULL);
    } else if (strcmp(which, "halo-exchange-null-plan") == 0) {
        dm_halo_exchange(odd ? NULL : halo, a);
    } else if (strcmp(which, "halo-exchange-null-array") == 0) {
        dm_halo_exchange(halo, odd ? NULL : a);
    } else if (strcmp(which, "redist-execute-same-array") == 0) {
        dm_redist_execute(redist, a, odd ? a : b);
    } else {
        if (rank == 0) fprintf(stderr, "abort_on_one_rank: unknown case '%s'\n", which);
        MPI_Finalize();
        return 2;
    }
    /* Reached only if the job was not ended: meet, so that the output says so. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("NOT ENDED (%s)\n", dm_last_error_message());
    MPI_Finalize();
    return 1;
}
