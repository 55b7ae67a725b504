/*
 * Rank (sort) benchmark over cvl.h alone, so that the same file builds against
 * datamotion's libcvl and against any other CVL (for instance the serial CVL of the
 * public NESL distribution, see rank_vs_serial.sh):
 *
 *   rku_luz  random ints over the whole int range
 *   rku_lud  random doubles in (-1, 1)
 *   rku_lez  random ints in segments of 1000 elements
 *
 * for n = 10^5, 10^6, 10^7. Each repetition: a collective call on a 1-element vector
 * (so that every rank starts together), the rank call, the same collective again (so
 * that every rank has finished); rank 0's time between the two. Prints the median over
 * repetitions in ms, one line per (function, n), after one untimed call that also
 * checks the result (a permutation that sorts the keys, within each segment).
 *
 * Usage: rank_bench [--reps R] [--max-n N] [--cpu]
 * Output lines: "<function> <n> <median ms>[ wrong]"; lines starting with '#' are comments.
 */
#include <cvl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A CVL on MPI starts with CVL_init. datamotion's cvl.h declares it with CVL_rank and
 * CVL_nranks (and defines CVL_ERR_STATE); NESL's cvl.h declares neither, so the 1995
 * MPI CVL is benchmarked with -DRANK_BENCH_MPI_CVL (its own names: Self, NumProcs), and
 * a serial CVL with neither. */
#if defined(CVL_ERR_STATE)
#define BENCH_PARALLEL 1
#define BENCH_RANK() CVL_rank()
#define BENCH_NRANKS() CVL_nranks()
#elif defined(RANK_BENCH_MPI_CVL)
#define BENCH_PARALLEL 1
void CVL_init(int *argc, char ***argv);
void CVL_quit(void);
extern int Self, NumProcs;
#define BENCH_RANK() Self
#define BENCH_NRANKS() NumProcs
#else
#define BENCH_PARALLEL 0
#endif

static int g_rank = 0, g_nranks = 1;

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rank_bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* splitmix64: the same keys for every library and rank count. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* --cpu: this process's CPU time instead of the wall clock, for one process on a busy
 * machine (with several ranks, waiting ranks spend CPU time too). */
static int g_cpu_clock = 0;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(g_cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static vec_p alloc_units(int units) {
    vec_p v = alo_foz(units > 0 ? units : 1);
    if (!v) {
        fprintf(stderr, "rank_bench: alo_foz(%d) failed\n", units);
        exit(1);
    }
    return v;
}

static vec_p g_sync_vec, g_scratch;

/* A collective call (an allreduce in a parallel CVL; a no-op in effect otherwise). */
static void sync_ranks(void) { (void)add_ruz(g_sync_vec, 1, g_scratch); }

enum Op { RKU_LUZ, RKU_LUD, RKU_LEZ, OP_COUNT };
static const char *const op_name[OP_COUNT] = {"rku_luz", "rku_lud", "rku_lez"};
enum { SEG_LEN = 1000 };

typedef struct {
    int n, m;
    int *zkeys, *lens;
    double *dkeys;
    vec_p dst, zsrc, dsrc, sd;
} Case;

static void run_op(const Case *C, enum Op op) {
    switch (op) {
    case RKU_LUZ: rku_luz(C->dst, C->zsrc, C->n, g_scratch); break;
    case RKU_LUD: rku_lud(C->dst, C->dsrc, C->n, g_scratch); break;
    case RKU_LEZ: rku_lez(C->dst, C->zsrc, C->sd, C->n, C->m, g_scratch); break;
    default: break;
    }
}

/* The ranks must be a permutation (within each segment) that sorts the keys. A wrong
 * result is reported on a comment line and the timing goes on: the table should say
 * how fast a library is, and separately whether it was right. */
static int check_ranks(const Case *C, enum Op op) {
    int n = C->n, *rank = xmalloc(sizeof(int) * (size_t)n), *seen = xmalloc(sizeof(int) * (size_t)n);
    double *sorted = xmalloc(sizeof(double) * (size_t)n);
    int ok = 1;
    v2c_fuz(rank, C->dst, n, g_scratch);
    memset(seen, 0, sizeof(int) * (size_t)n);
    for (int j = 0, at = 0; ok && j < (op == RKU_LEZ ? C->m : 1); ++j) {
        int len = op == RKU_LEZ ? C->lens[j] : n;
        for (int k = at; k < at + len; ++k) {
            int r = rank[k];
            if (r < 0 || r >= len || seen[at + r]++) {
                if (g_rank == 0) printf("# %s n=%d: WRONG RESULT: not a permutation at %d\n", op_name[op], n, k);
                ok = 0;
                break;
            }
            sorted[at + r] = op == RKU_LUD ? C->dkeys[k] : (double)C->zkeys[k];
        }
        for (int k = at + 1; ok && k < at + len; ++k)
            if (sorted[k - 1] > sorted[k]) {
                if (g_rank == 0) printf("# %s n=%d: WRONG RESULT: keys out of order at %d\n", op_name[op], n, k);
                ok = 0;
            }
        at += len;
    }
    free(rank);
    free(seen);
    free(sorted);
    return ok;
}

int main(int argc, char **argv) {
    int reps = 5, max_n = 10000000;
#if BENCH_PARALLEL
    CVL_init(&argc, &argv);
    g_rank = BENCH_RANK();
    g_nranks = BENCH_NRANKS();
#endif
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--max-n") && a + 1 < argc) max_n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cpu")) g_cpu_clock = 1;
        else {
            if (g_rank == 0) fprintf(stderr, "usage: rank_bench [--reps R] [--max-n N] [--cpu]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (g_rank == 0)
        printf("# rank_bench: %s, %d rank(s), median of %d reps, ms per call (rank 0, %s between two collective calls)\n",
               BENCH_PARALLEL ? "CVL on MPI" : "serial CVL", g_nranks, reps, g_cpu_clock ? "CPU time" : "wall clock");
    for (int n = 100000; n <= max_n; n *= 10) {
        Case C;
        vec_p pool;
        int scratch_units = 0;
        C.n = n;
        C.m = (n + SEG_LEN - 1) / SEG_LEN;
        C.zkeys = xmalloc(sizeof(int) * (size_t)n);
        C.dkeys = xmalloc(sizeof(double) * (size_t)n);
        C.lens = xmalloc(sizeof(int) * (size_t)C.m);
        for (int k = 0; k < n; ++k) {
            uint64_t r = rng_next();
            C.zkeys[k] = (int)(uint32_t)r;
            C.dkeys[k] = (double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        }
        for (int j = 0; j < C.m; ++j) C.lens[j] = j + 1 < C.m ? SEG_LEN : n - SEG_LEN * (C.m - 1);
        /* Scratch: the most any of the calls asks for (0 for a library with its own). */
        {
            int s[] = {rku_luz_scratch(n), rku_lud_scratch(n), rku_lez_scratch(n, C.m), mke_fov_scratch(n, C.m),
                       c2v_fuz_scratch(n), c2v_fud_scratch(n), v2c_fuz_scratch(n), add_ruz_scratch(1)};
            for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i)
                if (s[i] > scratch_units) scratch_units = s[i];
        }
        /* One block carved with add_fov: the 1995 MPI CVL allows one alo_foz at a time. */
        {
            int units[7], total = 0, one = 1;
            vec_p lens, *at[7];
            units[0] = siz_foz(1), at[0] = &g_sync_vec;
            units[1] = siz_foz(n), at[1] = &C.dst;
            units[2] = siz_foz(n), at[2] = &C.zsrc;
            units[3] = siz_fod(n), at[3] = &C.dsrc;
            units[4] = siz_fos(n, C.m), at[4] = &C.sd;
            units[5] = siz_foz(C.m), at[5] = &lens;
            /* The 1995 MPI CVL writes past the scratch its _scratch functions ask for
             * (its heap is corrupted without this slack): every library gets the same. */
            units[6] = scratch_units + 4 * siz_fod(n), at[6] = &g_scratch;
            for (int i = 0; i < 7; ++i) total += units[i];
            pool = alloc_units(total);
            for (int i = 0, off = 0; i < 7; off += units[i], ++i) *at[i] = add_fov(pool, off);
            c2v_fuz(g_sync_vec, &one, 1, g_scratch);
            c2v_fuz(lens, C.lens, C.m, g_scratch);
            mke_fov(C.sd, lens, n, C.m, g_scratch);
        }
        c2v_fuz(C.zsrc, C.zkeys, n, g_scratch);
        c2v_fud(C.dsrc, C.dkeys, n, g_scratch);
        for (int op = 0; op < OP_COUNT; ++op) {
            double *t = xmalloc(sizeof(double) * (size_t)reps);
            int ok;
            run_op(&C, (enum Op)op);
            ok = check_ranks(&C, (enum Op)op);
            for (int r = 0; r < reps; ++r) {
                double t0;
                sync_ranks();
                t0 = now_ms();
                run_op(&C, (enum Op)op);
                sync_ranks();
                t[r] = now_ms() - t0;
            }
            qsort(t, (size_t)reps, sizeof(double), cmp_double);
            if (g_rank == 0) {
                printf("%s %d %.3f%s\n", op_name[op], n, reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]),
                       ok ? "" : " wrong");
                fflush(stdout);
            }
            free(t);
        }
        fre_fov(pool);
        free(C.zkeys);
        free(C.dkeys);
        free(C.lens);
    }
#if BENCH_PARALLEL
    CVL_quit();
#endif
    return 0;
}
