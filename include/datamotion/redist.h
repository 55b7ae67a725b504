/*
 * datamotion/redist.h — redistribution of distributed arrays: a new block size,
 * distribution or process-grid shape for the same data.
 *
 * dm_redist_setup computes once, for a source and a destination array of the
 * same shape and element type (any distributions, grids of any shape over the
 * same ranks), which runs of elements every rank sends to and receives from
 * every other, as MPI datatypes over the arrays' storage (nothing is packed by
 * datamotion). dm_redist_execute then moves the data of any arrays of those two
 * layouts, as often as needed.
 *
 * Methods:
 *   DM_REDIST_ALLTOALLW    one MPI_Alltoallw;
 *   DM_REDIST_NONBLOCKING  every receive posted, every send started, one wait
 *                          (one message per peer);
 *   DM_REDIST_SENDRECV     contention-free phases of MPI_Sendrecv: in each phase
 *                          every rank sends to at most one rank and receives
 *                          from at most one. When one axis changes its block
 *                          size by an integer factor K (r -> K r or K r -> r,
 *                          both on P coordinates starting at 0, other axes
 *                          unchanged) the phases are Walker and Otto's optimal
 *                          schedule (K phases); otherwise rank p sends to
 *                          p + s in phase s;
 *   DM_REDIST_SIMPLE       (integer-factor case only) the paper's synchronised
 *                          phases with the simple schedule B(k, p) = k P + p;
 *   DM_REDIST_RANDOM       (integer-factor case only) the same with a random
 *                          send order per rank;
 *   DM_REDIST_PER_AXIS     one axis at a time (the paper's multi-dimensional
 *                          scheme): a DM_REDIST_SENDRECV plan per axis whose
 *                          distribution changes, through intermediate arrays
 *                          (both arrays on grids of the same shape and ranks);
 *   DM_REDIST_AUTO         DM_REDIST_SENDRECV past 64 MiB sent by a rank,
 *                          else the cheaper of DM_REDIST_NONBLOCKING and
 *                          DM_REDIST_ALLTOALLW as the exchange layer's cost
 *                          model of this MPI prices them (the model every
 *                          executor uses; `datamotion calibrate` measures it).
 */
#ifndef DATAMOTION_REDIST_H
#define DATAMOTION_REDIST_H

#include <datamotion/array.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a redistribution plan moves its data (see the header comment). */
typedef enum dm_redist_method {
    DM_REDIST_AUTO = 0,
    DM_REDIST_ALLTOALLW = 1,
    DM_REDIST_NONBLOCKING = 2,
    DM_REDIST_SENDRECV = 3,
    DM_REDIST_SIMPLE = 4,
    DM_REDIST_RANDOM = 5,
    DM_REDIST_PER_AXIS = 6
} dm_redist_method;

/** A redistribution plan. */
typedef struct dm_redist_s *dm_redist;

/** Collective over the arrays' ranks. Plans the move of `src`'s data into the
 *  layout of `dst`: same shape and element type, grids over the same ranks;
 *  `method` must agree across ranks. The arrays are only read for their layouts.
 *  Ranks that disagree fail alike; a NULL or freed `src` on some ranks ends the job. */
DM_API int dm_redist_setup(dm_array src, dm_array dst, dm_redist_method method, dm_redist *plan);

/** Collective on comm. Like dm_redist_setup for arrays on grids over any groups
 *  of `comm`'s ranks (of different sizes, overlapping or not): a rank passes
 *  NULL for an array whose grid it is not on. `comm` must stay valid while the
 *  plan is used. A freed array handle or a NULL `plan` on some ranks fails on every rank. */
DM_API int dm_redist_setup_groups(MPI_Comm comm, dm_array src, dm_array dst, dm_redist_method method,
                                  dm_redist *plan);

/** Collective (on the plan's ranks). Copies every element of `src` into `dst`,
 *  which must have the layouts the plan was made for and be distinct arrays;
 *  for a plan between groups, NULL where this rank holds no such array. Ghosts
 *  are not touched. A hot path, like dm_pshift_execute: a mistake found on one rank
 *  ends the job naming it (DATAMOTION_CHECK=1: the same error everywhere). */
DM_API int dm_redist_execute(dm_redist plan, dm_array src, dm_array dst);

/** Collective (on the plan's ranks): dm_redist_execute in two halves. dm_redist_begin
 *  starts the first round of messages and copies the part that stays on this rank;
 *  dm_redist_end completes every round. In between the program must not write `src`
 *  nor touch `dst`, and may not free them. Hot paths; begin twice, or end without
 *  begin, is DM_ERR_STATE under the same rule. */
DM_API int dm_redist_begin(dm_redist plan, dm_array src, dm_array dst);
/** Collective (as dm_redist_begin): completes the exchange dm_redist_begin started. */
DM_API int dm_redist_end(dm_redist plan);
/** Local, a hot path: advances the execution that dm_redist_begin started without waiting:
 *  copies what ranks on this node have made ready, unpacks the messages that have
 *  arrived, starts the next round once one has left. `*done` is 1 once only
 *  dm_redist_end's bookkeeping is left. Call it between pieces of computation so that
 *  the exchange advances without an MPI progress thread; dm_redist_end is still
 *  required. DM_ERR_STATE when nothing is in flight. */
DM_API int dm_redist_test(dm_redist plan, int *done);

/** Local. Frees the plan and sets *plan to NULL (a NULL *plan is fine). A plan with
 *  an execution in flight is not freed: DM_ERR_STATE. */
DM_API int dm_redist_free(dm_redist *plan);

/** Local. The method, and how this rank's messages travel and why (see
 *  dm_pshift_describe in shift.h for the text's conventions). */
DM_API int dm_redist_describe(dm_redist plan, char *text, size_t size, size_t *length);

/** Local. The method the plan uses (DM_REDIST_AUTO resolved). */
DM_API int dm_redist_method_used(dm_redist plan, dm_redist_method *method);

/** Local. What one execution moves on this rank: messages sent to and received
 *  from other ranks (one per peer and phase), elements sent, and communication
 *  phases (rounds of messages). */
DM_API int dm_redist_volume(dm_redist plan, int64_t *messages_sent, int64_t *messages_received,
                            int64_t *elements_sent, int64_t *phases);

/* ---- ScaLAPACK-style submatrix copies ---------------------------------------
 * Matrices described by ScaLAPACK's 9-integer descriptors (DTYPE = 1, CTXT, M,
 * N, MB, NB, RSRC, CSRC, LLD; column-major local storage with leading
 * dimension LLD). CTXT names a process grid made with dm_redist_context (in
 * place of BLACS); as in ScaLAPACK, a rank outside a matrix's grid passes a
 * descriptor with CTXT = -1 and may pass NULL for that matrix. The two grids
 * may differ in shape and in the ranks they use (process groups of different
 * sizes): every rank of `comm` must call. Offsets ia, ja, ib, jb are 1-based.
 */

/** Local. Describes a process grid as BLACS's Cblacs_gridinit would: nprow x
 *  npcol ranks of the communicator later passed to dm_redist_pgemr2d, given in
 *  row-major order of the grid (`ranks` NULL: ranks 0 .. nprow*npcol-1).
 *  Stores in *ctxt the number to put in descriptors' CTXT field; ranks that
 *  make the same calls in the same order get the same numbers. */
DM_API int dm_redist_context(int nprow, int npcol, const int ranks[], int *ctxt);

/** Local. The grid of a context: its extents and this process's coordinates
 *  in it (-1, -1 when `rank` of the communicator is not on it). */
DM_API int dm_redist_context_coords(int ctxt, int rank, int *nprow, int *npcol, int *myrow, int *mycol);

/** Collective on comm. B(ib:ib+m-1, jb:jb+n-1) = A(ia:ia+m-1, ja:ja+n-1) for
 *  elements of `dtype`, like ScaLAPACK's p?gemr2d but with contention-aware
 *  schedules and no packing by datamotion. Descriptors are checked on every
 *  rank (a destination too small, inconsistent descriptors, arguments that
 *  differ across ranks fail everywhere with the same status). */
DM_API int dm_redist_gemr2d(dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int desca[9], void *b,
                            int ib, int jb, const int descb[9], MPI_Comm comm);

/** Where the calling rank sits on the process grid of one matrix, as BLACS's
 *  Cblacs_gridinfo tells it: the grid's extents (nprow x npcol) and the rank's
 *  row and column on it; a rank off the grid has myrow = mycol = -1 (the
 *  extents are then not read). The ranks of a grid are numbered in row-major
 *  order of the grid nowhere: each rank says only where it sits. */
typedef struct dm_grid_place {
    int nprow, npcol, myrow, mycol;
} dm_grid_place;

/** Collective on comm. dm_redist_gemr2d with each matrix's grid given by where
 *  each rank sits on it (for grids that another library, such as BLACS, keeps):
 *  the descriptors' CTXT entries are not read, and one allgather over comm
 *  finds which rank holds each grid position (each position exactly one rank of
 *  comm). A rank off a grid passes that place with myrow -1; its descriptor and
 *  data of that matrix are not read (NULL is allowed). DTYPE is not read either,
 *  as ScaLAPACK's p?gemr2d does not read it; LLD may be 0 where a rank holds no
 *  rows. This is the entry behind the ScaLAPACK drop-in (libdatamotion_scalapack). */
DM_API int dm_redist_gemr2d_placed(dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int desca[9],
                                   dm_grid_place a_place, void *b, int ib, int jb, const int descb[9],
                                   dm_grid_place b_place, MPI_Comm comm);

/** How dm_redist_transform reads its source: as it is, transposed, or
 *  transposed and conjugated (complex types; the same as transposed for others). */
typedef enum dm_redist_op {
    DM_REDIST_NO_TRANSPOSE = 0,
    DM_REDIST_TRANSPOSE = 1,
    DM_REDIST_CONJUGATE_TRANSPOSE = 2
} dm_redist_op;

/** Collective on comm. B(ib:ib+m-1, jb:jb+n-1) = alpha op(A) + beta B, where A
 *  is the m x n submatrix at (ia, ja) (op DM_REDIST_NO_TRANSPOSE) or the n x m
 *  one (transposed), redistributed on the way as dm_redist_gemr2d does
 *  (ScaLAPACK's p?tran, p?tranu, p?tranc with grids that may differ). `alpha`
 *  and `beta` each point to one value of `dtype` (NULL: 1 and 0). With beta 0
 *  B's old values are not read; with alpha 0 A is not read and nothing moves
 *  (B = beta B, as PBLAS does); otherwise the moved values land in scratch
 *  memory of B's local size first. No transform of bool values. */
DM_API int dm_redist_transform(dm_dtype dtype, dm_redist_op op, int m, int n, const void *alpha, const void *a, int ia,
                               int ja, const int desca[9], const void *beta, void *b, int ib, int jb,
                               const int descb[9], MPI_Comm comm);

/** Collective on comm. dm_redist_transform with grids given by place, as
 *  dm_redist_gemr2d_placed takes them. */
DM_API int dm_redist_transform_placed(dm_dtype dtype, dm_redist_op op, int m, int n, const void *alpha, const void *a,
                                      int ia, int ja, const int desca[9], dm_grid_place a_place, const void *beta,
                                      void *b, int ib, int jb, const int descb[9], dm_grid_place b_place,
                                      MPI_Comm comm);

/** Collective on comm. dm_redist_gemr2d for double (ScaLAPACK's pdgemr2d). */
DM_API int dm_redist_pgemr2d(int m, int n, const double *a, int ia, int ja, const int desca[9], double *b, int ib,
                             int jb, const int descb[9], MPI_Comm comm);

/** Collective on comm. dm_redist_gemr2d for float (psgemr2d). */
DM_API int dm_redist_psgemr2d(int m, int n, const float *a, int ia, int ja, const int desca[9], float *b, int ib,
                              int jb, const int descb[9], MPI_Comm comm);

/** Collective on comm. dm_redist_gemr2d for single complex, two floats each (pcgemr2d). */
DM_API int dm_redist_pcgemr2d(int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib,
                              int jb, const int descb[9], MPI_Comm comm);

/** Collective on comm. dm_redist_gemr2d for double complex, two doubles each (pzgemr2d). */
DM_API int dm_redist_pzgemr2d(int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib,
                              int jb, const int descb[9], MPI_Comm comm);

/** Collective on comm. dm_redist_gemr2d for int (pigemr2d). */
DM_API int dm_redist_pigemr2d(int m, int n, const int *a, int ia, int ja, const int desca[9], int *b, int ib, int jb,
                              const int descb[9], MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_REDIST_H */
