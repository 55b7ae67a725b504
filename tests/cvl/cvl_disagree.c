/* A CVL call whose messages carry no argument signature (scans, segmented calls,
 * v2c_fu?, mke_fov), made with arguments that differ on the last rank, outside checked
 * mode: the job must end at once with a message naming the rank, the call and the
 * mistake; no rank may hang or go on with wrong data. Run as
 *   cvl_disagree CASE
 * with CASE one of scan-length, segment-descriptor, v2c-null, mke-lengths (a segment
 * count too large for the descriptor on one rank). Prints
 * "NOT ENDED" if the call returned on every rank (the test then fails). */
#include <cvl.h>
#include <mpi.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    CVL_init(&argc, &argv);
    const int rank = CVL_rank(), nranks = CVL_nranks();
    const int odd = rank == nranks - 1; /* the rank that disagrees */
    const char *which = argc > 1 ? argv[1] : "";
    enum { N = 12, M = 3 };
    int data[N], lengths[M] = {5, 0, 7};
    for (int k = 0; k < N; ++k) data[k] = k;
    vec_p s = alo_foz(siz_foz(N)), d = alo_foz(siz_foz(N)), l = alo_foz(siz_foz(M));
    vec_p sd = alo_foz(siz_fos(N, M));
    c2v_fuz(s, data, N, CVL_SCRATCH_NULL);
    c2v_fuz(l, lengths, M, CVL_SCRATCH_NULL);
    mke_fov(sd, l, N, M, CVL_SCRATCH_NULL);

    if (strcmp(which, "scan-length") == 0) {
        /* Valid on every rank by itself: only the signature in the scan's message differs. */
        add_suz(d, s, odd ? N - 1 : N, CVL_SCRATCH_NULL);
    } else if (strcmp(which, "segment-descriptor") == 0) {
        add_sez(d, s, sd, odd ? N + 1 : N, M, CVL_SCRATCH_NULL);
    } else if (strcmp(which, "v2c-null") == 0) {
        v2c_fuz(odd ? NULL : data, s, N, CVL_SCRATCH_NULL);
    } else if (strcmp(which, "mke-lengths") == 0) {
        mke_fov(sd, l, N, odd ? N : M, CVL_SCRATCH_NULL);
    } else {
        if (rank == 0) fprintf(stderr, "cvl_disagree: unknown case '%s'\n", which);
        CVL_quit();
        return 2;
    }
    /* Reached only if the job was not ended: make the ranks meet so that the output
     * says so instead of hanging. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("NOT ENDED (error %d: %s)\n", CVL_error(), CVL_error_message());
    CVL_quit();
    return 1;
}
