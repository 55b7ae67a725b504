/*
 * CVL conformance suite. Runs every function of cvl.h on random lengths and
 * segmentations (empty vectors, empty segments, one element, more ranks than elements,
 * empty segments at the ranks' block boundaries) and compares each result with a
 * serial oracle written here in plain C. Every rank generates the same data from the
 * same seed (hostless SPMD) and checks the whole result, fetched with v2c_fu?.
 *
 *   mpiexec -n N cvl_conformance [--cases C] [--seed S]
 *
 * Exits with 0 when every check passed on every rank. Uses only cvl.h (and the C
 * library); the ranks agree on the outcome through CVL itself.
 */
#include <cvl.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUL CVL_SCRATCH_NULL

/* Checksum of a fixed rnd_wuz sequence: the numbers do not depend on the rank count. */
#define RND_GOLDEN 2602136385u

/* ------------------------------------------------------------- reporting */

static int g_rank, g_nranks;
/* Whether a collective call whose messages carry no argument signature returns its
 * argument errors: with one rank, or in checked mode (DATAMOTION_CHECK=1), where the
 * arguments are compared first. Otherwise such an error ends the job by design (the
 * calls' documented rule; tests/cvl/cvl_disagree.c covers it), so those cases are
 * skipped. */
static int g_errors_return;
static long g_checks, g_failures;
static unsigned long long g_seed;
static int g_n, g_m;

static void failf(const char *fn, const char *fmt, ...) {
    va_list ap;
    g_failures++;
    if (g_rank != 0 || g_failures > 40) return;
    fprintf(stderr, "FAIL %s (seed %llu, n %d, m %d, %d ranks): ", fn, g_seed, g_n, g_m, g_nranks);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void *xmalloc(size_t bytes) {
    void *p = calloc(bytes ? bytes : 1, 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}
#define NEW(T, count) ((T *) xmalloc(sizeof(T) * (size_t) (count)))

/* An unexpected CVL error is a failure. */
static int no_error(const char *fn) {
    if (CVL_error() == CVL_OK) return 1;
    failf(fn, "unexpected error: %s", CVL_error_message());
    CVL_clear_error();
    return 0;
}

/* An expected CVL error: it must be CVL_ERR_ARG with a message. */
static void expect_error(const char *fn) {
    g_checks++;
    if (CVL_error() != CVL_ERR_ARG || CVL_error_message()[0] == '\0')
        failf(fn, "expected an argument error, got code %d", CVL_error());
    CVL_clear_error();
}

/* ----------------------------------------------------------- random data */

static unsigned long long g_rs = 88172645463325252ULL;

static void rseed(unsigned long long s) {
    g_rs = s * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    if (!g_rs) g_rs = 1;
}
static unsigned long long rnext(void) {
    g_rs ^= g_rs >> 12;
    g_rs ^= g_rs << 25;
    g_rs ^= g_rs >> 27;
    return g_rs * 2685821657736338717ULL;
}
/* Uniform in [lo, hi]. */
static int rin(int lo, int hi) { return lo + (int) (rnext() % (unsigned long long) ((long long) hi - lo + 1)); }
static int chance(int percent) { return rin(0, 99) < percent; }

/* ------------------------------------------------------ oracle arithmetic */

static int o_add(int a, int b) { return (int) ((unsigned) a + (unsigned) b); }
static int o_sub(int a, int b) { return (int) ((unsigned) a - (unsigned) b); }
static int o_mul(int a, int b) { return (int) ((unsigned) a * (unsigned) b); }
static int o_div(int a, int b) { return b == 0 ? 0 : b == -1 ? o_sub(0, a) : a / b; }
static int o_mod(int a, int b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
static int o_lsh(int a, int k) { return k < 0 || k > 31 ? 0 : (int) ((unsigned) a << k); }
static int o_rsh(int a, int k) {
    long long d, q;
    if (k < 0 || k > 31) return a < 0 ? -1 : 0;
    d = 1LL << k;
    q = (long long) a / d;
    if ((long long) a % d != 0 && a < 0) q -= 1; /* floor */
    return (int) q;
}
static int o_int(double x) {
    if (isnan(x)) return 0;
    if (x >= 2147483647.0) return INT_MAX;
    if (x <= -2147483648.0) return INT_MIN;
    return (int) x;
}
static int same_z(int a, int b) { return a == b; }
static int same_b(cvl_bool a, cvl_bool b) { return a == b; }
static int same_d(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

/* ---------------------------------------------------------- vector memory */

/* Each case carves its vectors out of one alo_foz block with add_fov, as a VCODE
 * interpreter does; segment descriptors get blocks of their own. */
static vec_p g_pool;
static int g_slots, g_slot_units, g_next_slot;

static vec_p slot(void) {
    if (g_next_slot >= g_slots) {
        fprintf(stderr, "test error: out of vector slots\n");
        exit(2);
    }
    return add_fov(g_pool, g_next_slot++ * g_slot_units);
}

static void put_z(vec_p v, const int *a, int len) { c2v_fuz(v, (int *) a, len, NUL); }
static void put_b(vec_p v, const cvl_bool *a, int len) { c2v_fub(v, (cvl_bool *) a, len, NUL); }
static void put_d(vec_p v, const double *a, int len) { c2v_fud(v, (double *) a, len, NUL); }
static vec_p new_z(const int *a, int len) { vec_p v = slot(); put_z(v, a, len); return v; }
static vec_p new_b(const cvl_bool *a, int len) { vec_p v = slot(); put_b(v, a, len); return v; }
static vec_p new_d(const double *a, int len) { vec_p v = slot(); put_d(v, a, len); return v; }

static void check_z(const char *fn, vec_p v, const int *e, int len) {
    int *got = NEW(int, len);
    no_error(fn);
    v2c_fuz(got, v, len, NUL);
    g_checks++;
    for (int k = 0; k < len; ++k)
        if (got[k] != e[k]) {
            failf(fn, "element %d of %d: expected %d, got %d", k, len, e[k], got[k]);
            break;
        }
    free(got);
}
static void check_b(const char *fn, vec_p v, const cvl_bool *e, int len) {
    cvl_bool *got = NEW(cvl_bool, len);
    no_error(fn);
    v2c_fub(got, v, len, NUL);
    g_checks++;
    for (int k = 0; k < len; ++k)
        if (got[k] != e[k]) {
            failf(fn, "element %d of %d: expected %d, got %d", k, len, e[k], got[k]);
            break;
        }
    free(got);
}
static void check_d(const char *fn, vec_p v, const double *e, int len) {
    double *got = NEW(double, len);
    no_error(fn);
    v2c_fud(got, v, len, NUL);
    g_checks++;
    for (int k = 0; k < len; ++k)
        if (!same_d(got[k], e[k])) {
            failf(fn, "element %d of %d: expected %.17g, got %.17g", k, len, e[k], got[k]);
            break;
        }
    free(got);
}
static void check_value(const char *fn, double got, double expect, int same) {
    no_error(fn);
    g_checks++;
    if (!same) failf(fn, "expected %.17g, got %.17g", expect, got);
}

/* --------------------------------------------------- case data and segments */

typedef struct {
    int n;
    int *za, *zb, *zs, *zk;                    /* ints; divisors with 0 and -1; shift counts; sort keys */
    double *da, *db, *dm, *dx, *dn, *dr, *du, *dp, *dk; /* k/8; k/8; mul factors; specials;
                             specials but NaN; halves; [-1, 1]; positive; sort keys with NaN */
    cvl_bool *ba, *bb, *bc;
} Data;

static int pick_int(void) {
    switch (rin(0, 19)) {
    case 0: return INT_MAX;
    case 1: return INT_MIN;
    case 2: return rin(INT_MIN / 2, INT_MAX / 2) * 2 + 1;
    default: return rin(-50, 50);
    }
}

static double pick_special(void) {
    switch (rin(0, 15)) {
    case 0: return HUGE_VAL;
    case 1: return -HUGE_VAL;
    case 2: return NAN;
    case 3: return -0.0;
    case 4: return 1e300;
    case 5: return -3e9;
    default: return rin(-4000, 4000) / 64.0;
    }
}

static void data_make(Data *D, int n) {
    D->n = n;
    D->za = NEW(int, n); D->zb = NEW(int, n); D->zs = NEW(int, n); D->zk = NEW(int, n);
    D->da = NEW(double, n); D->db = NEW(double, n); D->dm = NEW(double, n); D->dx = NEW(double, n); D->dn = NEW(double, n);
    D->dr = NEW(double, n); D->du = NEW(double, n); D->dp = NEW(double, n); D->dk = NEW(double, n);
    D->ba = NEW(cvl_bool, n); D->bb = NEW(cvl_bool, n); D->bc = NEW(cvl_bool, n);
    for (int k = 0; k < n; ++k) {
        static const double factors[6] = {1.0, 1.0, 1.0, 2.0, 0.5, -1.0};
        D->za[k] = pick_int();
        D->zb[k] = chance(15) ? 0 : chance(10) ? -1 : pick_int();
        D->zs[k] = rin(-2, 34);
        D->zk[k] = rin(-5, 5);
        D->da[k] = rin(-64, 64) / 8.0;
        D->db[k] = rin(-64, 64) / 8.0;
        D->dm[k] = factors[rin(0, 5)];
        D->dx[k] = pick_special();
        D->dn[k] = isnan(D->dx[k]) ? HUGE_VAL : D->dx[k];
        D->dr[k] = chance(10) ? pick_special() : rin(-40, 40) / 4.0;
        D->du[k] = rin(-1000, 1000) / 1000.0;
        D->dp[k] = rin(1, 100000) / 64.0;
        D->dk[k] = chance(5) ? NAN : rin(-6, 6) / 2.0;
        D->ba[k] = (cvl_bool) rin(0, 1);
        D->bb[k] = (cvl_bool) rin(0, 1);
        D->bc[k] = (cvl_bool) rin(0, 1);
    }
}

static void data_free(Data *D) {
    free(D->za); free(D->zb); free(D->zs); free(D->zk);
    free(D->da); free(D->db); free(D->dm); free(D->dx); free(D->dn); free(D->dr); free(D->du); free(D->dp); free(D->dk);
    free(D->ba); free(D->bb); free(D->bc);
}

/* A segmentation of n elements into m segments, its descriptor and host copies. */
typedef struct {
    int n, m;
    int *len, *start, *seg; /* m, m, n: seg[k] is the segment of element k */
    vec_p sd;
} Segs;

static void segs_make(Segs *G, int n, int m, const int *len) {
    const char *fn = "mke_fov";
    G->n = n;
    G->m = m;
    G->len = NEW(int, m);
    G->start = NEW(int, m);
    G->seg = NEW(int, n);
    for (int j = 0, at = 0; j < m; ++j) {
        G->len[j] = len[j];
        G->start[j] = at;
        for (int k = 0; k < len[j]; ++k) G->seg[at + k] = j;
        at += len[j];
    }
    G->sd = alo_foz(siz_fos(n, m));
    {
        int mark = g_next_slot;
        vec_p lv = new_z(len, m), back = slot();
        mke_fov(G->sd, lv, n, m, NUL);
        no_error(fn);
        len_fos(back, G->sd, n, m, NUL);
        check_z("len_fos", back, len, m);
        g_next_slot = mark;
    }
}

static void segs_free(Segs *G) {
    fre_fov(G->sd);
    no_error("fre_fov");
    free(G->len);
    free(G->start);
    free(G->seg);
}

/* The block of rank r under the library's distribution (docs/cvl.md): ceil(n/p) elements
 * per rank, trailing ranks short or empty. */
static int block_count(int n, int r) {
    const int b = (n + g_nranks - 1) / g_nranks, rest = n - r * b;
    return rest < 0 ? 0 : rest < b ? rest : b;
}

static int cmp_int(const void *a, const void *b) { return (*(const int *) a > *(const int *) b) - (*(const int *) a < *(const int *) b); }

/* Random segment lengths summing to n; *m_out segments. nonempty: every length >= 1. */
static int *gen_lengths(int n, int *m_out, int nonempty) {
    int m, *len;
    if (n == 0) {
        m = nonempty ? 0 : rin(0, 4);
        len = NEW(int, m);
        for (int j = 0; j < m; ++j) len[j] = 0;
        *m_out = m;
        return len;
    }
    if (nonempty) {
        /* m - 1 distinct cuts in [1, n - 1] */
        int *cut;
        m = chance(15) ? n : rin(1, n < 12 ? n : (chance(50) ? 12 : n));
        cut = NEW(int, n);
        for (int k = 0; k < n - 1; ++k) cut[k] = k + 1;
        for (int k = 0; k < m - 1; ++k) { /* partial Fisher-Yates */
            int r = rin(k, n - 2), t = cut[k];
            cut[k] = cut[r];
            cut[r] = t;
        }
        qsort(cut, (size_t) (m - 1), sizeof(int), cmp_int);
        len = NEW(int, m);
        for (int j = 0, prev = 0; j < m; ++j) {
            int end = j < m - 1 ? cut[j] : n;
            len[j] = end - prev;
            prev = end;
        }
        free(cut);
        *m_out = m;
        return len;
    }
    switch (rin(0, 8)) {
    case 6: /* every element a segment of its own (m = n) */
        m = n;
        len = NEW(int, m);
        for (int j = 0; j < m; ++j) len[j] = 1;
        break;
    case 7: { /* a pile of empty segments (often more than n) at the start, the end, a
               * rank's block boundary or anywhere, the elements in one or two segments */
        const int b = (n + g_nranks - 1) / g_nranks, pile = rin(1, 2 * n + 8);
        int at;
        switch (rin(0, 3)) {
        case 0: at = 0; break;
        case 1: at = n; break;
        case 2: at = b * rin(0, g_nranks); break;
        default: at = rin(0, n); break;
        }
        if (at > n) at = n;
        m = pile + 2;
        len = NEW(int, m);
        for (int j = 0; j < m; ++j) len[j] = 0;
        len[0] = at;
        len[m - 1] = n - at;
        break;
    }
    case 8: { /* singletons up to a random point, then one long segment: ranks with many
               * segments per element and ranks with few */
        const int cut = rin(0, n);
        m = cut + 1;
        len = NEW(int, m);
        for (int j = 0; j < cut; ++j) len[j] = 1;
        len[cut] = n - cut;
        break;
    }
    case 0: /* one segment, maybe with empty ones around it */
        m = rin(1, 3);
        len = NEW(int, m);
        for (int j = 0; j < m; ++j) len[j] = 0;
        len[rin(0, m - 1)] = n;
        break;
    case 1: { /* the ranks' blocks, with empty segments between, before and after them */
        m = 2 * g_nranks + 1;
        len = NEW(int, m);
        for (int r = 0; r < g_nranks; ++r) {
            len[2 * r] = 0;
            len[2 * r + 1] = block_count(n, r);
        }
        len[m - 1] = 0;
        break;
    }
    case 2: /* singletons with empty segments between some */
        len = NEW(int, 3 * n + 2);
        m = 0;
        for (int k = 0; k < n; ++k) {
            if (chance(30)) len[m++] = 0;
            if (chance(10)) len[m++] = 0;
            len[m++] = 1;
        }
        if (chance(50)) len[m++] = 0;
        break;
    default: { /* random cuts with repetition: empty segments anywhere */
        int *cut;
        m = rin(1, n + 3 < 40 ? n + 3 : 40);
        if (chance(20)) m = rin(1, n + 3);
        cut = NEW(int, m);
        for (int j = 0; j < m - 1; ++j) cut[j] = rin(0, n);
        qsort(cut, (size_t) (m - 1), sizeof(int), cmp_int);
        len = NEW(int, m);
        for (int j = 0, prev = 0; j < m; ++j) {
            int end = j < m - 1 ? cut[j] : n;
            len[j] = end - prev;
            prev = end;
        }
        free(cut);
        break;
    }
    }
    *m_out = m;
    return len;
}

/* ------------------------------------------------------- elementwise (w) */

/* Each elementwise function runs into a fresh vector and in place (destination = each
 * source in turn; every slot has room for n doubles). */
#define EW2(NAME, TD, SD, TA, SA, XA, XB, EXPR)                                              \
    static void t_##NAME(const Data *D) {                                                    \
        int n = D->n, mark = g_next_slot;                                                    \
        TD *e = NEW(TD, n);                                                                  \
        for (int k = 0; k < n; ++k) {                                                        \
            TA a = XA[k], b = XB[k];                                                         \
            e[k] = (TD) (EXPR);                                                              \
        }                                                                                    \
        vec_p va = new_##SA(XA, n), vb = new_##SA(XB, n), vd = slot();                       \
        NAME(vd, va, vb, n, NUL);                                                            \
        check_##SD(#NAME, vd, e, n);                                                         \
        NAME(va, va, vb, n, NUL);                                                            \
        check_##SD(#NAME " (d = s1)", va, e, n);                                             \
        put_##SA(va, XA, n);                                                                 \
        NAME(vb, va, vb, n, NUL);                                                            \
        check_##SD(#NAME " (d = s2)", vb, e, n);                                             \
        free(e);                                                                             \
        g_next_slot = mark;                                                                  \
    }

#define EW1(NAME, TD, SD, TA, SA, XA, EXPR)                                                  \
    static void t_##NAME(const Data *D) {                                                    \
        int n = D->n, mark = g_next_slot;                                                    \
        TD *e = NEW(TD, n);                                                                  \
        for (int k = 0; k < n; ++k) {                                                        \
            TA a = XA[k];                                                                    \
            e[k] = (TD) (EXPR);                                                              \
        }                                                                                    \
        vec_p va = new_##SA(XA, n), vd = slot();                                             \
        NAME(vd, va, n, NUL);                                                                \
        check_##SD(#NAME, vd, e, n);                                                         \
        NAME(va, va, n, NUL);                                                                \
        check_##SD(#NAME " (d = s)", va, e, n);                                              \
        free(e);                                                                             \
        g_next_slot = mark;                                                                  \
    }

#define SEL(NAME, T, S, XA, XB)                                                              \
    static void t_##NAME(const Data *D) {                                                    \
        int n = D->n, mark = g_next_slot;                                                    \
        T *e = NEW(T, n);                                                                    \
        for (int k = 0; k < n; ++k) e[k] = D->bc[k] ? XA[k] : XB[k];                         \
        vec_p vf = new_b(D->bc, n), va = new_##S(XA, n), vb = new_##S(XB, n), vd = slot();   \
        NAME(vd, vf, va, vb, n, NUL);                                                        \
        check_##S(#NAME, vd, e, n);                                                          \
        NAME(vf, vf, va, vb, n, NUL);                                                        \
        check_##S(#NAME " (d = s1)", vf, e, n);                                              \
        put_b(vf, D->bc, n);                                                                 \
        NAME(va, vf, va, vb, n, NUL);                                                        \
        check_##S(#NAME " (d = s2)", va, e, n);                                              \
        put_##S(va, XA, n);                                                                  \
        NAME(vb, vf, va, vb, n, NUL);                                                        \
        check_##S(#NAME " (d = s3)", vb, e, n);                                              \
        free(e);                                                                             \
        g_next_slot = mark;                                                                  \
    }

EW2(max_wuz, int, z, int, z, D->za, D->zb, a > b ? a : b)
EW2(max_wud, double, d, double, d, D->dx, D->db, a > b ? a : b)
EW2(min_wuz, int, z, int, z, D->za, D->zb, a < b ? a : b)
EW2(min_wud, double, d, double, d, D->dx, D->db, a < b ? a : b)
EW2(add_wuz, int, z, int, z, D->za, D->zb, o_add(a, b))
EW2(add_wud, double, d, double, d, D->dx, D->db, a + b)
EW2(sub_wuz, int, z, int, z, D->za, D->zb, o_sub(a, b))
EW2(sub_wud, double, d, double, d, D->dx, D->db, a - b)
EW2(mul_wuz, int, z, int, z, D->za, D->zb, o_mul(a, b))
EW2(mul_wud, double, d, double, d, D->dx, D->db, a * b)
EW2(div_wuz, int, z, int, z, D->za, D->zb, o_div(a, b))
EW2(div_wud, double, d, double, d, D->dx, D->db, a / b)
EW2(mod_wuz, int, z, int, z, D->za, D->zb, o_mod(a, b))
EW2(lsh_wuz, int, z, int, z, D->za, D->zs, o_lsh(a, b))
EW2(rsh_wuz, int, z, int, z, D->za, D->zs, o_rsh(a, b))
EW2(grt_wuz, cvl_bool, b, int, z, D->zk, D->za, a > b)
EW2(grt_wud, cvl_bool, b, double, d, D->dx, D->db, a > b)
EW2(les_wuz, cvl_bool, b, int, z, D->zk, D->za, a < b)
EW2(les_wud, cvl_bool, b, double, d, D->dx, D->db, a < b)
EW2(geq_wuz, cvl_bool, b, int, z, D->zk, D->za, a >= b)
EW2(geq_wud, cvl_bool, b, double, d, D->da, D->db, a >= b)
EW2(leq_wuz, cvl_bool, b, int, z, D->zk, D->za, a <= b)
EW2(leq_wud, cvl_bool, b, double, d, D->da, D->db, a <= b)
EW2(eql_wuz, cvl_bool, b, int, z, D->zk, D->zs, a == b)
EW2(eql_wud, cvl_bool, b, double, d, D->da, D->db, a == b)
EW2(neq_wuz, cvl_bool, b, int, z, D->zk, D->zs, a != b)
EW2(neq_wud, cvl_bool, b, double, d, D->dx, D->db, a != b)
EW2(eql_wub, cvl_bool, b, cvl_bool, b, D->ba, D->bb, a == b)
EW2(neq_wub, cvl_bool, b, cvl_bool, b, D->ba, D->bb, a != b)
EW2(and_wub, cvl_bool, b, cvl_bool, b, D->ba, D->bb, a && b)
EW2(ior_wub, cvl_bool, b, cvl_bool, b, D->ba, D->bb, a || b)
EW2(xor_wub, cvl_bool, b, cvl_bool, b, D->ba, D->bb, a != b)
EW2(and_wuz, int, z, int, z, D->za, D->zb, a & b)
EW2(ior_wuz, int, z, int, z, D->za, D->zb, a | b)
EW2(xor_wuz, int, z, int, z, D->za, D->zb, a ^ b)
SEL(sel_wuz, int, z, D->za, D->zb)
SEL(sel_wub, cvl_bool, b, D->ba, D->bb)
SEL(sel_wud, double, d, D->dx, D->db)
EW1(not_wub, cvl_bool, b, cvl_bool, b, D->ba, !a)
EW1(not_wuz, int, z, int, z, D->za, ~a)
EW1(int_wud, int, z, double, d, D->dr, o_int(a))
EW1(int_wub, int, z, cvl_bool, b, D->ba, a)
EW1(dbl_wuz, double, d, int, z, D->za, (double) a)
EW1(boo_wuz, cvl_bool, b, int, z, D->zk, a != 0)
EW1(flr_wud, int, z, double, d, D->dr, o_int(floor(a)))
EW1(cei_wud, int, z, double, d, D->dr, o_int(ceil(a)))
EW1(trn_wud, int, z, double, d, D->dr, o_int(a))
EW1(rou_wud, int, z, double, d, D->dr, o_int(rint(a))) /* ties to even, as rint in the default mode */
EW1(exp_wud, double, d, double, d, D->dx, exp(a))
EW1(log_wud, double, d, double, d, D->dp, log(a))
EW1(sqt_wud, double, d, double, d, D->dp, sqrt(a))
EW1(sin_wud, double, d, double, d, D->da, sin(a))
EW1(cos_wud, double, d, double, d, D->da, cos(a))
EW1(tan_wud, double, d, double, d, D->da, tan(a))
EW1(asn_wud, double, d, double, d, D->du, asin(a))
EW1(acs_wud, double, d, double, d, D->du, acos(a))
EW1(atn_wud, double, d, double, d, D->dx, atan(a))
EW1(snh_wud, double, d, double, d, D->da, sinh(a))
EW1(csh_wud, double, d, double, d, D->da, cosh(a))
EW1(tnh_wud, double, d, double, d, D->dx, tanh(a))
EW1(cpy_wuz, int, z, int, z, D->za, a)
EW1(cpy_wub, cvl_bool, b, cvl_bool, b, D->ba, a)
EW1(cpy_wud, double, d, double, d, D->dx, a)

static void t_elementwise(const Data *D) {
    t_max_wuz(D); t_max_wud(D); t_min_wuz(D); t_min_wud(D); t_add_wuz(D); t_add_wud(D);
    t_sub_wuz(D); t_sub_wud(D); t_mul_wuz(D); t_mul_wud(D); t_div_wuz(D); t_div_wud(D);
    t_mod_wuz(D); t_lsh_wuz(D); t_rsh_wuz(D);
    t_grt_wuz(D); t_grt_wud(D); t_les_wuz(D); t_les_wud(D); t_geq_wuz(D); t_geq_wud(D);
    t_leq_wuz(D); t_leq_wud(D); t_eql_wuz(D); t_eql_wud(D); t_neq_wuz(D); t_neq_wud(D);
    t_eql_wub(D); t_neq_wub(D); t_and_wub(D); t_ior_wub(D); t_xor_wub(D);
    t_and_wuz(D); t_ior_wuz(D); t_xor_wuz(D);
    t_sel_wuz(D); t_sel_wub(D); t_sel_wud(D);
    t_not_wub(D); t_not_wuz(D); t_int_wud(D); t_int_wub(D); t_dbl_wuz(D); t_boo_wuz(D);
    t_flr_wud(D); t_cei_wud(D); t_trn_wud(D); t_rou_wud(D);
    t_exp_wud(D); t_log_wud(D); t_sqt_wud(D); t_sin_wud(D); t_cos_wud(D); t_tan_wud(D);
    t_asn_wud(D); t_acs_wud(D); t_atn_wud(D); t_snh_wud(D); t_csh_wud(D); t_tnh_wud(D);
    t_cpy_wuz(D); t_cpy_wub(D); t_cpy_wud(D);
}

/* rnd_wuz: values in [0, s[i]), 0 where s[i] <= 0; the same sequence after the same
 * seed. */
static void t_rnd(const Data *D) {
    int n = D->n, mark = g_next_slot;
    int *bound = NEW(int, n), *a = NEW(int, n), *b = NEW(int, n);
    for (int k = 0; k < n; ++k) bound[k] = chance(10) ? -rin(0, 3) : rin(1, 1000);
    vec_p vs = new_z(bound, n), v1 = slot(), v2 = slot();
    rnd_foz(7);
    rnd_wuz(v1, vs, n, NUL);
    rnd_foz(7);
    rnd_wuz(v2, vs, n, NUL);
    no_error("rnd_wuz");
    v2c_fuz(a, v1, n, NUL);
    v2c_fuz(b, v2, n, NUL);
    g_checks++;
    for (int k = 0; k < n; ++k) {
        int ok = bound[k] > 0 ? a[k] >= 0 && a[k] < bound[k] : a[k] == 0;
        if (!ok || a[k] != b[k]) {
            failf("rnd_wuz", "element %d: bound %d, got %d and %d", k, bound[k], a[k], b[k]);
            break;
        }
    }
    free(bound);
    free(a);
    free(b);
    g_next_slot = mark;
}

/* ---------------------------------------------- scans (s) and reductions (r) */

/* The oracle starts every segment from its first element, so it needs no identity
 * except for what CVL shows for an empty prefix or segment (EMPTY). */
#define LOAD_Z(x) (x)
#define LOAD_D(x) (x)
#define LOAD_B(x) ((cvl_bool) ((x) != 0))

#define SCAN(OP, S, T, XS, EMPTY, LOAD, APPLY)                                                \
    static void t_##OP##_##S(const Data *D, const Segs *G) {                                  \
        const char *su = #OP "_su" #S, *se = #OP "_se" #S, *ru_name = #OP "_ru" #S;           \
        const char *re = #OP "_re" #S;                                                        \
        int n = G->n, m = G->m, mark = g_next_slot;                                           \
        const T *x = XS;                                                                      \
        T *eu = NEW(T, n), *es = NEW(T, n), *er = NEW(T, m), ru = EMPTY, acc = EMPTY;         \
        for (int k = 0; k < n; ++k) {                                                         \
            T v = LOAD(x[k]);                                                                 \
            if (k == 0) {                                                                     \
                eu[k] = EMPTY;                                                                \
                acc = v;                                                                      \
            } else {                                                                          \
                eu[k] = acc;                                                                  \
                acc = APPLY(acc, v);                                                          \
            }                                                                                 \
        }                                                                                     \
        if (n > 0) ru = acc;                                                                  \
        for (int k = 0; k < n; ++k) {                                                         \
            T v = LOAD(x[k]);                                                                 \
            if (k == G->start[G->seg[k]]) {                                                   \
                es[k] = EMPTY;                                                                \
                acc = v;                                                                      \
            } else {                                                                          \
                es[k] = acc;                                                                  \
                acc = APPLY(acc, v);                                                          \
            }                                                                                 \
        }                                                                                     \
        for (int j = 0; j < m; ++j) {                                                         \
            if (G->len[j] == 0) {                                                             \
                er[j] = EMPTY;                                                                \
                continue;                                                                     \
            }                                                                                 \
            acc = LOAD(x[G->start[j]]);                                                       \
            for (int k = G->start[j] + 1; k < G->start[j] + G->len[j]; ++k) acc = APPLY(acc, LOAD(x[k])); \
            er[j] = acc;                                                                      \
        }                                                                                     \
        vec_p vx = new_##S(x, n), vd = slot();                                                \
        OP##_su##S(vd, vx, n, NUL);                                                           \
        check_##S(su, vd, eu, n);                                                             \
        OP##_su##S(vx, vx, n, NUL);                                                           \
        check_##S(su, vx, eu, n);                                                             \
        put_##S(vx, x, n);                                                                    \
        OP##_se##S(vd, vx, G->sd, n, m, NUL);                                                 \
        check_##S(se, vd, es, n);                                                             \
        OP##_se##S(vx, vx, G->sd, n, m, NUL);                                                 \
        check_##S(se, vx, es, n);                                                             \
        put_##S(vx, x, n);                                                                    \
        {                                                                                     \
            T r = OP##_ru##S(vx, n, NUL);                                                     \
            check_value(ru_name, (double) r, (double) ru, same_##S(r, ru));                   \
        }                                                                                     \
        OP##_re##S(vd, vx, G->sd, n, m, NUL);                                                 \
        check_##S(re, vd, er, m);                                                             \
        free(eu);                                                                             \
        free(es);                                                                             \
        free(er);                                                                             \
        g_next_slot = mark;                                                                   \
    }

#define A_ADD_Z(a, b) o_add(a, b)
#define A_ADD_D(a, b) ((a) + (b))
#define A_MUL_Z(a, b) o_mul(a, b)
#define A_MUL_D(a, b) ((a) * (b))
#define A_MIN(a, b) ((b) < (a) ? (b) : (a))
#define A_MAX(a, b) ((b) > (a) ? (b) : (a))
#define A_AND_B(a, b) ((cvl_bool) ((a) && (b)))
#define A_IOR_B(a, b) ((cvl_bool) ((a) || (b)))
#define A_XOR_B(a, b) ((cvl_bool) ((a) != (b)))
#define A_AND_Z(a, b) ((a) & (b))
#define A_IOR_Z(a, b) ((a) | (b))
#define A_XOR_Z(a, b) ((a) ^ (b))

SCAN(add, z, int, D->za, 0, LOAD_Z, A_ADD_Z)
SCAN(add, d, double, D->da, 0.0, LOAD_D, A_ADD_D)
SCAN(mul, z, int, D->za, 1, LOAD_Z, A_MUL_Z)
SCAN(mul, d, double, D->dm, 1.0, LOAD_D, A_MUL_D)
SCAN(min, z, int, D->za, INT_MAX, LOAD_Z, A_MIN)
SCAN(min, d, double, D->dn, DBL_MAX, LOAD_D, A_MIN)
SCAN(max, z, int, D->za, INT_MIN, LOAD_Z, A_MAX)
SCAN(max, d, double, D->dn, -DBL_MAX, LOAD_D, A_MAX)
SCAN(and, b, cvl_bool, D->ba, 1, LOAD_B, A_AND_B)
SCAN(and, z, int, D->za, -1, LOAD_Z, A_AND_Z)
SCAN(ior, b, cvl_bool, D->ba, 0, LOAD_B, A_IOR_B)
SCAN(ior, z, int, D->za, 0, LOAD_Z, A_IOR_Z)
SCAN(xor, b, cvl_bool, D->ba, 0, LOAD_B, A_XOR_B)
SCAN(xor, z, int, D->za, 0, LOAD_Z, A_XOR_Z)

static void t_scans(const Data *D, const Segs *G) {
    t_add_z(D, G); t_add_d(D, G); t_mul_z(D, G); t_mul_d(D, G); t_min_z(D, G); t_min_d(D, G);
    t_max_z(D, G); t_max_d(D, G); t_and_b(D, G); t_and_z(D, G); t_ior_b(D, G); t_ior_z(D, G);
    t_xor_b(D, G); t_xor_z(D, G);
}

/* ----------------------------------------------------------- vector-scalar (v) */

static int rand_z(void) { return pick_int(); }
static cvl_bool rand_b(void) { return (cvl_bool) rin(0, 1); }
static double rand_d(void) { return rin(-64, 64) / 8.0; }

static int has_empty(const Segs *G) {
    for (int j = 0; j < G->m; ++j)
        if (G->len[j] == 0) return 1;
    return 0;
}

#define VS(S, T, X, VAL)                                                                       \
    static void t_vs_##S(const Data *D, const Segs *G, const Segs *NE) {                       \
        int n = D->n, mark = g_next_slot;                                                      \
        const T *x = X;                                                                        \
        T *e = NEW(T, n);                                                                      \
        vec_p vx = new_##S(x, n), vd = slot();                                                 \
        if (n > 0) {                                                                           \
            int is[3];                                                                         \
            is[0] = 0;                                                                         \
            is[1] = n - 1;                                                                     \
            is[2] = rin(0, n - 1);                                                             \
            for (int t = 0; t < 3; ++t) {                                                      \
                T r = ext_vu##S(vx, is[t], n, NUL);                                            \
                check_value("ext_vu" #S, (double) r, (double) x[is[t]], same_##S(r, x[is[t]])); \
            }                                                                                  \
            memcpy(e, x, sizeof(T) * (size_t) n);                                              \
            e[is[2]] = VAL;                                                                    \
            put_##S(vd, x, n);                                                                 \
            rep_vu##S(vd, is[2], VAL, n, NUL);                                                 \
            check_##S("rep_vu" #S, vd, e, n);                                                  \
        }                                                                                      \
        (void) ext_vu##S(vx, n, n, NUL);                                                       \
        expect_error("ext_vu" #S " (index n)");                                                \
        put_##S(vd, x, n);                                                                     \
        rep_vu##S(vd, -1, VAL, n, NUL);                                                        \
        expect_error("rep_vu" #S " (index -1)");                                               \
        check_##S("rep_vu" #S " (unchanged after an error)", vd, x, n);                        \
        for (int k = 0; k < n; ++k) e[k] = VAL;                                                \
        dis_vu##S(vd, VAL, n, NUL);                                                            \
        check_##S("dis_vu" #S, vd, e, n);                                                      \
        {                                                                                      \
            int m = G->m;                                                                      \
            T *vals = NEW(T, m);                                                               \
            for (int j = 0; j < m; ++j) vals[j] = rand_##S();                                  \
            vec_p vv = new_##S(vals, m);                                                       \
            for (int k = 0; k < n; ++k) e[k] = vals[G->seg[k]];                                \
            dis_ve##S(vd, vv, G->sd, n, m, NUL);                                               \
            check_##S("dis_ve" #S, vd, e, n);                                                  \
            if (m > 0 && has_empty(G)) { /* every segment needs a valid index */               \
                int *zero = NEW(int, m);                                                       \
                for (int j = 0; j < m; ++j) zero[j] = 0;                                       \
                vec_p vi = new_z(zero, m);                                                     \
                ext_ve##S(vv, vx, vi, G->sd, n, m, NUL);                                       \
                expect_error("ext_ve" #S " (empty segment)");                                  \
                check_##S("ext_ve" #S " (unchanged after an error)", vv, vals, m);             \
                put_##S(vd, x, n);                                                             \
                rep_ve##S(vd, vi, vv, G->sd, n, m, NUL);                                       \
                expect_error("rep_ve" #S " (empty segment)");                                  \
                check_##S("rep_ve" #S " (unchanged after an error)", vd, x, n);                \
                free(zero);                                                                    \
            }                                                                                  \
            free(vals);                                                                        \
        }                                                                                      \
        {                                                                                      \
            int m = NE->m;                                                                     \
            int *idx = NEW(int, m);                                                            \
            T *ee = NEW(T, m), *vals = NEW(T, m);                                              \
            for (int j = 0; j < m; ++j) {                                                      \
                idx[j] = rin(0, NE->len[j] - 1);                                               \
                ee[j] = x[NE->start[j] + idx[j]];                                              \
                vals[j] = rand_##S();                                                          \
            }                                                                                  \
            vec_p vi = new_z(idx, m), vv = new_##S(vals, m);                                   \
            ext_ve##S(vd, vx, vi, NE->sd, n, m, NUL);                                          \
            check_##S("ext_ve" #S, vd, ee, m);                                                 \
            memcpy(e, x, sizeof(T) * (size_t) n);                                              \
            for (int j = 0; j < m; ++j) e[NE->start[j] + idx[j]] = vals[j];                    \
            put_##S(vd, x, n);                                                                 \
            rep_ve##S(vd, vi, vv, NE->sd, n, m, NUL);                                          \
            check_##S("rep_ve" #S, vd, e, n);                                                  \
            free(idx);                                                                         \
            free(ee);                                                                          \
            free(vals);                                                                        \
        }                                                                                      \
        free(e);                                                                               \
        g_next_slot = mark;                                                                    \
    }

VS(z, int, D->za, 12345)
VS(b, cvl_bool, D->ba, 1)
VS(d, double, D->dx, 2.5)

/* ------------------------------------------------------------ permutations (p) */

static void shuffle(int *p, int n) {
    for (int k = 0; k < n; ++k) p[k] = k;
    for (int k = n - 1; k > 0; --k) {
        int r = rin(0, k), t = p[k];
        p[k] = p[r];
        p[r] = t;
    }
}

/* An index that is out of range but must be ignored (its flag is false). */
static int garbage_index(int bound) { return chance(50) ? -5 - rin(0, 3) : bound + rin(0, 7); }

static int sum_of(const int *a, int m) {
    int s = 0;
    for (int j = 0; j < m; ++j) s += a[j];
    return s;
}

#define PERM(S, T, X)                                                                          \
    static void t_perm_##S(const Data *D) {                                                    \
        int n = D->n, mark = g_next_slot;                                                      \
        const T *x = X;                                                                        \
        vec_p vx = new_##S(x, n);                                                              \
        { /* smp: a permutation */                                                             \
            int *p = NEW(int, n);                                                              \
            T *e = NEW(T, n), *init = NEW(T, n);                                               \
            shuffle(p, n);                                                                     \
            for (int k = 0; k < n; ++k) {                                                      \
                e[p[k]] = x[k];                                                                \
                init[k] = rand_##S();                                                          \
            }                                                                                  \
            vec_p vi = new_z(p, n), vd = slot();                                               \
            smp_pu##S(vd, vx, vi, n, NUL);                                                     \
            check_##S("smp_pu" #S, vd, e, n);                                                  \
            if (n > 0) { /* an index out of range: reported, nothing written */                \
                p[rin(0, n - 1)] = chance(50) ? n : -1;                                        \
                put_z(vi, p, n);                                                               \
                put_##S(vd, init, n);                                                          \
                smp_pu##S(vd, vx, vi, n, NUL);                                                 \
                expect_error("smp_pu" #S " (bad index)");                                      \
                check_##S("smp_pu" #S " (unchanged after an error)", vd, init, n);             \
            }                                                                                  \
            free(p);                                                                           \
            free(e);                                                                           \
            free(init);                                                                        \
        }                                                                                      \
        { /* bck: gather into a vector of another length */                                    \
            int dl = n > 0 ? rin(0, 2 * n + 1) : 0;                                            \
            int *i = NEW(int, dl);                                                             \
            T *e = NEW(T, dl), *init = NEW(T, dl);                                             \
            for (int k = 0; k < dl; ++k) {                                                     \
                i[k] = rin(0, n - 1);                                                          \
                e[k] = x[i[k]];                                                                \
                init[k] = rand_##S();                                                          \
            }                                                                                  \
            vec_p vi = new_z(i, dl), vd = slot();                                              \
            bck_pu##S(vd, vx, vi, n, dl, NUL);                                                 \
            check_##S("bck_pu" #S, vd, e, dl);                                                 \
            if (dl > 0) {                                                                      \
                i[rin(0, dl - 1)] = chance(50) ? n : -1;                                       \
                put_z(vi, i, dl);                                                              \
                put_##S(vd, init, dl);                                                         \
                bck_pu##S(vd, vx, vi, n, dl, NUL);                                             \
                expect_error("bck_pu" #S " (bad index)");                                      \
                check_##S("bck_pu" #S " (unchanged after an error)", vd, init, dl);            \
            }                                                                                  \
            free(i);                                                                           \
            free(e);                                                                           \
            free(init);                                                                        \
        }                                                                                      \
        { /* fpm, dpe, dfp: scatter with duplicate targets (the last source wins) */           \
            int dl = n > 0 ? rin(1, 2 * n + 1) : rin(0, 3);                                    \
            int *i = NEW(int, n), *all = NEW(int, n);                                          \
            T *e = NEW(T, dl), *init = NEW(T, dl);                                             \
            for (int j = 0; j < dl; ++j) init[j] = rand_##S();                                 \
            for (int k = 0; k < n; ++k) {                                                      \
                all[k] = rin(0, dl - 1);                                                       \
                i[k] = D->bb[k] ? rin(0, dl - 1) : garbage_index(dl);                          \
            }                                                                                  \
            vec_p vi = new_z(i, n), va = new_z(all, n), vf = new_b(D->bb, n);                  \
            vec_p vv = new_##S(init, dl), vd = new_##S(init, dl);                              \
            memcpy(e, init, sizeof(T) * (size_t) dl);                                          \
            for (int k = 0; k < n; ++k)                                                        \
                if (D->bb[k]) e[i[k]] = x[k];                                                  \
            fpm_pu##S(vd, vx, vi, vf, n, dl, NUL);                                             \
            check_##S("fpm_pu" #S, vd, e, dl);                                                 \
            vd = slot();                                                                       \
            dfp_pu##S(vd, vx, vi, vf, vv, n, dl, NUL);                                         \
            check_##S("dfp_pu" #S, vd, e, dl);                                                 \
            memcpy(e, init, sizeof(T) * (size_t) dl);                                          \
            for (int k = 0; k < n; ++k) e[all[k]] = x[k];                                      \
            vd = slot();                                                                       \
            dpe_pu##S(vd, vx, va, vv, n, dl, NUL);                                             \
            check_##S("dpe_pu" #S, vd, e, dl);                                                 \
            dpe_pu##S(vv, vx, va, vv, n, dl, NUL); /* default vector in place */               \
            check_##S("dpe_pu" #S " (d = v)", vv, e, dl);                                      \
            free(i);                                                                           \
            free(all);                                                                         \
            free(e);                                                                           \
            free(init);                                                                        \
        }                                                                                      \
        { /* bfp: flagged gather, 0 where the flag is false */                                 \
            int dl = rin(0, 2 * n + 1);                                                        \
            int *i = NEW(int, dl);                                                             \
            cvl_bool *f = NEW(cvl_bool, dl);                                                   \
            T *e = NEW(T, dl);                                                                 \
            for (int k = 0; k < dl; ++k) {                                                     \
                f[k] = (cvl_bool) (n > 0 && chance(60));                                       \
                i[k] = f[k] ? rin(0, n - 1) : garbage_index(n);                                \
                e[k] = f[k] ? x[i[k]] : (T) 0;                                                 \
            }                                                                                  \
            vec_p vi = new_z(i, dl), vf = new_b(f, dl), vd = slot();                           \
            bfp_pu##S(vd, vx, vi, vf, n, dl, NUL);                                             \
            check_##S("bfp_pu" #S, vd, e, dl);                                                 \
            free(i);                                                                           \
            free(f);                                                                           \
            free(e);                                                                           \
        }                                                                                      \
        g_next_slot = mark;                                                                    \
    }

#define SPERM(S, T, X)                                                                         \
    static void t_sperm_##S(const Data *D, const Segs *G) {                                    \
        int n = G->n, m = G->m, mark = g_next_slot;                                            \
        const T *x = X;                                                                        \
        vec_p vx = new_##S(x, n), vf = new_b(D->bb, n);                                        \
        { /* smp_pe: a permutation within every segment */                                     \
            int *i = NEW(int, n), *p = NEW(int, n);                                            \
            T *e = NEW(T, n), *init = NEW(T, n);                                               \
            for (int j = 0; j < m; ++j) {                                                      \
                shuffle(p, G->len[j]);                                                         \
                for (int k = 0; k < G->len[j]; ++k) i[G->start[j] + k] = p[k];                 \
            }                                                                                  \
            for (int k = 0; k < n; ++k) {                                                      \
                e[G->start[G->seg[k]] + i[k]] = x[k];                                          \
                init[k] = rand_##S();                                                          \
            }                                                                                  \
            vec_p vi = new_z(i, n), vd = slot();                                               \
            smp_pe##S(vd, vx, vi, G->sd, n, m, NUL);                                           \
            check_##S("smp_pe" #S, vd, e, n);                                                  \
            if (n > 0) {                                                                       \
                int k0 = rin(0, n - 1);                                                        \
                i[k0] = chance(50) ? G->len[G->seg[k0]] : -1;                                  \
                put_z(vi, i, n);                                                               \
                put_##S(vd, init, n);                                                          \
                smp_pe##S(vd, vx, vi, G->sd, n, m, NUL);                                       \
                expect_error("smp_pe" #S " (bad index)");                                      \
                check_##S("smp_pe" #S " (unchanged after an error)", vd, init, n);             \
            }                                                                                  \
            free(i);                                                                           \
            free(p);                                                                           \
            free(e);                                                                           \
            free(init);                                                                        \
        }                                                                                      \
        { /* bck_pe and bfp_pe: gather into another segmentation with m segments */            \
            int *ld = NEW(int, m);                                                             \
            Segs DS;                                                                           \
            for (int j = 0; j < m; ++j) ld[j] = G->len[j] > 0 ? rin(0, 3) : (chance(30) ? rin(1, 2) : 0); \
            segs_make(&DS, sum_of(ld, m), m, ld);                                              \
            int nd = DS.n, *i = NEW(int, nd);                                                  \
            cvl_bool *f = NEW(cvl_bool, nd);                                                   \
            T *e = NEW(T, nd), *eb = NEW(T, nd), *init = NEW(T, nd);                           \
            for (int k = 0; k < nd; ++k) {                                                     \
                int j = DS.seg[k], lj = G->len[j];                                             \
                f[k] = (cvl_bool) (lj > 0 && chance(60));                                      \
                i[k] = lj > 0 ? rin(0, lj - 1) : garbage_index(lj);                            \
                e[k] = lj > 0 ? x[G->start[j] + i[k]] : (T) 0;                                 \
                eb[k] = f[k] ? e[k] : (T) 0;                                                   \
                init[k] = rand_##S();                                                          \
            }                                                                                  \
            vec_p vi = new_z(i, nd), vfd = new_b(f, nd), vd = slot();                          \
            bfp_pe##S(vd, vx, vi, vfd, G->sd, n, m, DS.sd, nd, m, NUL);                        \
            check_##S("bfp_pe" #S, vd, eb, nd);                                                \
            int all_sources = 1;                                                               \
            for (int k = 0; k < nd; ++k) all_sources &= G->len[DS.seg[k]] > 0;                \
            if (all_sources) {                                                                 \
                bck_pe##S(vd, vx, vi, G->sd, n, m, DS.sd, nd, m, NUL);                         \
                check_##S("bck_pe" #S, vd, e, nd);                                             \
            }                                                                                  \
            if (nd > 0) {                                                                      \
                int k0 = rin(0, nd - 1);                                                       \
                i[k0] = chance(50) ? G->len[DS.seg[k0]] : -1;                                  \
                put_z(vi, i, nd);                                                              \
                put_##S(vd, init, nd);                                                         \
                bck_pe##S(vd, vx, vi, G->sd, n, m, DS.sd, nd, m, NUL);                         \
                expect_error("bck_pe" #S " (bad index)");                                      \
                check_##S("bck_pe" #S " (unchanged after an error)", vd, init, nd);            \
            }                                                                                  \
            free(i);                                                                           \
            free(f);                                                                           \
            free(e);                                                                           \
            free(eb);                                                                          \
            free(init);                                                                        \
            free(ld);                                                                          \
            segs_free(&DS);                                                                    \
        }                                                                                      \
        { /* fpm_pe, dpe_pe, dfp_pe: scatter into another segmentation */                      \
            int *ld = NEW(int, m);                                                             \
            Segs DS;                                                                           \
            for (int j = 0; j < m; ++j) ld[j] = G->len[j] > 0 ? rin(1, G->len[j] + 1) : rin(0, 2); \
            segs_make(&DS, sum_of(ld, m), m, ld);                                              \
            int nd = DS.n, *i = NEW(int, n), *all = NEW(int, n);                               \
            T *e = NEW(T, nd), *init = NEW(T, nd);                                             \
            for (int k = 0; k < nd; ++k) init[k] = rand_##S();                                 \
            for (int k = 0; k < n; ++k) {                                                      \
                int lj = ld[G->seg[k]];                                                        \
                all[k] = rin(0, lj - 1);                                                       \
                i[k] = D->bb[k] ? rin(0, lj - 1) : garbage_index(lj);                          \
            }                                                                                  \
            vec_p vi = new_z(i, n), va = new_z(all, n), vv = new_##S(init, nd);                \
            vec_p vd = new_##S(init, nd);                                                      \
            memcpy(e, init, sizeof(T) * (size_t) nd);                                          \
            for (int k = 0; k < n; ++k)                                                        \
                if (D->bb[k]) e[DS.start[G->seg[k]] + i[k]] = x[k];                            \
            fpm_pe##S(vd, vx, vi, vf, G->sd, n, m, DS.sd, nd, m, NUL);                         \
            check_##S("fpm_pe" #S, vd, e, nd);                                                 \
            vd = slot();                                                                       \
            dfp_pe##S(vd, vx, vi, vf, vv, G->sd, n, m, DS.sd, nd, m, NUL);                     \
            check_##S("dfp_pe" #S, vd, e, nd);                                                 \
            memcpy(e, init, sizeof(T) * (size_t) nd);                                          \
            for (int k = 0; k < n; ++k) e[DS.start[G->seg[k]] + all[k]] = x[k];                \
            vd = slot();                                                                       \
            dpe_pe##S(vd, vx, va, vv, G->sd, n, m, DS.sd, nd, m, NUL);                         \
            check_##S("dpe_pe" #S, vd, e, nd);                                                 \
            if (n > 0) {                                                                       \
                int k0 = rin(0, n - 1);                                                        \
                all[k0] = chance(50) ? ld[G->seg[k0]] : -1;                                    \
                put_z(va, all, n);                                                             \
                put_##S(vd, init, nd);                                                         \
                dpe_pe##S(vd, vx, va, vv, G->sd, n, m, DS.sd, nd, m, NUL);                     \
                expect_error("dpe_pe" #S " (bad index)");                                      \
                check_##S("dpe_pe" #S " (unchanged after an error)", vd, init, nd);            \
            }                                                                                  \
            free(i);                                                                           \
            free(all);                                                                         \
            free(e);                                                                           \
            free(init);                                                                        \
            free(ld);                                                                          \
            segs_free(&DS);                                                                    \
        }                                                                                      \
        { /* fpm_pe with the same descriptor for source and destination */                     \
            int *i = NEW(int, n);                                                              \
            T *e = NEW(T, n), *init = NEW(T, n);                                               \
            for (int k = 0; k < n; ++k) {                                                      \
                int lj = G->len[G->seg[k]];                                                    \
                i[k] = D->bb[k] ? rin(0, lj - 1) : garbage_index(lj);                          \
                init[k] = rand_##S();                                                          \
            }                                                                                  \
            memcpy(e, init, sizeof(T) * (size_t) n);                                           \
            for (int k = 0; k < n; ++k)                                                        \
                if (D->bb[k]) e[G->start[G->seg[k]] + i[k]] = x[k];                            \
            vec_p vi = new_z(i, n), vd = new_##S(init, n);                                     \
            fpm_pe##S(vd, vx, vi, vf, G->sd, n, m, G->sd, n, m, NUL);                          \
            check_##S("fpm_pe" #S " (one descriptor)", vd, e, n);                              \
            free(i);                                                                           \
            free(e);                                                                           \
            free(init);                                                                        \
        }                                                                                      \
        g_next_slot = mark;                                                                    \
    }

PERM(z, int, D->za)
PERM(b, cvl_bool, D->ba)
PERM(d, double, D->dx)
SPERM(z, int, D->za)
SPERM(b, cvl_bool, D->ba)
SPERM(d, double, D->dx)

/* ---------------------------------------------------------------- library (l) */

/* Stable-sort oracle: keys compared with NaN above every number. */
static const Segs *g_sort_segs;
static const int *g_sort_z;
static const double *g_sort_d;
static int g_sort_desc;

static int key_cmp_d(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}
static int sort_cmp(const void *pa, const void *pb) {
    int a = *(const int *) pa, b = *(const int *) pb, c;
    if (g_sort_segs && g_sort_segs->seg[a] != g_sort_segs->seg[b])
        return g_sort_segs->seg[a] < g_sort_segs->seg[b] ? -1 : 1;
    c = g_sort_z ? (g_sort_z[a] > g_sort_z[b]) - (g_sort_z[a] < g_sort_z[b]) : key_cmp_d(g_sort_d[a], g_sort_d[b]);
    if (g_sort_desc) c = -c;
    if (c) return c;
    return (a > b) - (a < b);
}
/* rank[k] = position of element k in the stable sort (within its segment if G). */
static void oracle_rank(int *rank, int n, const int *z, const double *d, const Segs *G, int desc) {
    int *order = NEW(int, n);
    for (int k = 0; k < n; ++k) order[k] = k;
    g_sort_segs = G;
    g_sort_z = z;
    g_sort_d = d;
    g_sort_desc = desc;
    qsort(order, (size_t) n, sizeof(int), sort_cmp);
    for (int t = 0; t < n; ++t) rank[order[t]] = t - (G ? G->start[G->seg[order[t]]] : 0);
    free(order);
}

#define PACK(S, T, X)                                                                          \
    static void t_pack_##S(const Data *D, const Segs *G) {                                     \
        int n = D->n, m = G->m, mark = g_next_slot, kept = 0;                                  \
        const T *x = X;                                                                        \
        T *e = NEW(T, n);                                                                      \
        int *counts = NEW(int, m);                                                             \
        for (int k = 0; k < n; ++k)                                                            \
            if (D->bc[k]) e[kept++] = x[k];                                                    \
        for (int j = 0; j < m; ++j) {                                                          \
            counts[j] = 0;                                                                     \
            for (int k = G->start[j]; k < G->start[j] + G->len[j]; ++k) counts[j] += D->bc[k] != 0; \
        }                                                                                      \
        vec_p vx = new_##S(x, n), vf = new_b(D->bc, n), vd = slot();                           \
        pk2_lu##S(vd, vx, vf, n, kept, NUL);                                                   \
        check_##S("pk2_lu" #S, vd, e, kept);                                                   \
        pk2_lu##S(vd, vx, vf, n, kept + 1, NUL);                                               \
        expect_error("pk2_lu" #S " (wrong destination length)");                               \
        {                                                                                      \
            Segs P;                                                                            \
            segs_make(&P, kept, m, counts);                                                    \
            vd = slot();                                                                       \
            pk2_le##S(vd, vx, vf, G->sd, n, m, P.sd, kept, m, NUL);                            \
            check_##S("pk2_le" #S, vd, e, kept);                                               \
            segs_free(&P);                                                                     \
        }                                                                                      \
        free(e);                                                                               \
        free(counts);                                                                          \
        g_next_slot = mark;                                                                    \
    }
PACK(z, int, D->za)
PACK(b, cvl_bool, D->ba)
PACK(d, double, D->dx)

static void t_library(const Data *D, const Segs *G) {
    int n = D->n, m = G->m, mark = g_next_slot;
    int *e = NEW(int, n > m ? n : m), *init = NEW(int, m), *stride = NEW(int, m);
    vec_p vd = slot();
    /* ind_luz, ind_lez */
    {
        int a = pick_int(), b = pick_int();
        for (int k = 0; k < n; ++k) e[k] = o_add(a, o_mul(k, b));
        ind_luz(vd, a, b, n, NUL);
        check_z("ind_luz", vd, e, n);
    }
    for (int j = 0; j < m; ++j) {
        init[j] = pick_int();
        stride[j] = rin(-3, 3);
    }
    for (int k = 0; k < n; ++k) {
        int j = G->seg[k];
        e[k] = o_add(init[j], o_mul(k - G->start[j], stride[j]));
    }
    {
        vec_p vi = new_z(init, m), vs = new_z(stride, m);
        ind_lez(vd, vi, vs, G->sd, n, m, NUL);
        check_z("ind_lez", vd, e, n);
    }
    /* pk1_luv, pk1_lev */
    {
        vec_p vf = new_b(D->bc, n);
        int count = 0, r;
        for (int k = 0; k < n; ++k) count += D->bc[k] != 0;
        r = pk1_luv(vf, n, NUL);
        check_value("pk1_luv", r, count, r == count);
        for (int j = 0; j < m; ++j) {
            e[j] = 0;
            for (int k = G->start[j]; k < G->start[j] + G->len[j]; ++k) e[j] += D->bc[k] != 0;
        }
        pk1_lev(vd, vf, G->sd, n, m, NUL);
        check_z("pk1_lev", vd, e, m);
    }
    t_pack_z(D, G);
    t_pack_b(D, G);
    t_pack_d(D, G);
    /* ranks: small keys with many ties; then the whole int range (INT_MIN, INT_MAX) and
     * doubles with NaN, infinities and -0.0 */
    {
        const int *zkeys[2] = {D->zk, D->za};
        const double *dkeys[2] = {D->dk, D->dx};
        int keys_mark = g_next_slot;
        for (int s = 0; s < 2; ++s, g_next_slot = keys_mark) {
            const int *zk = zkeys[s];
            const double *dk = dkeys[s];
            vec_p vz = new_z(zk, n), vdd = new_d(dk, n);
            oracle_rank(e, n, zk, 0, 0, 0);
            rku_luz(vd, vz, n, NUL);
            check_z("rku_luz", vd, e, n);
            oracle_rank(e, n, zk, 0, 0, 1);
            rkd_luz(vd, vz, n, NUL);
            check_z("rkd_luz", vd, e, n);
            oracle_rank(e, n, 0, dk, 0, 0);
            rku_lud(vd, vdd, n, NUL);
            check_z("rku_lud", vd, e, n);
            oracle_rank(e, n, 0, dk, 0, 1);
            rkd_lud(vd, vdd, n, NUL);
            check_z("rkd_lud", vd, e, n);
            oracle_rank(e, n, zk, 0, G, 0);
            rku_lez(vd, vz, G->sd, n, m, NUL);
            check_z("rku_lez", vd, e, n);
            oracle_rank(e, n, zk, 0, G, 1);
            rkd_lez(vd, vz, G->sd, n, m, NUL);
            check_z("rkd_lez", vd, e, n);
            oracle_rank(e, n, 0, dk, G, 0);
            rku_led(vd, vdd, G->sd, n, m, NUL);
            check_z("rku_led", vd, e, n);
            oracle_rank(e, n, 0, dk, G, 1);
            rkd_led(vd, vdd, G->sd, n, m, NUL);
            check_z("rkd_led", vd, e, n);
        }
    }
    free(e);
    free(init);
    free(stride);
    g_next_slot = mark;
}

/* ------------------------------------------------------------- facilities (f) */

static void t_facilities(const Data *D, const Segs *G) {
    int n = D->n, m = G->m, mark = g_next_slot;
    int per = (n + g_nranks - 1) / g_nranks; /* most elements on a rank */
    check_value("siz_fod", siz_fod(n), per, siz_fod(n) == per);
    check_value("siz_foz", siz_foz(n), (per + 1) / 2, siz_foz(n) == (per + 1) / 2);
    check_value("siz_fob", siz_fob(n), (per + 7) / 8, siz_fob(n) == (per + 7) / 8);
    {
        vec_p vx = new_d(D->dx, n), vd = slot();
        mov_fov(vd, vx, siz_fod(n), NUL);
        check_d("mov_fov", vd, D->dx, n);
    }
    { /* a copy of the descriptor works like the original */
        vec_p copy = alo_foz(siz_fos(n, m)), vl = slot();
        int *e = NEW(int, n);
        cpy_wus(copy, G->sd, n, m, NUL);
        len_fos(vl, copy, n, m, NUL);
        check_z("cpy_wus", vl, G->len, m);
        for (int k = 0, acc = 0; k < n; ++k) {
            if (k == G->start[G->seg[k]]) acc = 0;
            e[k] = acc;
            acc = o_add(acc, D->za[k]);
        }
        {
            vec_p vx = new_z(D->za, n);
            add_sez(vl, vx, copy, n, m, NUL);
            check_z("add_sez (copied descriptor)", vl, e, n);
        }
        fre_fov(copy);
        free(e);
    }
    { /* a descriptor used with other lengths is an error */
        vec_p vx = new_z(D->za, n), vd = slot();
        if (g_errors_return) {
            add_sez(vd, vx, G->sd, n + 1, m, NUL);
            expect_error("add_sez (descriptor of other lengths)");
        }
    }
    g_next_slot = mark;
}

/* ------------------------------------------------------- fixed cases, errors */

/* The largest of x over the ranks, through CVL itself: element r of the vector comes
 * from rank r's array (each rank passes its own value everywhere). */
static int agree_max(int x) {
    int *a = NEW(int, g_nranks), r;
    vec_p v = alo_foz(siz_foz(g_nranks));
    for (int k = 0; k < g_nranks; ++k) a[k] = x;
    c2v_fuz(v, a, g_nranks, NUL);
    r = max_ruz(v, g_nranks, NUL);
    fre_fov(v);
    free(a);
    return r;
}

static int text_hash(const char *s) {
    unsigned h = 2166136261u;
    for (; *s; ++s) h = (h ^ (unsigned char) *s) * 16777619u;
    return (int) (h & 0x3fffffff);
}

/* The error is the same on every rank (code and message). */
static void expect_agreed_error(const char *fn) {
    int code = CVL_error(), h = text_hash(CVL_error_message());
    g_checks++;
    if (code != CVL_ERR_ARG) failf(fn, "expected an argument error, got code %d", code);
    CVL_clear_error();
    if (agree_max(h) != -agree_max(-h) || agree_max(code) != -agree_max(-code))
        failf(fn, "the ranks report different errors");
}

/* siz_fos against the 1995 MPI CVL's descriptor size at this rank count: units of 8
 * bytes, 2 siz_foz(m) + siz_foz(n) + 1 with siz_foz(x) = ceil(ceil(x/p) / 2) (two ints
 * per unit). Ours must never be larger. */
static long long fos_1995(int n, int m) {
    const long long p = g_nranks, bn = (n + p - 1) / p, bm = (m + p - 1) / p;
    return 2 * ((bm + 1) / 2) + (bn + 1) / 2 + 1;
}

static void t_descriptor_size(void) {
    static const int sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 31, 63, 64, 65, 100, 127, 128,
                                129, 500, 999, 1000, 1001, 4096, 65537, 500000, 1000000, 123456789, INT_MAX / 2,
                                INT_MAX - 1, INT_MAX};
    const int count = (int) (sizeof sizes / sizeof sizes[0]);
    g_seed = 0;
    g_n = g_m = -1;
    for (int a = 0; a < count; ++a)
        for (int b = 0; b < count; ++b) {
            const int n = sizes[a], m = sizes[b];
            const long long theirs = fos_1995(n, m);
            long long ours;
            if (theirs > INT_MAX) continue; /* beyond an int result in both libraries */
            ours = siz_fos(n, m);
            g_checks++;
            if (!no_error("siz_fos")) return;
            if (ours < 1 || ours > theirs) failf("siz_fos", "siz_fos(%d, %d) = %lld units, the 1995 library's %lld", n, m,
                                                  ours, theirs);
        }
    /* every small (n, m), where the rounding of both formulas matters most */
    for (int n = 0; n <= 3 * g_nranks + 4; ++n)
        for (int m = 0; m <= 3 * g_nranks + 4; ++m) {
            g_checks++;
            if (siz_fos(n, m) > fos_1995(n, m))
                failf("siz_fos", "siz_fos(%d, %d) = %d units, the 1995 library's %lld", n, m, siz_fos(n, m),
                      fos_1995(n, m));
        }
}

static void t_fixed(void) {
    g_seed = 0;
    g_n = g_m = -1;
    g_slot_units = siz_fod(64) + 1;
    g_slots = 16;
    g_pool = alo_foz(g_slots * g_slot_units);
    g_next_slot = 0;
    { /* the interface's example: add_sez on [10..15] with lengths [3,0,3] */
        int x[6] = {10, 11, 12, 13, 14, 15}, len[3] = {3, 0, 3}, e[6] = {0, 10, 21, 0, 13, 27};
        int r[3] = {33, 0, 42};
        Segs G;
        segs_make(&G, 6, 3, len);
        vec_p vx = new_z(x, 6), vd = slot();
        add_sez(vd, vx, G.sd, 6, 3, NUL);
        check_z("add_sez (interface example)", vd, e, 6);
        add_rez(vd, vx, G.sd, 6, 3, NUL);
        check_z("add_rez (interface example)", vd, r, 3);
        segs_free(&G);
    }
    { /* rku_luz([5,3,5,1,9,3]) = [3,1,4,0,5,2] */
        int x[6] = {5, 3, 5, 1, 9, 3}, e[6] = {3, 1, 4, 0, 5, 2};
        vec_p vx = new_z(x, 6), vd = slot();
        rku_luz(vd, vx, 6, NUL);
        check_z("rku_luz (interface example)", vd, e, 6);
    }
    { /* rou_wud rounds half to even */
        double x[8] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, -7.5};
        int e[8] = {0, 2, 2, 0, -2, -2, 2, -8};
        vec_p vx = new_d(x, 8), vd = slot();
        rou_wud(vd, vx, 8, NUL);
        check_z("rou_wud (ties)", vd, e, 8);
    }
    { /* identities of empty inputs */
        vec_p v = slot();
        check_value("add_ruz (empty)", add_ruz(v, 0, NUL), 0, add_ruz(v, 0, NUL) == 0);
        check_value("mul_rud (empty)", mul_rud(v, 0, NUL), 1, mul_rud(v, 0, NUL) == 1.0);
        check_value("min_ruz (empty)", min_ruz(v, 0, NUL), INT_MAX, min_ruz(v, 0, NUL) == INT_MAX);
        check_value("max_ruz (empty)", max_ruz(v, 0, NUL), INT_MIN, max_ruz(v, 0, NUL) == INT_MIN);
        check_value("min_rud (empty)", min_rud(v, 0, NUL), DBL_MAX, min_rud(v, 0, NUL) == DBL_MAX);
        check_value("max_rud (empty)", max_rud(v, 0, NUL), -DBL_MAX, max_rud(v, 0, NUL) == -DBL_MAX);
        check_value("and_rub (empty)", and_rub(v, 0, NUL), 1, and_rub(v, 0, NUL) == 1);
        check_value("ior_rub (empty)", ior_rub(v, 0, NUL), 0, ior_rub(v, 0, NUL) == 0);
        check_value("and_ruz (empty)", and_ruz(v, 0, NUL), -1, and_ruz(v, 0, NUL) == -1);
    }
    { /* a segment holding only +inf reduces to +inf, an empty one to DBL_MAX */
        double x[2] = {HUGE_VAL, -HUGE_VAL}, e[3] = {HUGE_VAL, DBL_MAX, -HUGE_VAL}, ex[3] = {HUGE_VAL, -DBL_MAX, -HUGE_VAL};
        int len[3] = {1, 0, 1};
        Segs G;
        segs_make(&G, 2, 3, len);
        vec_p vx = new_d(x, 2), vd = slot();
        min_red(vd, vx, G.sd, 2, 3, NUL);
        check_d("min_red (infinities)", vd, e, 3);
        max_red(vd, vx, G.sd, 2, 3, NUL);
        check_d("max_red (infinities)", vd, ex, 3);
        segs_free(&G);
    }
    { /* memory: blocks, handle arithmetic, reuse, growth */
        int x[5] = {1, 2, 3, 4, 5}, y[5];
        vec_p a = alo_foz(10), b = alo_foz(20), c = alo_foz(siz_foz(5)), big;
        no_error("alo_foz");
        g_checks++;
        if (!a || !b || !c || a == b || b == c || a == c) failf("alo_foz", "handles %d %d %d", a, b, c);
        if (sub_fov(add_fov(a, 3), a) != 3 || sub_fov(a, add_fov(a, 3)) != 3 || !eql_fov(a, add_fov(a, 0)) || eql_fov(a, b) ||
            cmp_fov(a, add_fov(a, 1)) >= 0 || cmp_fov(add_fov(a, 1), a) <= 0 || cmp_fov(a, a) != 0)
            failf("add_fov/sub_fov/eql_fov/cmp_fov", "handle arithmetic");
        c2v_fuz(c, x, 5, NUL);
        fre_fov(b);
        b = alo_foz(15);
        big = alo_foz(1 << 20); /* grows the arena */
        no_error("alo_foz (growth)");
        v2c_fuz(y, c, 5, NUL);
        g_checks++;
        if (memcmp(x, y, sizeof x) != 0) failf("alo_foz", "a block's contents changed when others were allocated");
        fre_fov(big);
        fre_fov(add_fov(a, 1));
        expect_agreed_error("fre_fov (not a block)");
        (void) alo_foz(-1);
        expect_error("alo_foz (negative size)");
        fre_fov(c);
        add_wuz(c, c, c, 5, NUL);
        expect_error("add_wuz (freed vector)");
        add_wuz(a, a, a, -1, NUL);
        expect_error("add_wuz (negative length)");
        add_wud(a, a, a, 100000, NUL);
        expect_error("add_wud (vector larger than its block)");
        fre_fov(a);
        fre_fov(b);
        no_error("fre_fov");
    }
    { /* mke_fov rejects negative lengths and lengths that do not sum to n */
        int bad1[3] = {2, -1, 3}, bad2[3] = {1, 1, 1};
        vec_p sd = alo_foz(siz_fos(4, 3)), vl = new_z(bad1, 3);
        mke_fov(sd, vl, 4, 3, NUL);
        expect_agreed_error("mke_fov (negative length)");
        put_z(vl, bad2, 3);
        mke_fov(sd, vl, 4, 3, NUL);
        expect_agreed_error("mke_fov (lengths do not sum to n)");
        if (g_errors_return) {
            add_sez(vl, vl, sd, 4, 3, NUL);
            expect_error("add_sez (no descriptor)");
        }
        fre_fov(sd);
    }
    { /* an index out of range on one rank only fails every rank alike */
        int n = 2 * g_nranks + 1, *p = NEW(int, n);
        for (int k = 0; k < n; ++k) p[k] = k;
        p[n - 1] = n + 5; /* held by the last rank */
        vec_p vi = new_z(p, n), vx = new_z(p, n), vd = slot();
        smp_puz(vd, vx, vi, n, NUL);
        expect_agreed_error("smp_puz (bad index on the last rank)");
        free(p);
    }
    { /* timers */
        cvl_timer_t t1, t2;
        tgt_fos(&t1);
        tgt_fos(&t2);
        g_checks++;
        if (tdf_fos(&t2, &t1) < 0.0) failf("tdf_fos", "negative interval");
    }
    { /* rnd_wuz gives the same numbers at every rank count */
        int n = 100, *s = NEW(int, n), *r = NEW(int, n);
        unsigned h = 0;
        for (int k = 0; k < n; ++k) s[k] = 1000 + k;
        vec_p vs = new_z(s, n), vr = slot();
        rnd_foz(12345);
        rnd_wuz(vr, vs, n, NUL);
        rnd_wuz(vr, vr, n, NUL);
        v2c_fuz(r, vr, n, NUL);
        for (int k = 0; k < n; ++k) h = h * 31u + (unsigned) r[k];
        g_checks++;
        if (h != RND_GOLDEN) failf("rnd_wuz", "checksum %u, expected %u", h, (unsigned) RND_GOLDEN);
        free(s);
        free(r);
    }
    fre_fov(g_pool);
    no_error("fre_fov");
}

/* Every X_scratch and X_inplace companion exists and answers sensibly. */
#define COMPANIONS \
    C1(max_wuz) \
    C1(max_wud) \
    C1(min_wuz) \
    C1(min_wud) \
    C1(add_wuz) \
    C1(add_wud) \
    C1(sub_wuz) \
    C1(sub_wud) \
    C1(mul_wuz) \
    C1(mul_wud) \
    C1(div_wuz) \
    C1(div_wud) \
    C1(grt_wuz) \
    C1(grt_wud) \
    C1(les_wuz) \
    C1(les_wud) \
    C1(geq_wuz) \
    C1(geq_wud) \
    C1(leq_wuz) \
    C1(leq_wud) \
    C1(eql_wuz) \
    C1(eql_wud) \
    C1(neq_wuz) \
    C1(neq_wud) \
    C1(lsh_wuz) \
    C1(rsh_wuz) \
    C1(mod_wuz) \
    C1(and_wub) \
    C1(and_wuz) \
    C1(ior_wub) \
    C1(ior_wuz) \
    C1(xor_wub) \
    C1(xor_wuz) \
    C1(eql_wub) \
    C1(neq_wub) \
    C1(sel_wuz) \
    C1(sel_wub) \
    C1(sel_wud) \
    C1(not_wub) \
    C1(not_wuz) \
    C1(int_wud) \
    C1(int_wub) \
    C1(dbl_wuz) \
    C1(boo_wuz) \
    C1(flr_wud) \
    C1(cei_wud) \
    C1(trn_wud) \
    C1(rou_wud) \
    C1(exp_wud) \
    C1(log_wud) \
    C1(sqt_wud) \
    C1(sin_wud) \
    C1(cos_wud) \
    C1(tan_wud) \
    C1(asn_wud) \
    C1(acs_wud) \
    C1(atn_wud) \
    C1(snh_wud) \
    C1(csh_wud) \
    C1(tnh_wud) \
    C1(cpy_wuz) \
    C1(cpy_wub) \
    C1(cpy_wud) \
    C1(rnd_wuz) \
    C2(cpy_wus) \
    C1(add_suz) \
    C1(add_sud) \
    C1(mul_suz) \
    C1(mul_sud) \
    C1(min_suz) \
    C1(min_sud) \
    C1(max_suz) \
    C1(max_sud) \
    C1(and_sub) \
    C1(and_suz) \
    C1(ior_sub) \
    C1(ior_suz) \
    C1(xor_sub) \
    C1(xor_suz) \
    C2(add_sez) \
    C2(add_sed) \
    C2(mul_sez) \
    C2(mul_sed) \
    C2(min_sez) \
    C2(min_sed) \
    C2(max_sez) \
    C2(max_sed) \
    C2(and_seb) \
    C2(and_sez) \
    C2(ior_seb) \
    C2(ior_sez) \
    C2(xor_seb) \
    C2(xor_sez) \
    C1(add_ruz) \
    C1(add_rud) \
    C1(mul_ruz) \
    C1(mul_rud) \
    C1(min_ruz) \
    C1(min_rud) \
    C1(max_ruz) \
    C1(max_rud) \
    C1(and_rub) \
    C1(and_ruz) \
    C1(ior_rub) \
    C1(ior_ruz) \
    C1(xor_rub) \
    C1(xor_ruz) \
    C2(add_rez) \
    C2(add_red) \
    C2(mul_rez) \
    C2(mul_red) \
    C2(min_rez) \
    C2(min_red) \
    C2(max_rez) \
    C2(max_red) \
    C2(and_reb) \
    C2(and_rez) \
    C2(ior_reb) \
    C2(ior_rez) \
    C2(xor_reb) \
    C2(xor_rez) \
    C1(ext_vuz) \
    C1(ext_vub) \
    C1(ext_vud) \
    C2(ext_vez) \
    C2(ext_veb) \
    C2(ext_ved) \
    C1(rep_vuz) \
    C1(rep_vub) \
    C1(rep_vud) \
    C2(rep_vez) \
    C2(rep_veb) \
    C2(rep_ved) \
    C1(dis_vuz) \
    C1(dis_vub) \
    C1(dis_vud) \
    C2(dis_vez) \
    C2(dis_veb) \
    C2(dis_ved) \
    C1(smp_puz) \
    C1(smp_pub) \
    C1(smp_pud) \
    C2(smp_pez) \
    C2(smp_peb) \
    C2(smp_ped) \
    C2(bck_puz) \
    C2(bck_pub) \
    C2(bck_pud) \
    C4(bck_pez) \
    C4(bck_peb) \
    C4(bck_ped) \
    C2(fpm_puz) \
    C2(fpm_pub) \
    C2(fpm_pud) \
    C4(fpm_pez) \
    C4(fpm_peb) \
    C4(fpm_ped) \
    C2(bfp_puz) \
    C2(bfp_pub) \
    C2(bfp_pud) \
    C4(bfp_pez) \
    C4(bfp_peb) \
    C4(bfp_ped) \
    C2(dpe_puz) \
    C2(dpe_pub) \
    C2(dpe_pud) \
    C4(dpe_pez) \
    C4(dpe_peb) \
    C4(dpe_ped) \
    C2(dfp_puz) \
    C2(dfp_pub) \
    C2(dfp_pud) \
    C4(dfp_pez) \
    C4(dfp_peb) \
    C4(dfp_ped) \
    C1(ind_luz) \
    C2(ind_lez) \
    C1(pk1_luv) \
    C2(pk1_lev) \
    C1(pk2_luz) \
    C1(pk2_lub) \
    C1(pk2_lud) \
    C4(pk2_lez) \
    C4(pk2_leb) \
    C4(pk2_led) \
    C1(rku_luz) \
    C1(rku_lud) \
    C1(rkd_luz) \
    C1(rkd_lud) \
    C2(rku_lez) \
    C2(rku_led) \
    C2(rkd_lez) \
    C2(rkd_led) \
    C1(mov_fov) \
    C2(mke_fov) \
    C2(len_fos) \
    C1(v2c_fuz) \
    C1(v2c_fub) \
    C1(v2c_fud) \
    C1(c2v_fuz) \
    C1(c2v_fub) \
    C1(c2v_fud)
static void t_companions(void) {
#define C1(NAME) if (NAME##_scratch(7) < 0 || NAME##_inplace() > 0xFFFu) failf(#NAME, "companions");
#define C2(NAME) if (NAME##_scratch(7, 3) < 0 || NAME##_inplace() > 0xFFFu) failf(#NAME, "companions");
#define C4(NAME) if (NAME##_scratch(7, 3, 5, 3) < 0 || NAME##_inplace() > 0xFFFu) failf(#NAME, "companions");
    COMPANIONS
#undef C1
#undef C2
#undef C4
    g_checks++;
    if (add_wuz_inplace() != (INPLACE_1 | INPLACE_2) || add_suz_inplace() != INPLACE_1 ||
        sel_wud_inplace() != (INPLACE_1 | INPLACE_2 | INPLACE_3) || smp_puz_inplace() != INPLACE_NONE)
        failf("X_inplace", "masks");
}

/* ------------------------------------------------------------------- cases */

/* --length N: every case has between N and N + N/8 elements (long vectors, where each
 * rank holds more than one 2^16-element window of the permutation engines). */
static int g_length = 0;

static void run_case(unsigned long long seed) {
    Data D;
    Segs G, NE;
    int n, m, m2, *len, *len2;
    rseed(seed);
    g_seed = seed;
    switch (g_length > 0 ? -1 : rin(0, 9)) {
    case -1: n = rin(g_length, g_length + g_length / 8); break;
    case 0: n = 0; break;
    case 1: n = 1; break;
    case 2: n = rin(2, g_nranks + 1); break;
    case 7:
    case 8: n = rin(61, 400); break;
    case 9: n = rin(1025, 2500); break; /* ranks by sample sort */
    default: n = rin(2, 60); break;
    }
    data_make(&D, n);
    len = gen_lengths(n, &m, 0);
    len2 = gen_lengths(n, &m2, 1);
    g_n = n;
    g_m = m;
    g_slot_units = siz_fod(3 * n + 3 * m + 8) + 1;
    g_slots = 48;
    g_pool = alo_foz(g_slots * g_slot_units);
    g_next_slot = 0;
    no_error("alo_foz");
    segs_make(&G, n, m, len);
    segs_make(&NE, n, m2, len2);

    t_facilities(&D, &G);
    t_elementwise(&D);
    t_rnd(&D);
    t_scans(&D, &G);
    t_vs_z(&D, &G, &NE);
    t_vs_b(&D, &G, &NE);
    t_vs_d(&D, &G, &NE);
    t_perm_z(&D);
    t_perm_b(&D);
    t_perm_d(&D);
    t_sperm_z(&D, &G);
    t_sperm_b(&D, &G);
    t_sperm_d(&D, &G);
    t_library(&D, &G);

    segs_free(&G);
    segs_free(&NE);
    fre_fov(g_pool);
    no_error("fre_fov");
    free(len);
    free(len2);
    data_free(&D);
}

int main(int argc, char **argv) {
    int cases = 60, failed;
    unsigned long long seed = 1;
    CVL_init(&argc, &argv);
    g_rank = CVL_rank();
    g_nranks = CVL_nranks();
    {
        const char *check = getenv("DATAMOTION_CHECK");
        g_errors_return = g_nranks == 1 || (check && *check && strcmp(check, "0") != 0);
    }
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--cases") == 0 && a + 1 < argc) cases = atoi(argv[++a]);
        else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) seed = strtoull(argv[++a], 0, 10);
        else if (strcmp(argv[a], "--length") == 0 && a + 1 < argc) g_length = atoi(argv[++a]);
    }
    if (CVL_error() != CVL_OK) {
        fprintf(stderr, "CVL_init failed: %s\n", CVL_error_message());
        return 2;
    }
    t_companions();
    t_descriptor_size();
    t_fixed();
    for (int c = 0; c < cases; ++c) run_case(seed + (unsigned long long) c);
    failed = agree_max(g_failures > 0);
    if (g_rank == 0)
        printf("cvl conformance at %d rank(s): %d cases, %ld checks, %s\n", g_nranks, cases, g_checks,
               failed ? "FAILED" : "all passed");
    CVL_quit();
    return failed ? 1 : 0;
}
