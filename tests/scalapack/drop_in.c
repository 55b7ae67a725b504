/* The ScaLAPACK drop-in through the program's own BLACS: a program written for
 * ScaLAPACK (grids from Cblacs_gridinit and Cblacs_gridmap, ScaLAPACK
 * descriptors, a union context) linked with libdatamotion_scalapack before
 * ScaLAPACK. Each case copies a submatrix from grid A to grid B, where the two
 * grids use different process groups (A the first ranks, B the last, so that
 * some ranks are off each grid), and checks every local element of B against the
 * global index it holds: the submatrix moved, the rest untouched.
 *
 *   drop_in          every case, every element type, all entry points; then
 *                    PBLAS's transposes (p?tran, p?tranu, p?tranc) on one grid
 *   drop_in bad      a bad descriptor entry: ScaLAPACK's message (PXERBLA, with
 *                    the argument number) and B untouched, on every rank
 *
 * Prints "FAILED" for each wrong case; exits 0 only when every case passed. */
#include <datamotion/scalapack.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int *me, int *procs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *ctxt, int *map, int ldmap, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int keep_mpi);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);

enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_ };
enum Type { S, D, C, Z, I, TYPES };
static const char *const type_names[TYPES] = {"float", "double", "float complex", "double complex", "int"};
static const size_t type_sizes[TYPES] = {4, 8, 8, 16, 4};
static const double sentinel = -7;

/* One matrix on one grid: its descriptor and this rank's local part. */
struct Matrix {
    int desc[9];
    int myrow, mycol, rows, cols;
    void *data;
};

/* A grid of nprow x npcol processes, starting at process `first`, row-major. */
static int grid(int nprow, int npcol, int first) {
    int ctxt = 0, *map = malloc(sizeof(int) * (size_t)(nprow * npcol));
    for (int r = 0; r < nprow; ++r)
        for (int c = 0; c < npcol; ++c) map[c * nprow + r] = first + r * npcol + c;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridmap(&ctxt, map, nprow, nprow, npcol);
    free(map);
    return ctxt;
}

/* The value an element of global (row, col) holds: distinct for every element,
 * exact in every type (a complex element's imaginary part is its negative). */
static double coded(int row, int col) { return 1 + row + 1000.0 * col; }

static void put(enum Type t, void *data, size_t at, double v) {
    switch (t) {
    case S: ((float *)data)[at] = (float)v; break;
    case D: ((double *)data)[at] = v; break;
    case C: ((float *)data)[2 * at] = (float)v, ((float *)data)[2 * at + 1] = (float)-v; break;
    case Z: ((double *)data)[2 * at] = v, ((double *)data)[2 * at + 1] = -v; break;
    default: ((int *)data)[at] = (int)v; break;
    }
}

static int holds(enum Type t, const void *data, size_t at, double v) {
    switch (t) {
    case S: return ((const float *)data)[at] == (float)v;
    case D: return ((const double *)data)[at] == v;
    case C: return ((const float *)data)[2 * at] == (float)v && ((const float *)data)[2 * at + 1] == (float)-v;
    case Z: return ((const double *)data)[2 * at] == v && ((const double *)data)[2 * at + 1] == -v;
    default: return ((const int *)data)[at] == (int)v;
    }
}

/* Global index of local (i, j) on one axis: block-cyclic, ScaLAPACK's rule. */
static int global_of(int local, int block, int coord, int src, int procs) {
    int shifted = (coord - src + procs) % procs;
    return (local / block) * procs * block + shifted * block + local % block;
}

/* The matrix's descriptor and local part on this rank, filled with `fill`
 * (coded values, or the sentinel where fill is 0). Off the grid: CTXT -1. */
static void make(struct Matrix *x, enum Type t, int ctxt, int m, int n, int mb, int nb, int rsrc, int csrc, int fill) {
    int nprow = -1, npcol = -1;
    memset(x, 0, sizeof *x);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &x->myrow, &x->mycol);
    if (x->myrow < 0 || x->myrow >= nprow) {
        x->myrow = x->mycol = -1;
        x->desc[CTXT_] = -1;
        return;
    }
    x->rows = numroc_(&m, &mb, &x->myrow, &rsrc, &nprow);
    x->cols = numroc_(&n, &nb, &x->mycol, &csrc, &npcol);
    /* LLD as ScaLAPACK's tester sets it (the local rows, 0 where there are none),
     * and with a row of padding for every other type (which must stay untouched). */
    int desc[9] = {1, ctxt, m, n, mb, nb, rsrc, csrc, x->rows + (x->rows > 0 && t % 2)};
    memcpy(x->desc, desc, sizeof desc);
    x->data = x->rows * x->cols > 0 ? malloc(type_sizes[t] * (size_t)(x->desc[LLD_] * x->cols)) : NULL;
    for (int j = 0; j < x->cols; ++j)
        for (int i = 0; i < x->desc[LLD_]; ++i) {
            int gi = global_of(i, mb, x->myrow, rsrc, nprow), gj = global_of(j, nb, x->mycol, csrc, npcol);
            put(t, x->data, (size_t)j * x->desc[LLD_] + i, fill && i < x->rows ? coded(gi, gj) : sentinel);
        }
}

/* Whether B holds A(ia.., ja..) in its submatrix at (ib, jb) and the sentinel elsewhere. */
static int correct(enum Type t, const struct Matrix *b, int m, int n, int ia, int ja, int ib, int jb) {
    if (b->myrow < 0) return 1;
    int nprow = -1, npcol = -1, r = 0, c = 0;
    Cblacs_gridinfo(b->desc[CTXT_], &nprow, &npcol, &r, &c);
    for (int j = 0; j < b->cols; ++j)
        for (int i = 0; i < b->desc[LLD_]; ++i) {
            int gi = global_of(i, b->desc[MB_], r, b->desc[RSRC_], nprow);
            int gj = global_of(j, b->desc[NB_], c, b->desc[CSRC_], npcol);
            int inside = i < b->rows && gi >= ib - 1 && gi < ib - 1 + m && gj >= jb - 1 && gj < jb - 1 + n;
            double want = inside ? coded(gi - (ib - 1) + (ia - 1), gj - (jb - 1) + (ja - 1)) : sentinel;
            if (!holds(t, b->data, (size_t)j * b->desc[LLD_] + i, want)) return 0;
        }
    return 1;
}

/* The entry points, one per way of calling. */
enum Entry { C_CONTEXT, FORTRAN_CONTEXT, C_OLD, ENTRIES };
static const char *const entry_names[ENTRIES] = {"Cp?gemr2d", "p?gemr2d_", "Cp?gemr2do"};

static void copy(enum Entry e, enum Type t, int m, int n, struct Matrix *a, int ia, int ja, struct Matrix *b, int ib,
                 int jb, int ictxt) {
    void *x = a->data, *y = b->data;
    int *da = a->desc, *db = b->desc;
    if (e == FORTRAN_CONTEXT) {
        switch (t) {
        case S: psgemr2d_(&m, &n, x, &ia, &ja, da, y, &ib, &jb, db, &ictxt); break;
        case D: pdgemr2d_(&m, &n, x, &ia, &ja, da, y, &ib, &jb, db, &ictxt); break;
        case C: pcgemr2d_(&m, &n, x, &ia, &ja, da, y, &ib, &jb, db, &ictxt); break;
        case Z: pzgemr2d_(&m, &n, x, &ia, &ja, da, y, &ib, &jb, db, &ictxt); break;
        default: pigemr2d_(&m, &n, x, &ia, &ja, da, y, &ib, &jb, db, &ictxt); break;
        }
    } else if (e == C_OLD) {
        switch (t) {
        case S: Cpsgemr2do(m, n, x, ia, ja, da, y, ib, jb, db); break;
        case D: Cpdgemr2do(m, n, x, ia, ja, da, y, ib, jb, db); break;
        case C: Cpcgemr2do(m, n, x, ia, ja, da, y, ib, jb, db); break;
        case Z: Cpzgemr2do(m, n, x, ia, ja, da, y, ib, jb, db); break;
        default: Cpigemr2do(m, n, x, ia, ja, da, y, ib, jb, db); break;
        }
    } else {
        switch (t) {
        case S: Cpsgemr2d(m, n, x, ia, ja, da, y, ib, jb, db, ictxt); break;
        case D: Cpdgemr2d(m, n, x, ia, ja, da, y, ib, jb, db, ictxt); break;
        case C: Cpcgemr2d(m, n, x, ia, ja, da, y, ib, jb, db, ictxt); break;
        case Z: Cpzgemr2d(m, n, x, ia, ja, da, y, ib, jb, db, ictxt); break;
        default: Cpigemr2d(m, n, x, ia, ja, da, y, ib, jb, db, ictxt); break;
        }
    }
}

/* One case: m x n from A (MA x NA on p0 x q0, the first ranks) at (ia, ja) to B
 * (MB x NB on p1 x q1, the last ranks) at (ib, jb). */
struct Case {
    int m, n;
    int ma, na, mba, nba, rsrca, csrca, ia, ja, p0, q0;
    int mb, nb, mbb, nbb, rsrcb, csrcb, ib, jb, p1, q1;
};

static int run(const struct Case *k, enum Type t, enum Entry e, int ictxt, int procs) {
    int ctxt_a = -1, ctxt_b = -1;
    if (k->p0 * k->q0 > procs || k->p1 * k->q1 > procs) return 1;  /* needs more ranks */
    ctxt_a = grid(k->p0, k->q0, 0);
    ctxt_b = grid(k->p1, k->q1, procs - k->p1 * k->q1);
    struct Matrix a, b;
    make(&a, t, ctxt_a, k->ma, k->na, k->mba, k->nba, k->rsrca, k->csrca, 1);
    make(&b, t, ctxt_b, k->mb, k->nb, k->mbb, k->nbb, k->rsrcb, k->csrcb, 0);
    copy(e, t, k->m, k->n, &a, k->ia, k->ja, &b, k->ib, k->jb, ictxt);
    int ok = correct(t, &b, k->m, k->n, k->ia, k->ja, k->ib, k->jb), all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(a.data), free(b.data);
    if (a.myrow >= 0) Cblacs_gridexit(ctxt_a);
    if (b.myrow >= 0) Cblacs_gridexit(ctxt_b);
    return all;
}

/* The element at `at` as (re, im); real types have im 0. */
static void element(enum Type t, const void *data, size_t at, double *re, double *im) {
    *im = 0;
    switch (t) {
    case S: *re = ((const float *)data)[at]; break;
    case D: *re = ((const double *)data)[at]; break;
    case C: *re = ((const float *)data)[2 * at], *im = ((const float *)data)[2 * at + 1]; break;
    case Z: *re = ((const double *)data)[2 * at], *im = ((const double *)data)[2 * at + 1]; break;
    default: *re = ((const int *)data)[at]; break;
    }
}

/* C(ic.., jc..) = beta C + alpha op(A(ia.., ja..)), C m x n and A n x m, both on
 * a p x q grid of the first p q ranks with blocks of their own; alpha 2, beta
 * 0 or -1; checked element by element (conjugation shows in the imaginary
 * parts, which coded values give their own sign). */
/* PBLAS's 11-entry descriptor (DTYPE 2, first blocks IMB x INB) of a 9-entry one:
 * the drop-in hands these to PBLAS's own p?tran. */
static void descriptor_inb(const int d[9], int out[11]) {
    const int e[11] = {2, d[CTXT_], d[M_], d[N_], d[MB_], d[NB_], d[MB_], d[NB_], d[RSRC_], d[CSRC_], d[LLD_]};
    memcpy(out, e, sizeof e);
}

static int run_tran(enum Type t, int conjugate, int p, int q, int m, int n, int ia, int ja, int ic, int jc, double beta,
                    int inb) {
    int ctxt = grid(p, q, 0);
    struct Matrix a, c;
    make(&a, t, ctxt, ia - 1 + n + 2, ja - 1 + m + 1, 3, 2, 0, q > 1 ? 1 : 0, 1);
    make(&c, t, ctxt, ic - 1 + m + 1, jc - 1 + n + 3, 2, 4, p > 1 ? 1 : 0, 0, 0);
    float alpha_s[2] = {2, 0}, beta_s[2] = {(float)beta, 0};
    double alpha_d[2] = {2, 0}, beta_d[2] = {beta, 0};
    void *alpha = t == S || t == C ? (void *)alpha_s : (void *)alpha_d;
    void *beta_p = t == S || t == C ? (void *)beta_s : (void *)beta_d;
    int da11[11], dc11[11], *da = a.desc, *dc = c.desc;
    if (inb) descriptor_inb(a.desc, da11), descriptor_inb(c.desc, dc11), da = da11, dc = dc11;
    if (a.myrow >= 0) {
        switch (t) {
        case S: pstran_(&m, &n, alpha, a.data, &ia, &ja, da, beta_p, c.data, &ic, &jc, dc); break;
        case D: pdtran_(&m, &n, alpha, a.data, &ia, &ja, da, beta_p, c.data, &ic, &jc, dc); break;
        case C: (conjugate ? pctranc_ : pctranu_)(&m, &n, alpha, a.data, &ia, &ja, da, beta_p, c.data, &ic, &jc, dc); break;
        default: (conjugate ? pztranc_ : pztranu_)(&m, &n, alpha, a.data, &ia, &ja, da, beta_p, c.data, &ic, &jc, dc); break;
        }
    }
    int ok = 1, all = 0;
    for (int j = 0; c.myrow >= 0 && j < c.cols; ++j)
        for (int i = 0; i < c.rows; ++i) {
            int gi = global_of(i, c.desc[MB_], c.myrow, c.desc[RSRC_], p);
            int gj = global_of(j, c.desc[NB_], c.mycol, c.desc[CSRC_], q);
            int si = gi - (ic - 1), sj = gj - (jc - 1);
            double re = sentinel, im = (t == C || t == Z) ? -sentinel : 0, got_re, got_im;
            if (si >= 0 && si < m && sj >= 0 && sj < n) {
                double v = coded(ia - 1 + sj, ja - 1 + si), x_im = (t == C || t == Z) ? (conjugate ? v : -v) : 0;
                re = 2 * v + beta * re, im = 2 * x_im + beta * im;
            }
            element(t, c.data, (size_t)j * c.desc[LLD_] + i, &got_re, &got_im);
            if (got_re != re || got_im != im) ok = 0;
        }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(a.data), free(c.data);
    if (a.myrow >= 0) Cblacs_gridexit(ctxt);
    return all;
}

/* A bad descriptor entry of B (MB_ = 0) on every rank of B's grid: PXERBLA
 * reports argument 1005 and B is not written. */
static int bad(int ictxt, int procs) {
    int ctxt_a = grid(1, procs, 0), ctxt_b = grid(procs, 1, 0);
    struct Matrix a, b;
    make(&a, D, ctxt_a, 9, 7, 2, 2, 0, 0, 1);
    make(&b, D, ctxt_b, 9, 7, 3, 3, 0, 0, 0);
    if (b.myrow >= 0) b.desc[MB_] = 0;
    Cpdgemr2d(9, 7, a.data, 1, 1, a.desc, b.data, 1, 1, b.desc, ictxt);
    int untouched = 1;
    for (int j = 0; b.myrow >= 0 && j < b.cols; ++j)
        for (int i = 0; i < b.rows; ++i) untouched = untouched && holds(D, b.data, (size_t)j * b.desc[LLD_] + i, sentinel);
    if (!untouched) printf("FAILED: B was written by a call with a bad descriptor\n");
    free(a.data), free(b.data);
    Cblacs_gridexit(ctxt_a), Cblacs_gridexit(ctxt_b);
    return untouched;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me = 0, procs = 1, ictxt = 0, row_ictxt = 0;
    Cblacs_pinfo(&me, &procs);
    /* The union contexts every copy names: a column of every process (the shape
     * ScaLAPACK's tester uses), and a row. */
    Cblacs_get(0, 0, &ictxt);
    Cblacs_gridinit(&ictxt, "R", procs, 1);
    Cblacs_get(0, 0, &row_ictxt);
    Cblacs_gridinit(&row_ictxt, "R", 1, procs);
    int passed = 1;
    if (argc > 1 && strcmp(argv[1], "bad") == 0) {
        passed = bad(ictxt, procs);
    } else {
        const int h = procs / 2 > 0 ? procs / 2 : 1;  /* half the ranks, at least one */
        const struct Case cases[] = {
            /* whole matrix, grids of every rank, blocks that differ */
            {30, 20, 30, 20, 4, 3, 0, 0, 1, 1, 1, procs, 30, 20, 5, 2, 0, 0, 1, 1, procs, 1},
            /* a submatrix into another place, sources not at (0, 0), grids of half the ranks */
            {13, 11, 25, 19, 3, 4, 0, h > 1 ? 1 : 0, 4, 6, 1, h, 20, 17, 2, 5, 0, 0, 7, 3, h, 1},
            /* one process to all (a gather's inverse), blocks larger than the matrix */
            {17, 9, 17, 9, 64, 64, 0, 0, 1, 1, 1, 1, 17, 9, 2, 3, 0, 0, 1, 1, 1, procs},
            /* all to one, a 2 x 2 grid where there are four ranks */
            {16, 16, 16, 16, 3, 2, 0, 0, 1, 1, procs >= 4 ? 2 : 1, procs >= 4 ? 2 : 1, 18, 18, 5, 5, 0, 0, 2, 3, 1, 1},
            /* single elements and a single row */
            {1, 1, 5, 5, 2, 2, 0, 0, 5, 5, 1, procs, 3, 3, 1, 1, 0, 0, 2, 2, procs, 1},
            {1, 12, 4, 12, 1, 5, 0, 0, 3, 1, 1, procs, 1, 12, 1, 1, 0, 0, 1, 1, 1, procs},
        };
        const int ncases = (int)(sizeof cases / sizeof cases[0]);
        for (int c = 0; c < ncases; ++c)
            for (int t = 0; t < TYPES; ++t)
                for (int e = 0; e < ENTRIES; ++e) {
                    int union_ctxt = (c + t) % 2 ? row_ictxt : ictxt;
                    if (!run(&cases[c], (enum Type)t, (enum Entry)e, union_ctxt, procs)) {
                        passed = 0;
                        if (me == 0)
                            printf("FAILED: case %d, %s, %s, at %d ranks\n", c, type_names[t], entry_names[e], procs);
                    }
                }
        /* PBLAS's transposes: grids of every rank (as square as they come), of one row, of one rank */
        int p = 1;
        for (int d = 1; d * d <= procs; ++d)
            if (procs % d == 0) p = d;
        const int shapes[3][2] = {{p, procs / p}, {1, procs}, {1, 1}};
        int tran_cases = 0;
        for (int g = 0; g < 3; ++g)
            for (int t = S; t <= Z; ++t)
                for (int conjugate = 0; conjugate <= (t == C || t == Z); ++conjugate)
                    for (int k = 0; k < 3; ++k, ++tran_cases) {
                        /* k = 2: PBLAS's 11-entry descriptors, which go to PBLAS's own */
                        const double beta = k ? -1 : 0;
                        const int m = 7 + 5 * k, n = 9 - 4 * k, ia = 1 + k, ja = 2, ic = 3 - k, jc = 1 + 2 * k;
                        if (!run_tran((enum Type)t, conjugate, shapes[g][0], shapes[g][1], m, n, ia, ja, ic, jc, beta,
                                      k == 2)) {
                            passed = 0;
                            if (me == 0)
                                printf("FAILED: p?tran%s, %s, %d x %d grid, beta %g, at %d ranks\n",
                                       conjugate ? "c" : "", type_names[t], shapes[g][0], shapes[g][1], beta, procs);
                        }
                    }
        if (me == 0 && passed)
            printf("drop-in: %d cases x %d types x %d entries of p?gemr2d and %d of p?tran passed at %d ranks\n",
                   ncases, TYPES, ENTRIES, tran_cases, procs);
    }
    Cblacs_gridexit(ictxt);
    Cblacs_gridexit(row_ictxt);
    Cblacs_exit(1);
    MPI_Finalize();
    return passed ? 0 : 1;
}
