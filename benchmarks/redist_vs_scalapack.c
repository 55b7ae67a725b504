/*
 * redist_vs_scalapack.c — ScaLAPACK's pdgemr2d against datamotion's ScaLAPACK
 * drop-in (the same Fortran entry, pdgemr2d_, from libdatamotion_scalapack),
 * COSTA's drop-in (libcosta_scalapack) where given, datamotion's own
 * dm_redist_pgemr2d, and an MPI_Alltoallv of exactly the same bytes per rank
 * pair as the lower-bound reference, side by side in one run.
 *
 *   mpirun -n 4 redist_vs_scalapack [--reps R] [--reps-large R]
 *                                   [--drop-in LIB] [--costa LIB] [N ...]
 *
 * For every matrix order N (default 1000 2000 4000 8000) and every case, an
 * N x N matrix of doubles is block-cyclic on BLACS grids and on datamotion
 * contexts with the same rank order (row-major, ranks 0 .. P-1):
 *   block   on the r x c grid (r <= c, as square as P allows; 2x2 at 4 ranks,
 *           1x2 at 2): blocks 36x36 -> 128x128;
 *   grid-a  grid D -> P x 1, D from MPI_Dims_create (2x2 -> 4x1 at 4 ranks;
 *           at 2 ranks D is 2x1, so 2x1 -> 1x2), blocks 64x64;
 *   grid-b  grid 1 x P -> D (1x4 -> 2x2 at 4 ranks, 1x2 -> 2x1 at 2), blocks 64x64.
 * Each library's pdgemr2d_ is its own definition, looked up in that library
 * (dlopen, dlsym), so one process times them all on the same matrices; the
 * output names the library each came from. Each repetition times them one
 * after the other (interleaved), with the drop-ins and dm_redist_pgemr2d
 * building their plans inside the call or taking them from their caches. A
 * warm-up round precedes the timed ones; a time is the slowest rank's, after a
 * barrier; the table shows medians (and, below it, min..max). Every rank
 * checks, element by element, that every result equals ScaLAPACK's and that
 * ScaLAPACK's holds A's values; any difference aborts the run.
 *
 * --reps R        timed repetitions for N <= 4000 (default 5)
 * --reps-large R  timed repetitions for N > 4000 (default 3)
 * --drop-in LIB   datamotion's drop-in library (libdatamotion_scalapack.so)
 * --costa LIB     COSTA's drop-in library (libcosta_scalapack.so)
 *
 * Debian ships no header for ScaLAPACK's C interface (BLACS's Cblacs_*): the
 * prototypes are declared below. Their integers are C int (Debian's build is LP64).
 */
#define _GNU_SOURCE /* dladdr */

#include <datamotion/core.h>
#include <datamotion/layout.h>
#include <datamotion/redist.h>

#include <mpi.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- ScaLAPACK's C interface (no header in Debian) ---- */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);

#define MAX_SIZES 32
#define SENTINEL (-1.0)

static int world_rank = 0, world_size = 1;

static void die(const char *what) {
    fprintf(stderr, "redist_vs_scalapack: rank %d: %s\n", world_rank, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_dm(int status, const char *call) {
    if (status != DM_OK) {
        char line[1024];
        snprintf(line, sizeof line, "%s failed: %s (%s)", call, dm_status_name(status), dm_last_error_message());
        die(line);
    }
}

/* A process grid known to both BLACS and datamotion, ranks in row-major order. */
typedef struct {
    int nprow, npcol;
    int blacs;   /* BLACS context, -1 off the grid */
    int dm;      /* datamotion context, -1 off the grid */
    int myrow, mycol;
} Grid;

/* An nprow x npcol grid of the first ranks, numbered along its rows ("Row") or
 * down its columns ("Col"). */
static Grid grid_ordered(int nprow, int npcol, const char *numbering) {
    Grid g = {nprow, npcol, -1, -1, -1, -1};
    int ranks[64];
    const int by_columns = numbering[0] == 'C';
    if (nprow * npcol > 64 || nprow * npcol > world_size) die("grid larger than the run");
    for (int i = 0; i < nprow * npcol; ++i) ranks[i] = by_columns ? i % npcol * nprow + i / npcol : i;
    int ctxt = 0;
    char order[4];
    snprintf(order, sizeof order, "%s", numbering);
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, order, nprow, npcol);
    int dm_ctxt = -1;
    check_dm(dm_redist_context(nprow, npcol, ranks, &dm_ctxt), "dm_redist_context");
    if (world_rank < nprow * npcol) {
        int pr, pc, r, c;
        Cblacs_gridinfo(ctxt, &pr, &pc, &r, &c);
        /* The two must agree on where this rank sits. */
        int dr, dc;
        check_dm(dm_redist_context_coords(dm_ctxt, world_rank, NULL, NULL, &dr, &dc), "dm_redist_context_coords");
        if (pr != nprow || pc != npcol || r != dr || c != dc) die("BLACS and datamotion place this rank differently");
        g.blacs = ctxt, g.dm = dm_ctxt, g.myrow = r, g.mycol = c;
    }
    return g;
}

static Grid grid_make(int nprow, int npcol) { return grid_ordered(nprow, npcol, "Row"); }

static void grid_free(Grid *g) {
    if (g->blacs >= 0) Cblacs_gridexit(g->blacs);
    g->blacs = -1;
}

/* A distributed N x N matrix (column-major local storage), with a datamotion
 * descriptor and a BLACS one (the same but for CTXT). */
typedef struct {
    int desc_dm[9], desc_blacs[9];
    int64_t rows, cols, lld;
    double *data;
} Matrix;

static Matrix matrix_make(const Grid *g, int n, int block) {
    Matrix a;
    memset(&a, 0, sizeof a);
    a.desc_dm[1] = a.desc_blacs[1] = -1;
    if (g->blacs < 0) return a;
    a.rows = dm_numroc(n, block, g->myrow, 0, g->nprow);
    a.cols = dm_numroc(n, block, g->mycol, 0, g->npcol);
    a.lld = a.rows > 1 ? a.rows : 1;
    check_dm(dm_descinit(a.desc_dm, n, n, block, block, 0, 0, g->dm, g->nprow, g->npcol, g->myrow, (int)a.lld),
             "dm_descinit");
    memcpy(a.desc_blacs, a.desc_dm, sizeof a.desc_dm);
    a.desc_blacs[1] = g->blacs;
    size_t count = (size_t)(a.lld * (a.cols > 0 ? a.cols : 1));
    a.data = malloc(count * sizeof(double));
    if (!a.data) die("out of memory");
    return a;
}

static void matrix_free(Matrix *a) {
    free(a->data);
    a->data = NULL;
}

/* Global index of local index `l` along an axis of `block`-sized blocks dealt from coordinate 0. */
static int64_t global_of(int64_t l, int block, int coord, int nprocs) {
    return (l / block) * (int64_t)block * nprocs + (int64_t)coord * block + l % block;
}

/* Elements of an axis of n positions owned by coordinate `a` of `pa` in blocks
 * of `ba` and by coordinate `b` of `pb` in blocks of `bb` (sources 0). */
static int64_t axis_overlap(int n, int a, int pa, int ba, int b, int pb, int bb) {
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += (i / ba) % pa == a && (i / bb) % pb == b;
    return count;
}

/* The Alltoallv that moves what the redistribution of `c` moves between every
 * pair of ranks (row-major rank order on both grids). */
typedef struct {
    int *send_counts, *recv_counts, *send_displs, *recv_displs;
    double *send, *recv;
} Exchange;

static Exchange exchange_make(int n, int pr_a, int pc_a, int block_a, int pr_b, int pc_b, int block_b) {
    Exchange x;
    const size_t P = (size_t)world_size;
    x.send_counts = calloc(P, sizeof(int)), x.recv_counts = calloc(P, sizeof(int));
    x.send_displs = calloc(P, sizeof(int)), x.recv_displs = calloc(P, sizeof(int));
    if (!x.send_counts || !x.recv_counts || !x.send_displs || !x.recv_displs) die("out of memory");
    int64_t sent = 0, received = 0;
    for (int peer = 0; peer < world_size; ++peer) {
        /* me in the source grid -> peer in the destination grid, and the reverse */
        const int64_t out = axis_overlap(n, world_rank / pc_a, pr_a, block_a, peer / pc_b, pr_b, block_b) *
                            axis_overlap(n, world_rank % pc_a, pc_a, block_a, peer % pc_b, pc_b, block_b);
        const int64_t in = axis_overlap(n, peer / pc_a, pr_a, block_a, world_rank / pc_b, pr_b, block_b) *
                           axis_overlap(n, peer % pc_a, pc_a, block_a, world_rank % pc_b, pc_b, block_b);
        if (sent + out > INT32_MAX || received + in > INT32_MAX) die("an alltoallv count beyond int");
        x.send_counts[peer] = (int)out, x.recv_counts[peer] = (int)in;
        x.send_displs[peer] = (int)sent, x.recv_displs[peer] = (int)received;
        sent += out, received += in;
    }
    x.send = malloc((size_t)(sent > 0 ? sent : 1) * sizeof(double));
    x.recv = malloc((size_t)(received > 0 ? received : 1) * sizeof(double));
    if (!x.send || !x.recv) die("out of memory");
    for (int64_t k = 0; k < sent; ++k) x.send[k] = (double)k;
    for (int64_t k = 0; k < received; ++k) x.recv[k] = 0; /* touched before timing */
    return x;
}

static void exchange_free(Exchange *x) {
    free(x->send_counts), free(x->recv_counts), free(x->send_displs), free(x->recv_displs);
    free(x->send), free(x->recv);
}

/* The oracle: A(i, j) = i + j N, exact in a double for N up to 94 million. */
static double value_at(int64_t i, int64_t j, int n) { return (double)i + (double)j * (double)n; }

static void matrix_fill(Matrix *a, const Grid *g, int n, int block) {
    for (int64_t lj = 0; lj < a->cols; ++lj) {
        const int64_t j = global_of(lj, block, g->mycol, g->npcol);
        for (int64_t li = 0; li < a->rows; ++li)
            a->data[lj * a->lld + li] = value_at(global_of(li, block, g->myrow, g->nprow), j, n);
    }
}

static void matrix_set(Matrix *a, double v) {
    for (int64_t k = 0; k < a->lld * a->cols; ++k) a->data[k] = v;
}

/* Element by element on every rank: `who`'s B equals ScaLAPACK's, and
 * ScaLAPACK's holds A's values (A's transpose's, `transposed`). Aborts the run on any difference, unless
 * `tolerated` (a peer's wrong result is reported, not fatal): then returns the
 * number of wrong elements. */
static long long verify(const Matrix *dm, const Matrix *sl, const Grid *g, int n, int block, const char *label,
                   const char *who, int tolerated, int transposed) {
    long long bad_dm = 0, bad_sl = 0;
    int64_t first_i = -1, first_j = -1;
    double got = 0, want = 0;
    for (int64_t lj = 0; lj < sl->cols; ++lj) {
        const int64_t j = global_of(lj, block, g->mycol, g->npcol);
        for (int64_t li = 0; li < sl->rows; ++li) {
            const int64_t i = global_of(li, block, g->myrow, g->nprow);
            const double s = sl->data[lj * sl->lld + li], d = dm->data[lj * dm->lld + li];
            if (s != (transposed ? value_at(j, i, n) : value_at(i, j, n))) ++bad_sl;
            if (d != s) {
                if (bad_dm == 0) first_i = i, first_j = j, got = d, want = s;
                ++bad_dm;
            }
        }
    }
    long long mine[2] = {bad_dm, bad_sl}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (bad_dm)
        fprintf(stderr,
                "MISMATCH %s: rank %d: %lld elements of %s's result differ from pdgemr2d's; "
                "first B(%lld, %lld) = %.17g, pdgemr2d has %.17g\n",
                label, world_rank, bad_dm, who, (long long)first_i, (long long)first_j, got, want);
    if (bad_sl)
        fprintf(stderr, "MISMATCH %s: rank %d: %lld elements of pdgemr2d's result are not A's\n", label, world_rank,
                bad_sl);
    fflush(stderr);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tolerated && !all[1]) return all[0];
    if (all[0] || all[1]) {
        if (world_rank == 0)
            fprintf(stderr, "FAILED %s: %lld wrong elements in %s's result, %lld in pdgemr2d's\n", label, all[0],
                    who, all[1]);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return 0;
}

/* The string value of "key" in a flat JSON text, or `out` left as it is. */
static void json_string_field(const char *json, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *at = strstr(json, pattern);
    if (!at) return;
    at = strchr(at + strlen(pattern), '"');
    if (!at) return;
    const char *end = strchr(++at, '"');
    if (!end) return;
    size_t n = (size_t)(end - at) < size - 1 ? (size_t)(end - at) : size - 1;
    memcpy(out, at, n);
    out[n] = '\0';
}

/* ---- timing ---- */
static double slowest(double seconds) {
    double max = 0;
    MPI_Allreduce(&seconds, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

static int compare_double(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

typedef struct {
    double median, min, max;
} Stats;

static Stats stats_of(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, compare_double);
    Stats s = {n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]), t[0], t[n - 1]};
    return s;
}

/* ---- the cases ---- */
typedef struct {
    const char *name;
    int pr_a, pc_a, block_a;
    int pr_b, pc_b, block_b;
} Case;

static int make_cases(Case *cases) {
    int dims[2] = {0, 0};
    MPI_Dims_create(world_size, 2, dims); /* dims[0] >= dims[1] */
    const int r = dims[1], c = dims[0];    /* r <= c */
    int n = 0;
    cases[n++] = (Case){"block", r, c, 36, r, c, 128};
    if (dims[0] != world_size)
        cases[n++] = (Case){"grid-a", dims[0], dims[1], 64, world_size, 1, 64};
    else
        cases[n++] = (Case){"grid-a", dims[0], dims[1], 64, 1, world_size, 64};
    if (!(dims[0] == 1 && dims[1] == world_size)) cases[n++] = (Case){"grid-b", 1, world_size, 64, dims[0], dims[1], 64};
    return n;
}

static void describe(const Case *c, char *out, size_t size) {
    if (c->block_a != c->block_b)
        snprintf(out, size, "%dx%d, block %d -> %d", c->pr_a, c->pc_a, c->block_a, c->block_b);
    else
        snprintf(out, size, "grid %dx%d -> %dx%d, block %d", c->pr_a, c->pc_a, c->pr_b, c->pc_b, c->block_a);
}

/* What is timed: ScaLAPACK's pdgemr2d, the same Fortran entry from datamotion's
 * drop-in (libdatamotion_scalapack) and from COSTA's (libcosta_scalapack) where
 * given, datamotion's own C call, and the Alltoallv of the same bytes. */
enum { SCALAPACK, DROP_IN, COSTA, DATAMOTION, ALLTOALLV, CONTENDERS };
static const char *const contender_names[CONTENDERS] = {"ScaLAPACK pdgemr2d", "drop-in pdgemr2d", "COSTA pdgemr2d",
                                                        "dm_redist_pgemr2d", "alltoallv"};

typedef void Gemr2d(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib, int *jb, int *descb,
                    int *ictxt);

/* `symbol` of the shared library at `path` (loaded already, or now), or NULL. */
static void *symbol_in(const char *path, const char *symbol) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!library) library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        if (world_rank == 0) fprintf(stderr, "redist_vs_scalapack: cannot load %s: %s\n", path, dlerror());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return dlsym(library, symbol);
}

/* The library that holds `function`, as the dynamic linker found it. */
static const char *library_of(void *function) {
    Dl_info info;
    return function && dladdr(function, &info) && info.dli_fname ? info.dli_fname : "?";
}

typedef struct {
    int n;
    char label[64];
    Stats t[CONTENDERS];
    int wrong[CONTENDERS]; /* a peer's result that differs from ScaLAPACK's */
} Row;

static void usage(void) {
    if (world_rank == 0)
        fprintf(stderr, "usage: redist_vs_scalapack [--reps R] [--reps-large R] [--drop-in LIB] [--costa LIB] "
                        "[N ...]  (N: matrix orders)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- transposes: PBLAS's pdtran against the drop-ins', and the cost of the transform ---- */
typedef void Tran(int *m, int *n, double *alpha, double *a, int *ia, int *ja, int *desca, double *beta, double *c,
                  int *ic, int *jc, int *descc);
enum {
    TRAN_SCALAPACK,
    TRAN_DROP_IN,
    TRAN_DROP_IN_SCALED,
    TRAN_COSTA,
    GEMR2D_DROP_IN,
    GEMR2D_SAME_MOVES,
    TRAN_CONTENDERS
};
static const char *const tran_names[TRAN_CONTENDERS] = {
    "ScaLAPACK pdtran",        "drop-in pdtran", "drop-in pdtran 2A'+C", "COSTA pdtran", "drop-in pdgemr2d, same layouts",
    "drop-in pdgemr2d, same moves"};

typedef struct {
    int n;
    char label[64];
    Stats t[TRAN_CONTENDERS];
    int wrong_costa;
} TranRow;

/* C = A' (and C = 2 A' + C) for an N x N matrix on the r x c grid, blocks
 * `block_a` -> `block_c`; beside it the drop-in's pdgemr2d between the same
 * layouts, and the plain redistribution that makes the same moves: A into C'
 * (C's layout transposed: blocks of `block_c` on the c x r grid where the rank at
 * (i, j) of C's grid sits at (j, i)), every element going to the rank that holds
 * it in C, untransposed. The transform's cost is its time over that one's. */
static void tran_row(TranRow *row, int n, int block_a, int block_c, int reps, Tran *const *entry,
                     const int *timed, Gemr2d *gemr2d, int ictxt) {
    int dims[2] = {0, 0};
    MPI_Dims_create(world_size, 2, dims);
    Grid g = grid_make(dims[1], dims[0]), gt = grid_ordered(dims[0], dims[1], "Col");
    Matrix a = matrix_make(&g, n, block_a), c[TRAN_CONTENDERS];
    for (int k = 0; k < TRAN_CONTENDERS; ++k) c[k] = matrix_make(k == GEMR2D_SAME_MOVES ? &gt : &g, n, block_c);
    if (a.data) matrix_fill(&a, &g, n, block_a);
    memset(row, 0, sizeof *row);
    row->n = n;
    snprintf(row->label, sizeof row->label, "%dx%d, block %d -> %d", g.nprow, g.npcol, block_a, block_c);
    double t[TRAN_CONTENDERS][64];
    for (int rep = -1; rep < reps; ++rep) {
        for (int k = 0; k < TRAN_CONTENDERS; ++k) {
            if (!timed[k]) continue;
            if (c[k].data) matrix_set(&c[k], 1.0);
            int one = 1, order = n;
            double alpha = k == TRAN_DROP_IN_SCALED ? 2.0 : 1.0, beta = k == TRAN_DROP_IN_SCALED ? 1.0 : 0.0;
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            if (k == GEMR2D_DROP_IN || k == GEMR2D_SAME_MOVES)
                gemr2d(&order, &order, a.data, &one, &one, a.desc_blacs, c[k].data, &one, &one, c[k].desc_blacs, &ictxt);
            else
                entry[k](&order, &order, &alpha, a.data, &one, &one, a.desc_blacs, &beta, c[k].data, &one, &one,
                         c[k].desc_blacs);
            const double seconds = slowest(MPI_Wtime() - t0);
            if (rep >= 0) t[k][rep] = 1e3 * seconds;
        }
        if (rep == -1 || rep == reps - 1) {
            char label[128];
            snprintf(label, sizeof label, "pdtran N = %d, %s", n, row->label);
            verify(&c[TRAN_DROP_IN], &c[TRAN_SCALAPACK], &g, n, block_c, label, "drop-in pdtran", 1, 1) == 0 ||
                (die("the drop-in's pdtran differs from ScaLAPACK's"), 0);
            if (timed[TRAN_COSTA] && verify(&c[TRAN_COSTA], &c[TRAN_SCALAPACK], &g, n, block_c, label, "COSTA pdtran", 1, 1))
                row->wrong_costa = 1;
        }
    }
    for (int k = 0; k < TRAN_CONTENDERS; ++k)
        if (timed[k]) row->t[k] = stats_of(t[k], reps);
    matrix_free(&a);
    for (int k = 0; k < TRAN_CONTENDERS; ++k) matrix_free(&c[k]);
    grid_free(&g), grid_free(&gt);
}

static void tran_table(const TranRow *rows, int nrows, const int *timed) {
    printf("\nTransposes, C = A' on one grid (ScaLAPACK / drop-in: how many times faster the drop-in is;\n"
           "transform / plain: the drop-in's pdtran against its pdgemr2d that makes the same moves):\n\n| n | case |");
    for (int k = 0; k < TRAN_CONTENDERS; ++k)
        if (timed[k]) printf(" %s |", tran_names[k]);
    printf(" ScaLAPACK / drop-in | COSTA / drop-in | transform / plain | 2A'+C / plain |\n|---:|---|");
    for (int k = 0; k < TRAN_CONTENDERS; ++k)
        if (timed[k]) printf("---:|");
    printf("---:|---:|---:|---:|\n");
    for (int i = 0; i < nrows; ++i) {
        const TranRow *w = &rows[i];
        printf("| %d | %s |", w->n, w->label);
        for (int k = 0; k < TRAN_CONTENDERS; ++k)
            if (timed[k]) printf(" %.1f |", w->t[k].median);
        const double d = w->t[TRAN_DROP_IN].median, plain = w->t[GEMR2D_SAME_MOVES].median;
        printf(" %.2fx |", w->t[TRAN_SCALAPACK].median / d);
        if (timed[TRAN_COSTA])
            printf(" %.2fx%s |", w->t[TRAN_COSTA].median / d, w->wrong_costa ? " (COSTA's result wrong)" : "");
        else
            printf(" - |");
        printf(" %.2fx | %.2fx |\n", d / plain, w->t[TRAN_DROP_IN_SCALED].median / plain);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    int sizes[MAX_SIZES], nsizes = 0, reps = 5, reps_large = 3;
    const char *drop_in_path = NULL, *costa_path = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--drop-in") && i + 1 < argc)
            drop_in_path = argv[++i];
        else if (!strcmp(argv[i], "--costa") && i + 1 < argc)
            costa_path = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps-large") && i + 1 < argc)
            reps_large = atoi(argv[++i]);
        else if (argv[i][0] >= '0' && argv[i][0] <= '9' && nsizes < MAX_SIZES)
            sizes[nsizes++] = atoi(argv[i]);
        else
            usage();
    }
    if (nsizes == 0) sizes[0] = 1000, sizes[1] = 2000, sizes[2] = 4000, sizes[3] = 8000, nsizes = 4;
    if (reps < 1 || reps_large < 1) usage();
    for (int i = 0; i < nsizes; ++i)
        if (sizes[i] < 1 || (int64_t)sizes[i] * sizes[i] / world_size > INT32_MAX) usage();
    if (world_size < 2) {
        if (world_rank == 0) fprintf(stderr, "redist_vs_scalapack: run on 2 or more ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int blacs_rank = -1, blacs_size = 0;
    Cblacs_pinfo(&blacs_rank, &blacs_size);
    if (blacs_rank != world_rank || blacs_size != world_size) die("BLACS does not number the ranks as MPI_COMM_WORLD");

    /* ScaLAPACK's own pdgemr2d_ from its library (found through a BLACS function,
     * which only ScaLAPACK defines), the drop-ins' from theirs: one process, one
     * matrix, each library's own definition, side by side. */
    Gemr2d *entry[CONTENDERS] = {NULL};
    entry[SCALAPACK] = (Gemr2d *)symbol_in(library_of((void *)Cblacs_pinfo), "pdgemr2d_");
    if (drop_in_path) entry[DROP_IN] = (Gemr2d *)symbol_in(drop_in_path, "pdgemr2d_");
    if (costa_path) entry[COSTA] = (Gemr2d *)symbol_in(costa_path, "pdgemr2d_");
    if (!entry[SCALAPACK] || (drop_in_path && !entry[DROP_IN]) || (costa_path && !entry[COSTA]))
        die("a library given has no pdgemr2d_");
    int timed[CONTENDERS] = {1, drop_in_path != NULL, costa_path != NULL, 1, 1};

    /* Machine facts. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(library, &length);
    for (int i = 0; i < length; ++i)
        if (library[i] == '\n' || library[i] == '\r') library[i] = ' ';
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    /* datamotion's build: version and the revision it was configured from. */
    char provenance[8192] = "", revision[64] = "unknown", build_type[32] = "?";
    check_dm(dm_provenance_json(MPI_COMM_WORLD, provenance, sizeof provenance, NULL), "dm_provenance_json");
    json_string_field(provenance, "git_revision", revision, sizeof revision);
    json_string_field(provenance, "build_type", build_type, sizeof build_type);
    if (world_rank == 0) {
        printf("# ScaLAPACK's pdgemr2d against datamotion's drop-in, COSTA's drop-in, datamotion's own call and\n"
               "# MPI_Alltoallv of the same bytes per rank pair\n\n");
        printf("- ranks: %d; cores online (sysconf): %ld; host: %s\n", world_size, cores, host);
        if (world_size > cores)
            printf("- OVERSUBSCRIBED: %d ranks share %ld cores; the MPI shared-memory transport then waits on\n"
                   "  descheduled peers, so absolute times and ratios are distorted\n",
                   world_size, cores);
        FILE *load = fopen("/proc/loadavg", "r");
        char loadavg[128] = "";
        if (load) {
            if (!fgets(loadavg, sizeof loadavg, load)) loadavg[0] = '\0';
            fclose(load);
            loadavg[strcspn(loadavg, "\n")] = '\0';
            printf("- load average at start (other work on the machine skews every column): %s\n", loadavg);
        }
        printf("- MPI: %.*s\n", length, library);
        int provided = 0;
        MPI_Query_thread(&provided);
        const char *executor = getenv("DM_EXCHANGE");
        printf("- thread level: %s (MPI_Init); executor: %s\n",
               provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : "above MPI_THREAD_SINGLE",
               executor && *executor ? executor : "auto (DM_EXCHANGE unset)");
        printf("- datamotion %s (revision %s, %s build)\n", dm_version(), revision, build_type);
        for (int k = SCALAPACK; k <= COSTA; ++k)
            if (timed[k]) printf("- %s: pdgemr2d_ of %s\n", contender_names[k], library_of((void *)entry[k]));
        printf("- repetitions: %d (N <= 4000), %d (N > 4000), after one warm-up; times are the slowest rank's,\n"
               "  medians in milliseconds; every result checked element by element against pdgemr2d's\n\n",
               reps, reps_large);
        fflush(stdout);
    }

    /* BLACS's pdgemr2d takes a context spanning every rank; a 1 x P one avoids the
     * grid reshape (and its synchronisation) it would do inside each call otherwise. */
    Grid all = grid_make(1, world_size);

    Case cases[3];
    const int ncases = make_cases(cases);
    Row rows[MAX_SIZES * 3];
    int nrows = 0;

    for (int s = 0; s < nsizes; ++s) {
        const int n = sizes[s], r = n > 4000 ? reps_large : reps;
        for (int c = 0; c < ncases; ++c) {
            const Case *cs = &cases[c];
            Grid ga = grid_make(cs->pr_a, cs->pc_a), gb = grid_make(cs->pr_b, cs->pc_b);
            Matrix a = matrix_make(&ga, n, cs->block_a), b[CONTENDERS];
            for (int k = 0; k < ALLTOALLV; ++k) b[k] = matrix_make(&gb, n, cs->block_b);
            if (a.data) matrix_fill(&a, &ga, n, cs->block_a);
            Exchange x = exchange_make(n, cs->pr_a, cs->pc_a, cs->block_a, cs->pr_b, cs->pc_b, cs->block_b);

            Row *row = &rows[nrows++];
            memset(row, 0, sizeof *row);
            row->n = n;
            describe(cs, row->label, sizeof row->label);
            char label[128];
            snprintf(label, sizeof label, "N = %d, %s", n, row->label);

            double t[CONTENDERS][64];
            if (r > 64) die("at most 64 repetitions");
            for (int rep = -1; rep < r; ++rep) { /* rep -1: the warm-up */
                for (int k = 0; k < CONTENDERS; ++k) {
                    if (!timed[k]) continue;
                    if (k < ALLTOALLV && b[k].data) matrix_set(&b[k], SENTINEL);
                    int one = 1, order = n;
                    MPI_Barrier(MPI_COMM_WORLD);
                    const double t0 = MPI_Wtime();
                    if (k == ALLTOALLV)
                        MPI_Alltoallv(x.send, x.send_counts, x.send_displs, MPI_DOUBLE, x.recv, x.recv_counts,
                                      x.recv_displs, MPI_DOUBLE, MPI_COMM_WORLD);
                    else if (k == DATAMOTION)
                        check_dm(dm_redist_pgemr2d(n, n, a.data, 1, 1, a.desc_dm, b[k].data, 1, 1, b[k].desc_dm,
                                                   MPI_COMM_WORLD),
                                 "dm_redist_pgemr2d");
                    else
                        entry[k](&order, &order, a.data, &one, &one, a.desc_blacs, b[k].data, &one, &one,
                                 b[k].desc_blacs, &all.blacs);
                    const double seconds = slowest(MPI_Wtime() - t0);
                    if (rep >= 0) t[k][rep] = 1e3 * seconds;
                }
                if (rep == -1 || rep == r - 1)
                    for (int k = DROP_IN; k < ALLTOALLV; ++k)
                        if (timed[k] && verify(&b[k], &b[SCALAPACK], &gb, n, cs->block_b, label, contender_names[k],
                                               k == COSTA, 0))
                            row->wrong[k] = 1;
            }
            for (int k = 0; k < CONTENDERS; ++k)
                if (timed[k]) row->t[k] = stats_of(t[k], r);
            if (world_rank == 0) {
                fprintf(stderr, "  done: %s (ScaLAPACK %.1f ms, drop-in %.1f ms)\n", label, row->t[SCALAPACK].median,
                        timed[DROP_IN] ? row->t[DROP_IN].median : 0.0);
                fflush(stderr);
            }
            matrix_free(&a);
            for (int k = 0; k < ALLTOALLV; ++k) matrix_free(&b[k]);
            exchange_free(&x);
            grid_free(&ga), grid_free(&gb);
        }
    }

    if (world_rank == 0) {
        printf("Medians in ms; ratios of medians (ScaLAPACK / drop-in: how many times faster the drop-in is).\n\n");
        printf("| n | case |");
        for (int k = 0; k < CONTENDERS; ++k)
            if (timed[k]) printf(" %s |", contender_names[k]);
        printf(" ScaLAPACK / drop-in | COSTA / drop-in | drop-in / dm_redist_pgemr2d | dm_redist_pgemr2d / alltoallv |\n");
        printf("|---:|---|");
        for (int k = 0; k < CONTENDERS; ++k)
            if (timed[k]) printf("---:|");
        printf("---:|---:|---:|---:|\n");
        for (int i = 0; i < nrows; ++i) {
            const Row *w = &rows[i];
            printf("| %d | %s |", w->n, w->label);
            for (int k = 0; k < CONTENDERS; ++k)
                if (timed[k]) printf(" %.1f |", w->t[k].median);
            const double drop_in = w->t[DROP_IN].median;
            if (timed[DROP_IN])
                printf(" %.2fx |", w->t[SCALAPACK].median / drop_in);
            else
                printf(" - |");
            if (timed[DROP_IN] && timed[COSTA])
                printf(" %.2fx%s |", w->t[COSTA].median / drop_in, w->wrong[COSTA] ? " (COSTA's result wrong)" : "");
            else
                printf(" - |");
            if (timed[DROP_IN])
                printf(" %.2fx |", drop_in / w->t[DATAMOTION].median);
            else
                printf(" - |");
            printf(" %.2fx |\n", w->t[DATAMOTION].median / w->t[ALLTOALLV].median);
        }
        printf("\nSpread (min .. max ms over the timed repetitions):\n\n| n | case |");
        for (int k = 0; k < CONTENDERS; ++k)
            if (timed[k]) printf(" %s |", contender_names[k]);
        printf("\n|---:|---|");
        for (int k = 0; k < CONTENDERS; ++k)
            if (timed[k]) printf("---|");
        printf("\n");
        for (int i = 0; i < nrows; ++i) {
            const Row *w = &rows[i];
            printf("| %d | %s |", w->n, w->label);
            for (int k = 0; k < CONTENDERS; ++k)
                if (timed[k]) printf(" %.1f .. %.1f |", w->t[k].min, w->t[k].max);
            printf("\n");
        }
        fflush(stdout);
    }

    /* Transposes, where the drop-in is given (its pdgemr2d is the plain reference). */
    if (timed[DROP_IN]) {
        Tran *tran[TRAN_CONTENDERS] = {NULL};
        tran[TRAN_SCALAPACK] = (Tran *)symbol_in(library_of((void *)Cblacs_pinfo), "pdtran_");
        tran[TRAN_DROP_IN] = tran[TRAN_DROP_IN_SCALED] = (Tran *)symbol_in(drop_in_path, "pdtran_");
        if (costa_path) tran[TRAN_COSTA] = (Tran *)symbol_in(costa_path, "pdtran_");
        const int tran_timed[TRAN_CONTENDERS] = {1, 1, 1, costa_path != NULL, 1, 1};
        TranRow tran_rows[MAX_SIZES * 2];
        int ntran = 0;
        for (int s = 0; s < nsizes; ++s) {
            const int n = sizes[s], r = n > 4000 ? reps_large : reps;
            tran_row(&tran_rows[ntran++], n, 64, 64, r, tran, tran_timed, entry[DROP_IN], all.blacs);
            tran_row(&tran_rows[ntran++], n, 36, 128, r, tran, tran_timed, entry[DROP_IN], all.blacs);
        }
        if (world_rank == 0) tran_table(tran_rows, ntran, tran_timed), fflush(stdout);
    }

    grid_free(&all);
    Cblacs_exit(1); /* keep MPI up for MPI_Finalize */
    MPI_Finalize();
    return 0;
}
