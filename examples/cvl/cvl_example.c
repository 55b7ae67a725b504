/*
 * A CVL program in the style of a VCODE interpreter: one block of vector memory carved
 * with add_fov, segmented operations throughout, output on rank 0 only. It computes,
 * for a nested sequence [[3 1 4] [] [1 5 9 2] [6]], the sum of each subsequence, the
 * exclusive running sums inside each, each subsequence sorted, and the elements above
 * 2 packed per subsequence.
 *
 *   mpicc cvl_example.c -lcvl -o cvl_example     (static libcvl: add -lstdc++ -lm)
 *   mpiexec -n 3 ./cvl_example
 *   (with the mpiexec of the MPI datamotion was built with: .venv/bin/mpiexec after ./dev install)
 *
 * Exits with 1 if a result differs from the expected one.
 */
#include <cvl.h>

#include <stdio.h>
#include <string.h>

#define N 8
#define M 4

static int g_bad;

static void expect(const char *what, const int *got, const int *want, int len) {
    if (memcmp(got, want, sizeof(int) * (size_t) len) != 0) g_bad = 1;
    if (CVL_rank() == 0) {
        printf("%-24s", what);
        for (int k = 0; k < len; ++k) printf(" %d", got[k]);
        printf("%s\n", memcmp(got, want, sizeof(int) * (size_t) len) ? "   <-- WRONG" : "");
    }
}

int main(int argc, char **argv) {
    int data[N] = {3, 1, 4, 1, 5, 9, 2, 6}, lengths[M] = {3, 0, 4, 1};
    int out[N], counts[M], kept;
    const int want_sums[M] = {8, 0, 17, 6}, want_scan[N] = {0, 3, 4, 0, 1, 6, 15, 0};
    const int want_sorted[N] = {1, 3, 4, 1, 2, 5, 9, 6}, want_counts[M] = {2, 0, 2, 1};
    const int want_packed[5] = {3, 4, 5, 9, 6};
    vec_p mem, x, l, sd, r, y, f, sd2, two;

    CVL_init(&argc, &argv);
    /* One block, carved into vectors (sizes are per rank, in units). */
    mem = alo_foz(7 * siz_foz(N) + siz_fob(N) + 2 * siz_fos(N, M));
    x = mem;
    l = add_fov(x, siz_foz(N));
    sd = add_fov(l, siz_foz(N));
    r = add_fov(sd, siz_fos(N, M));
    y = add_fov(r, siz_foz(N));
    f = add_fov(y, siz_foz(N));
    two = add_fov(f, siz_fob(N));
    sd2 = add_fov(two, siz_foz(N));

    c2v_fuz(x, data, N, CVL_SCRATCH_NULL);
    c2v_fuz(l, lengths, M, CVL_SCRATCH_NULL);
    mke_fov(sd, l, N, M, CVL_SCRATCH_NULL);

    add_rez(r, x, sd, N, M, CVL_SCRATCH_NULL);
    v2c_fuz(out, r, M, CVL_SCRATCH_NULL);
    expect("sums", out, want_sums, M);

    add_sez(y, x, sd, N, M, CVL_SCRATCH_NULL);
    v2c_fuz(out, y, N, CVL_SCRATCH_NULL);
    expect("running sums", out, want_scan, N);

    rku_lez(r, x, sd, N, M, CVL_SCRATCH_NULL); /* ranks within each subsequence */
    smp_pez(y, x, r, sd, N, M, CVL_SCRATCH_NULL);
    v2c_fuz(out, y, N, CVL_SCRATCH_NULL);
    expect("sorted", out, want_sorted, N);

    dis_vuz(two, 2, N, CVL_SCRATCH_NULL);
    grt_wuz(f, x, two, N, CVL_SCRATCH_NULL);
    pk1_lev(r, f, sd, N, M, CVL_SCRATCH_NULL);
    v2c_fuz(counts, r, M, CVL_SCRATCH_NULL);
    expect("kept per subsequence", counts, want_counts, M);
    kept = add_ruz(r, M, CVL_SCRATCH_NULL);
    mke_fov(sd2, r, kept, M, CVL_SCRATCH_NULL);
    pk2_lez(y, x, f, sd, N, M, sd2, kept, M, CVL_SCRATCH_NULL);
    v2c_fuz(out, y, kept, CVL_SCRATCH_NULL);
    expect("kept", out, want_packed, kept == 5 ? 5 : 0);
    if (kept != 5) g_bad = 1;

    if (CVL_error() != CVL_OK) {
        g_bad = 1;
        if (CVL_rank() == 0) printf("CVL error: %s\n", CVL_error_message());
    }
    if (CVL_rank() == 0) printf("%s on %d rank(s)\n", g_bad ? "FAILED" : "ok", CVL_nranks());
    fre_fov(mem);
    CVL_quit();
    return g_bad;
}
