/*
 * datamotion/layout.h — process grids and axis distributions.
 *
 * A process grid arranges the ranks of a communicator on a Cartesian grid of
 * 1 to DM_MAX_DIMS axes. The grid keeps its own duplicate of the communicator,
 * so datamotion traffic never mixes with the caller's. Which rank sits at which
 * coordinate is chosen by the grid order:
 *   DM_ORDER_SEND    row-major (last axis fastest), the binary "send" address order:
 *                    the coordinates MPI_Cart_create gives without reordering, so
 *                    rank r owns block r of a 1-d grid. The order to pass unless
 *                    you want one of the others (Python's default);
 *   DM_ORDER_NEWS    binary-reflected Gray code per axis: on power-of-two axes,
 *                    grid neighbours (including the periodic wrap) differ in one bit
 *                    of their rank, as on a hypercube;
 *   DM_ORDER_SHUFFLE bits of the coordinates interleaved (Morton order), keeping
 *                    squares of the grid inside subtrees of a fat tree.
 * On axes whose extent is not a power of two, NEWS and SHUFFLE still give a
 * bijection: ranks are assigned in increasing order of the per-order key.
 *
 * Axis distributions map a global index along an axis of M elements onto N
 * grid coordinates:
 *   DM_DIST_BLOCK        blocks of ceil(M/N), so trailing coordinates are short or
 *                        empty (the CM canonical layout);
 *   DM_DIST_CYCLIC       element g on coordinate g mod N;
 *   DM_DIST_BLOCK_CYCLIC blocks of `block` dealt round-robin starting at coordinate
 *                        `src` (ScaLAPACK's layout);
 *   DM_DIST_SIZES        irregular blocks: coordinate c holds `sizes[c]` consecutive
 *                        elements, in coordinate order (PETSc's ownership ranges).
 * The first three are block-cyclic distributions, whose local extents agree with
 * ScaLAPACK's NUMROC.
 */
#ifndef DATAMOTION_LAYOUT_H
#define DATAMOTION_LAYOUT_H

#include <datamotion/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle to a process grid. */
typedef struct dm_grid_s *dm_grid;

/** Rank order of a process grid (see the file comment). */
typedef enum dm_grid_order {
    DM_ORDER_SEND = 0,
    DM_ORDER_NEWS = 1,
    DM_ORDER_SHUFFLE = 2
} dm_grid_order;

/** Kind of an axis distribution. */
typedef enum dm_dist_kind {
    DM_DIST_BLOCK = 0,
    DM_DIST_CYCLIC = 1,
    DM_DIST_BLOCK_CYCLIC = 2,
    DM_DIST_SIZES = 3
} dm_dist_kind;

/** An axis distribution; make one with dm_dist_block(), dm_dist_cyclic(),
 *  dm_dist_block_cyclic() or dm_dist_sizes(). `block` and `src` are read only for
 *  DM_DIST_BLOCK_CYCLIC, `count` and `sizes` only for DM_DIST_SIZES (a structure
 *  of another kind may leave them unset).
 *
 *  `sizes` is borrowed: it must stay valid until the call that takes the
 *  distribution returns. Calls that keep a distribution (an array, and the plans
 *  made from arrays) copy the sizes, so the caller may free or reuse them after. */
typedef struct dm_dist {
    dm_dist_kind kind;
    int64_t block;        /**< block size, > 0 */
    int src;              /**< grid coordinate holding the first block, 0 <= src < N */
    int count;            /**< number of entries of `sizes`: the grid extent N of the axis */
    const int64_t *sizes; /**< elements of coordinates 0 .. N-1, each >= 0, summing to the axis length */
} dm_dist;

/**
 * Collective on comm. Creates a grid of `ndims` axes over all ranks of `comm`.
 * `dims` may be NULL or contain zeros: those extents are chosen as by
 * MPI_Dims_create. The product of the extents must equal the size of comm.
 * `periods` may be NULL (no axis periodic). Arguments must agree across ranks:
 * a difference fails with DM_ERR_MISMATCH, a NULL `grid` on some ranks with
 * DM_ERR_ARG, on every rank (`comm` must not be MPI_COMM_NULL on any).
 */
DM_API int dm_grid_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                   dm_grid_order order, dm_grid *grid);

/** Collective on the grid. Frees the grid and sets *grid to NULL; NULL is a no-op.
 *  Arrays created on the grid keep it alive until they are freed. */
DM_API int dm_grid_free(dm_grid *grid);

/** Local. Number of axes. */
DM_API int dm_grid_ndims(dm_grid grid, int *ndims);
/** Local. Extents of the axes (ndims entries). */
DM_API int dm_grid_dims(dm_grid grid, int dims[]);
/** Local. Periodic flags of the axes (ndims entries). */
DM_API int dm_grid_periods(dm_grid grid, int periods[]);
/** Local. Coordinates of the calling rank (ndims entries). */
DM_API int dm_grid_coords(dm_grid grid, int coords[]);
/** Local. Rank of the calling process in the grid communicator. */
DM_API int dm_grid_rank(dm_grid grid, int *rank);
/** Local. The grid's communicator (borrowed: owned by the grid, do not free). Its
 *  ranks are those of the communicator the grid was created on. */
DM_API int dm_grid_comm(dm_grid grid, MPI_Comm *comm);
/** Local. Rank at `coords`; coordinates on periodic axes wrap, others must be in range. */
DM_API int dm_grid_rank_of(dm_grid grid, const int coords[], int *rank);
/** Local. Coordinates of `rank`. */
DM_API int dm_grid_coords_of(dm_grid grid, int rank, int coords[]);
/** Local. Communicator of the ranks that share all coordinates but `axis`,
 *  ranked by their coordinate along `axis` (a row or column communicator).
 *  Borrowed: owned by the grid. */
DM_API int dm_grid_axis_comm(dm_grid grid, int axis, MPI_Comm *comm);

/** Local. Block distribution: ceil(n / nprocs) per coordinate. */
DM_API dm_dist dm_dist_block(void);
/** Local. Cyclic distribution: element g on coordinate g mod nprocs. */
DM_API dm_dist dm_dist_cyclic(void);
/** Local. Block-cyclic distribution: blocks of `block` dealt from coordinate `src`.
 *  The arguments are checked where the distribution is used. */
DM_API dm_dist dm_dist_block_cyclic(int64_t block, int src);
/** Local. Irregular blocks: coordinate c holds `sizes[c]` consecutive elements,
 *  c = 0 .. count-1, coordinate 0 the first. `sizes` is borrowed, not copied (see
 *  dm_dist). Checked where the distribution is used (DM_ERR_ARG): `count` must be
 *  the grid extent of the axis, every size >= 0, and the sizes must sum to the
 *  axis length. */
DM_API dm_dist dm_dist_sizes(const int64_t *sizes, int count);

/** Local. Number of elements of an axis of `n` that grid coordinate `coord` of
 *  `nprocs` owns: ScaLAPACK's NUMROC with 0-based coordinates. Returns 0 for
 *  invalid arguments (n < 0, block < 1, coord or src outside [0, nprocs)). */
DM_API int64_t dm_numroc(int64_t n, int64_t block, int coord, int src, int nprocs);

/** Local. Owner coordinate and local index of global index `g` along an axis of
 *  `n` elements distributed by `dist` (any kind) over `nprocs` coordinates. */
DM_API int dm_dist_to_local(dm_dist dist, int64_t n, int nprocs, int64_t g, int *coord,
                     int64_t *local);

/** Local. Global index of local index `local` on coordinate `coord`. */
DM_API int dm_dist_to_global(dm_dist dist, int64_t n, int nprocs, int coord, int64_t local,
                      int64_t *g);

/** Local. Number of elements coordinate `coord` owns. */
DM_API int dm_dist_local_extent(dm_dist dist, int64_t n, int nprocs, int coord, int64_t *extent);

/**
 * Local. Fills a ScaLAPACK array descriptor (0-based source coordinates are
 * stored as given) for an m x n matrix with mb x nb blocks on a BLACS context
 * `ctxt`, after the checks of ScaLAPACK's DESCINIT. `lld` is the local leading
 * dimension (>= max(1, local rows)).
 */
DM_API int dm_descinit(int desc[9], int m, int n, int mb, int nb, int rsrc, int csrc, int ctxt,
                int nprow, int npcol, int myrow, int lld);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_LAYOUT_H */
