/*
 * gauss_elimination.c — row-block Gaussian elimination with partial pivoting,
 * the SPMD node program of Figure 16 of the CM-5 benchmark paper (Dincer,
 * Bozkus, Ranka & Fox, 1995), in plain C99 and MPI. It is the program that
 * python/datamotion/measure/gauss.py predicts from measured primitives.
 *
 *   mpiexec -n 2 ./gauss_elimination [N ...] [--reps R] [--warmup W] [--permuted]
 *   (with the mpiexec of the MPI datamotion was built with: .venv/bin/mpiexec after ./dev install)
 *
 * The N x (N+1) augmented matrix [A | b] is distributed by rows in blocks, with
 * the CM canonical rule: ceil(N/P) rows per rank, trailing ranks short or empty.
 * For each column j:
 *   1. local pivot search: the largest |A[i][j]| over this rank's rows that are
 *      not yet pivot rows (the first one wins a local tie);
 *   2. MPI_Allreduce MAX of that value (double);
 *   3. MPI_Allreduce MAX of the global row index of the ranks that hold the
 *      maximum (int): ties go to the largest row index;
 *   4. MPI_Bcast of the pivot row (N+1 doubles) from its owner;
 *   5. multipliers A[i][j] / pivot for the local rows not yet pivoted;
 *   6. update of those rows over columns j..N: A[i][k] -= fac[i] * pivotrow[k].
 * Rows are never exchanged: perm[j] records the pivot row of column j, and the
 * rows perm[0], perm[1], ... form an upper triangular system.
 *
 * The matrix is random (a fixed generator of the global indices and the
 * repetition) with a dominant diagonal in every column, so that elimination is
 * stable and every pivot is the diagonal row: pivot rows come in order 0, 1, ...
 * With --permuted the rows are stored in a shuffled order, so the pivot search
 * has to find them all over the ranks. b = A x for a known x.
 *
 * Only the elimination is timed (barrier, MPI_Wtime, the slowest rank's time);
 * the matrix set-up and the check are not. After every repetition rank 0 gathers
 * the matrix, solves by back-substitution and checks the solution against x; the
 * program exits with status 1 if any solution is off. One JSON line per N:
 *   {"n": N, "ranks": P, "median_ms": ..., "min_ms": ..., "samples_ms": [...]}
 */
#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of the CM canonical block distribution: ceil(n / p) per rank. */
static void block_rows(int n, int p, int rank, int *first, int *count) {
    const int bs = (n + p - 1) / p;
    int lo = rank * bs, hi = lo + bs;
    if (lo > n) lo = n;
    if (hi > n) hi = n;
    *first = lo;
    *count = hi - lo;
}

/* A value in [-1, 1) from (row, column, seed): a 64-bit mixing function (splitmix64). */
static double uniform(unsigned long long i, unsigned long long k, unsigned long long seed) {
    unsigned long long z = (i * 0x9E3779B97F4A7C15ULL) ^ (k + 0x632BE59BD9B4E5ULL * (seed + 1));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* The known solution. */
static double solution(int k) { return 1.0 + (k % 7) * 0.25; }

/* The stored order of the rows: row `stored` of the matrix is row order[stored] of
 * the diagonally dominant matrix (the identity unless --permuted: a Fisher-Yates
 * shuffle with a fixed seed, the same on every rank). */
static void row_order(int n, int permuted, int *order) {
    for (int i = 0; i < n; ++i) order[i] = i;
    if (!permuted) return;
    unsigned long long state = 12345;
    for (int i = n - 1; i > 0; --i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const int r = (int)((state >> 33) % (unsigned long long)(i + 1));
        const int t = order[i];
        order[i] = order[r];
        order[r] = t;
    }
}

/* Element (i, k) of the n x (n+1) augmented matrix [A | A x] of repetition `seed`,
 * before the rows are shuffled: off-diagonal values in [-1, 1) and a diagonal of
 * n + 1 + a random part, larger than the sum of the column's other entries. */
static double element(int n, int i, int k, int seed) {
    if (k < n) return i == k ? n + 1.0 + uniform(i, k, seed) : uniform(i, k, seed);
    double sum = 0.0;
    for (int c = 0; c < n; ++c) sum += element(n, i, c, seed) * solution(c);
    return sum;
}

/* y[0:len] -= a * x[0:len]: the row update, an axpy. */
static void axpy_row(double *restrict y, const double *restrict x, double a, int len) {
    for (int k = 0; k < len; ++k) y[k] -= a * x[k];
}

/* Forward elimination of the local rows `a` (count x (n+1), rows first..first+count-1
 * of the matrix). Collective on comm. Fills perm[0:n] with the pivot row of every
 * column; returns 0, or 1 (on every rank) if a pivot is zero. */
static int eliminate(MPI_Comm comm, int n, int first, int count, double *a, char *done, double *pivotrow,
                     double *fac, int *perm) {
    const int ld = n + 1;
    int p, rank;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    const int bs = (n + p - 1) / p;
    memset(done, 0, (size_t)count);
    for (int j = 0; j < n; ++j) {
        /* 1. local pivot search over the rows not yet pivoted */
        double local_max = -1.0;
        int local_pivot = -1;
        for (int i = 0; i < count; ++i) {
            if (done[i]) continue;
            const double v = fabs(a[(size_t)i * ld + j]);
            if (v > local_max) {
                local_max = v;
                local_pivot = first + i;
            }
        }
        /* 2-3. the largest value, then the largest row index among the ranks holding it */
        double pivot_value;
        MPI_Allreduce(&local_max, &pivot_value, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (pivot_value != local_max) local_pivot = -1;
        int pivot;
        MPI_Allreduce(&local_pivot, &pivot, 1, MPI_INT, MPI_MAX, comm);
        if (!(pivot_value > 0.0)) return 1; /* the same value on every rank: a singular matrix */
        perm[j] = pivot;
        /* 4. the pivot row from its owner (sent from the matrix itself, not copied) */
        const int owner = pivot / bs;
        const double *row = pivotrow;
        if (owner == rank) {
            done[pivot - first] = 1;
            row = a + (size_t)(pivot - first) * ld;
        }
        MPI_Bcast((void *)row, ld, MPI_DOUBLE, owner, comm);
        /* 5. multipliers of the rows not yet pivoted */
        const double pivot_entry = row[j];
        for (int i = 0; i < count; ++i)
            if (!done[i]) fac[i] = a[(size_t)i * ld + j] / pivot_entry;
        /* 6. update of those rows, columns j..n */
        for (int i = 0; i < count; ++i)
            if (!done[i]) axpy_row(a + (size_t)i * ld + j, row + j, fac[i], ld - j);
    }
    return 0;
}

/* Back-substitution on the gathered matrix (rank 0): x[j] from row perm[j]. Returns
 * the largest error against the known solution, relative to its largest entry. */
static double solve_error(int n, const double *m, const int *perm) {
    const int ld = n + 1;
    double *x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double worst = 0.0, scale = 0.0;
    for (int j = n - 1; j >= 0; --j) {
        const double *row = m + (size_t)perm[j] * ld;
        double s = row[n];
        for (int k = j + 1; k < n; ++k) s -= row[k] * x[k];
        x[j] = s / row[j];
    }
    for (int k = 0; k < n; ++k) {
        const double e = fabs(x[k] - solution(k));
        if (!(e <= worst)) worst = e; /* NaN counts as the worst */
        if (fabs(solution(k)) > scale) scale = fabs(solution(k));
    }
    free(x);
    return worst / scale;
}

static int compare_doubles(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void usage(int rank, const char *name) {
    if (rank == 0)
        fprintf(stderr, "usage: %s [N ...] [--reps R] [--warmup W] [--permuted]   (N >= 1, R >= 1, W >= 0)\n", name);
}

/* A positive integer argument, or -1. */
static long parse_count(const char *text) {
    char *end;
    const long v = strtol(text, &end, 10);
    return (*text && !*end && v >= 0 && v <= 1000000) ? v : -1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);

    /* Arguments: every rank parses the same ones, so every rank agrees on errors. */
    int sizes[64], nsizes = 0, reps = 5, warmup = 1, permuted = 0;
    for (int i = 1; i < argc; ++i) {
        long v;
        if (!strcmp(argv[i], "--permuted")) {
            permuted = 1;
        } else if ((!strcmp(argv[i], "--reps") || !strcmp(argv[i], "--warmup")) && i + 1 < argc &&
                   (v = parse_count(argv[i + 1])) >= (argv[i][2] == 'r' ? 1 : 0)) {
            if (argv[i][2] == 'r') reps = (int)v;
            else warmup = (int)v;
            ++i;
        } else if ((v = parse_count(argv[i])) >= 1 && v <= 46340 && nsizes < 64) {
            sizes[nsizes++] = (int)v;
        } else {
            usage(rank, argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (nsizes == 0) {
        const int defaults[] = {64, 128, 256, 512};
        for (nsizes = 0; nsizes < 4; ++nsizes) sizes[nsizes] = defaults[nsizes];
    }

    int failed = 0;
    for (int s = 0; s < nsizes && !failed; ++s) {
        const int n = sizes[s], ld = n + 1;
        int first, count;
        block_rows(n, p, rank, &first, &count);
        const size_t cells = (size_t)(count > 0 ? count : 1) * ld;
        double *a = malloc(sizeof(double) * cells), *pivotrow = malloc(sizeof(double) * ld);
        double *fac = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
        char *done = malloc((size_t)(count > 0 ? count : 1));
        int *perm = malloc(sizeof(int) * (size_t)n), *order = malloc(sizeof(int) * (size_t)n);
        int *counts = NULL, *displs = NULL;
        double *gathered = NULL, *samples = malloc(sizeof(double) * (size_t)reps);
        if (rank == 0) {
            counts = malloc(sizeof(int) * (size_t)p);
            displs = malloc(sizeof(int) * (size_t)p);
            for (int r = 0; r < p; ++r) {
                int f, c;
                block_rows(n, p, r, &f, &c);
                counts[r] = c * ld;
                displs[r] = f * ld;
            }
            gathered = malloc(sizeof(double) * (size_t)n * ld);
        }
        row_order(n, permuted, order);
        for (int rep = -warmup; rep < reps && !failed; ++rep) {
            const int seed = rep + warmup;
            for (int i = 0; i < count; ++i)
                for (int k = 0; k < ld; ++k) a[(size_t)i * ld + k] = element(n, order[first + i], k, seed);
            MPI_Barrier(comm);
            const double t0 = MPI_Wtime();
            const int singular = eliminate(comm, n, first, count, a, done, pivotrow, fac, perm);
            double t = MPI_Wtime() - t0, slowest;
            MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
            if (rep >= 0) samples[rep] = slowest * 1e3;
            /* The check: gather, back-substitute on rank 0, agree on the outcome. */
            MPI_Gatherv(a, count * ld, MPI_DOUBLE, gathered, counts, displs, MPI_DOUBLE, 0, comm);
            if (rank == 0) {
                const double error = singular ? INFINITY : solve_error(n, gathered, perm);
                if (!(error <= 1e-10)) {
                    fprintf(stderr, "gauss_elimination: n=%d ranks=%d %s %d: relative error %g of the "
                                    "solution (tolerance 1e-10)\n", n, p, rep < 0 ? "warm-up run" : "repetition",
                            rep < 0 ? rep + warmup : rep, error);
                    failed = 1;
                }
            }
            MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
        }
        if (rank == 0 && !failed) {
            double *sorted = malloc(sizeof(double) * (size_t)reps);
            memcpy(sorted, samples, sizeof(double) * (size_t)reps);
            qsort(sorted, (size_t)reps, sizeof(double), compare_doubles);
            const double median = reps % 2 ? sorted[reps / 2] : 0.5 * (sorted[reps / 2 - 1] + sorted[reps / 2]);
            printf("{\"n\": %d, \"ranks\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"samples_ms\": [", n, p, median,
                   sorted[0]);
            for (int r = 0; r < reps; ++r) printf("%s%.6f", r ? ", " : "", samples[r]);
            printf("]}\n");
            fflush(stdout);
            free(sorted);
        }
        free(a);
        free(pivotrow);
        free(fac);
        free(done);
        free(perm);
        free(order);
        free(counts);
        free(displs);
        free(gathered);
        free(samples);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
