/*
 * datamotion/core.h — status codes, element types, timers and provenance.
 *
 * Error convention: every datamotion C function returns an int status, DM_OK on
 * success. On failure dm_last_error_message() returns a message describing it.
 * Functions marked "Collective on comm" fail on every rank of the call with the
 * same status and the same message, so an error never leaves some ranks waiting.
 * Arguments that must agree across ranks and differ fail with DM_ERR_MISMATCH,
 * whose message shows the value on two ranks; so do ranks that are in different
 * datamotion calls on one communicator (the message names both calls). With
 * DATAMOTION_TIMEOUT=S in the environment (default 300 s when DATAMOTION_CHECK=1,
 * none otherwise) a rank whose partners do not reach a call's agreement within S
 * seconds ends the job, naming itself, the call and the wait.
 * Two exceptions end the job instead, printing "datamotion: error on rank R of P:
 * CALL: MISTAKE" and calling MPI_Abort, because the other ranks cannot be told:
 *  - a NULL, freed or never created handle that names a collective call's
 *    communicator, on some ranks only (with one rank in MPI_COMM_WORLD the call
 *    returns DM_ERR_STATE instead);
 *  - a mistake in the arguments of a hot-path call (dm_pshift_execute,
 *    dm_halo_exchange, dm_redist_execute) found on some rank: these add no
 *    collective of their own. With DATAMOTION_CHECK=1 in the environment of every
 *    rank they agree first and return the same error everywhere instead.
 * "Local" functions communicate nothing; a freed or never created handle there
 * returns DM_ERR_STATE (handles are looked up in a table of live ones, never read).
 * See docs/concepts.md, "Collective calls and errors".
 *
 * MPI must be initialised (MPI_Init or MPI_Init_thread) before any collective
 * datamotion call and finalised after the last one; datamotion never initialises
 * or finalises MPI itself.
 */
#ifndef DATAMOTION_CORE_H
#define DATAMOTION_CORE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Marks the exported C API; everything else in the library is hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define DM_API __attribute__((visibility("default")))
#else
#define DM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by every datamotion C function. */
enum dm_status {
    DM_OK = 0,              /**< success */
    DM_ERR_ARG = 1,         /**< an argument is invalid (out of range, wrong shape, ...) */
    DM_ERR_TYPE = 2,        /**< unsupported or mismatched element type */
    DM_ERR_MISMATCH = 3,    /**< an argument that must agree across ranks differs */
    DM_ERR_MPI = 4,         /**< an MPI call failed */
    DM_ERR_MEMORY = 5,      /**< allocation failed */
    DM_ERR_STATE = 6,       /**< call out of order (e.g. MPI not initialised, NULL handle) */
    DM_ERR_UNSUPPORTED = 7, /**< valid request that this version does not implement */
    DM_ERR_INTERNAL = 8     /**< a bug in datamotion: please report it */
};

/** Element types of distributed data. Sizes: 4, 8, 4, 8, 8, 16, 1 bytes. Others
 *  (8- and 16-bit integers, unsigned integers, half precision) are not supported:
 *  a type code outside this enum fails with DM_ERR_TYPE naming the supported set. */
typedef enum dm_dtype {
    DM_INT32 = 0,
    DM_INT64 = 1,
    DM_FLOAT32 = 2,
    DM_FLOAT64 = 3,
    DM_COMPLEX64 = 4,  /**< two float32: real, imaginary */
    DM_COMPLEX128 = 5, /**< two float64: real, imaginary */
    DM_BOOL = 6        /**< one byte, 0 or 1 (C _Bool, NumPy bool) */
} dm_dtype;

/** Number of element types in dm_dtype. */
#define DM_NUM_DTYPES 7

/** Largest array and grid rank supported. */
#define DM_MAX_DIMS 7

/** Local. Message of the last failed datamotion call on this thread ("" if none
 *  failed yet). Successful calls leave it unchanged, like errno. */
DM_API const char *dm_last_error_message(void);

/** Local. Symbolic name of a status code, e.g. "DM_ERR_ARG". */
DM_API const char *dm_status_name(int status);

/** Local. Size in bytes of one element, or 0 for an invalid type. */
DM_API size_t dm_dtype_size(dm_dtype dtype);

/** Local. Name of an element type ("float64", ...), or "invalid". */
DM_API const char *dm_dtype_name(dm_dtype dtype);

/** Local. The MPI datatype used to move elements of `dtype`. */
DM_API int dm_dtype_mpi(dm_dtype dtype, MPI_Datatype *out);

/** Local. Library version string, e.g. "0.1.0". */
DM_API const char *dm_version(void);

/** Local. Wall-clock time in seconds (MPI_Wtime). */
DM_API double dm_wtime(void);

/** Local. Resolution of dm_wtime() in seconds (MPI_Wtick). */
DM_API double dm_wtick(void);

/**
 * Collective on comm. Writes a JSON object describing the library, the MPI
 * library and version, the thread level, ranks, hosts, clock resolution and
 * build into `buf` (NUL-terminated, truncated to `len`). `*needed` (if not NULL)
 * receives the full length including the NUL, so a caller can retry (leave some
 * room: the clock measurements in the text may change its length between calls).
 */
DM_API int dm_provenance_json(MPI_Comm comm, char *buf, size_t len, size_t *needed);

#ifdef __cplusplus
}
#endif

#endif /* DATAMOTION_CORE_H */
