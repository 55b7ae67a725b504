/*
 * Segmented CVL operations over segmentations from one segment to one element per
 * segment: each row times add_sez (scan), add_rez (reduction), dis_vez (distribute),
 * ind_lez (segmented index), smp_pez (segmented permutation) and mke_fov, next to the
 * unsegmented add_suz of the same n in the same repetition loop, and prints each
 * time and its ratio to add_suz. The descriptor's units per rank (siz_fos) and the
 * 1995 MPI CVL's (2 ceil(bm/2) + ceil(bn/2) + 1) are printed with each row, and the
 * path: "sparse" when every rank's records fit as (segment, start) pairs
 * (m <= ceil(n/p)/2), else "dense/sparse" (a rank takes the per-element form when its
 * segments average under about two elements).
 *
 * Timing: MPI_Barrier before each call, MPI_Wtime around it, the slowest rank's time,
 * the median over repetitions; the contenders alternate inside one repetition loop.
 *
 *   mpicc -O2 -Iinclude benchmarks/cvl/segdes_bench.c -Lbuild/cpp -lcvl -o segdes_bench
 *   mpiexec -n 2 ./segdes_bench [--n N] [--reps R]
 */
#include <cvl.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPS = 7 };
static const char *const op_names[OPS] = {"add_suz", "add_sez", "add_rez", "dis_vez", "ind_lez", "smp_pez", "mke_fov"};

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void check(const char *what) {
    if (CVL_error() != CVL_OK) {
        fprintf(stderr, "segdes_bench: %s: %s\n", what, CVL_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv) {
    int n = 1 << 21, reps = 15;
    CVL_init(&argc, &argv);
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--n") == 0 && a + 1 < argc) n = atoi(argv[++a]);
        else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) reps = atoi(argv[++a]);
    }
    const int rank = CVL_rank(), p = CVL_nranks();
    const int bn = (n + p - 1) / p;
    const int ms[] = {1, n / 4096, n / 64, bn / 2, n / 2, n};
    const int nm = (int) (sizeof ms / sizeof ms[0]);
    int *host = malloc(sizeof(int) * (size_t) n), *lens = malloc(sizeof(int) * (size_t) n);
    double *t = malloc(sizeof(double) * (size_t) (OPS * reps));
    for (int k = 0; k < n; ++k) host[k] = k % 7;
    vec_p s = alo_foz(siz_foz(n)), d = alo_foz(siz_foz(n)), idx = alo_foz(siz_foz(n));
    vec_p l = alo_foz(siz_foz(n)), v = alo_foz(siz_foz(n));
    check("alo_foz");
    c2v_fuz(s, host, n, CVL_SCRATCH_NULL);
    if (rank == 0) {
        printf("segmented CVL operations, n = %d, %d rank(s), median of %d repetitions (ms); x = time / add_suz\n\n", n,
               p, reps);
        printf("| m | path | siz_fos | 1995 | add_suz ms |");
        for (int o = 1; o < OPS; ++o) printf(" %s ms (x) |", op_names[o]);
        printf("\n|---:|---|---:|---:|---:|");
        for (int o = 1; o < OPS; ++o) printf("---:|");
        printf("\n");
    }
    for (int r = 0; r < nm; ++r) {
        const int m = ms[r] < 1 ? 1 : ms[r];
        const int bm = (m + p - 1) / p;
        /* m segments of near-equal lengths summing to n */
        for (int j = 0; j < m; ++j) lens[j] = n / m + (j < n % m ? 1 : 0);
        c2v_fuz(l, lens, m, CVL_SCRATCH_NULL);
        for (int j = 0, at = 0; j < m; at += lens[j], ++j)
            for (int k = 0; k < lens[j]; ++k) host[at + k] = lens[j] - 1 - k; /* reverse each segment */
        c2v_fuz(idx, host, n, CVL_SCRATCH_NULL);
        for (int j = 0; j < m; ++j) lens[j] = j;
        c2v_fuz(v, lens, m, CVL_SCRATCH_NULL);
        for (int j = 0; j < m; ++j) lens[j] = n / m + (j < n % m ? 1 : 0);
        vec_p sd = alo_foz(siz_fos(n, m));
        mke_fov(sd, l, n, m, CVL_SCRATCH_NULL);
        check("mke_fov");
        vec_p out = alo_foz(siz_foz(m));
        for (int rep = 0; rep < reps; ++rep)
            for (int o = 0; o < OPS; ++o) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                switch (o) {
                case 0: add_suz(d, s, n, CVL_SCRATCH_NULL); break;
                case 1: add_sez(d, s, sd, n, m, CVL_SCRATCH_NULL); break;
                case 2: add_rez(out, s, sd, n, m, CVL_SCRATCH_NULL); break;
                case 3: dis_vez(d, v, sd, n, m, CVL_SCRATCH_NULL); break;
                case 4: ind_lez(d, v, v, sd, n, m, CVL_SCRATCH_NULL); break;
                case 5: smp_pez(d, s, idx, sd, n, m, CVL_SCRATCH_NULL); break;
                default: mke_fov(sd, l, n, m, CVL_SCRATCH_NULL); break;
                }
                double dt = MPI_Wtime() - t0, slowest = 0;
                MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[o * reps + rep] = slowest;
            }
        check(op_names[0]);
        double med[OPS];
        for (int o = 0; o < OPS; ++o) {
            qsort(t + o * reps, (size_t) reps, sizeof(double), cmp_double);
            med[o] = t[o * reps + reps / 2];
        }
        if (rank == 0) {
            const long long f95 = 2LL * ((bm + 1) / 2) + (bn + 1) / 2 + 1;
            printf("| %d | %s | %d | %lld | %.3f |", m, 2 * m <= bn ? "sparse" : "dense/sparse", siz_fos(n, m), f95,
                   med[0] * 1e3);
            for (int o = 1; o < OPS; ++o) printf(" %.3f (%.2f) |", med[o] * 1e3, med[o] / med[0]);
            printf("\n");
        }
        fre_fov(out);
        fre_fov(sd);
    }
    CVL_quit();
    free(host);
    free(lens);
    free(t);
    return 0;
}
