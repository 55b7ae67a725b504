/*
 * cvl.h — the C Vector Library (CVL) interface on MPI, as provided by datamotion's
 * vector layer (libcvl). A C program written against CVL's MPI variant compiles
 * against this header unchanged and links with -lcvl.
 *
 * Model (see docs/cvl.md for the full description):
 * - Hostless SPMD. Every rank of the program calls every CVL function, in the same
 *   order, with the same arguments (handles, lengths, scalars and, for c2v_fu?, the
 *   same whole C array). Functions marked "Collective" communicate; the others are
 *   local but must still be called on every rank so that all ranks keep the same
 *   vector memory.
 * - Distribution. A vector of n elements is block-distributed over the ranks of the
 *   communicator CVL_init made (a duplicate of MPI_COMM_WORLD): with p ranks and
 *   b = ceil(n / p), rank r holds the consecutive elements [min(r * b, n),
 *   min((r + 1) * b, n)): every rank b of them but the trailing ones, which hold fewer
 *   or none. Placement depends only on n, so a vector must be used with the length it
 *   was written with.
 * - Vector memory. vec_p is an offset, in 8-byte units, into a per-rank arena.
 *   alo_foz(u) reserves u units on every rank; siz_fob/siz_foz/siz_fod/siz_fos give the
 *   units per rank a vector needs (the same value on every rank). Handles may be
 *   combined with add_fov, so one block can be carved into many vectors. Handle 0
 *   (CVL_SCRATCH_NULL) is never allocated.
 * - Element types: int (4 bytes), cvl_bool (1 byte, 0 or 1), double (8 bytes).
 * - Scratch. Every X_scratch function returns 0: the library keeps its own reusable
 *   buffers, so the scratch argument of every function is ignored and may be
 *   CVL_SCRATCH_NULL.
 * - In place. X_inplace() returns a mask of INPLACE_k bits: bit k-1 set means source
 *   argument k (counting the arguments after the destination) may be the very same
 *   handle as the destination. Other overlaps of a destination with a source are
 *   undefined.
 * - Errors. The functions return no status. A caller error (a length < 0, a handle
 *   outside allocated memory, a segment descriptor built for other lengths, an index
 *   out of range, lengths that do not sum to n, ...) leaves every destination
 *   unchanged, is detected identically on every rank (never a hang), prints one line
 *   "CVL error: ..." on rank 0's stderr, and is kept for CVL_error() and
 *   CVL_error_message(). The environment variable CVL_ERRORS, read by CVL_init,
 *   selects "print" (default), "quiet" or "abort" (print, then MPI_Abort). Failures
 *   the ranks might not share (vector memory that cannot grow with more than one
 *   rank, memory exhausted inside a collective call, an MPI error) print "CVL fatal
 *   error on rank R of P: <call>: <message>" and call MPI_Abort instead.
 */
#ifndef CVL_H
#define CVL_H

/* Marks the exported functions; everything else in libcvl is hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define CVL_API __attribute__((visibility("default")))
#else
#define CVL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- types */

/** Handle into vector memory: an offset in 8-byte units into each rank's arena. */
typedef int vec_p;
/** Boolean element: 0 (false) or 1 (true); any nonzero input counts as true. */
typedef char cvl_bool;
/** Timer value for tgt_fos / tdf_fos: seconds of a monotonic clock. */
typedef double cvl_timer_t;

/** A null handle, e.g. for the ignored scratch argument. */
#define CVL_SCRATCH_NULL ((vec_p) 0)

/* Bits of the X_inplace() masks: INPLACE_k means source argument k may be the
 * destination. */
#define INPLACE_NONE 0
#define INPLACE_1 0x001
#define INPLACE_2 0x002
#define INPLACE_3 0x004
#define INPLACE_4 0x008
#define INPLACE_5 0x010
#define INPLACE_6 0x020
#define INPLACE_7 0x040
#define INPLACE_8 0x080
#define INPLACE_9 0x100
#define INPLACE_10 0x200
#define INPLACE_11 0x400
#define INPLACE_12 0x800

/* ------------------------------------------------------ start and stop */

/**
 * Collective on MPI_COMM_WORLD. Starts the library: initialises MPI (asking for
 * MPI_THREAD_MULTIPLE) unless the caller already has, duplicates MPI_COMM_WORLD and
 * reads CVL_ERRORS. argc and argv may be NULL. A second call without CVL_quit in
 * between does nothing.
 */
CVL_API void CVL_init(int *argc, char ***argv);

/**
 * Collective. Stops the library: frees vector memory and every MPI object the library
 * made, and finalises MPI only if CVL_init initialised it.
 */
CVL_API void CVL_quit(void);

/* ------------------------------------ extensions (not in the 1995 CVL) */

/** Error codes returned by CVL_error(); the same values as datamotion's DM_ERR_*. */
#define CVL_OK 0
#define CVL_ERR_ARG 1      /* an argument is invalid: length, handle, index, lengths */
#define CVL_ERR_MISMATCH 3 /* ranks passed different arguments to one call, or a call
                              was made on some ranks only */
#define CVL_ERR_MEMORY 5   /* vector memory could not be allocated */
#define CVL_ERR_STATE 6    /* called before CVL_init or after CVL_quit */
#define CVL_ERR_INTERNAL 8 /* a bug in the library: please report it */

/** Local. The code of the first error since CVL_init or CVL_clear_error(); CVL_OK if
 *  none. It is the same on every rank. */
CVL_API int CVL_error(void);

/** Local. The message of that first error ("" if none), e.g.
 *  "smp_puz: index 12 at position 3 is outside [0, 10)". Valid until the next
 *  CVL_clear_error() or CVL_quit(). */
CVL_API const char *CVL_error_message(void);

/** Local. Forgets the recorded error. */
CVL_API void CVL_clear_error(void);

/** Local. This process's rank in the library's communicator (0 before CVL_init). */
CVL_API int CVL_rank(void);

/** Local. The number of ranks vectors are distributed over (1 before CVL_init). */
CVL_API int CVL_nranks(void);

/**
 * This process's rank, as the 1995 MPI CVL exported it: NESL's VCODE interpreter,
 * built with -DMPI, declares `extern const int Self;` and prints only where Self == 0.
 * CVL_init sets it to CVL_rank(); read it only after CVL_init (the declaration is
 * const, so a compiler may keep a value read earlier). libcvl defines it as a plain
 * int (C links variables by name, so this const declaration names that object).
 */
#ifndef CVL_DEFINES_SELF
CVL_API extern const int Self;
#endif

/* ------------------------------------------------- facilities (f) */
/* Vector memory, sizes, handle arithmetic: local (alo_foz never communicates, also
 * when the arena grows, but every rank must make it in the same order; it returns
 * CVL_SCRATCH_NULL on failure; with more than one rank, memory that cannot grow ends
 * the job). fre_fov frees the block
 * alo_foz returned (fre_fov(CVL_SCRATCH_NULL) does nothing). add_fov(v, a) = v + a
 * units; sub_fov gives the distance |v1 - v2| in units; cmp_fov returns -1, 0 or 1 like
 * strcmp. Timers and rnd_foz (seeds rnd_wuz): local. */

CVL_API vec_p alo_foz(int size);
CVL_API void fre_fov(vec_p v);
CVL_API int siz_fob(int n);
CVL_API int siz_foz(int n);
CVL_API int siz_fod(int n);
CVL_API int siz_fos(int n, int m);
CVL_API vec_p add_fov(vec_p v, int a);
CVL_API int sub_fov(vec_p v1, vec_p v2);
CVL_API cvl_bool eql_fov(vec_p v1, vec_p v2);
CVL_API int cmp_fov(vec_p v1, vec_p v2);
CVL_API void tgt_fos(cvl_timer_t *t);
CVL_API double tdf_fos(cvl_timer_t *t1, cvl_timer_t *t2);
CVL_API void rnd_foz(int seed);

/* mov_fov: local raw copy of `size` units per rank (overlap allowed).
 * mke_fov: collective; builds descriptor sd for n elements in m segments from the m
 *   segment lengths in l (empty segments allowed; the lengths must sum to n).
 * len_fos: local; writes the m segment lengths of sd to l.
 * v2c_fu?: collective; every rank receives the whole vector in its C array d.
 * c2v_fu?: local; every rank passes the same whole C array s of len elements. */
CVL_API void mov_fov(vec_p d, vec_p s, int size, vec_p scratch);
CVL_API int mov_fov_scratch(int size);
CVL_API unsigned int mov_fov_inplace(void);
CVL_API void mke_fov(vec_p sd, vec_p l, int n, int m, vec_p scratch);
CVL_API int mke_fov_scratch(int n, int m);
CVL_API unsigned int mke_fov_inplace(void);
CVL_API void len_fos(vec_p l, vec_p sd, int n, int m, vec_p scratch);
CVL_API int len_fos_scratch(int n, int m);
CVL_API unsigned int len_fos_inplace(void);
CVL_API void v2c_fuz(int *d, vec_p s, int len, vec_p scratch);
CVL_API int v2c_fuz_scratch(int len);
CVL_API unsigned int v2c_fuz_inplace(void);
CVL_API void v2c_fub(cvl_bool *d, vec_p s, int len, vec_p scratch);
CVL_API int v2c_fub_scratch(int len);
CVL_API unsigned int v2c_fub_inplace(void);
CVL_API void v2c_fud(double *d, vec_p s, int len, vec_p scratch);
CVL_API int v2c_fud_scratch(int len);
CVL_API unsigned int v2c_fud_inplace(void);
CVL_API void c2v_fuz(vec_p d, int *s, int len, vec_p scratch);
CVL_API int c2v_fuz_scratch(int len);
CVL_API unsigned int c2v_fuz_inplace(void);
CVL_API void c2v_fub(vec_p d, cvl_bool *s, int len, vec_p scratch);
CVL_API int c2v_fub_scratch(int len);
CVL_API unsigned int c2v_fub_inplace(void);
CVL_API void c2v_fud(vec_p d, double *s, int len, vec_p scratch);
CVL_API int c2v_fud_scratch(int len);
CVL_API unsigned int c2v_fud_inplace(void);

/* ----------------------------------------------- elementwise (w): local */
/* d[i] = s1[i] op s2[i]. int arithmetic wraps; x / 0 = 0 and x % 0 = x for ints;
 * INT_MIN / -1 = INT_MIN. lsh/rsh shift counts outside [0, 31] give 0 (rsh of a
 * negative value: -1). Comparisons write cvl_bool. and/ior/xor/eql/neq on cvl_bool
 * are logical, on int bitwise. */
CVL_API void max_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int max_wuz_scratch(int len);
CVL_API unsigned int max_wuz_inplace(void);
CVL_API void max_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int max_wud_scratch(int len);
CVL_API unsigned int max_wud_inplace(void);
CVL_API void min_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int min_wuz_scratch(int len);
CVL_API unsigned int min_wuz_inplace(void);
CVL_API void min_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int min_wud_scratch(int len);
CVL_API unsigned int min_wud_inplace(void);
CVL_API void add_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int add_wuz_scratch(int len);
CVL_API unsigned int add_wuz_inplace(void);
CVL_API void add_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int add_wud_scratch(int len);
CVL_API unsigned int add_wud_inplace(void);
CVL_API void sub_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int sub_wuz_scratch(int len);
CVL_API unsigned int sub_wuz_inplace(void);
CVL_API void sub_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int sub_wud_scratch(int len);
CVL_API unsigned int sub_wud_inplace(void);
CVL_API void mul_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int mul_wuz_scratch(int len);
CVL_API unsigned int mul_wuz_inplace(void);
CVL_API void mul_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int mul_wud_scratch(int len);
CVL_API unsigned int mul_wud_inplace(void);
CVL_API void div_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int div_wuz_scratch(int len);
CVL_API unsigned int div_wuz_inplace(void);
CVL_API void div_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int div_wud_scratch(int len);
CVL_API unsigned int div_wud_inplace(void);
CVL_API void grt_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int grt_wuz_scratch(int len);
CVL_API unsigned int grt_wuz_inplace(void);
CVL_API void grt_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int grt_wud_scratch(int len);
CVL_API unsigned int grt_wud_inplace(void);
CVL_API void les_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int les_wuz_scratch(int len);
CVL_API unsigned int les_wuz_inplace(void);
CVL_API void les_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int les_wud_scratch(int len);
CVL_API unsigned int les_wud_inplace(void);
CVL_API void geq_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int geq_wuz_scratch(int len);
CVL_API unsigned int geq_wuz_inplace(void);
CVL_API void geq_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int geq_wud_scratch(int len);
CVL_API unsigned int geq_wud_inplace(void);
CVL_API void leq_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int leq_wuz_scratch(int len);
CVL_API unsigned int leq_wuz_inplace(void);
CVL_API void leq_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int leq_wud_scratch(int len);
CVL_API unsigned int leq_wud_inplace(void);
CVL_API void eql_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int eql_wuz_scratch(int len);
CVL_API unsigned int eql_wuz_inplace(void);
CVL_API void eql_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int eql_wud_scratch(int len);
CVL_API unsigned int eql_wud_inplace(void);
CVL_API void neq_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int neq_wuz_scratch(int len);
CVL_API unsigned int neq_wuz_inplace(void);
CVL_API void neq_wud(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int neq_wud_scratch(int len);
CVL_API unsigned int neq_wud_inplace(void);
CVL_API void lsh_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int lsh_wuz_scratch(int len);
CVL_API unsigned int lsh_wuz_inplace(void);
CVL_API void rsh_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int rsh_wuz_scratch(int len);
CVL_API unsigned int rsh_wuz_inplace(void);
CVL_API void mod_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int mod_wuz_scratch(int len);
CVL_API unsigned int mod_wuz_inplace(void);
CVL_API void and_wub(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int and_wub_scratch(int len);
CVL_API unsigned int and_wub_inplace(void);
CVL_API void and_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int and_wuz_scratch(int len);
CVL_API unsigned int and_wuz_inplace(void);
CVL_API void ior_wub(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int ior_wub_scratch(int len);
CVL_API unsigned int ior_wub_inplace(void);
CVL_API void ior_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int ior_wuz_scratch(int len);
CVL_API unsigned int ior_wuz_inplace(void);
CVL_API void xor_wub(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int xor_wub_scratch(int len);
CVL_API unsigned int xor_wub_inplace(void);
CVL_API void xor_wuz(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int xor_wuz_scratch(int len);
CVL_API unsigned int xor_wuz_inplace(void);
CVL_API void eql_wub(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int eql_wub_scratch(int len);
CVL_API unsigned int eql_wub_inplace(void);
CVL_API void neq_wub(vec_p d, vec_p s1, vec_p s2, int len, vec_p scratch);
CVL_API int neq_wub_scratch(int len);
CVL_API unsigned int neq_wub_inplace(void);

/* sel: d[i] = s1[i] ? s2[i] : s3[i]. */
CVL_API void sel_wuz(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p scratch);
CVL_API int sel_wuz_scratch(int len);
CVL_API unsigned int sel_wuz_inplace(void);
CVL_API void sel_wub(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p scratch);
CVL_API int sel_wub_scratch(int len);
CVL_API unsigned int sel_wub_inplace(void);
CVL_API void sel_wud(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p scratch);
CVL_API int sel_wud_scratch(int len);
CVL_API unsigned int sel_wud_inplace(void);

/* Unary: not (logical on cvl_bool, bitwise on int); conversions int_wud (truncate),
 * int_wub, dbl_wuz, boo_wuz (nonzero is true); flr, cei, trn, rou produce int
 * (rou rounds half to even; NaN gives 0, values outside int saturate to INT_MIN or
 * INT_MAX, as does int_wud); exp log sqt sin cos tan asn acs atn snh csh tnh;
 * copies; rnd_wuz: d[i] uniform in [0, s[i]) (0 where s[i] <= 0), the same numbers
 * at any number of ranks for the same rnd_foz seed and call sequence. */
CVL_API void not_wub(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int not_wub_scratch(int len);
CVL_API unsigned int not_wub_inplace(void);
CVL_API void not_wuz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int not_wuz_scratch(int len);
CVL_API unsigned int not_wuz_inplace(void);
CVL_API void int_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int int_wud_scratch(int len);
CVL_API unsigned int int_wud_inplace(void);
CVL_API void int_wub(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int int_wub_scratch(int len);
CVL_API unsigned int int_wub_inplace(void);
CVL_API void dbl_wuz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int dbl_wuz_scratch(int len);
CVL_API unsigned int dbl_wuz_inplace(void);
CVL_API void boo_wuz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int boo_wuz_scratch(int len);
CVL_API unsigned int boo_wuz_inplace(void);
CVL_API void flr_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int flr_wud_scratch(int len);
CVL_API unsigned int flr_wud_inplace(void);
CVL_API void cei_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int cei_wud_scratch(int len);
CVL_API unsigned int cei_wud_inplace(void);
CVL_API void trn_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int trn_wud_scratch(int len);
CVL_API unsigned int trn_wud_inplace(void);
CVL_API void rou_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int rou_wud_scratch(int len);
CVL_API unsigned int rou_wud_inplace(void);
CVL_API void exp_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int exp_wud_scratch(int len);
CVL_API unsigned int exp_wud_inplace(void);
CVL_API void log_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int log_wud_scratch(int len);
CVL_API unsigned int log_wud_inplace(void);
CVL_API void sqt_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int sqt_wud_scratch(int len);
CVL_API unsigned int sqt_wud_inplace(void);
CVL_API void sin_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int sin_wud_scratch(int len);
CVL_API unsigned int sin_wud_inplace(void);
CVL_API void cos_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int cos_wud_scratch(int len);
CVL_API unsigned int cos_wud_inplace(void);
CVL_API void tan_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int tan_wud_scratch(int len);
CVL_API unsigned int tan_wud_inplace(void);
CVL_API void asn_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int asn_wud_scratch(int len);
CVL_API unsigned int asn_wud_inplace(void);
CVL_API void acs_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int acs_wud_scratch(int len);
CVL_API unsigned int acs_wud_inplace(void);
CVL_API void atn_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int atn_wud_scratch(int len);
CVL_API unsigned int atn_wud_inplace(void);
CVL_API void snh_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int snh_wud_scratch(int len);
CVL_API unsigned int snh_wud_inplace(void);
CVL_API void csh_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int csh_wud_scratch(int len);
CVL_API unsigned int csh_wud_inplace(void);
CVL_API void tnh_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int tnh_wud_scratch(int len);
CVL_API unsigned int tnh_wud_inplace(void);
CVL_API void cpy_wuz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int cpy_wuz_scratch(int len);
CVL_API unsigned int cpy_wuz_inplace(void);
CVL_API void cpy_wub(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int cpy_wub_scratch(int len);
CVL_API unsigned int cpy_wub_inplace(void);
CVL_API void cpy_wud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int cpy_wud_scratch(int len);
CVL_API unsigned int cpy_wud_inplace(void);
CVL_API void rnd_wuz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int rnd_wuz_scratch(int len);
CVL_API unsigned int rnd_wuz_inplace(void);

/* cpy_wus: copies segment descriptor s (n elements, m segments) to d. */
CVL_API void cpy_wus(vec_p d, vec_p s, int n, int m, vec_p scratch);
CVL_API int cpy_wus_scratch(int n, int m);
CVL_API unsigned int cpy_wus_inplace(void);

/* ------------------------------------------------ scans (s): collective */
/* Exclusive: d[i] combines the elements before i in its segment; the first element of
 * every segment gets the identity: add 0, mul 1, min INT_MAX / DBL_MAX, max INT_MIN /
 * -DBL_MAX, and true (cvl_bool) / -1 (all bits, int), ior and xor false / 0.
 * Unsegmented: d[i] = s[0] op ... op s[i-1]. */
CVL_API void add_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int add_suz_scratch(int len);
CVL_API unsigned int add_suz_inplace(void);
CVL_API void add_sud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int add_sud_scratch(int len);
CVL_API unsigned int add_sud_inplace(void);
CVL_API void mul_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int mul_suz_scratch(int len);
CVL_API unsigned int mul_suz_inplace(void);
CVL_API void mul_sud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int mul_sud_scratch(int len);
CVL_API unsigned int mul_sud_inplace(void);
CVL_API void min_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int min_suz_scratch(int len);
CVL_API unsigned int min_suz_inplace(void);
CVL_API void min_sud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int min_sud_scratch(int len);
CVL_API unsigned int min_sud_inplace(void);
CVL_API void max_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int max_suz_scratch(int len);
CVL_API unsigned int max_suz_inplace(void);
CVL_API void max_sud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int max_sud_scratch(int len);
CVL_API unsigned int max_sud_inplace(void);
CVL_API void and_sub(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int and_sub_scratch(int len);
CVL_API unsigned int and_sub_inplace(void);
CVL_API void and_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int and_suz_scratch(int len);
CVL_API unsigned int and_suz_inplace(void);
CVL_API void ior_sub(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int ior_sub_scratch(int len);
CVL_API unsigned int ior_sub_inplace(void);
CVL_API void ior_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int ior_suz_scratch(int len);
CVL_API unsigned int ior_suz_inplace(void);
CVL_API void xor_sub(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int xor_sub_scratch(int len);
CVL_API unsigned int xor_sub_inplace(void);
CVL_API void xor_suz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int xor_suz_scratch(int len);
CVL_API unsigned int xor_suz_inplace(void);

/* Segmented: sd describes n elements in m segments; restart at each segment start. */
CVL_API void add_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int add_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int add_sez_inplace(void);
CVL_API void add_sed(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int add_sed_scratch(int vec_len, int seg_len);
CVL_API unsigned int add_sed_inplace(void);
CVL_API void mul_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int mul_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int mul_sez_inplace(void);
CVL_API void mul_sed(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int mul_sed_scratch(int vec_len, int seg_len);
CVL_API unsigned int mul_sed_inplace(void);
CVL_API void min_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int min_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int min_sez_inplace(void);
CVL_API void min_sed(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int min_sed_scratch(int vec_len, int seg_len);
CVL_API unsigned int min_sed_inplace(void);
CVL_API void max_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int max_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int max_sez_inplace(void);
CVL_API void max_sed(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int max_sed_scratch(int vec_len, int seg_len);
CVL_API unsigned int max_sed_inplace(void);
CVL_API void and_seb(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int and_seb_scratch(int vec_len, int seg_len);
CVL_API unsigned int and_seb_inplace(void);
CVL_API void and_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int and_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int and_sez_inplace(void);
CVL_API void ior_seb(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ior_seb_scratch(int vec_len, int seg_len);
CVL_API unsigned int ior_seb_inplace(void);
CVL_API void ior_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ior_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int ior_sez_inplace(void);
CVL_API void xor_seb(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int xor_seb_scratch(int vec_len, int seg_len);
CVL_API unsigned int xor_seb_inplace(void);
CVL_API void xor_sez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int xor_sez_scratch(int vec_len, int seg_len);
CVL_API unsigned int xor_sez_inplace(void);

/* ------------------------------------------- reductions (r): collective */
/* Unsegmented reductions return the value (the identity for len 0) on every rank.
 * Segmented ones write one value per segment to d (m elements); an empty segment gets
 * the identity listed for scans. */
CVL_API int add_ruz(vec_p s, int len, vec_p scratch);
CVL_API int add_ruz_scratch(int len);
CVL_API unsigned int add_ruz_inplace(void);
CVL_API double add_rud(vec_p s, int len, vec_p scratch);
CVL_API int add_rud_scratch(int len);
CVL_API unsigned int add_rud_inplace(void);
CVL_API int mul_ruz(vec_p s, int len, vec_p scratch);
CVL_API int mul_ruz_scratch(int len);
CVL_API unsigned int mul_ruz_inplace(void);
CVL_API double mul_rud(vec_p s, int len, vec_p scratch);
CVL_API int mul_rud_scratch(int len);
CVL_API unsigned int mul_rud_inplace(void);
CVL_API int min_ruz(vec_p s, int len, vec_p scratch);
CVL_API int min_ruz_scratch(int len);
CVL_API unsigned int min_ruz_inplace(void);
CVL_API double min_rud(vec_p s, int len, vec_p scratch);
CVL_API int min_rud_scratch(int len);
CVL_API unsigned int min_rud_inplace(void);
CVL_API int max_ruz(vec_p s, int len, vec_p scratch);
CVL_API int max_ruz_scratch(int len);
CVL_API unsigned int max_ruz_inplace(void);
CVL_API double max_rud(vec_p s, int len, vec_p scratch);
CVL_API int max_rud_scratch(int len);
CVL_API unsigned int max_rud_inplace(void);
CVL_API cvl_bool and_rub(vec_p s, int len, vec_p scratch);
CVL_API int and_rub_scratch(int len);
CVL_API unsigned int and_rub_inplace(void);
CVL_API int and_ruz(vec_p s, int len, vec_p scratch);
CVL_API int and_ruz_scratch(int len);
CVL_API unsigned int and_ruz_inplace(void);
CVL_API cvl_bool ior_rub(vec_p s, int len, vec_p scratch);
CVL_API int ior_rub_scratch(int len);
CVL_API unsigned int ior_rub_inplace(void);
CVL_API int ior_ruz(vec_p s, int len, vec_p scratch);
CVL_API int ior_ruz_scratch(int len);
CVL_API unsigned int ior_ruz_inplace(void);
CVL_API cvl_bool xor_rub(vec_p s, int len, vec_p scratch);
CVL_API int xor_rub_scratch(int len);
CVL_API unsigned int xor_rub_inplace(void);
CVL_API int xor_ruz(vec_p s, int len, vec_p scratch);
CVL_API int xor_ruz_scratch(int len);
CVL_API unsigned int xor_ruz_inplace(void);
CVL_API void add_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int add_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int add_rez_inplace(void);
CVL_API void add_red(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int add_red_scratch(int vec_len, int seg_len);
CVL_API unsigned int add_red_inplace(void);
CVL_API void mul_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int mul_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int mul_rez_inplace(void);
CVL_API void mul_red(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int mul_red_scratch(int vec_len, int seg_len);
CVL_API unsigned int mul_red_inplace(void);
CVL_API void min_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int min_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int min_rez_inplace(void);
CVL_API void min_red(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int min_red_scratch(int vec_len, int seg_len);
CVL_API unsigned int min_red_inplace(void);
CVL_API void max_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int max_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int max_rez_inplace(void);
CVL_API void max_red(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int max_red_scratch(int vec_len, int seg_len);
CVL_API unsigned int max_red_inplace(void);
CVL_API void and_reb(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int and_reb_scratch(int vec_len, int seg_len);
CVL_API unsigned int and_reb_inplace(void);
CVL_API void and_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int and_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int and_rez_inplace(void);
CVL_API void ior_reb(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ior_reb_scratch(int vec_len, int seg_len);
CVL_API unsigned int ior_reb_inplace(void);
CVL_API void ior_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ior_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int ior_rez_inplace(void);
CVL_API void xor_reb(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int xor_reb_scratch(int vec_len, int seg_len);
CVL_API unsigned int xor_reb_inplace(void);
CVL_API void xor_rez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int xor_rez_scratch(int vec_len, int seg_len);
CVL_API unsigned int xor_rez_inplace(void);

/* ---------------------------------------------------- vector-scalar (v) */
/* ext_vu?: collective; returns element i of v on every rank.
 * ext_ve?: collective; d[j] = s[start_j + i[j]] for each segment j (i relative to the
 *   segment's start; d and i have m elements).
 * rep_vu?: local; v[i] = val.
 * rep_ve?: collective; d[start_j + s[j]] = v[j] for each segment j (s: m ints).
 * dis_vu?: local; d[k] = v for all k.
 * dis_ve?: collective; every element of segment j of d gets v[j]. */
CVL_API int ext_vuz(vec_p v, int i, int len, vec_p scratch);
CVL_API int ext_vuz_scratch(int len);
CVL_API unsigned int ext_vuz_inplace(void);
CVL_API cvl_bool ext_vub(vec_p v, int i, int len, vec_p scratch);
CVL_API int ext_vub_scratch(int len);
CVL_API unsigned int ext_vub_inplace(void);
CVL_API double ext_vud(vec_p v, int i, int len, vec_p scratch);
CVL_API int ext_vud_scratch(int len);
CVL_API unsigned int ext_vud_inplace(void);
CVL_API void ext_vez(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ext_vez_scratch(int vec_len, int seg_len);
CVL_API unsigned int ext_vez_inplace(void);
CVL_API void ext_veb(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ext_veb_scratch(int vec_len, int seg_len);
CVL_API unsigned int ext_veb_inplace(void);
CVL_API void ext_ved(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ext_ved_scratch(int vec_len, int seg_len);
CVL_API unsigned int ext_ved_inplace(void);
CVL_API void rep_vuz(vec_p v, int i, int val, int len, vec_p scratch);
CVL_API int rep_vuz_scratch(int len);
CVL_API unsigned int rep_vuz_inplace(void);
CVL_API void rep_vub(vec_p v, int i, cvl_bool val, int len, vec_p scratch);
CVL_API int rep_vub_scratch(int len);
CVL_API unsigned int rep_vub_inplace(void);
CVL_API void rep_vud(vec_p v, int i, double val, int len, vec_p scratch);
CVL_API int rep_vud_scratch(int len);
CVL_API unsigned int rep_vud_inplace(void);
CVL_API void rep_vez(vec_p d, vec_p s, vec_p v, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rep_vez_scratch(int vec_len, int seg_len);
CVL_API unsigned int rep_vez_inplace(void);
CVL_API void rep_veb(vec_p d, vec_p s, vec_p v, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rep_veb_scratch(int vec_len, int seg_len);
CVL_API unsigned int rep_veb_inplace(void);
CVL_API void rep_ved(vec_p d, vec_p s, vec_p v, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rep_ved_scratch(int vec_len, int seg_len);
CVL_API unsigned int rep_ved_inplace(void);
CVL_API void dis_vuz(vec_p d, int v, int len, vec_p scratch);
CVL_API int dis_vuz_scratch(int len);
CVL_API unsigned int dis_vuz_inplace(void);
CVL_API void dis_vub(vec_p d, cvl_bool v, int len, vec_p scratch);
CVL_API int dis_vub_scratch(int len);
CVL_API unsigned int dis_vub_inplace(void);
CVL_API void dis_vud(vec_p d, double v, int len, vec_p scratch);
CVL_API int dis_vud_scratch(int len);
CVL_API unsigned int dis_vud_inplace(void);
CVL_API void dis_vez(vec_p d, vec_p v, vec_p sd, int n, int m, vec_p scratch);
CVL_API int dis_vez_scratch(int vec_len, int seg_len);
CVL_API unsigned int dis_vez_inplace(void);
CVL_API void dis_veb(vec_p d, vec_p v, vec_p sd, int n, int m, vec_p scratch);
CVL_API int dis_veb_scratch(int vec_len, int seg_len);
CVL_API unsigned int dis_veb_inplace(void);
CVL_API void dis_ved(vec_p d, vec_p v, vec_p sd, int n, int m, vec_p scratch);
CVL_API int dis_ved_scratch(int vec_len, int seg_len);
CVL_API unsigned int dis_ved_inplace(void);

/* ----------------------------------------------- permutations (p): collective */
/* smp: d[i[k]] = s[k].  bck: d[k] = s[i[k]] (i has d_len elements).
 * fpm: if f[k], d[i[k]] = s[k]; other elements of d unchanged.
 * bfp: d[k] = f[k] ? s[i[k]] : 0 (false); i and f have len_dest elements.
 * dpe: d = v, then d[i[k]] = s[k].  dfp: d = v, then as fpm.
 * Segmented forms (_pe?): indices are relative to the start of the segment (of the
 * destination for smp/fpm/dpe/dfp, of the source for bck/bfp) with the same segment
 * number; source and destination have the same number of segments.
 * Every used index is checked: one out of range is reported and nothing is written.
 * Duplicate destination indices: the element with the highest source position wins,
 * as in a serial loop. */
CVL_API void smp_puz(vec_p d, vec_p s, vec_p i, int len, vec_p scratch);
CVL_API int smp_puz_scratch(int len);
CVL_API unsigned int smp_puz_inplace(void);
CVL_API void smp_pub(vec_p d, vec_p s, vec_p i, int len, vec_p scratch);
CVL_API int smp_pub_scratch(int len);
CVL_API unsigned int smp_pub_inplace(void);
CVL_API void smp_pud(vec_p d, vec_p s, vec_p i, int len, vec_p scratch);
CVL_API int smp_pud_scratch(int len);
CVL_API unsigned int smp_pud_inplace(void);
CVL_API void smp_pez(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p scratch);
CVL_API int smp_pez_scratch(int vec_len, int seg_len);
CVL_API unsigned int smp_pez_inplace(void);
CVL_API void smp_peb(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p scratch);
CVL_API int smp_peb_scratch(int vec_len, int seg_len);
CVL_API unsigned int smp_peb_inplace(void);
CVL_API void smp_ped(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p scratch);
CVL_API int smp_ped_scratch(int vec_len, int seg_len);
CVL_API unsigned int smp_ped_inplace(void);
CVL_API void bck_puz(vec_p d, vec_p s, vec_p i, int s_len, int d_len, vec_p scratch);
CVL_API int bck_puz_scratch(int s_len, int d_len);
CVL_API unsigned int bck_puz_inplace(void);
CVL_API void bck_pub(vec_p d, vec_p s, vec_p i, int s_len, int d_len, vec_p scratch);
CVL_API int bck_pub_scratch(int s_len, int d_len);
CVL_API unsigned int bck_pub_inplace(void);
CVL_API void bck_pud(vec_p d, vec_p s, vec_p i, int s_len, int d_len, vec_p scratch);
CVL_API int bck_pud_scratch(int s_len, int d_len);
CVL_API unsigned int bck_pud_inplace(void);
CVL_API void bck_pez(vec_p d, vec_p s, vec_p i, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int bck_pez_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int bck_pez_inplace(void);
CVL_API void bck_peb(vec_p d, vec_p s, vec_p i, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int bck_peb_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int bck_peb_inplace(void);
CVL_API void bck_ped(vec_p d, vec_p s, vec_p i, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int bck_ped_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int bck_ped_inplace(void);
CVL_API void fpm_puz(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p scratch);
CVL_API int fpm_puz_scratch(int s_len, int d_len);
CVL_API unsigned int fpm_puz_inplace(void);
CVL_API void fpm_pub(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p scratch);
CVL_API int fpm_pub_scratch(int s_len, int d_len);
CVL_API unsigned int fpm_pub_inplace(void);
CVL_API void fpm_pud(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p scratch);
CVL_API int fpm_pud_scratch(int s_len, int d_len);
CVL_API unsigned int fpm_pud_inplace(void);
CVL_API void fpm_pez(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int fpm_pez_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int fpm_pez_inplace(void);
CVL_API void fpm_peb(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int fpm_peb_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int fpm_peb_inplace(void);
CVL_API void fpm_ped(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int fpm_ped_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int fpm_ped_inplace(void);
CVL_API void bfp_puz(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p scratch);
CVL_API int bfp_puz_scratch(int s_len, int d_len);
CVL_API unsigned int bfp_puz_inplace(void);
CVL_API void bfp_pub(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p scratch);
CVL_API int bfp_pub_scratch(int s_len, int d_len);
CVL_API unsigned int bfp_pub_inplace(void);
CVL_API void bfp_pud(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p scratch);
CVL_API int bfp_pud_scratch(int s_len, int d_len);
CVL_API unsigned int bfp_pud_inplace(void);
CVL_API void bfp_pez(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int bfp_pez_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int bfp_pez_inplace(void);
CVL_API void bfp_peb(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int bfp_peb_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int bfp_peb_inplace(void);
CVL_API void bfp_ped(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int bfp_ped_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int bfp_ped_inplace(void);
CVL_API void dpe_puz(vec_p d, vec_p s, vec_p i, vec_p v, int len_src, int len_dest, vec_p scratch);
CVL_API int dpe_puz_scratch(int s_len, int d_len);
CVL_API unsigned int dpe_puz_inplace(void);
CVL_API void dpe_pub(vec_p d, vec_p s, vec_p i, vec_p v, int len_src, int len_dest, vec_p scratch);
CVL_API int dpe_pub_scratch(int s_len, int d_len);
CVL_API unsigned int dpe_pub_inplace(void);
CVL_API void dpe_pud(vec_p d, vec_p s, vec_p i, vec_p v, int len_src, int len_dest, vec_p scratch);
CVL_API int dpe_pud_scratch(int s_len, int d_len);
CVL_API unsigned int dpe_pud_inplace(void);
CVL_API void dpe_pez(vec_p d, vec_p s, vec_p i, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int dpe_pez_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int dpe_pez_inplace(void);
CVL_API void dpe_peb(vec_p d, vec_p s, vec_p i, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int dpe_peb_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int dpe_peb_inplace(void);
CVL_API void dpe_ped(vec_p d, vec_p s, vec_p i, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int dpe_ped_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int dpe_ped_inplace(void);
CVL_API void dfp_puz(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, int len_src, int len_dest, vec_p scratch);
CVL_API int dfp_puz_scratch(int s_len, int d_len);
CVL_API unsigned int dfp_puz_inplace(void);
CVL_API void dfp_pub(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, int len_src, int len_dest, vec_p scratch);
CVL_API int dfp_pub_scratch(int s_len, int d_len);
CVL_API unsigned int dfp_pub_inplace(void);
CVL_API void dfp_pud(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, int len_src, int len_dest, vec_p scratch);
CVL_API int dfp_pud_scratch(int s_len, int d_len);
CVL_API unsigned int dfp_pud_inplace(void);
CVL_API void dfp_pez(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int dfp_pez_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int dfp_pez_inplace(void);
CVL_API void dfp_peb(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int dfp_peb_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int dfp_peb_inplace(void);
CVL_API void dfp_ped(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int dfp_ped_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int dfp_ped_inplace(void);

/* ---------------------------------------------------- library (l): collective */
/* ind_luz: d[k] = init + k * stride (local). ind_lez: per segment j,
 *   d[start_j + k] = init[j] + k * stride[j].
 * pk1_luv: number of true flags. pk1_lev: per-segment numbers of true flags (d: m ints).
 * pk2_lu?: d = the elements of s whose flag is true, in order (dest_len must equal
 *   their number). pk2_le?: the same with segments: sd_d must describe the
 *   per-segment counts pk1_lev gives (n_d true flags in m_d = m_s segments).
 * rku / rkd: d[k] = the position of s[k] in a stable ascending / descending sort, so
 *   smp(s, d) sorts; segmented forms rank within each segment (positions relative to
 *   the segment start). Doubles: NaN sorts above every number. */
CVL_API void ind_luz(vec_p d, int init, int stride, int count, vec_p scratch);
CVL_API int ind_luz_scratch(int len);
CVL_API unsigned int ind_luz_inplace(void);
CVL_API void ind_lez(vec_p d, vec_p init, vec_p stride, vec_p sd, int n, int m, vec_p scratch);
CVL_API int ind_lez_scratch(int vec_len, int seg_len);
CVL_API unsigned int ind_lez_inplace(void);
CVL_API int pk1_luv(vec_p f, int len, vec_p scratch);
CVL_API int pk1_luv_scratch(int len);
CVL_API unsigned int pk1_luv_inplace(void);
CVL_API void pk1_lev(vec_p d, vec_p f, vec_p sd, int n, int m, vec_p scratch);
CVL_API int pk1_lev_scratch(int vec_len, int seg_len);
CVL_API unsigned int pk1_lev_inplace(void);
CVL_API void pk2_luz(vec_p d, vec_p s, vec_p f, int src_len, int dest_len, vec_p scratch);
CVL_API int pk2_luz_scratch(int len);
CVL_API unsigned int pk2_luz_inplace(void);
CVL_API void pk2_lub(vec_p d, vec_p s, vec_p f, int src_len, int dest_len, vec_p scratch);
CVL_API int pk2_lub_scratch(int len);
CVL_API unsigned int pk2_lub_inplace(void);
CVL_API void pk2_lud(vec_p d, vec_p s, vec_p f, int src_len, int dest_len, vec_p scratch);
CVL_API int pk2_lud_scratch(int len);
CVL_API unsigned int pk2_lud_inplace(void);
CVL_API void pk2_lez(vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int pk2_lez_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int pk2_lez_inplace(void);
CVL_API void pk2_leb(vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int pk2_leb_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int pk2_leb_inplace(void);
CVL_API void pk2_led(vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p scratch);
CVL_API int pk2_led_scratch(int s_vec_len, int s_seg_len, int d_vec_len, int d_seg_len);
CVL_API unsigned int pk2_led_inplace(void);
CVL_API void rku_luz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int rku_luz_scratch(int len);
CVL_API unsigned int rku_luz_inplace(void);
CVL_API void rku_lud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int rku_lud_scratch(int len);
CVL_API unsigned int rku_lud_inplace(void);
CVL_API void rkd_luz(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int rkd_luz_scratch(int len);
CVL_API unsigned int rkd_luz_inplace(void);
CVL_API void rkd_lud(vec_p d, vec_p s, int len, vec_p scratch);
CVL_API int rkd_lud_scratch(int len);
CVL_API unsigned int rkd_lud_inplace(void);
CVL_API void rku_lez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rku_lez_scratch(int vec_len, int seg_len);
CVL_API unsigned int rku_lez_inplace(void);
CVL_API void rku_led(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rku_led_scratch(int vec_len, int seg_len);
CVL_API unsigned int rku_led_inplace(void);
CVL_API void rkd_lez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rkd_lez_scratch(int vec_len, int seg_len);
CVL_API unsigned int rkd_lez_inplace(void);
CVL_API void rkd_led(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p scratch);
CVL_API int rkd_led_scratch(int vec_len, int seg_len);
CVL_API unsigned int rkd_led_inplace(void);

#ifdef __cplusplus
}
#endif

#endif /* CVL_H */
