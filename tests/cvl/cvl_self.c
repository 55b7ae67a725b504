/* A program of the 1995 MPI CVL's kind declares the library's rank variable itself, as
 * NESL's VCODE interpreter does (`extern const int Self;`, printing where Self == 0),
 * and must link against libcvl and see its rank there once CVL_init has set it: the
 * same value as CVL_rank(), a different one on every rank. (The declaration is const,
 * so the compiler may keep a value read before CVL_init: programs read it after.) */
#include <cvl.h>
#include <mpi.h>

#include <stdio.h>

extern const int Self; /* the interpreter's own declaration, repeated on purpose */

int main(int argc, char **argv) {
    CVL_init(&argc, &argv);
    const int nranks = CVL_nranks();
    int ok = Self == CVL_rank() && Self >= 0 && Self < nranks;
    if (!ok) fprintf(stderr, "rank %d: Self is %d\n", CVL_rank(), Self);

    /* Every rank a different Self: their sum is 0 + 1 + ... + (p - 1). */
    int all_ok = 0, sum = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&Self, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    all_ok = all_ok && sum == nranks * (nranks - 1) / 2;

    /* What the interpreter does with it: one rank prints. */
    if (Self == 0) printf("%s\n", all_ok ? "PASSED" : "FAILED");
    CVL_quit();
    return all_ok ? 0 : 1;
}
