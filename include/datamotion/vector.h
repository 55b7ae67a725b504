/*
 * datamotion/vector.h — distributed vectors: CVL's operations on any communicator.
 *
 * A vector holds n elements of one type (DM_INT32, DM_FLOAT64 or DM_BOOL: CVL's int,
 * double and cvl_bool) block-distributed over the ranks of a communicator by the
 * library's one block rule, that of DM_DIST_BLOCK: with b = ceil(n / p), rank r holds
 * the elements from min(r*b, n) up to min((r+1)*b, n) (dm_vector_block), so a vector
 * and a 1-d dm_array with a block axis of the same length place every element alike,
 * and dm_vector_wrap can make a vector of an array's local storage without a copy.
 *
 * Segments: a dm_segments describes how n elements split into m consecutive segments
 * (made once from the segment lengths, used by any number of segmented calls). A
 * segmented call works on each segment separately; indices of segmented permutations
 * are relative to the segment's start.
 *
 * Every rank makes every call on a communicator's vectors in the same order, with the
 * same arguments (lengths, operators, indices, scalars). Calls are marked:
 *   Collective  communicates on the vector's communicator;
 *   Local       never waits for other ranks (in checked mode, DATAMOTION_CHECK=1, every
 *               call compares its arguments across ranks first, see core.h).
 * Errors follow core.h: a status code, dm_last_error_message(), the same error on
 * every rank of a call. An index out of range, segment lengths that do not sum to n,
 * vectors of different lengths, types or communicators are DM_ERR_ARG or DM_ERR_TYPE
 * on every rank, before anything is written. Lengths are at most INT_MAX (CVL's int
 * lengths, which cvl.h keeps).
 *
 * cvl.h is the C Vector Library's interface to the same operations, on
 * MPI_COMM_WORLD, with CVL's vector memory and error reporting (docs/cvl.md).
 */
#ifndef DATAMOTION_VECTOR_H
#define DATAMOTION_VECTOR_H

#include <datamotion/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle to a distributed vector. */
typedef struct dm_vector_s *dm_vector;
/** Opaque handle to a segmentation of a vector length into segments. */
typedef struct dm_segments_s *dm_segments;

/** Binary operators. ADD to XOR are also the operators of scans and reductions (on
 *  DM_INT32 and DM_FLOAT64 for ADD, MUL, MIN, MAX; on DM_INT32 and DM_BOOL for AND, IOR,
 *  XOR). Integer arithmetic wraps; DIV and MOD by 0 give 0 and the dividend; shifts by
 *  more than 31 give 0 (or -1 for a right shift of a negative value). Comparisons (LT to
 *  NE) give DM_BOOL. */
typedef enum dm_vector_op {
    DM_VECTOR_ADD = 0,
    DM_VECTOR_MUL,
    DM_VECTOR_MIN,
    DM_VECTOR_MAX,
    DM_VECTOR_AND,
    DM_VECTOR_IOR,
    DM_VECTOR_XOR,
    DM_VECTOR_SUB,
    DM_VECTOR_DIV,
    DM_VECTOR_MOD, /**< DM_INT32 only */
    DM_VECTOR_LSH, /**< DM_INT32 only */
    DM_VECTOR_RSH, /**< DM_INT32 only, arithmetic */
    DM_VECTOR_LT,
    DM_VECTOR_LE,
    DM_VECTOR_GT,
    DM_VECTOR_GE,
    DM_VECTOR_EQ,
    DM_VECTOR_NE
} dm_vector_op;

/** Unary functions: the destination's type is named where it differs from the source's. */
typedef enum dm_vector_fn {
    DM_VECTOR_NOT = 0,  /**< DM_BOOL: logical not; DM_INT32: bitwise not */
    DM_VECTOR_TO_INT32, /**< from DM_FLOAT64 (truncates, saturates, NaN gives 0) or DM_BOOL */
    DM_VECTOR_TO_FLOAT64, /**< from DM_INT32 */
    DM_VECTOR_TO_BOOL,  /**< from DM_INT32: nonzero */
    DM_VECTOR_FLOOR,    /**< DM_FLOAT64 to DM_INT32 */
    DM_VECTOR_CEIL,     /**< DM_FLOAT64 to DM_INT32 */
    DM_VECTOR_ROUND,    /**< DM_FLOAT64 to DM_INT32, ties to even */
    DM_VECTOR_EXP,      /**< DM_FLOAT64 from here on */
    DM_VECTOR_LOG,
    DM_VECTOR_SQRT,
    DM_VECTOR_SIN,
    DM_VECTOR_COS,
    DM_VECTOR_TAN,
    DM_VECTOR_COPY,     /**< any type */
    DM_VECTOR_NEG       /**< DM_INT32 (wrapping) or DM_FLOAT64 */
} dm_vector_fn;

/* ---- vectors -------------------------------------------------------------------- */

/**
 * Collective on comm. Creates a zero-filled vector of n elements of `dtype` (DM_INT32,
 * DM_FLOAT64 or DM_BOOL; others are DM_ERR_TYPE) on comm. The first vector on a
 * communicator duplicates it (kept until comm is freed). Ranks must create the vectors
 * of a communicator in the same order; they may free them in any order, at any time.
 */
DM_API int dm_vector_create(MPI_Comm comm, dm_dtype dtype, int64_t n, dm_vector *vector);

/**
 * Collective on comm. As dm_vector_create, but this rank's block is the caller's
 * `local` memory (dm_vector_block's count elements of dtype; NULL where the count is 0),
 * borrowed without a copy: it must outlive the vector, which never frees it. The local
 * storage of a 1-d dm_array with a DM_DIST_BLOCK axis and no ghost region is such memory.
 */
DM_API int dm_vector_wrap(MPI_Comm comm, dm_dtype dtype, int64_t n, void *local, dm_vector *vector);

/** Local. Frees the vector (its memory unless borrowed) and sets *vector to NULL; NULL is a no-op. */
DM_API int dm_vector_free(dm_vector *vector);

/** Local. The vector's element type and global length (either pointer may be NULL). */
DM_API int dm_vector_info(dm_vector vector, dm_dtype *dtype, int64_t *n);

/** Local. This rank's block: its elements (contiguous), its first global index and its
 *  element count (any pointer may be NULL). */
DM_API int dm_vector_local(dm_vector vector, void **data, int64_t *first, int64_t *count);

/** Local. The block rule: rank `rank` of `nranks` holds `count` elements from global
 *  index `first` of an n-vector. */
DM_API int dm_vector_block(int64_t n, int nranks, int rank, int64_t *first, int64_t *count);

/* ---- elementwise (Local) -------------------------------------------------------- */

/** Local. dst[i] = a[i] op b[i]; a and b of one type, dst of that type (DM_BOOL for
 *  comparisons), all of one length. dst may be a or b. */
DM_API int dm_vector_apply(dm_vector_op op, dm_vector dst, dm_vector a, dm_vector b);

/** Local. dst[i] = fn(a[i]). dst may be a where the types agree. */
DM_API int dm_vector_map(dm_vector_fn fn, dm_vector dst, dm_vector a);

/** Local. dst[i] = flags[i] ? a[i] : b[i]; flags DM_BOOL. */
DM_API int dm_vector_select(dm_vector dst, dm_vector flags, dm_vector a, dm_vector b);

/** Local. Every element of dst becomes *value (one element of dst's type). */
DM_API int dm_vector_fill(dm_vector dst, const void *value);

/** Local. dst[i] = start + i * stride (dst DM_INT32; arithmetic wraps). */
DM_API int dm_vector_iota(dm_vector dst, int start, int stride);

/** Local. Element i becomes *value (one element of v's type); 0 <= i < n. */
DM_API int dm_vector_replace(dm_vector v, int64_t i, const void *value);

/* ---- scans and reductions (Collective) ------------------------------------------ */

/** Collective. Exclusive scan: dst[i] = src[0] op ... op src[i-1] (the identity at
 *  i = 0; within each segment if `segments` is not NULL). dst may be src. */
DM_API int dm_vector_scan(dm_vector_op op, dm_vector dst, dm_vector src, dm_segments segments);

/** Collective. *result (one element of src's type, on every rank) = the reduction of
 *  src by op (the identity for an empty vector). */
DM_API int dm_vector_reduce(dm_vector_op op, dm_vector src, void *result);

/** Collective. dst[j] (m elements) = the reduction of segment j of src. */
DM_API int dm_vector_reduce_segments(dm_vector_op op, dm_vector dst, dm_vector src, dm_segments segments);

/** Collective. *value (on every rank) = element i of v. */
DM_API int dm_vector_extract(dm_vector v, int64_t i, void *value);

/* ---- data movement (Collective) ------------------------------------------------- */

/** Collective. dst[index[i]] = src[i] (index DM_INT32, a permutation of 0..n-1; within
 *  each segment, relative to its start, if `segments` is not NULL). dst must not be src. */
DM_API int dm_vector_permute(dm_vector dst, dm_vector src, dm_vector index, dm_segments segments);

/** Collective. dst[i] = src[index[i]] (index DM_INT32 of dst's length, values in
 *  [0, src's length)). With segments (both or neither): segment j of dst reads segment j
 *  of src, indices relative to its start. dst must not be src. */
DM_API int dm_vector_bpermute(dm_vector dst, dm_vector src, dm_vector index, dm_segments src_segments,
                              dm_segments dst_segments);

/** Collective. *count (on every rank) = the number of true elements of flags (DM_BOOL). */
DM_API int dm_vector_count(dm_vector flags, int64_t *count);

/** Collective. dst = the elements of src whose flag is true, in order; dst's length must
 *  be their number (dm_vector_count). */
DM_API int dm_vector_pack(dm_vector dst, dm_vector src, dm_vector flags);

/** Collective. dst[i] (DM_INT32) = the position of element i in the stable sort of keys
 *  (DM_INT32 or DM_FLOAT64; NaN above every number), ascending or descending; within
 *  each segment (positions relative to its start) if `segments` is not NULL. */
DM_API int dm_vector_rank(dm_vector dst, dm_vector keys, int descending, dm_segments segments);

/* ---- segments ------------------------------------------------------------------- */

/** Collective. A segmentation of n elements into the m = length(lengths) segments of
 *  the given lengths (a DM_INT32 vector; each >= 0, summing to n: DM_ERR_ARG on every
 *  rank otherwise). Empty segments are allowed. */
DM_API int dm_segments_create(dm_vector lengths, int64_t n, dm_segments *segments);

/** Local. Frees the segmentation and sets *segments to NULL; NULL is a no-op. */
DM_API int dm_segments_free(dm_segments *segments);

/** Local. The number of elements n and of segments m (either pointer may be NULL). */
DM_API int dm_segments_info(dm_segments segments, int64_t *n, int64_t *m);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_VECTOR_H */
