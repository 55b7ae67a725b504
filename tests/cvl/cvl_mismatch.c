/* Ranks that pass different arguments to a CVL call: every rank must report the same
 * error (CVL_ERR_MISMATCH), none may hang, and the library must work afterwards.
 * Calls that communicate anyway (permutations, reductions, extract, pack) detect it
 * always; purely local calls (elementwise, c2v_fu?) and calls made on some ranks only
 * are verified in checked mode (DATAMOTION_CHECK=1), which this program reads too.
 * Runs at any number of ranks; with one rank nothing can differ and every call works. */
#include <cvl.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks, failures;

/* Collective: the case passes only if it passed on every rank. */
static void expect(int ok, const char *name) {
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        ++failures;
        if (rank == 0) printf("FAIL %s\n", name);
    } else if (rank == 0) {
        printf("ok   %s\n", name);
    }
}

/* With several ranks the call must have failed with CVL_ERR_MISMATCH naming `what`;
 * with one rank it must have succeeded. Clears the error. */
static int mismatch_reported(const char *what) {
    int ok = nranks == 1 ? CVL_error() == CVL_OK
                         : CVL_error() == CVL_ERR_MISMATCH && strstr(CVL_error_message(), what) != NULL;
    if (!ok) fprintf(stderr, "rank %d: error %d: %s\n", rank, CVL_error(), CVL_error_message());
    CVL_clear_error();
    return ok;
}

int main(int argc, char **argv) {
    CVL_init(&argc, &argv);
    rank = CVL_rank();
    nranks = CVL_nranks();
    const char *check = getenv("DATAMOTION_CHECK");
    const int checked = check && *check && strcmp(check, "0") != 0;
    const int odd = rank == nranks - 1 && nranks > 1; /* the rank that disagrees */
    enum { N = 12 };
    int data[N], perm[N], out[N];
    for (int k = 0; k < N; ++k) {
        data[k] = 100 + k;
        perm[k] = N - 1 - k;
    }
    vec_p s = alo_foz(siz_foz(N)), i = alo_foz(siz_foz(N)), d = alo_foz(siz_foz(N));
    c2v_fuz(s, data, N, CVL_SCRATCH_NULL);
    c2v_fuz(i, perm, N, CVL_SCRATCH_NULL);
    CVL_clear_error();

    /* bck_puz with index lengths differing by rank: caught by the count exchange,
     * before any data moves (no "Message truncated"). */
    bck_puz(d, s, i, N, odd ? N - 1 : N, CVL_SCRATCH_NULL);
    {   /* the message shows the value on two ranks that disagree */
        char both[128];
        snprintf(both, sizeof both, "argument len_dest differs across ranks: 12 on rank 0, 11 on rank %d", nranks - 1);
        expect(mismatch_reported(nranks > 1 ? both : "len_dest"), "bck_puz: destination length differs by rank");
    }
    smp_puz(d, s, i, odd ? N - 2 : N, CVL_SCRATCH_NULL);
    expect(mismatch_reported("len_src"), "smp_puz: length differs by rank");

    /* ext_vuz with the index differing by rank. */
    int got = ext_vuz(s, odd ? 5 : 0, N, CVL_SCRATCH_NULL);
    expect(mismatch_reported("argument i"), "ext_vuz: index differs by rank");
    (void) got;

    /* add_ruz with the length differing by rank. */
    int sum = add_ruz(s, odd ? N - 1 : N, CVL_SCRATCH_NULL);
    expect(mismatch_reported("argument len"), "add_ruz: length differs by rank");
    (void) sum;

    /* pk1_luv with the length differing by rank. */
    vec_p f = alo_foz(siz_fob(N));
    dis_vub(f, 1, N, CVL_SCRATCH_NULL);
    (void) pk1_luv(f, odd ? N - 1 : N, CVL_SCRATCH_NULL);
    expect(mismatch_reported("argument len"), "pk1_luv: length differs by rank");

    /* A call made on some ranks only: an extra allocation on the last rank. Its memory
     * grows locally (no hang); the next call that compares signatures reports it. */
    vec_p extra = CVL_SCRATCH_NULL;
    if (odd) extra = alo_foz(1 << 20);
    got = ext_vuz(s, 3, N, CVL_SCRATCH_NULL);
    expect(mismatch_reported(checked ? "calls" : "calls"), "alo_foz on one rank only, then ext_vuz");
    fre_fov(extra);

    if (checked) {
        /* Local calls: verified only in checked mode. */
        add_wuz(d, s, s, odd ? N - 1 : N, CVL_SCRATCH_NULL);
        expect(mismatch_reported("argument len"), "add_wuz (checked): length differs by rank");
        c2v_fuz(d, data, odd ? N - 1 : N, CVL_SCRATCH_NULL);
        expect(mismatch_reported("argument len"), "c2v_fuz (checked): length differs by rank");
        /* The same length, different contents: a permutation index that differs by rank. */
        int other[N];
        memcpy(other, perm, sizeof perm);
        if (odd) other[0] = other[1];
        c2v_fuz(i, other, N, CVL_SCRATCH_NULL);
        expect(mismatch_reported("C array s"), "c2v_fuz (checked): contents differ by rank");
        c2v_fuz(i, perm, N, CVL_SCRATCH_NULL);
        /* Collective calls whose messages carry no signature (outside checked mode a
         * difference ends the job: cvl_disagree.c). */
        add_suz(d, s, odd ? N - 1 : N, CVL_SCRATCH_NULL);
        expect(mismatch_reported("argument len"), "add_suz (checked): length differs by rank");
        int lengths[3] = {5, 0, 7};
        vec_p l = alo_foz(siz_foz(3)), sd = alo_foz(siz_fos(N, 3));
        c2v_fuz(l, lengths, 3, CVL_SCRATCH_NULL);
        mke_fov(sd, l, N, 3, CVL_SCRATCH_NULL);
        add_sez(d, s, sd, odd ? N + 1 : N, 3, CVL_SCRATCH_NULL);
        expect(mismatch_reported("argument n"), "add_sez (checked): length differs by rank");
        v2c_fuz(odd ? NULL : out, s, N, CVL_SCRATCH_NULL);
        expect(mismatch_reported("whether d is NULL"), "v2c_fuz (checked): NULL destination on one rank");
        fre_fov(sd);
        fre_fov(l);
    }

    /* Afterwards the library works on every rank. */
    CVL_clear_error();
    bck_puz(d, s, i, N, N, CVL_SCRATCH_NULL);
    v2c_fuz(out, d, N, CVL_SCRATCH_NULL);
    int ok = CVL_error() == CVL_OK;
    for (int k = 0; k < N; ++k) ok = ok && out[k] == data[N - 1 - k];
    ok = ok && ext_vuz(s, 7, N, CVL_SCRATCH_NULL) == 107 && add_ruz(s, N, CVL_SCRATCH_NULL) == 12 * 100 + 66;
    expect(ok && CVL_error() == CVL_OK, "the library works after the mismatches");

    CVL_quit();
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (rank == 0) printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
