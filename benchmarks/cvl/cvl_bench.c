/*
 * CVL benchmarks over cvl.h (the 1994 MPI CVL paper's Section 4 on one machine):
 *
 *   linefit  NESL line fit (five add_rud reductions plus elementwise ops) vs n, n_1/2
 *   median   quickselect median written against CVL (the paper's Appendix) vs n, n_1/2
 *   perm     random permutation (smp_pud) vs a raw MPI_Alltoallv of the same bytes
 *            with the same destination pattern, bandwidth per rank
 *   reduce   add_ruz / add_rud vs MPI_Allreduce of one value (overhead)
 *   elem     add_wud vs memcpy of the same bytes per rank (bandwidth)
 *   ops      every elementwise entry point of cvl.h (each type) vs a plain C loop over
 *            the rank's block into a C array, and every unsegmented reduction vs a
 *            plain C loop over the block plus one MPI_Allreduce; results checked
 *
 * Timing: MPI_Barrier before each repetition, MPI_Wtime around the call, the slowest
 * rank's time of each repetition, the median over repetitions. Contenders of one table
 * alternate inside the same repetition loop.
 *
 * Usage: cvl_bench [--smoke | --quick] [--section NAME]... [--perm-n N] [--elem-n N]
 *                  [--ops-n N[,N]...]
 *   --ops-n: elements per rank for `ops`, one table each (default 1000,1000000,10000000;
 *   --quick 1000,1000000; --smoke 1000 with 3 repetitions).
 * Uses only cvl.h, mpi.h and the C library.
 */
#include <cvl.h>
#include <mpi.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CONTENDERS = 4, MAX_POINTS = 32, MAX_OPS_SIZES = 16 };

static int g_rank, g_nranks;

/* ------------------------------------------------------------------ helpers */

static void die(const char *what) {
    if (g_rank == 0) fprintf(stderr, "cvl_bench: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_cvl(const char *what) {
    if (CVL_error() != CVL_OK) {
        if (g_rank == 0) fprintf(stderr, "cvl_bench: %s: %s\n", what, CVL_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) die("out of memory");
    return p;
}

/* Deterministic generator (splitmix64), the same sequence on every rank. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_double(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }

/* The library's block distribution (DM_DIST_BLOCK's rule): with b = ceil(n/p), rank r
 * holds the elements from min(r*b, n) up to min((r+1)*b, n). */
static int64_t block_size(int64_t n) { return (n + g_nranks - 1) / g_nranks; }
static int64_t block_count_before(int64_t n, int r) {
    int64_t first = r * block_size(n);
    return first < n ? first : n;
}
static int64_t block_count(int64_t n, int r) { return block_count_before(n, r + 1) - block_count_before(n, r); }
static int block_owner(int64_t n, int64_t g) { return (int)(g / block_size(n)); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Local times t[rep*nc + c] become the slowest rank's; returns medians per contender. */
static void slowest_medians(double *t, int reps, int nc, double *med) {
    MPI_Allreduce(MPI_IN_PLACE, t, reps * nc, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double *col = xmalloc((size_t)reps * sizeof(double));
    for (int c = 0; c < nc; ++c) {
        for (int r = 0; r < reps; ++r) col[r] = t[r * nc + c];
        med[c] = median_of(col, reps);
    }
    free(col);
}

static vec_p alloc_vec(int units) {
    vec_p v = alo_foz(units);
    if (v == CVL_SCRATCH_NULL) die("alo_foz failed");
    return v;
}

/* Least-squares fit T(n) = t0 + n / r weighted by 1/T^2 (relative errors, so that the
 * short vectors that decide t0 count as much as the long ones); n_1/2 = t0 * r. */
static void fit_nhalf(const double *n, const double *t, int np, double *t0, double *rate, double *nhalf) {
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < np; ++i) {
        double w = 1.0 / (t[i] * t[i]);
        sw += w; sx += w * n[i]; sy += w * t[i]; sxx += w * n[i] * n[i]; sxy += w * n[i] * t[i];
    }
    double det = sw * sxx - sx * sx;
    double slope = det != 0 ? (sw * sxy - sx * sy) / det : 0;
    double icpt = sw != 0 ? (sy - slope * sx) / sw : 0;
    *t0 = icpt;
    *rate = slope > 0 ? 1.0 / slope : INFINITY;
    *nhalf = slope > 0 ? icpt / slope : 0;
}

/* Measured n_1/2: the length at which the rate n/T(n) first reaches half the highest
 * rate measured, interpolated linearly between the two neighbouring lengths. */
static double measured_nhalf(const double *n, const double *t, int np) {
    double peak = 0;
    for (int i = 0; i < np; ++i) if (n[i] / t[i] > peak) peak = n[i] / t[i];
    for (int i = 0; i < np; ++i) {
        double rate = n[i] / t[i];
        if (rate >= 0.5 * peak) {
            if (i == 0) return n[0];
            double r0 = n[i - 1] / t[i - 1];
            return n[i - 1] + (n[i] - n[i - 1]) * (0.5 * peak - r0) / (rate - r0);
        }
    }
    return 0;
}

static void print_nhalf(const double *ns, const double *ts, int np) {
    double t0, rate, nhalf, peak = 0;
    fit_nhalf(ns, ts, np, &t0, &rate, &nhalf);
    for (int i = 0; i < np; ++i) if (ns[i] / ts[i] > peak) peak = ns[i] / ts[i];
    double mh = measured_nhalf(ns, ts, np);
    if (g_rank == 0) {
        printf("\nFit T(n) = t0 + n/r (weights 1/T^2): t0 = %.1f us, r = %.1f Melem/s, "
               "n_1/2 = t0*r = %.0f elements (%.0f per rank)\n", t0 * 1e6, rate / 1e6, nhalf, nhalf / g_nranks);
        printf("Measured: peak %.1f Melem/s; half of it first reached at n_1/2 = %.0f elements (%.0f per rank)\n",
               peak / 1e6, mh, mh / g_nranks);
    }
}

/* ------------------------------------------------------------------ options */

struct options {
    int smoke, quick;
    int sections; /* bit mask */
    long perm_n;  /* elements per rank */
    long elem_n;  /* elements per rank */
    long ops_n[MAX_OPS_SIZES]; /* elements per rank, one table each */
    int n_ops;
};
enum { S_LINEFIT = 1, S_MEDIAN = 2, S_PERM = 4, S_REDUCE = 8, S_ELEM = 16, S_OPS = 32, S_ALL = 63 };

static int reps_for(const struct options *o, int full, int quick) {
    return o->smoke ? 3 : o->quick ? quick : full;
}

/* ------------------------------------------------------------------ linefit */

struct linefit_vecs { vec_p x, y, c, t, u; };

/* The NESL line fit of the paper's Appendix A.1: five plus-reductions. */
static void linefit(const struct linefit_vecs *v, int n, double out[4]) {
    double fn = (double)n;
    double xa = add_rud(v->x, n, 0) / fn;                 /* 1 */
    double ya = add_rud(v->y, n, 0) / fn;                 /* 2 */
    dis_vud(v->c, xa, n, 0);
    sub_wud(v->t, v->x, v->c, n, 0);                      /* t = x - xa */
    mul_wud(v->u, v->t, v->t, n, 0);
    double stt = add_rud(v->u, n, 0);                     /* 3 */
    mul_wud(v->u, v->t, v->y, n, 0);
    double b = add_rud(v->u, n, 0) / stt;                 /* 4 */
    double a = ya - xa * b;
    dis_vud(v->c, b, n, 0);
    mul_wud(v->u, v->c, v->x, n, 0);                      /* b*x */
    dis_vud(v->c, a, n, 0);
    add_wud(v->u, v->u, v->c, n, 0);                      /* a + b*x */
    sub_wud(v->u, v->y, v->u, n, 0);                      /* y - a - b*x */
    mul_wud(v->u, v->u, v->u, n, 0);
    double chi2 = add_rud(v->u, n, 0);                    /* 5 */
    out[0] = a;
    out[1] = b;
    out[2] = sqrt((1.0 / fn + xa * xa / stt) * chi2 / fn);
    out[3] = sqrt((1.0 / stt) * chi2 / fn);
}

static void bench_linefit(const struct options *o) {
    int nmax = o->smoke ? 1 << 10 : o->quick ? 1 << 20 : 1 << 22;
    int step = 2; /* log2 step between lengths */
    double ns[MAX_POINTS], ts[MAX_POINTS];
    int np = 0;
    double *hx = xmalloc((size_t)nmax * sizeof(double)), *hy = xmalloc((size_t)nmax * sizeof(double));
    for (int i = 0; i < nmax; ++i) {
        hx[i] = rng_double() * 100.0;
        hy[i] = 3.0 + 0.5 * hx[i] + (rng_double() - 0.5);
    }
    struct linefit_vecs v;
    int units = siz_fod(nmax);
    v.x = alloc_vec(units); v.y = alloc_vec(units); v.c = alloc_vec(units);
    v.t = alloc_vec(units); v.u = alloc_vec(units);
    if (g_rank == 0) {
        printf("\n### Line fit (NESL, five `add_rud`), %d ranks\n\n", g_nranks);
        printf("| n (total) | n per rank | median time per call (us) | Melem/s (total) | Melem/s per rank |\n");
        printf("|---:|---:|---:|---:|---:|\n");
    }
    for (int lg = 4; lg <= 30 && (1 << lg) <= nmax; lg += step) {
        int n = 1 << lg;
        c2v_fud(v.x, hx, n, 0);
        c2v_fud(v.y, hy, n, 0);
        check_cvl("linefit setup");
        double out[4];
        linefit(&v, n, out); /* warm up; check the fit is sane */
        if (fabs(out[1] - 0.5) > 0.05) die("linefit: slope is wrong");
        int reps = n >= (1 << 20) ? reps_for(o, 15, 7) : reps_for(o, 61, 21);
        double *t = xmalloc((size_t)reps * sizeof(double)), med;
        for (int r = 0; r < reps; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            linefit(&v, n, out);
            t[r] = MPI_Wtime() - t0;
        }
        slowest_medians(t, reps, 1, &med);
        free(t);
        ns[np] = n; ts[np] = med; ++np;
        if (g_rank == 0)
            printf("| %d | %lld | %.1f | %.1f | %.1f |\n", n, (long long)block_count(n, 0), med * 1e6,
                   n / med / 1e6, n / med / 1e6 / g_nranks);
    }
    check_cvl("linefit");
    print_nhalf(ns, ts, np);
    fre_fov(v.u); fre_fov(v.t); fre_fov(v.c); fre_fov(v.y); fre_fov(v.x);
    free(hx); free(hy);
}

/* ------------------------------------------------------------------ median */

struct select_vecs { vec_p a, b, pv, f; };

/* select_kth of the paper's Appendix A.2 in CVL: s (length n) is read, not written;
 * the partitions ping-pong between w->a and w->b. Returns the k-th smallest. */
static double select_kth(const struct select_vecs *w, vec_p s, int n, int k) {
    vec_p bufs[2] = {w->a, w->b};
    int which = 0;
    for (;;) {
        double pivot = ext_vud(s, n / 2, n, 0);
        dis_vud(w->pv, pivot, n, 0);
        les_wud(w->f, s, w->pv, n, 0);
        int nles = pk1_luv(w->f, n, 0);
        vec_p next = bufs[which];
        if (k < nles) {
            pk2_lud(next, s, w->f, n, nles, 0);
            s = next; n = nles;
        } else {
            grt_wud(w->f, s, w->pv, n, 0);
            int ngrt = pk1_luv(w->f, n, 0);
            if (k >= n - ngrt) {
                pk2_lud(next, s, w->f, n, ngrt, 0);
                k -= n - ngrt;
                s = next; n = ngrt;
            } else {
                return pivot;
            }
        }
        which ^= 1;
    }
}

static void bench_median(const struct options *o) {
    int nmax = o->smoke ? 1 << 10 : o->quick ? 1 << 20 : 1 << 22;
    int step = 2;
    double ns[MAX_POINTS], ts[MAX_POINTS];
    int np = 0;
    double *h = xmalloc((size_t)nmax * sizeof(double)), *chk = xmalloc((size_t)nmax * sizeof(double));
    for (int i = 0; i < nmax; ++i) h[i] = rng_double();
    int units = siz_fod(nmax);
    vec_p s = alloc_vec(units);
    struct select_vecs w;
    w.a = alloc_vec(units); w.b = alloc_vec(units); w.pv = alloc_vec(units); w.f = alloc_vec(siz_fob(nmax));
    if (g_rank == 0) {
        printf("\n### Median (quickselect over CVL: `ext_vud`, `les/grt_wud`, `pk1_luv`, `pk2_lud`), %d ranks\n\n",
               g_nranks);
        printf("| n (total) | n per rank | median time per call (us) | Melem/s (total) | Melem/s per rank | checked |\n");
        printf("|---:|---:|---:|---:|---:|:---:|\n");
    }
    for (int lg = 4; lg <= 30 && (1 << lg) <= nmax; lg += step) {
        int n = 1 << lg;
        c2v_fud(s, h, n, 0);
        check_cvl("median setup");
        double m = select_kth(&w, s, n, n / 2);
        check_cvl("median");
        const char *checked = "-";
        if (n <= (1 << 16)) { /* verify against a serial sort of a gathered copy */
            v2c_fud(chk, s, n, 0);
            qsort(chk, (size_t)n, sizeof(double), cmp_double);
            if (chk[n / 2] != m) die("median: wrong result");
            checked = "yes";
        }
        int reps = n >= (1 << 20) ? reps_for(o, 9, 5) : reps_for(o, 41, 15);
        double *t = xmalloc((size_t)reps * sizeof(double)), med;
        for (int r = 0; r < reps; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            double mm = select_kth(&w, s, n, n / 2);
            t[r] = MPI_Wtime() - t0;
            if (mm != m) die("median: results differ between repetitions");
        }
        slowest_medians(t, reps, 1, &med);
        free(t);
        ns[np] = n; ts[np] = med; ++np;
        if (g_rank == 0)
            printf("| %d | %lld | %.1f | %.2f | %.2f | %s |\n", n, (long long)block_count(n, 0), med * 1e6,
                   n / med / 1e6, n / med / 1e6 / g_nranks, checked);
    }
    print_nhalf(ns, ts, np);
    fre_fov(w.f); fre_fov(w.pv); fre_fov(w.b); fre_fov(w.a); fre_fov(s);
    free(h); free(chk);
}

/* ------------------------------------------------------------------ permutation */

struct hand_perm {
    int64_t nl;             /* local elements */
    const int *idx;         /* their global targets */
    int n;
    int *scount, *rcount, *sdispl, *rdispl, *cursor;
    int *owner;             /* destination rank of each local element */
    int *begin;             /* first global index of every rank's block */
    int *soff, *roff;       /* local offsets at the receiver */
    double *sval, *rval;
    int64_t nrecv;
};

/* Owner of global index g for blocks of b elements, in 32-bit arithmetic. */
static int owner32(unsigned g, unsigned b) { return (int)(g / b); }

static void hand_perm_init(struct hand_perm *h, int n, const int *idx, int64_t nl) {
    int p = g_nranks;
    h->nl = nl; h->idx = idx; h->n = n;
    h->scount = xmalloc((size_t)p * sizeof(int)); h->rcount = xmalloc((size_t)p * sizeof(int));
    h->sdispl = xmalloc((size_t)p * sizeof(int)); h->rdispl = xmalloc((size_t)p * sizeof(int));
    h->cursor = xmalloc((size_t)p * sizeof(int));
    h->owner = xmalloc((size_t)nl * sizeof(int));
    h->begin = xmalloc((size_t)p * sizeof(int));
    for (int r = 0; r < p; ++r) h->begin[r] = (int)block_count_before(n, r);
    h->soff = xmalloc((size_t)nl * sizeof(int)); h->sval = xmalloc((size_t)nl * sizeof(double));
    h->roff = xmalloc((size_t)block_size(n) * sizeof(int) + sizeof(int));
    h->rval = xmalloc((size_t)block_size(n) * sizeof(double) + sizeof(double));
    h->nrecv = 0;
}

/* Collective: rbuf[idx[k] - my begin] = sbuf[k] across ranks (a permutation). */
static void hand_perm_run(struct hand_perm *h, const double *sbuf, double *rbuf) {
    int p = g_nranks;
    const unsigned b = (unsigned)block_size(h->n);
    memset(h->scount, 0, (size_t)p * sizeof(int));
    for (int64_t k = 0; k < h->nl; ++k) ++h->scount[h->owner[k] = owner32((unsigned)h->idx[k], b)];
    MPI_Alltoall(h->scount, 1, MPI_INT, h->rcount, 1, MPI_INT, MPI_COMM_WORLD);
    int s = 0, r2 = 0;
    for (int r = 0; r < p; ++r) {
        h->sdispl[r] = h->cursor[r] = s; s += h->scount[r];
        h->rdispl[r] = r2; r2 += h->rcount[r];
    }
    for (int64_t k = 0; k < h->nl; ++k) {
        unsigned g = (unsigned)h->idx[k];
        int r = h->owner[k];
        int at = h->cursor[r]++;
        h->soff[at] = (int)(g - (unsigned)h->begin[r]);
        h->sval[at] = sbuf[k];
    }
    MPI_Alltoallv(h->soff, h->scount, h->sdispl, MPI_INT, h->roff, h->rcount, h->rdispl, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(h->sval, h->scount, h->sdispl, MPI_DOUBLE, h->rval, h->rcount, h->rdispl, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    for (int k = 0; k < r2; ++k) rbuf[h->roff[k]] = h->rval[k];
}

static void hand_perm_free(struct hand_perm *h) {
    free(h->scount); free(h->rcount); free(h->sdispl); free(h->rdispl); free(h->cursor); free(h->owner); free(h->begin);
    free(h->soff); free(h->roff); free(h->sval); free(h->rval);
}

static double g_perm_ratio = -1, g_add_words = -1, g_perm_words = -1;

static void bench_perm(const struct options *o) {
    int64_t nl = o->perm_n;
    int64_t n64 = nl * g_nranks;
    if (n64 > 0x7fffffff) die("perm: vector too long for an int length");
    int n = (int)n64, p = g_nranks;
    /* A random permutation of [0, n), the same on every rank (Fisher-Yates). */
    int *perm = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)(rng_next() % (uint64_t)(i + 1));
        int tmp = perm[i]; perm[i] = perm[j]; perm[j] = tmp;
    }
    double *vals = xmalloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) vals[i] = (double)i;
    vec_p src = alloc_vec(siz_fod(n)), dst = alloc_vec(siz_fod(n)), idx = alloc_vec(siz_foz(n));
    c2v_fud(src, vals, n, 0);
    c2v_fuz(idx, perm, n, 0);
    check_cvl("perm setup");
    smp_pud(dst, src, idx, n, 0);
    check_cvl("smp_pud");
    v2c_fud(vals, dst, n, 0); /* check: dst[perm[g]] == g */
    for (int g = 0; g < n; ++g)
        if (vals[perm[g]] != (double)g) die("perm: smp_pud result is wrong");

    /* Raw MPI_Alltoallv of the same values with the same destination pattern: each
     * local element goes to the owner of its target; counts from the permutation. */
    int *scount = xmalloc((size_t)p * sizeof(int)), *rcount = xmalloc((size_t)p * sizeof(int));
    int *sdispl = xmalloc((size_t)p * sizeof(int)), *rdispl = xmalloc((size_t)p * sizeof(int));
    memset(scount, 0, (size_t)p * sizeof(int));
    memset(rcount, 0, (size_t)p * sizeof(int));
    for (int g = 0; g < n; ++g) {
        int from = block_owner(n, g), to = block_owner(n, perm[g]);
        if (from == g_rank) ++scount[to];
        if (to == g_rank) ++rcount[from];
    }
    for (int r = 0, s = 0, q = 0; r < p; ++r) {
        sdispl[r] = s; rdispl[r] = q; s += scount[r]; q += rcount[r];
    }
    int64_t my = block_count(n, g_rank);
    double *sbuf = xmalloc((size_t)my * sizeof(double)), *rbuf = xmalloc((size_t)my * sizeof(double));
    for (int64_t k = 0; k < my; ++k) sbuf[k] = (double)k;
    MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, MPI_COMM_WORLD);

    /* A whole permutation written directly in MPI, for reference: the same steps as a
     * library must take (owners from the indices, counts, pack by destination, one
     * exchange of (offset, value) pairs, scatter on arrival) with 32-bit offsets
     * sent as a second MPI_Alltoallv beside the values (12 bytes per element). */
    struct hand_perm hp;
    hand_perm_init(&hp, n, perm + block_count_before(n, g_rank), my);
    for (int64_t k = 0; k < my; ++k) sbuf[k] = (double)(block_count_before(n, g_rank) + k);
    hand_perm_run(&hp, sbuf, rbuf);
    for (int64_t k = 0; k < my; ++k)
        if (perm[(int64_t)rbuf[k]] != block_count_before(n, g_rank) + k) die("perm: hand-written MPI permutation is wrong");

    int reps = reps_for(o, 21, 9);
    double *t = xmalloc((size_t)reps * 3 * sizeof(double)), med[3];
    for (int r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        smp_pud(dst, src, idx, n, 0);
        t[r * 3 + 0] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, MPI_COMM_WORLD);
        t[r * 3 + 1] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        hand_perm_run(&hp, sbuf, rbuf);
        t[r * 3 + 2] = MPI_Wtime() - t0;
    }
    check_cvl("smp_pud");
    slowest_medians(t, reps, 3, med);
    hand_perm_free(&hp);
    double bytes = 8.0 * (double)nl; /* the payload per rank: nl doubles */
    double bw_cvl = bytes / med[0] / 1e6, bw_raw = bytes / med[1] / 1e6;
    g_perm_ratio = med[1] / med[0];
    g_perm_words = (double)nl / med[0] / 1e6;
    if (g_rank == 0) {
        printf("\n### Random permutation, %lld doubles per rank (%d total), %d ranks\n\n", (long long)nl, n, p);
        printf("| contender | median time (ms) | MB/s per rank | Mwords/s per rank |\n");
        printf("|---|---:|---:|---:|\n");
        printf("| `smp_pud` (random permutation) | %.3f | %.0f | %.1f |\n", med[0] * 1e3, bw_cvl, nl / med[0] / 1e6);
        printf("| raw `MPI_Alltoallv`, same bytes and pattern | %.3f | %.0f | %.1f |\n", med[1] * 1e3, bw_raw,
               nl / med[1] / 1e6);
        printf("| whole permutation in plain MPI (pack, 2 x `MPI_Alltoallv`, scatter) | %.3f | %.0f | %.1f |\n",
               med[2] * 1e3, bytes / med[2] / 1e6, nl / med[2] / 1e6);
        printf("\nRatio `smp_pud` / raw bandwidth: %.2f (target >= 0.60 at 10^6 per rank: %s)\n", g_perm_ratio,
               nl < 1000000 ? "not applicable at this size" : g_perm_ratio >= 0.60 ? "met" : "NOT met");
        printf("Ratio `smp_pud` / plain-MPI permutation bandwidth: %.2f\n", med[2] / med[0]);
    }
    free(t); free(sbuf); free(rbuf); free(scount); free(rcount); free(sdispl); free(rdispl);
    fre_fov(idx); fre_fov(dst); fre_fov(src);
    free(vals); free(perm);
}

/* ------------------------------------------------------------------ reduce */

static void bench_reduce(const struct options *o) {
    int n = g_nranks; /* one element per rank */
    vec_p vz = alloc_vec(siz_foz(n)), vd = alloc_vec(siz_fod(n));
    int *hz = xmalloc((size_t)n * sizeof(int));
    double *hd = xmalloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) { hz[i] = i + 1; hd[i] = i + 0.5; }
    c2v_fuz(vz, hz, n, 0);
    c2v_fud(vd, hd, n, 0);
    int reps = reps_for(o, 2001, 501);
    double *t = xmalloc((size_t)reps * 4 * sizeof(double)), med[4];
    volatile double sink = 0;
    int zi = 1, zo;
    double di = 0.5, dout;
    for (int r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        sink += add_ruz(vz, n, 0);
        t[r * 4 + 0] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Allreduce(&zi, &zo, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t[r * 4 + 1] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        sink += add_rud(vd, n, 0);
        t[r * 4 + 2] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Allreduce(&di, &dout, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t[r * 4 + 3] = MPI_Wtime() - t0;
        sink += zo + dout;
    }
    (void)sink; /* written only so that the reductions are not optimised away */
    check_cvl("reduce");
    if (add_ruz(vz, n, 0) != n * (n + 1) / 2) die("add_ruz: wrong sum");
    slowest_medians(t, reps, 4, med);
    double rz = med[0] / med[1], rd = med[2] / med[3];
    if (g_rank == 0) {
        printf("\n### Plus-reduce overhead (one element per rank), %d ranks, %d repetitions\n\n", g_nranks, reps);
        printf("| CVL | median (us) | `MPI_Allreduce` of one value | median (us) | ratio | target <= 1.5 |\n");
        printf("|---|---:|---|---:|---:|:---:|\n");
        printf("| `add_ruz` | %.2f | `MPI_INT` | %.2f | %.2f | %s |\n", med[0] * 1e6, med[1] * 1e6, rz,
               rz <= 1.5 ? "met" : "NOT met");
        printf("| `add_rud` | %.2f | `MPI_DOUBLE` | %.2f | %.2f | %s |\n", med[2] * 1e6, med[3] * 1e6, rd,
               rd <= 1.5 ? "met" : "NOT met");
    }
    free(t); free(hz); free(hd);
    fre_fov(vd); fre_fov(vz);
}

/* ------------------------------------------------------------------ elementwise */

static void bench_elem(const struct options *o) {
    int64_t nl = o->elem_n, n64 = nl * g_nranks;
    if (n64 > 0x7fffffff) die("elem: vector too long for an int length");
    int n = (int)n64;
    int units = siz_fod(n);
    vec_p a = alloc_vec(units), b = alloc_vec(units), d = alloc_vec(units);
    dis_vud(a, 1.5, n, 0);
    dis_vud(b, 2.25, n, 0);
    dis_vud(d, 0.0, n, 0);
    size_t bytes = (size_t)block_count(n, g_rank) * sizeof(double);
    double *src = xmalloc(2 * bytes), *dst = xmalloc(2 * bytes);
    memset(src, 1, 2 * bytes);
    memset(dst, 0, 2 * bytes);
    int reps = reps_for(o, 31, 11);
    double *t = xmalloc((size_t)reps * 3 * sizeof(double)), med[3];
    for (int r = 0; r < reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        add_wud(d, a, b, n, 0);
        t[r * 3 + 0] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        memcpy(dst, src, 2 * bytes); /* reads as many bytes as add_wud reads */
        t[r * 3 + 1] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        cpy_wud(d, a, n, 0);
        t[r * 3 + 2] = MPI_Wtime() - t0;
    }
    check_cvl("elementwise");
    if (ext_vud(d, n - 1, n, 0) != 1.5) die("cpy_wud: wrong value");
    add_wud(d, a, b, n, 0);
    if (ext_vud(d, n / 2, n, 0) != 3.75) die("add_wud: wrong value");
    if (((volatile double *)dst)[0] != src[0]) die("memcpy: wrong value");
    slowest_medians(t, reps, 3, med);
    /* Bytes moved per rank: add reads 2 and writes 1 double per element (24 B); the
     * memcpy copies 2*nl doubles (reads 16 B and writes 16 B per element of add);
     * cpy_wud reads 1 and writes 1 (16 B). */
    double el = (double)nl;
    double bw_add = 24.0 * el / med[0] / 1e6, bw_cpy = 32.0 * el / med[1] / 1e6, bw_cvlcpy = 16.0 * el / med[2] / 1e6;
    double ratio = bw_cpy / bw_add;
    g_add_words = el / med[0] / 1e6;
    if (g_rank == 0) {
        printf("\n### Elementwise vs memory copy, %lld doubles per rank (%.0f MiB per vector per rank), %d ranks\n\n",
               (long long)nl, el * 8 / 1048576.0, g_nranks);
        printf("| contender | median time (ms) | MB/s per rank (bytes read + written) | Melem/s per rank |\n");
        printf("|---|---:|---:|---:|\n");
        printf("| `add_wud` (d = a + b) | %.3f | %.0f | %.1f |\n", med[0] * 1e3, bw_add, el / med[0] / 1e6);
        printf("| `memcpy` of 2 x %lld doubles | %.3f | %.0f | - |\n", (long long)nl, med[1] * 1e3, bw_cpy);
        printf("| `cpy_wud` (d = a) | %.3f | %.0f | %.1f |\n", med[2] * 1e3, bw_cvlcpy, el / med[2] / 1e6);
        printf("\nRatio memcpy / `add_wud` bandwidth: %.2f (target <= 1.3: %s)\n", ratio,
               ratio <= 1.3 ? "met" : "NOT met");
    }
    free(t); free(src); free(dst);
    fre_fov(d); fre_fov(b); fre_fov(a);
}

/* ------------------------------------------------------------------ ops */

/* Every elementwise entry point of cvl.h, each type, and every unsegmented reduction,
 * against the plain C a user would write over the rank's own block (the elements CVL's
 * block rule puts on this rank: block_count) into a preallocated C array; a reduction's
 * plain C is a loop over the block plus one MPI_Allreduce of the rank's partial. One
 * table drives each kind: the CVL function beside its plain C loop. Inputs come from
 * pools, written whole with c2v_fu? and kept as each rank's block in C arrays: divisors
 * are never 0, shift counts lie in [0, 31], log/sqrt/asin/acos get (0, 1), products
 * multiply +-1, and the other doubles lie on a grid of quarters, so that sums are exact
 * in any order and rou_wud meets ties. The and and ior reductions get inputs whose
 * absorbing value (0 / false, all bits / true), at which CVL stops early, comes only at
 * the last element or never, so that both contenders make the whole pass. Each CVL
 * result is copied out (v2c_fu?) and compared bit for bit with the C loop's on the
 * rank's block. Not here: rnd_wuz (the library's own random numbers have no plain C
 * equivalent) and cpy_wus (a segment descriptor, not elements). */

enum { T_Z, T_D, T_B, NTYPES };
static const char *const type_name[NTYPES] = {"int", "double", "cvl_bool"};
static size_t type_size(int t) { return t == T_Z ? sizeof(int) : t == T_D ? sizeof(double) : sizeof(cvl_bool); }
static int type_units(int t, int n) { return t == T_Z ? siz_foz(n) : t == T_D ? siz_fod(n) : siz_fob(n); }

static void c2v_typed(int t, vec_p d, void *s, int n) {
    if (t == T_Z) c2v_fuz(d, s, n, 0);
    else if (t == T_D) c2v_fud(d, s, n, 0);
    else c2v_fub(d, s, n, 0);
}

static void v2c_typed(int t, void *d, vec_p s, int n) {
    if (t == T_Z) v2c_fuz(d, s, n, 0);
    else if (t == T_D) v2c_fud(d, s, n, 0);
    else v2c_fub(d, s, n, 0);
}

static void format_elem(char *buf, size_t len, int t, const void *p) {
    if (t == T_Z) snprintf(buf, len, "%d", *(const int *)p);
    else if (t == T_D) snprintf(buf, len, "%.17g", *(const double *)p);
    else snprintf(buf, len, "%d", (int)*(const cvl_bool *)p);
}

/* Input pools: ZA ints in [-50, 50]; ZB the same without 0 (divisors); ZS shift counts in
 * [0, 31] (their ior is never all bits); ZP and DP +-1 (products; the and of +-1 is never
 * 0); DA quarters in [-8, 8); DB quarters in [-8, 8] without 0; DU doubles in
 * (0.01, 0.99); BA, BB, BC random booleans; BT true but the last element, BF false but
 * the last element. */
enum { P_NONE = -1, P_ZA, P_ZB, P_ZS, P_ZP, P_DA, P_DB, P_DU, P_DP, P_BA, P_BB, P_BC, P_BT, P_BF, NPOOLS };
static const int pool_type[NPOOLS] = {T_Z, T_Z, T_Z, T_Z, T_D, T_D, T_D, T_D, T_B, T_B, T_B, T_B, T_B};

/* The whole array of a pool (n elements), the same on every rank. */
static void fill_pool(int pool, void *whole, int n) {
    int *z = whole;
    double *d = whole;
    cvl_bool *b = whole;
    for (int i = 0; i < n; ++i) {
        uint64_t r = rng_next();
        int v = (int)(r % 100) - 50, q = (int)(r % 64) - 32; /* v + (v >= 0), q + (q >= 0): never 0 */
        switch (pool) {
        case P_ZA: z[i] = (int)(r % 101) - 50; break;
        case P_ZB: z[i] = v + (v >= 0); break;
        case P_ZS: z[i] = (int)(r % 32); break;
        case P_ZP: z[i] = r & 1 ? 1 : -1; break;
        case P_DA: d[i] = q / 4.0; break;
        case P_DB: d[i] = (q + (q >= 0)) / 4.0; break;
        case P_DU: d[i] = 0.01 + 0.98 * ((double)(r >> 11) * (1.0 / 9007199254740992.0)); break;
        case P_DP: d[i] = r & 1 ? 1.0 : -1.0; break;
        case P_BT: b[i] = i != n - 1; break;
        case P_BF: b[i] = i == n - 1; break;
        default: b[i] = (cvl_bool)(r & 1); break;
        }
    }
}

/* The plain C loops: d[i] = EXPR of x = s1[i] (and y = s2[i]) over n elements. int
 * arithmetic goes through unsigned, as CVL's wraps. */
#define PLAIN1(NAME, R, A, EXPR)                                           \
    static void plain_##NAME(void *out, const void *const *s, int64_t n) { \
        R *restrict d = out;                                               \
        const A *restrict a = s[0];                                        \
        for (int64_t i = 0; i < n; ++i) {                                  \
            A x = a[i];                                                    \
            d[i] = (R)(EXPR);                                              \
        }                                                                  \
    }
#define PLAIN2(NAME, R, A, EXPR)                                           \
    static void plain_##NAME(void *out, const void *const *s, int64_t n) { \
        R *restrict d = out;                                               \
        const A *restrict a = s[0], *restrict b = s[1];                    \
        for (int64_t i = 0; i < n; ++i) {                                  \
            A x = a[i], y = b[i];                                          \
            d[i] = (R)(EXPR);                                              \
        }                                                                  \
    }
#define PLAIN_SEL(NAME, A)                                                 \
    static void plain_##NAME(void *out, const void *const *s, int64_t n) { \
        A *restrict d = out;                                               \
        const cvl_bool *restrict f = s[0];                                 \
        const A *restrict a = s[1], *restrict b = s[2];                    \
        for (int64_t i = 0; i < n; ++i) d[i] = f[i] ? a[i] : b[i];         \
    }

PLAIN2(max_wuz, int, int, x > y ? x : y)
PLAIN2(max_wud, double, double, x > y ? x : y)
PLAIN2(min_wuz, int, int, x < y ? x : y)
PLAIN2(min_wud, double, double, x < y ? x : y)
PLAIN2(add_wuz, int, int, (unsigned)x + (unsigned)y)
PLAIN2(add_wud, double, double, x + y)
PLAIN2(sub_wuz, int, int, (unsigned)x - (unsigned)y)
PLAIN2(sub_wud, double, double, x - y)
PLAIN2(mul_wuz, int, int, (unsigned)x * (unsigned)y)
PLAIN2(mul_wud, double, double, x * y)
PLAIN2(div_wuz, int, int, x / y)
PLAIN2(div_wud, double, double, x / y)
PLAIN2(grt_wuz, cvl_bool, int, x > y)
PLAIN2(grt_wud, cvl_bool, double, x > y)
PLAIN2(les_wuz, cvl_bool, int, x < y)
PLAIN2(les_wud, cvl_bool, double, x < y)
PLAIN2(geq_wuz, cvl_bool, int, x >= y)
PLAIN2(geq_wud, cvl_bool, double, x >= y)
PLAIN2(leq_wuz, cvl_bool, int, x <= y)
PLAIN2(leq_wud, cvl_bool, double, x <= y)
PLAIN2(eql_wuz, cvl_bool, int, x == y)
PLAIN2(eql_wud, cvl_bool, double, x == y)
PLAIN2(neq_wuz, cvl_bool, int, x != y)
PLAIN2(neq_wud, cvl_bool, double, x != y)
PLAIN2(lsh_wuz, int, int, (unsigned)x << y)
PLAIN2(rsh_wuz, int, int, x >> y)
PLAIN2(mod_wuz, int, int, x % y)
PLAIN2(and_wub, cvl_bool, cvl_bool, x && y)
PLAIN2(and_wuz, int, int, x & y)
PLAIN2(ior_wub, cvl_bool, cvl_bool, x || y)
PLAIN2(ior_wuz, int, int, x | y)
PLAIN2(xor_wub, cvl_bool, cvl_bool, (x != 0) != (y != 0))
PLAIN2(xor_wuz, int, int, x ^ y)
PLAIN2(eql_wub, cvl_bool, cvl_bool, (x != 0) == (y != 0))
PLAIN2(neq_wub, cvl_bool, cvl_bool, (x != 0) != (y != 0))
PLAIN_SEL(sel_wuz, int)
PLAIN_SEL(sel_wub, cvl_bool)
PLAIN_SEL(sel_wud, double)
PLAIN1(not_wub, cvl_bool, cvl_bool, !x)
PLAIN1(not_wuz, int, int, ~x)
PLAIN1(int_wud, int, double, x)
PLAIN1(int_wub, int, cvl_bool, x != 0)
PLAIN1(dbl_wuz, double, int, x)
PLAIN1(boo_wuz, cvl_bool, int, x != 0)
PLAIN1(flr_wud, int, double, floor(x))
PLAIN1(cei_wud, int, double, ceil(x))
PLAIN1(trn_wud, int, double, trunc(x))
PLAIN1(rou_wud, int, double, rint(x)) /* the default rounding mode: ties to even */
PLAIN1(exp_wud, double, double, exp(x))
PLAIN1(log_wud, double, double, log(x))
PLAIN1(sqt_wud, double, double, sqrt(x))
PLAIN1(sin_wud, double, double, sin(x))
PLAIN1(cos_wud, double, double, cos(x))
PLAIN1(tan_wud, double, double, tan(x))
PLAIN1(asn_wud, double, double, asin(x))
PLAIN1(acs_wud, double, double, acos(x))
PLAIN1(atn_wud, double, double, atan(x))
PLAIN1(snh_wud, double, double, sinh(x))
PLAIN1(csh_wud, double, double, cosh(x))
PLAIN1(tnh_wud, double, double, tanh(x))
PLAIN1(cpy_wuz, int, int, x)
PLAIN1(cpy_wub, cvl_bool, cvl_bool, x)
PLAIN1(cpy_wud, double, double, x)

struct op_entry {
    const char *name;
    void (*cvl1)(vec_p d, vec_p s, int len, vec_p scratch);
    void (*cvl2)(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
    void (*cvl3)(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p scratch);
    void (*plain)(void *out, const void *const *s, int64_t n);
    int result; /* element type of d */
    int src[3]; /* input pools, P_NONE after the last */
};
#define W1(NAME, R, A) {#NAME, NAME, NULL, NULL, plain_##NAME, R, {A, P_NONE, P_NONE}}
#define W2(NAME, R, A, B) {#NAME, NULL, NAME, NULL, plain_##NAME, R, {A, B, P_NONE}}
#define W3(NAME, R, F, A, B) {#NAME, NULL, NULL, NAME, plain_##NAME, R, {F, A, B}}

/* In cvl.h's order. */
static const struct op_entry op_table[] = {
    W2(max_wuz, T_Z, P_ZA, P_ZB), W2(max_wud, T_D, P_DA, P_DB),
    W2(min_wuz, T_Z, P_ZA, P_ZB), W2(min_wud, T_D, P_DA, P_DB),
    W2(add_wuz, T_Z, P_ZA, P_ZB), W2(add_wud, T_D, P_DA, P_DB),
    W2(sub_wuz, T_Z, P_ZA, P_ZB), W2(sub_wud, T_D, P_DA, P_DB),
    W2(mul_wuz, T_Z, P_ZA, P_ZB), W2(mul_wud, T_D, P_DA, P_DB),
    W2(div_wuz, T_Z, P_ZA, P_ZB), W2(div_wud, T_D, P_DA, P_DB),
    W2(grt_wuz, T_B, P_ZA, P_ZB), W2(grt_wud, T_B, P_DA, P_DB),
    W2(les_wuz, T_B, P_ZA, P_ZB), W2(les_wud, T_B, P_DA, P_DB),
    W2(geq_wuz, T_B, P_ZA, P_ZB), W2(geq_wud, T_B, P_DA, P_DB),
    W2(leq_wuz, T_B, P_ZA, P_ZB), W2(leq_wud, T_B, P_DA, P_DB),
    W2(eql_wuz, T_B, P_ZA, P_ZB), W2(eql_wud, T_B, P_DA, P_DB),
    W2(neq_wuz, T_B, P_ZA, P_ZB), W2(neq_wud, T_B, P_DA, P_DB),
    W2(lsh_wuz, T_Z, P_ZA, P_ZS), W2(rsh_wuz, T_Z, P_ZA, P_ZS),
    W2(mod_wuz, T_Z, P_ZA, P_ZB),
    W2(and_wub, T_B, P_BA, P_BB), W2(and_wuz, T_Z, P_ZA, P_ZB),
    W2(ior_wub, T_B, P_BA, P_BB), W2(ior_wuz, T_Z, P_ZA, P_ZB),
    W2(xor_wub, T_B, P_BA, P_BB), W2(xor_wuz, T_Z, P_ZA, P_ZB),
    W2(eql_wub, T_B, P_BA, P_BB), W2(neq_wub, T_B, P_BA, P_BB),
    W3(sel_wuz, T_Z, P_BA, P_ZA, P_ZB), W3(sel_wub, T_B, P_BA, P_BB, P_BC), W3(sel_wud, T_D, P_BA, P_DA, P_DB),
    W1(not_wub, T_B, P_BA), W1(not_wuz, T_Z, P_ZA),
    W1(int_wud, T_Z, P_DA), W1(int_wub, T_Z, P_BA), W1(dbl_wuz, T_D, P_ZA), W1(boo_wuz, T_B, P_ZA),
    W1(flr_wud, T_Z, P_DA), W1(cei_wud, T_Z, P_DA), W1(trn_wud, T_Z, P_DA), W1(rou_wud, T_Z, P_DA),
    W1(exp_wud, T_D, P_DA), W1(log_wud, T_D, P_DU), W1(sqt_wud, T_D, P_DU),
    W1(sin_wud, T_D, P_DA), W1(cos_wud, T_D, P_DA), W1(tan_wud, T_D, P_DA),
    W1(asn_wud, T_D, P_DU), W1(acs_wud, T_D, P_DU), W1(atn_wud, T_D, P_DA),
    W1(snh_wud, T_D, P_DA), W1(csh_wud, T_D, P_DA), W1(tnh_wud, T_D, P_DA),
    W1(cpy_wuz, T_Z, P_ZA), W1(cpy_wub, T_B, P_BA), W1(cpy_wud, T_D, P_DA),
};

static void op_cvl(const struct op_entry *e, vec_p d, const vec_p *s, int n) {
    if (e->cvl1) e->cvl1(d, s[0], n, 0);
    else if (e->cvl2) e->cvl2(d, s[0], s[1], n, 0);
    else e->cvl3(d, s[0], s[1], s[2], n, 0);
}

/* A reduction's value, in the type of its MPI_Allreduce. */
union scalar { int z; double d; unsigned char b; };

/* The plain C partial of a reduction over the rank's block: p = STEP of p and x = s[i]. */
#define PARTIAL(NAME, OUT, A, ACC, INIT, STEP)                          \
    static void partial_##NAME(void *out, const void *s, int64_t n) { \
        const A *restrict a = s;                                        \
        ACC p = INIT;                                                   \
        for (int64_t i = 0; i < n; ++i) {                               \
            A x = a[i];                                                 \
            p = STEP;                                                   \
        }                                                               \
        *(OUT *)out = (OUT)p;                                           \
    }

PARTIAL(add_ruz, int, int, unsigned, 0u, p + (unsigned)x)
PARTIAL(add_rud, double, double, double, 0.0, p + x)
PARTIAL(mul_ruz, int, int, unsigned, 1u, p * (unsigned)x)
PARTIAL(mul_rud, double, double, double, 1.0, p * x)
PARTIAL(min_ruz, int, int, int, INT_MAX, x < p ? x : p)
PARTIAL(min_rud, double, double, double, DBL_MAX, x < p ? x : p)
PARTIAL(max_ruz, int, int, int, INT_MIN, x > p ? x : p)
PARTIAL(max_rud, double, double, double, -DBL_MAX, x > p ? x : p)
PARTIAL(and_rub, unsigned char, cvl_bool, int, 1, p & (x != 0))
PARTIAL(and_ruz, int, int, int, -1, p & x)
PARTIAL(ior_rub, unsigned char, cvl_bool, int, 0, p | (x != 0))
PARTIAL(ior_ruz, int, int, int, 0, p | x)
PARTIAL(xor_rub, unsigned char, cvl_bool, int, 0, p ^ (x != 0))
PARTIAL(xor_ruz, int, int, int, 0, p ^ x)

struct red_entry {
    const char *name;
    int pool;
    int (*cvlz)(vec_p s, int len, vec_p scratch);
    double (*cvld)(vec_p s, int len, vec_p scratch);
    cvl_bool (*cvlb)(vec_p s, int len, vec_p scratch);
    void (*partial)(void *out, const void *s, int64_t n);
    MPI_Datatype type;
    MPI_Op op;
};

static void red_cvl(const struct red_entry *e, vec_p s, int n, union scalar *out) {
    if (e->cvlz) out->z = e->cvlz(s, n, 0);
    else if (e->cvld) out->d = e->cvld(s, n, 0);
    else out->b = (unsigned char)(e->cvlb(s, n, 0) != 0);
}

static void red_plain(const struct red_entry *e, const void *block, int64_t my, union scalar *out) {
    union scalar part;
    e->partial(&part, block, my);
    MPI_Allreduce(&part, out, 1, e->type, e->op, MPI_COMM_WORLD);
}

/* Collective: each rank compares its block of CVL's result (whole, from v2c_fu?) with its
 * C loop's; a difference is reported by the rank that finds it and ends the run. */
static void check_block(const char *name, int t, const unsigned char *whole, const void *mine, int n) {
    const int64_t first = block_count_before(n, g_rank), my = block_count(n, g_rank);
    const size_t sz = type_size(t);
    const unsigned char *cv = whole + first * (int64_t)sz, *cc = mine;
    int bad = 0;
    if (my > 0 && memcmp(cv, cc, (size_t)my * sz) != 0) {
        int64_t k = 0;
        while (memcmp(cv + k * (int64_t)sz, cc + k * (int64_t)sz, sz) == 0) ++k;
        char a[40], b[40];
        format_elem(a, sizeof a, t, cv + k * (int64_t)sz);
        format_elem(b, sizeof b, t, cc + k * (int64_t)sz);
        fprintf(stderr, "cvl_bench: ops: %s differs from the plain C loop at element %lld (rank %d): CVL %s, C %s\n",
                name, (long long)(first + k), g_rank, a, b);
        bad = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) die("ops: a CVL result differs from the plain C loop's (see above)");
}

/* Collective: a reduction's value from CVL against the plain C loop's MPI_Allreduce. */
static void check_scalar(const char *name, int t, const union scalar *cvl, const union scalar *c) {
    int bad = t == T_Z ? cvl->z != c->z : t == T_D ? cvl->d != c->d : cvl->b != c->b;
    if (bad) {
        char a[40], b[40];
        format_elem(a, sizeof a, t, t == T_Z ? (const void *)&cvl->z : t == T_D ? (const void *)&cvl->d : &cvl->b);
        format_elem(b, sizeof b, t, t == T_Z ? (const void *)&c->z : t == T_D ? (const void *)&c->d : &c->b);
        fprintf(stderr, "cvl_bench: ops: %s differs from the plain C loop plus MPI_Allreduce (rank %d): CVL %s, C %s\n",
                name, g_rank, a, b);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) die("ops: a CVL reduction differs from the plain C loop's (see above)");
}

struct ops_row {
    const char *name;
    char type[32];
    double cvl, c; /* seconds */
};

static double median_copy(const double *v, int n) {
    if (n == 0) return 0;
    double *w = xmalloc((size_t)n * sizeof(double));
    memcpy(w, v, (size_t)n * sizeof(double));
    double m = median_of(w, n);
    free(w);
    return m;
}

static void ops_print_row(const struct ops_row *r, int diff) {
    if (g_rank != 0) return;
    printf("| `%s` | %s | %.2f | %.2f | %.2f |", r->name, r->type, r->cvl * 1e6, r->c * 1e6, r->cvl / r->c);
    if (diff) printf(" %.2f |", (r->cvl - r->c) * 1e6);
    printf("\n");
}

static void bench_ops_size(const struct options *o, long nl) {
    const int64_t n64 = (int64_t)nl * g_nranks;
    if (n64 > INT_MAX) die("ops: vector too long for an int length");
    const int n = (int)n64;
    const int64_t first = block_count_before(n, g_rank), my = block_count(n, g_rank);
    const struct red_entry red_table[] = {
#define R_Z(NAME, POOL, OP) {#NAME, POOL, NAME, NULL, NULL, partial_##NAME, MPI_INT, OP}
#define R_D(NAME, POOL, OP) {#NAME, POOL, NULL, NAME, NULL, partial_##NAME, MPI_DOUBLE, OP}
#define R_B(NAME, POOL, OP) {#NAME, POOL, NULL, NULL, NAME, partial_##NAME, MPI_UNSIGNED_CHAR, OP}
        R_Z(add_ruz, P_ZA, MPI_SUM), R_D(add_rud, P_DA, MPI_SUM),
        R_Z(mul_ruz, P_ZP, MPI_PROD), R_D(mul_rud, P_DP, MPI_PROD),
        R_Z(min_ruz, P_ZA, MPI_MIN), R_D(min_rud, P_DA, MPI_MIN),
        R_Z(max_ruz, P_ZA, MPI_MAX), R_D(max_rud, P_DA, MPI_MAX),
        R_B(and_rub, P_BT, MPI_LAND), R_Z(and_ruz, P_ZP, MPI_BAND),
        R_B(ior_rub, P_BF, MPI_LOR), R_Z(ior_ruz, P_ZS, MPI_BOR),
        R_B(xor_rub, P_BA, MPI_LXOR), R_Z(xor_ruz, P_ZA, MPI_BXOR),
#undef R_Z
#undef R_D
#undef R_B
    };
    const int nw = (int)(sizeof op_table / sizeof op_table[0]), nr = (int)(sizeof red_table / sizeof red_table[0]);

    /* The pools as vectors and as this rank's block; one result vector and C array per type. */
    unsigned char *whole = xmalloc((size_t)n * sizeof(double)); /* a whole vector of the widest type */
    vec_p pv[NPOOLS], rv[NTYPES];
    void *ph[NPOOLS], *rh[NTYPES];
    for (int p = 0; p < NPOOLS; ++p) {
        const int ty = pool_type[p];
        const size_t sz = type_size(ty);
        fill_pool(p, whole, n);
        pv[p] = alloc_vec(type_units(ty, n));
        c2v_typed(ty, pv[p], whole, n);
        ph[p] = xmalloc((size_t)my * sz);
        memcpy(ph[p], whole + first * (int64_t)sz, (size_t)my * sz);
    }
    for (int ty = 0; ty < NTYPES; ++ty) {
        rv[ty] = alloc_vec(type_units(ty, n));
        rh[ty] = xmalloc((size_t)my * type_size(ty));
        memset(rh[ty], 0, (size_t)my * type_size(ty));
    }
    check_cvl("ops setup");

    const int reps = nl <= 10000 ? reps_for(o, 201, 51) : nl <= 1000000 ? reps_for(o, 15, 9) : reps_for(o, 7, 5);
    const int diff = nl <= 1000;
    double *t = xmalloc((size_t)reps * 2 * sizeof(double)), med[2];
    struct ops_row *rows = xmalloc((size_t)(nw + nr) * sizeof(struct ops_row));
    if (g_rank == 0) {
        printf("\n### Elementwise and reductions vs plain C, %ld elements per rank (%d total), %d ranks, %d repetitions\n\n",
               nl, n, g_nranks, reps);
        printf("| entry point | type | CVL (us) | plain C loop (us) | ratio CVL / C |%s\n", diff ? " CVL - C (us) |" : "");
        printf("|---|---|---:|---:|---:|%s\n", diff ? "---:|" : "");
    }
    for (int k = 0; k < nw; ++k) {
        const struct op_entry *e = &op_table[k];
        vec_p sv[3];
        const void *sh[3];
        int last = 0;
        for (int j = 0; j < 3; ++j) {
            const int p = e->src[j];
            sv[j] = p == P_NONE ? CVL_SCRATCH_NULL : pv[p];
            sh[j] = p == P_NONE ? NULL : ph[p];
            if (p != P_NONE) last = j;
        }
        op_cvl(e, rv[e->result], sv, n); /* warm up and check */
        e->plain(rh[e->result], sh, my);
        check_cvl(e->name);
        v2c_typed(e->result, whole, rv[e->result], n);
        check_block(e->name, e->result, whole, rh[e->result], n);
        for (int r = 0; r < reps; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            op_cvl(e, rv[e->result], sv, n);
            t[r * 2 + 0] = MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            e->plain(rh[e->result], sh, my);
            t[r * 2 + 1] = MPI_Wtime() - t0;
        }
        check_cvl(e->name);
        slowest_medians(t, reps, 2, med);
        struct ops_row *row = &rows[k];
        const int st = pool_type[e->src[last]]; /* the operands' type (sel: of s2 and s3) */
        row->name = e->name;
        if (st == e->result) snprintf(row->type, sizeof row->type, "%s", type_name[st]);
        else snprintf(row->type, sizeof row->type, "%s -> %s", type_name[st], type_name[e->result]);
        row->cvl = med[0];
        row->c = med[1];
        ops_print_row(row, diff);
    }
    for (int k = 0; k < nr; ++k) {
        const struct red_entry *e = &red_table[k];
        const int ty = pool_type[e->pool];
        union scalar vc, vp;
        red_cvl(e, pv[e->pool], n, &vc); /* warm up and check */
        red_plain(e, ph[e->pool], my, &vp);
        check_cvl(e->name);
        check_scalar(e->name, ty, &vc, &vp);
        for (int r = 0; r < reps; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            red_cvl(e, pv[e->pool], n, &vc);
            t[r * 2 + 0] = MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            red_plain(e, ph[e->pool], my, &vp);
            t[r * 2 + 1] = MPI_Wtime() - t0;
        }
        check_cvl(e->name);
        check_scalar(e->name, ty, &vc, &vp);
        slowest_medians(t, reps, 2, med);
        struct ops_row *row = &rows[nw + k];
        row->name = e->name;
        snprintf(row->type, sizeof row->type, "%s (reduction)", type_name[ty]);
        row->cvl = med[0];
        row->c = med[1];
        ops_print_row(row, diff);
    }

    if (g_rank == 0) {
        double *ratio = xmalloc((size_t)(nw + nr) * sizeof(double)), *delta = xmalloc((size_t)(nw + nr) * sizeof(double));
        int worst = 0;
        for (int k = 0; k < nw + nr; ++k) {
            ratio[k] = rows[k].cvl / rows[k].c;
            delta[k] = (rows[k].cvl - rows[k].c) * 1e6;
            if (ratio[k] > ratio[worst]) worst = k;
        }
        printf("\nWorst: `%s` (%s), CVL %.2f us vs plain C %.2f us, ratio %.2f\n", rows[worst].name, rows[worst].type,
               rows[worst].cvl * 1e6, rows[worst].c * 1e6, ratio[worst]);
        printf("Median ratio CVL / C: %.2f over %d entry points (elementwise %.2f, reductions %.2f)\n",
               median_copy(ratio, nw + nr), nw + nr, median_copy(ratio, nw), median_copy(ratio + nw, nr));
        if (diff)
            printf("Median difference CVL - C: %.2f us (elementwise %.2f, reductions %.2f)\n", median_copy(delta, nw + nr),
                   median_copy(delta, nw), median_copy(delta + nw, nr));
        free(ratio);
        free(delta);
    }
    free(rows);
    free(t);
    for (int ty = NTYPES - 1; ty >= 0; --ty) { fre_fov(rv[ty]); free(rh[ty]); }
    for (int p = NPOOLS - 1; p >= 0; --p) { fre_fov(pv[p]); free(ph[p]); }
    free(whole);
}

static void bench_ops(const struct options *o) {
    if (g_rank == 0)
        printf("\n### Every elementwise entry point and reduction of cvl.h vs plain C\n\n"
               "Plain C: a loop over the rank's own block (CVL's block rule) into a preallocated C array; for a "
               "reduction, that loop plus one `MPI_Allreduce` of the rank's partial. Every CVL result is checked "
               "against it (elementwise: the rank's block of `v2c_fu?`, bit for bit).\n");
    for (int k = 0; k < o->n_ops; ++k) bench_ops_size(o, o->ops_n[k]);
}

/* ------------------------------------------------------------------ main */

static void usage(void) {
    if (g_rank == 0)
        fprintf(stderr, "usage: cvl_bench [--smoke | --quick] [--section linefit|median|perm|reduce|elem|ops]... "
                        "[--perm-n N] [--elem-n N] [--ops-n N[,N]...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* A comma-separated list of positive sizes: how many, or -1 if malformed or too long. */
static int parse_sizes(const char *s, long *out, int max) {
    int k = 0;
    for (;;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || k == max) return -1;
        out[k++] = v;
        if (*end == '\0') return k;
        if (*end != ',') return -1;
        s = end + 1;
    }
}

int main(int argc, char **argv) {
    CVL_init(&argc, &argv);
    g_rank = CVL_rank();
    g_nranks = CVL_nranks();
    struct options o = {0, 0, 0, 1000000, 4000000, {0}, 0};
    int perm_set = 0, elem_set = 0, ops_set = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--smoke")) o.smoke = 1;
        else if (!strcmp(argv[i], "--quick")) o.quick = 1;
        else if (!strcmp(argv[i], "--section") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!strcmp(s, "linefit")) o.sections |= S_LINEFIT;
            else if (!strcmp(s, "median")) o.sections |= S_MEDIAN;
            else if (!strcmp(s, "perm")) o.sections |= S_PERM;
            else if (!strcmp(s, "reduce")) o.sections |= S_REDUCE;
            else if (!strcmp(s, "elem")) o.sections |= S_ELEM;
            else if (!strcmp(s, "ops")) o.sections |= S_OPS;
            else usage();
        } else if (!strcmp(argv[i], "--perm-n") && i + 1 < argc) { o.perm_n = atol(argv[++i]); perm_set = 1; }
        else if (!strcmp(argv[i], "--elem-n") && i + 1 < argc) { o.elem_n = atol(argv[++i]); elem_set = 1; }
        else if (!strcmp(argv[i], "--ops-n") && i + 1 < argc) {
            if ((o.n_ops = parse_sizes(argv[++i], o.ops_n, MAX_OPS_SIZES)) < 1) usage();
            ops_set = 1;
        }
        else usage();
    }
    if (!o.sections) o.sections = S_ALL;
    if (o.smoke) {
        if (!perm_set) o.perm_n = 1000;
        if (!elem_set) o.elem_n = 1000;
    } else if (o.quick && !elem_set) {
        o.elem_n = 2000000;
    }
    if (!ops_set) { /* smoke 1000; quick 1000, 10^6; else 1000, 10^6, 10^7 */
        o.n_ops = 0;
        o.ops_n[o.n_ops++] = 1000;
        if (!o.smoke) o.ops_n[o.n_ops++] = 1000000;
        if (!o.smoke && !o.quick) o.ops_n[o.n_ops++] = 10000000;
    }
    if (o.perm_n < 1 || o.elem_n < 1) usage();
    if (g_rank == 0)
        printf("## CVL benchmarks: %d ranks%s\n\nTimes: slowest rank, median over repetitions, barrier before each.\n",
               g_nranks, o.smoke ? " (smoke sizes)" : o.quick ? " (quick)" : "");
    if (o.sections & S_LINEFIT) bench_linefit(&o);
    if (o.sections & S_MEDIAN) bench_median(&o);
    if (o.sections & S_PERM) bench_perm(&o);
    if (o.sections & S_REDUCE) bench_reduce(&o);
    if (o.sections & S_ELEM) bench_elem(&o);
    if (o.sections & S_OPS) bench_ops(&o);
    if (g_rank == 0 && g_perm_words > 0 && g_add_words > 0)
        printf("\nTable 1 ratio (elementwise add Melem/s / random-permutation Mwords/s, per rank): %.1f / %.1f = %.1f\n",
               g_add_words, g_perm_words, g_add_words / g_perm_words);
    if (g_rank == 0) printf("\ncvl_bench: done\n");
    CVL_quit();
    return 0;
}
