/* datamotion under ScaLAPACK programs: ScaLAPACK's own redistribution entry
 * points (p?gemr2d) and PBLAS's transposes (p?tran, p?tranu, p?tranc), with
 * their exact C and Fortran signatures, carried out by datamotion's
 * redistribution (dm_redist_gemr2d_placed, dm_redist_transform_placed).
 *
 * These live in a library of their own, libdatamotion_scalapack (CMake target
 * datamotion::scalapack, pkg-config datamotion-scalapack), which a ScaLAPACK
 * program picks up by naming it before ScaLAPACK on its link line:
 *
 *     mpicc prog.o -ldatamotion_scalapack -ldatamotion -lscalapack ...
 *
 * The program is not changed and need not include this header: its BLACS
 * contexts, grids and descriptors are ScaLAPACK's own (BLACS is read through
 * Cblacs_gridinfo, Cblacs_get and Cblacs2sys_handle of the program's ScaLAPACK,
 * which must use ScaLAPACK's default 32-bit integers). See
 * docs/scalapack.md.
 *
 * Every entry is collective over the processes of its context `ictxt` (the old
 * entries without one: over every BLACS process), as in ScaLAPACK: each must
 * call, those off a matrix's grid with that descriptor's CTXT set to -1.
 * Arguments are checked as ScaLAPACK's checks go (descriptor entries, the
 * submatrix inside the matrix, LLD against the local rows); a bad one is
 * reported by ScaLAPACK's PXERBLA with its argument number (100 * the
 * descriptor's position + the entry for a descriptor entry, e.g. 605 for
 * DESCA(MB_)), on the ranks that found it, and the call returns without
 * touching B. Any other failure (ranks that disagree, MPI errors) prints
 * datamotion's message and ends the job through Cblacs_abort, as ScaLAPACK's
 * own p?gemr2d ends it: never a wrong answer.
 */
#ifndef DATAMOTION_SCALAPACK_H
#define DATAMOTION_SCALAPACK_H

#ifdef __cplusplus
extern "C" {
#endif

/* B(ib:ib+m-1, jb:jb+n-1) = A(ia:ia+m-1, ja:ja+n-1): the submatrix of A,
 * distributed block-cyclically on one BLACS grid, copied into that of B on
 * another (grids and process groups may differ; `ictxt` holds every process of
 * both). Indices 1-based, descriptors ScaLAPACK's 9 integers. Collective over
 * ictxt. s: float, d: double, c: float complex, z: double complex, i: int. */
void Cpsgemr2d(int m, int n, float *a, int ia, int ja, int *desca, float *b, int ib, int jb, int *descb, int ictxt);
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb, int ictxt);
void Cpcgemr2d(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb, int ictxt);
void Cpzgemr2d(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb, int ictxt);
void Cpigemr2d(int m, int n, int *a, int ia, int ja, int *desca, int *b, int ib, int jb, int *descb, int ictxt);

/* ScaLAPACK's older entries without a context: collective over every BLACS
 * process (BLACS's system context, MPI_COMM_WORLD). */
void Cpsgemr2do(int m, int n, float *a, int ia, int ja, int *desca, float *b, int ib, int jb, int *descb);
void Cpdgemr2do(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb);
void Cpcgemr2do(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb);
void Cpzgemr2do(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb);
void Cpigemr2do(int m, int n, int *a, int ia, int ja, int *desca, int *b, int ib, int jb, int *descb);

/* The Fortran entries (CALL PDGEMR2D(M, N, A, IA, JA, DESCA, B, IB, JB, DESCB,
 * ICTXT)), every argument by reference; collective as their C twins. */
void psgemr2d_(int *m, int *n, float *a, int *ia, int *ja, int *desca, float *b, int *ib, int *jb, int *descb,
               int *ictxt);
void pdgemr2d_(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib, int *jb, int *descb,
               int *ictxt);
void pcgemr2d_(int *m, int *n, void *a, int *ia, int *ja, int *desca, void *b, int *ib, int *jb, int *descb,
               int *ictxt);
void pzgemr2d_(int *m, int *n, void *a, int *ia, int *ja, int *desca, void *b, int *ib, int *jb, int *descb,
               int *ictxt);
void pigemr2d_(int *m, int *n, int *a, int *ia, int *ja, int *desca, int *b, int *ib, int *jb, int *descb, int *ictxt);
void psgemr2do_(int *m, int *n, float *a, int *ia, int *ja, int *desca, float *b, int *ib, int *jb, int *descb);
void pdgemr2do_(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib, int *jb, int *descb);
void pcgemr2do_(int *m, int *n, void *a, int *ia, int *ja, int *desca, void *b, int *ib, int *jb, int *descb);
void pzgemr2do_(int *m, int *n, void *a, int *ia, int *ja, int *desca, void *b, int *ib, int *jb, int *descb);
void pigemr2do_(int *m, int *n, int *a, int *ia, int *ja, int *desca, int *b, int *ib, int *jb, int *descb);

/* PBLAS's transposes: C(ic:ic+m-1, jc:jc+n-1) = beta C + alpha A(ia:ia+n-1,
 * ja:ja+m-1)' (p?tranc: the conjugate transpose), A and C on the same BLACS
 * grid, alpha and beta one value of the type. As PBLAS: beta 0 does not read C,
 * alpha 0 does not read A. Collective over the processes of A's grid. (PBLAS has
 * no pctran or pztran; pctranu and pztranu are the plain complex transposes.) */
void pstran_(int *m, int *n, float *alpha, float *a, int *ia, int *ja, int *desca, float *beta, float *c, int *ic,
             int *jc, int *descc);
void pdtran_(int *m, int *n, double *alpha, double *a, int *ia, int *ja, int *desca, double *beta, double *c, int *ic,
             int *jc, int *descc);
void pctranu_(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta, void *c, int *ic,
              int *jc, int *descc);
void pztranu_(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta, void *c, int *ic,
              int *jc, int *descc);
void pctranc_(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta, void *c, int *ic,
              int *jc, int *descc);
void pztranc_(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta, void *c, int *ic,
              int *jc, int *descc);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_SCALAPACK_H */
