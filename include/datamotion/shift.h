/*
 * datamotion/shift.h — PSHIFT: many circular and end-off shifts of distributed
 * arrays in one concurrent step.
 *
 * Semantics are Fortran's. For a shift by s along an axis of n elements:
 *   CSHIFT   r[i] = a[(i + s) mod n]                     (numpy.roll(a, -s, axis))
 *   EOSHIFT  r[i] = a[i + s] where 0 <= i + s < n, else the boundary value.
 * Any s is allowed, also longer than the local extent or the whole axis, and 0.
 *
 * dm_pshift_setup computes once, for a prototype array, everything the shifts
 * need: partners, message slabs as MPI datatypes over the arrays' storage (so
 * nothing is packed or unpacked), local copies and boundary fills.
 * dm_pshift_execute then moves any arrays of the prototype's layout: it starts
 * every message of every shift at once, does the local copies and boundary
 * fills while they travel, and waits once. It reuses persistent requests while
 * the same arrays are passed again. Any axis may be shifted, whatever its
 * distribution (Block, Cyclic, block-cyclic).
 */
#ifndef DATAMOTION_SHIFT_H
#define DATAMOTION_SHIFT_H

#include <datamotion/array.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Kind of one shift. */
typedef enum dm_shift_kind {
    DM_CSHIFT = 0, /**< circular */
    DM_EOSHIFT = 1 /**< end-off: vacated positions take the boundary */
} dm_shift_kind;

/** Boundary of an end-off shift (ignored for DM_CSHIFT). */
typedef enum dm_boundary_kind {
    DM_BOUNDARY_ZERO = 0,   /**< the constant 0 */
    DM_BOUNDARY_ONE = 1,    /**< the constant 1 */
    DM_BOUNDARY_SCALAR = 2, /**< one element, passed to dm_pshift_execute */
    DM_BOUNDARY_ARRAY = 3   /**< one element per line along the axis, passed to dm_pshift_execute */
} dm_boundary_kind;

/** One shift of a polyshift. */
typedef struct dm_shift_spec {
    dm_shift_kind kind;
    int axis;                  /**< 0 <= axis < ndims */
    int64_t shift;             /**< any int64 distance (INT64_MIN included); positive reads from higher indices */
    dm_boundary_kind boundary; /**< for DM_EOSHIFT; not read for DM_CSHIFT */
} dm_shift_spec;

/** Opaque handle to a polyshift plan. */
typedef struct dm_pshift_s *dm_pshift;

/**
 * Collective on the prototype's grid. Plans `nshifts` shifts of arrays with the
 * layout (grid, shape, element type, distributions, ghost widths) of `prototype`.
 * The plan keeps its own reference to the grid; the prototype may be freed.
 * Ranks that disagree (specs, nshifts, a NULL `plan`) fail alike with the same error;
 * a NULL or freed `prototype` on some ranks ends the job.
 */
DM_API int dm_pshift_setup(dm_array prototype, int nshifts, const dm_shift_spec specs[], dm_pshift *plan);

/**
 * Collective on the plan's grid. Performs shift k from srcs[k] into dsts[k] for
 * every k, concurrently. Every array must have the prototype's layout; a source
 * may also be a destination (of the same or another shift), but no array may be
 * the destination of two shifts. boundaries[k] is read for DM_BOUNDARY_SCALAR
 * (one element of the array's type) and DM_BOUNDARY_ARRAY (this rank's lines:
 * the local extents without the shifted axis, row-major, contiguous); it may be
 * NULL otherwise, and `boundaries` itself may be NULL when no shift needs one.
 * A hot path: no collective beyond the shifts' messages; a mistake found on one rank
 * (an array of another layout, a NULL or freed handle) ends the job naming it, or with
 * DATAMOTION_CHECK=1 is the same error on every rank.
 */
DM_API int dm_pshift_execute(dm_pshift plan, dm_array const dsts[], dm_array const srcs[],
                             const void *const boundaries[]);

/**
 * Collective on the plan's grid: dm_pshift_execute in two halves, to compute while
 * the messages travel. dm_pshift_begin starts every message and does the local
 * copies and boundary fills; dm_pshift_end completes the messages. In between the
 * program must not write a source nor touch a destination, and may not free them
 * (dm_array_free returns DM_ERR_STATE). Both are hot paths like dm_pshift_execute;
 * begin twice, or end without begin, is DM_ERR_STATE under the same rule.
 * Repeated use with the same arrays allocates nothing.
 */
DM_API int dm_pshift_begin(dm_pshift plan, dm_array const dsts[], dm_array const srcs[],
                           const void *const boundaries[]);
/** Collective (as dm_pshift_begin): completes the exchange dm_pshift_begin started. */
DM_API int dm_pshift_end(dm_pshift plan);
/** Local, a hot path: advances the execution that dm_pshift_begin started without waiting:
 *  copies what ranks on this node have made ready, unpacks the messages that have
 *  arrived, starts the next round once one has left. `*done` is 1 once only
 *  dm_pshift_end's bookkeeping is left. Call it between pieces of computation so that
 *  the exchange advances without an MPI progress thread; dm_pshift_end is still
 *  required. DM_ERR_STATE when nothing is in flight. */
DM_API int dm_pshift_test(dm_pshift plan, int *done);

/** Collective on the plan's grid. Frees the plan and sets *plan to NULL; NULL is a no-op.
 *  A plan with an execution in flight (begin without end) is not freed: DM_ERR_STATE. */
DM_API int dm_pshift_free(dm_pshift *plan);

/** Local. Number of shifts of the plan. */
DM_API int dm_pshift_nshifts(dm_pshift plan, int *nshifts);

/**
 * Local. What one execution moves on this rank, without moving it: messages
 * sent and received, elements sent to other ranks, elements copied locally.
 * Any pointer may be NULL.
 */
DM_API int dm_pshift_volume(dm_pshift plan, int64_t *messages_sent, int64_t *messages_received,
                            int64_t *elements_sent, int64_t *elements_copied);

/**
 * Local. How this rank's messages travel and why: the executor of each message
 * (direct, packed or datatype; see docs/exchange.md), as text of at most size - 1
 * characters plus a NUL written to `text` (cut short if it does not fit). With
 * `length` non-NULL, *length is the full text's length.
 */
DM_API int dm_pshift_describe(dm_pshift plan, char *text, size_t size, size_t *length);

/*
 * Halo mode. A halo plan fills the ghost regions of an array (its ghost widths
 * per axis) from the neighbours that own those elements, in one concurrent
 * step: faces, and with `corners` also the edges and corners a box stencil
 * reads. Stencil codes then read shifted values in place, with no local moves.
 * Periodic grid axes wrap around; on the others the ghosts past the global
 * edge are left as they are. Axes with ghosts must be Block-distributed.
 */

/** Opaque handle to a halo plan. */
typedef struct dm_halo_s *dm_halo;

/** Collective on the prototype's grid. Plans the ghost exchange of arrays laid
 *  out like `prototype`; `corners` nonzero adds edges and corners. A NULL `plan` on
 *  some ranks fails on every rank; a NULL or freed `prototype` on some ranks ends the job. */
DM_API int dm_halo_setup(dm_array prototype, int corners, dm_halo *plan);

/** Collective on the plan's grid. Fills the ghosts of `array` (laid out like the
 *  prototype) from its neighbours. A hot path, like dm_pshift_execute: a mistake found
 *  on one rank ends the job naming it (DATAMOTION_CHECK=1: the same error everywhere). */
DM_API int dm_halo_exchange(dm_halo plan, dm_array array);

/** Collective on the plan's grid: dm_halo_exchange in two halves. dm_halo_begin starts
 *  the messages and fills the ghosts that come from this rank itself; dm_halo_end
 *  completes them. In between the program may read the array's interior but not
 *  write it (ranks on this node read it in place until dm_halo_end, see
 *  docs/exchange.md), must not touch its ghosts, and may not free it. Hot paths; begin twice, or end without
 *  begin, is DM_ERR_STATE under the same rule. */
DM_API int dm_halo_begin(dm_halo plan, dm_array array);
/** Collective (as dm_halo_begin): completes the exchange dm_halo_begin started. */
DM_API int dm_halo_end(dm_halo plan);
/** Local, a hot path: advances the exchange that dm_halo_begin started without waiting:
 *  copies what ranks on this node have made ready, unpacks the messages that have
 *  arrived, starts the next round once one has left. `*done` is 1 once only
 *  dm_halo_end's bookkeeping is left. Call it between pieces of computation so that
 *  the exchange advances without an MPI progress thread; dm_halo_end is still
 *  required. DM_ERR_STATE when nothing is in flight. */
DM_API int dm_halo_test(dm_halo plan, int *done);

/** Collective on the plan's grid. Frees the plan and sets *plan to NULL; NULL is a no-op.
 *  A plan with an exchange in flight is not freed: DM_ERR_STATE. */
DM_API int dm_halo_free(dm_halo *plan);

/** Local. How this rank's messages travel and why (see dm_pshift_describe). */
DM_API int dm_halo_describe(dm_halo plan, char *text, size_t size, size_t *length);

/** Local. What one exchange moves on this rank (see dm_pshift_volume). */
DM_API int dm_halo_volume(dm_halo plan, int64_t *messages_sent, int64_t *messages_received, int64_t *elements_sent,
                          int64_t *elements_copied);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_SHIFT_H */
