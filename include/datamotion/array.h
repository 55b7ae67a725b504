/*
 * datamotion/array.h — distributed N-d arrays.
 *
 * A distributed array has a global shape of 1 to DM_MAX_DIMS axes, an element
 * type, and one distribution per axis over a process grid of the same rank (a
 * grid extent of 1 keeps an axis local). Each rank stores the elements it owns
 * in row-major (C) order, surrounded by an optional ghost (halo) region of
 * `ghost[axis]` elements on both sides of every axis. Global arrays passed to
 * scatter and gather are contiguous and row-major.
 */
#ifndef DATAMOTION_ARRAY_H
#define DATAMOTION_ARRAY_H

#include <datamotion/layout.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle to a distributed array. */
typedef struct dm_array_s *dm_array;

/** Pass as `root` to scatter from / gather to every rank. */
#define DM_ALL_RANKS (-1)

/**
 * Collective on the grid. Creates a zero-filled array of global `shape`
 * (ndims entries, ndims equal to the grid's). `dists` may be NULL (DM_DIST_BLOCK
 * on every axis); `ghost` may be NULL (no ghost region). All arguments must
 * agree across ranks (the sizes of a DM_DIST_SIZES axis included, which the array
 * copies). The array holds a reference to the grid.
 * Sizes are checked before anything is allocated, with the same error on every
 * rank: DM_ERR_ARG for a global element count past 2^63 - 1 or a local storage
 * axis (owned elements plus 2 x ghost) longer than INT_MAX (the largest extent
 * an MPI datatype describes); DM_ERR_MEMORY for a global size past 2^63 - 1
 * bytes, a rank's storage larger than its address space or its machine's
 * memory, or an allocation that fails on any rank. ndims is checked before
 * shape, dists or ghost are read. Arguments that differ by rank fail with
 * DM_ERR_MISMATCH, a NULL `array` on some ranks with DM_ERR_ARG, on every rank;
 * a NULL or freed `grid` on some ranks ends the job (see core.h).
 */
DM_API int dm_array_create(dm_grid grid, dm_dtype dtype, int ndims, const int64_t shape[],
                    const dm_dist dists[], const int ghost[], dm_array *array);

/**
 * Collective on the grid. As dm_array_create, but the storage is left
 * uninitialised (like numpy.empty): for arrays whose every element is written
 * before it is read, such as the destination of a shift or redistribution.
 */
DM_API int dm_array_create_empty(dm_grid grid, dm_dtype dtype, int ndims, const int64_t shape[],
                                 const dm_dist dists[], const int ghost[], dm_array *array);

/**
 * Collective on the grid. As dm_array_create, but the array's local storage is
 * the caller's `memory` (no copy, nothing allocated): this rank's storage shape
 * (local extent + 2 x ghost per axis, see dm_dist_local_extent), row-major, of
 * at least `bytes` bytes, aligned to the element type. Borrowed: the memory must
 * outlive the array, which never frees it. `memory` may be NULL where the rank's
 * storage is empty. Memory too small, NULL or misaligned on any rank is
 * DM_ERR_ARG on every rank.
 */
DM_API int dm_array_adopt(dm_grid grid, dm_dtype dtype, int ndims, const int64_t shape[], const dm_dist dists[],
                          const int ghost[], void *memory, int64_t bytes, dm_array *array);

/** Collective on the array's grid. Frees the array and sets *array to NULL; NULL is a no-op,
 *  an already freed handle (a copy) DM_ERR_STATE. Communicates nothing. */
DM_API int dm_array_free(dm_array *array);

/**
 * Collective on the array's grid. Copies a global array into the distributed one.
 * With root == DM_ALL_RANKS every rank passes the same global array and no data
 * moves between ranks; otherwise only `root` reads `global` (others may pass NULL).
 * Ghost regions are left as they are. A `root` that differs by rank or a NULL
 * `global` where it is read fails on every rank; a NULL or freed `array` on some
 * ranks ends the job. With DM_ALL_RANKS the ranks' arrays are not compared.
 */
DM_API int dm_array_scatter(dm_array array, const void *global, int root);

/**
 * Collective on the array's grid. Assembles the global array into `global` on
 * `root`, or on every rank with root == DM_ALL_RANKS. Ranks that receive nothing
 * may pass NULL. Mistakes fail on every rank alike, as for dm_array_scatter.
 */
DM_API int dm_array_gather(dm_array array, void *global, int root);

/** Local. Number of axes. */
DM_API int dm_array_ndims(dm_array array, int *ndims);
/** Local. Global shape (ndims entries). */
DM_API int dm_array_shape(dm_array array, int64_t shape[]);
/** Local. Element type. */
DM_API int dm_array_dtype(dm_array array, dm_dtype *dtype);
/** Local. The grid (borrowed: valid while the array lives; dm_grid_free refuses
 *  it with DM_ERR_STATE). */
DM_API int dm_array_grid(dm_array array, dm_grid *grid);
/** Local. Distribution of each axis, with block sizes resolved (ndims entries). The
 *  `sizes` of a DM_DIST_SIZES axis point to the array's own copy (borrowed: valid
 *  until the array is freed). */
DM_API int dm_array_dists(dm_array array, dm_dist dists[]);
/** Local. Ghost width of each axis (ndims entries). */
DM_API int dm_array_ghost(dm_array array, int ghost[]);

/**
 * Local. The owned elements of this rank: `*data` points at the first owned
 * element (inside the ghost region), `extents` receives the local extent of each
 * axis and `strides` the distance in bytes between neighbours along each axis.
 * Any pointer may be NULL. Borrowed: valid until the array is freed.
 */
DM_API int dm_array_local(dm_array array, void **data, int64_t extents[], int64_t strides[]);

/**
 * Local. The whole local storage including ghosts: `*data` points at its first
 * byte and `extents` receives local extent + 2 * ghost per axis. Borrowed.
 */
DM_API int dm_array_storage(dm_array array, void **data, int64_t extents[]);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_ARRAY_H */
