/* Vector memory per rank against the serial CVL's. A program that fits in M units of the
 * serial CVL (a vector of n ints takes ceil(n/2) units, a descriptor of m segments the
 * m lengths: ceil(m/2)) must fit at p ranks in the sum of its objects' serial units
 * divided by p, each rounded up, plus 2 units per descriptor (docs/cvl.md, "Vector
 * memory per rank"): so NESL's vinterp, which carves all its vectors out of one block of
 * -m units per rank, fits at p ranks what it fits serially.
 *
 * Checks siz_fos and siz_foz against that rule on a grid of lengths, then carves, as
 * vinterp does, one block of exactly that size into the lengths, descriptor, values,
 * scan and reduction of ROUNDS segmented vectors (singletons, short segments with empty
 * ones, and runs), more than the library keeps element sides for, computes on each and
 * again on the first ones, whose element sides were dropped by then, moves one
 * descriptor within the block (as vinterp's compaction does) and copies another, and
 * compares every result with a serial oracle. Rank 0 prints "PASSED" when every rank
 * passed; with --large it also uses one descriptor whose element side is too large to
 * be kept (2^22 + 8 singleton segments). */
#include <cvl.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUL CVL_SCRATCH_NULL
enum { ROUNDS = 80 };

static int g_failures;

static void failf(const char *what, long long got, long long want) {
    if (g_failures++ < 10) fprintf(stderr, "rank %d: %s: %lld, want %lld\n", CVL_rank(), what, got, want);
}

static int serial_foz(int n) { return (n + 1) / 2; }
static int per_rank(int serial_units) { return (serial_units + CVL_nranks() - 1) / CVL_nranks(); }

static void check_sizes(void) {
    static const int sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 999, 1000, 1001, 65537, 1000000, 123456789};
    const int count = (int) (sizeof sizes / sizeof sizes[0]);
    for (int a = 0; a < count; ++a) {
        if (siz_foz(sizes[a]) > per_rank(serial_foz(sizes[a])))
            failf("siz_foz against 1/p of the serial CVL's", siz_foz(sizes[a]), per_rank(serial_foz(sizes[a])));
        for (int b = 0; b < count; ++b)
            if (siz_fos(sizes[a], sizes[b]) > per_rank(serial_foz(sizes[b])) + 2)
                failf("siz_fos against 1/p of the serial CVL's + 2", siz_fos(sizes[a], sizes[b]),
                      per_rank(serial_foz(sizes[b])) + 2);
    }
}

/* Segment lengths of round k: n elements in *m segments. */
static int *round_lengths(int k, int n, int *m) {
    int *len = malloc(sizeof(int) * (size_t) (n + 1) * 2);
    int count = 0, left = n;
    unsigned state = 12345u + (unsigned) k;
    while (left > 0) {
        int l;
        switch (k % 3) {
        case 0: l = 1; break;                       /* singletons: m = n */
        case 1: l = (count % 3 == 2) ? 0 : 2; break; /* pairs with empty segments between */
        default: state = state * 1103515245u + 12345u; l = (int) (state >> 16) % 6; break;
        }
        if (l > left) l = left;
        len[count++] = l;
        left -= l;
    }
    *m = count;
    return len;
}

typedef struct {
    int n, m, *len, *x;
    vec_p l, sd, vx, scan, sum;
} Round;

/* The block, carved from the front like vinterp's vector stack. */
static vec_p g_block;
static int g_used, g_size;
static vec_p carve(int units) {
    vec_p v = add_fov(g_block, g_used);
    g_used += units;
    if (g_used > g_size) failf("units carved out of the block that fits serially", g_used, g_size);
    return v;
}

static void check_round(const Round *r, vec_p sd, const char *what) {
    int *got = malloc(sizeof(int) * (size_t) (r->n + 1));
    char label[96];
    add_sez(r->scan, r->vx, sd, r->n, r->m, NUL);
    v2c_fuz(got, r->scan, r->n, NUL);
    for (int j = 0, i = 0; j < r->m; ++j)
        for (int acc = 0, t = 0; t < r->len[j]; ++t, ++i) {
            if (got[i] != acc) {
                snprintf(label, sizeof label, "add_sez %s (n = %d, m = %d) at %d", what, r->n, r->m, i);
                failf(label, got[i], acc);
            }
            acc += r->x[i];
        }
    add_rez(r->sum, r->vx, sd, r->n, r->m, NUL);
    v2c_fuz(got, r->sum, r->m, NUL);
    for (int j = 0, i = 0; j < r->m; ++j) {
        int acc = 0;
        for (int t = 0; t < r->len[j]; ++t) acc += r->x[i++];
        if (got[j] != acc) {
            snprintf(label, sizeof label, "add_rez %s (n = %d, m = %d) segment %d", what, r->n, r->m, j);
            failf(label, got[j], acc);
        }
    }
    free(got);
}

static void make_round(Round *r, int n, int k) {
    r->n = n;
    r->len = round_lengths(k, n, &r->m);
    r->x = malloc(sizeof(int) * (size_t) (n + 1));
    for (int i = 0; i < n; ++i) r->x[i] = (i * 7 + k) % 11 - 5;
    r->l = carve(siz_foz(r->m));
    r->sd = carve(siz_fos(n, r->m));
    r->vx = carve(siz_foz(n));
    r->scan = carve(siz_foz(n));
    r->sum = carve(siz_foz(r->m));
    if (g_used > g_size) return;
    c2v_fuz(r->l, r->len, r->m, NUL);
    c2v_fuz(r->vx, r->x, n, NUL);
    mke_fov(r->sd, r->l, n, r->m, NUL);
}

static void free_round(Round *r) {
    free(r->len);
    free(r->x);
}

/* The units per rank the rounds may take by the rule: each object 1/p of its serial
 * units, rounded up, and 2 more per descriptor; the lengths, values, scan and sums are
 * int vectors of m, n, n and m elements. Then room for a moved and a copied descriptor. */
static int block_units(int rounds, const int *ns) {
    int units = 0, m;
    for (int k = 0; k < rounds; ++k) {
        free(round_lengths(k, ns[k], &m));
        units += 2 * per_rank(serial_foz(m)) + 2 * per_rank(serial_foz(ns[k])); /* vectors */
        units += per_rank(serial_foz(m)) + 2;                                   /* descriptor */
    }
    for (int k = 0; k < 2; ++k) {
        free(round_lengths(k, ns[k], &m));
        units += per_rank(serial_foz(m)) + 2;
    }
    return units;
}

int main(int argc, char **argv) {
    CVL_init(&argc, &argv);
    const int large = argc > 1 && strcmp(argv[1], "--large") == 0;
    check_sizes();

    int ns[ROUNDS + 1];
    for (int k = 0; k < ROUNDS; ++k) ns[k] = 300 + 7 * k;
    int rounds = ROUNDS;
    if (large) ns[rounds++] = (1 << 22) + 8;
    g_size = block_units(rounds, ns);
    g_block = alo_foz(g_size);

    Round *r = calloc((size_t) rounds, sizeof(Round));
    for (int k = 0; k < rounds && g_used <= g_size; ++k) {
        make_round(&r[k], ns[k], k);
        if (g_used <= g_size) check_round(&r[k], r[k].sd, "just made");
    }
    if (g_used <= g_size) {
        for (int k = 0; k < 4; ++k) check_round(&r[k], r[k].sd, "made long ago");
        vec_p moved = carve(siz_fos(r[0].n, r[0].m)), copy = carve(siz_fos(r[1].n, r[1].m));
        if (g_used <= g_size) {
            mov_fov(moved, r[0].sd, siz_fos(r[0].n, r[0].m), NUL);
            cpy_wus(copy, r[1].sd, r[1].n, r[1].m, NUL);
            check_round(&r[0], moved, "with a moved descriptor");
            check_round(&r[1], copy, "with a copied descriptor");
        }
    }
    if (CVL_error() != CVL_OK) failf(CVL_error_message(), CVL_error(), CVL_OK);
    for (int k = 0; k < rounds; ++k) free_round(&r[k]);
    free(r);

    int failures = g_failures, total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (CVL_rank() == 0)
        printf("cvl memory at %d rank(s): %d units per rank carved of %d; %s\n", CVL_nranks(), g_used, g_size,
               total == 0 ? "PASSED" : "FAILED");
    CVL_quit();
    return total == 0 ? 0 : 1;
}
