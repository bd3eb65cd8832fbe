/*
 * psv.h -- the psv C API: sparse matrix-vector products on power-law graphs.
 *
 * This file is the whole public interface: a function that is not declared here is not API.
 *
 * Conventions
 *  - Every function returns a psv_status: PSV_SUCCESS (0), a warning (> 0) or an error (< 0).
 *    Status values are frozen and append-only. psv_status_string() names them; the detail of the
 *    last failure is kept in the object's context (psv_context_last_error).
 *  - Objects are opaque handles created by a *_create / *_build / *_read call and released by
 *    the matching *_free(T **), which is NULL-safe and sets the caller's handle to NULL.
 *  - Every object remembers the context that created it; mixing objects of two contexts in one
 *    call is PSV_ERROR_CONTEXT_MISMATCH. A freed or garbage handle is detected (magic numbers)
 *    and reported as PSV_ERROR_UNINITIALIZED_OBJECT, never dereferenced beyond its header.
 *  - Enumerations cross the ABI as int32_t; indices and sizes are int64_t (0-based).
 *  - A call that fails leaves its outputs untouched and allocates nothing that outlives it.
 *  - Operation order follows the GraphBLAS C API: output, mask, accumulator, operator, inputs,
 *    descriptor. A NULL mask, PSV_NOOP accumulator and 0 descriptor mean "none".
 *
 * Thread safety
 *  - Distinct contexts (and their objects) may be used from different threads concurrently.
 *  - Calls on objects of one context are serialized by a lock inside the context: they are safe
 *    from several threads but do not run concurrently. psv_context_last_error() returns the
 *    message of the last failed call made by the calling thread on that context.
 *  - Freeing an object while another thread still uses it is the caller's error (as in any C
 *    API); so is using a freed handle after its address was reused by a new object of the same
 *    kind, which no handle check can tell from the new one.
 */
#ifndef PSV_H
#define PSV_H

#include <stddef.h>
#include <stdint.h>

#include "psv_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------------------------- */
#define PSV_VERSION_MAJOR 0
#define PSV_VERSION_MINOR 1
#define PSV_VERSION_PATCH 0
#define PSV_VERSION_NUMBER (PSV_VERSION_MAJOR * 10000 + PSV_VERSION_MINOR * 100 + PSV_VERSION_PATCH)

/** The version of the library actually linked: PSV_VERSION_NUMBER at the time it was built. */
PSV_API int32_t psv_version_number(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes (frozen; append only). Numbered like GrB_Info where the meaning is the same.
 * ------------------------------------------------------------------------------------------- */
typedef int32_t psv_status;

#define PSV_SUCCESS                       0
#define PSV_NO_VALUE                      1    /* the requested vector entry is not present    */
#define PSV_NOT_CONVERGED                 2    /* an iteration stopped at its limit; the
                                                  result is still delivered                   */
#define PSV_ERROR_UNINITIALIZED_OBJECT   (-1)  /* freed, garbage or never-created handle      */
#define PSV_ERROR_NULL_POINTER           (-2)  /* a required pointer argument is NULL         */
#define PSV_ERROR_INVALID_VALUE          (-3)  /* an argument has a value outside its domain  */
#define PSV_ERROR_INVALID_INDEX          (-4)  /* an index is negative or beyond a dimension  */
#define PSV_ERROR_DOMAIN_MISMATCH        (-5)  /* types or operators do not fit together      */
#define PSV_ERROR_DIMENSION_MISMATCH     (-6)  /* sizes do not fit together                   */
#define PSV_ERROR_NOT_IMPLEMENTED        (-8)  /* valid request that this build cannot serve  */
#define PSV_ERROR_PANIC                  (-101) /* internal error: a bug, please report       */
#define PSV_ERROR_OUT_OF_MEMORY          (-102) /* host or device memory exhausted            */
#define PSV_ERROR_INSUFFICIENT_SPACE     (-103) /* an output buffer is too small              */
#define PSV_ERROR_INVALID_OBJECT         (-104) /* an object is internally inconsistent       */
#define PSV_ERROR_DUPLICATE_ENTRY        (-110) /* build: a duplicate (i,j) with dup PSV_NOOP */
#define PSV_ERROR_CONTEXT_MISMATCH       (-200) /* objects of different contexts mixed        */
#define PSV_ERROR_BACKEND_UNAVAILABLE    (-201) /* backend not built, or no device present    */
#define PSV_ERROR_IO                     (-202) /* a file cannot be opened or read            */
#define PSV_ERROR_PARSE                  (-203) /* a file's content is malformed (the message
                                                   names the line)                            */
#define PSV_ERROR_DEVICE                 (-204) /* a device (CUDA) call failed otherwise      */
#define PSV_ERROR_COMMUNICATION          (-205) /* an exchange between ranks failed: a rank
                                                   left, timed out or sent the unexpected     */

/** A static, never-NULL English name of a status ("PSV_ERROR_NULL_POINTER: ..."). */
PSV_API const char *psv_status_string(psv_status s);

/* ---------------------------------------------------------------------------------------------
 * Enumerations
 * ------------------------------------------------------------------------------------------- */
typedef int32_t psv_backend;
#define PSV_BACKEND_AUTO 0  /* CUDA where a device exists, else CPU */
#define PSV_BACKEND_CPU  1  /* OpenMP on the host                    */
#define PSV_BACKEND_CUDA 2  /* an NVIDIA GPU                         */

typedef int32_t psv_type;
#define PSV_BOOL  1  /* stored as one byte, 0 or 1 */
#define PSV_INT32 2
#define PSV_INT64 3
#define PSV_FP32  4
#define PSV_FP64  5

/** Size in bytes of one value of type t, or 0 if t is not a psv_type. */
PSV_API size_t psv_type_size(psv_type t);

/*
 * Binary operators. x is the left operand (the matrix entry in a semiring multiply), y the right.
 * Integer arithmetic wraps (two's complement), never undefined behaviour; integer x/0 is 0 and
 * INT_MIN/-1 is INT_MIN. Floating-point arithmetic is IEEE 754 (NaN propagates; Inf - Inf,
 * 0 * Inf and 0/0 are NaN), except that MIN and MAX follow fmin/fmax: a NaN operand is ignored,
 * so the result is NaN only when both operands are (and a MIN or MAX reduction whose terms are
 * all NaN gives the monoid's identity, +Inf or -Inf). Logical operators treat nonzero as true and
 * return 0 or 1; as a semiring's add on a non-bool type they reduce truth values, so t(i) is 0
 * or 1 even for one term.
 * On PSV_BOOL the arithmetic operators act as GraphBLAS defines them: PLUS and MAX are LOR,
 * TIMES and MIN are LAND, MINUS is LXOR, DIV is FIRST.
 */
typedef int32_t psv_op;
#define PSV_NOOP    0   /* "no operator": no accumulator, or an error on duplicates    */
#define PSV_PLUS    1   /* x + y          monoid, identity 0                           */
#define PSV_TIMES   2   /* x * y          monoid, identity 1                           */
#define PSV_MIN     3   /* min(x, y)      monoid, identity +inf (or the type's max)    */
#define PSV_MAX     4   /* max(x, y)      monoid, identity -inf (or the type's min)    */
#define PSV_FIRST   5   /* x                                                           */
#define PSV_SECOND  6   /* y                                                           */
#define PSV_PAIR    7   /* 1                                                           */
#define PSV_LOR     8   /* x || y         monoid, identity 0                           */
#define PSV_LAND    9   /* x && y         monoid, identity 1                           */
#define PSV_LXOR    10  /* x != y (logical) monoid, identity 0                         */
#define PSV_MINUS   11  /* x - y                                                       */
#define PSV_DIV     12  /* x / y                                                       */
#define PSV_ABSDIFF 13  /* |x - y| (element-wise only; handy for L1 differences)       */

/* Descriptor bits for psv_mxv (OR them together; 0 = none). */
#define PSV_DESC_TRANSPOSE_A      1  /* use A' instead of A (built once, then cached)      */
#define PSV_DESC_MASK_COMPLEMENT  2  /* write where the mask is false                     */
#define PSV_DESC_MASK_STRUCTURE   4  /* the mask is the pattern of m, its values ignored  */
#define PSV_DESC_REPLACE          8  /* entries of w outside the mask are deleted          */

/* Matrix format options: psv_context_set_option (defaults for later matrices) and
   psv_matrix_set_option (this matrix; its format is rebuilt at once). */
typedef int32_t psv_option;
#define PSV_OPT_TILE_WIDTH     1  /* columns per column tile; 0 = choose for the backend      */
#define PSV_OPT_MAX_TILES      2  /* most dense column tiles; -1 = Algorithm 1's stopping
                                     rule alone, 0 = no dense tiles (one sparse tile)         */
#define PSV_OPT_WORKLOAD_SIZE  3  /* target non-zeros per warp workload; 0 = autotune         */
#define PSV_OPT_KERNEL         4  /* a PSV_KERNEL_* value                                      */
#define PSV_OPT_PROGRESS       5  /* 1: report progress of long loads and builds on stderr    */
#define PSV_OPT_TRANSPOSE      6  /* how PageRank and HITS compute A'x: a PSV_TRANSPOSE_* value
                                     (setting it rebuilds nothing; one-part contexts)         */
#define PSV_OPT_HOT_COLUMNS    7  /* CUDA, PSV_KERNEL_AUTO: columns of x held in shared memory
                                     (the hot-column chunk kernel); -1 = chosen (default),
                                     0 = none, n > 0 = the n longest (at most what shared
                                     memory holds). The CPU backend ignores it              */
#define PSV_OPT_RANK_ORDER     8  /* CUDA, PSV_KERNEL_AUTO: x read in column rank order: -1 =
                                     chosen (default), 0 = plain order, 1 = rank order      */
#define PSV_OPT_PLAN_CHOICE    9  /* how PSV_KERNEL_AUTO chooses its plan on CUDA: a
                                     PSV_CHOICE_* value                                      */

/* PSV_OPT_PLAN_CHOICE values. */
#define PSV_CHOICE_MODEL  0  /* the performance model (default): every candidate plan's time is
                                predicted from the matrix's statistics and the device's tuning
                                table (psv_context_tune), the fastest is built; falls back to
                                the rules where the context has no table                       */
#define PSV_CHOICE_RULES  1  /* psv's hand-written rules (docs/design.md, section 3)            */

/* PSV_OPT_TRANSPOSE values. The transpose, once built, is cached with the matrix (its
   device_bytes count it) until the matrix's options change or it is freed. On CUDA a transpose
   whose plan is the streamed product's holds its row pointer and that plan alone; its entries
   are built by the first call that reads them (a product of u with absent entries, or of values
   wider than the plan's), which may then return PSV_ERROR_OUT_OF_MEMORY. The push product
   reads A alone: each entry (i, j) adds x(i) into y(j), summed in 64-bit fixed point scaled to
   ||x||_1 (integer sums, so the result does not depend on their order); a term's rounding,
   at most ||x||_1 2^-63, is below float rounding for every y(j) of at least ||x||_1 2^-38. The
   two ways agree within float rounding; each is the same run to run. */
#define PSV_TRANSPOSE_AUTO   0  /* cache A' where A and A' take at most half of the device's
                                   memory (CUDA; the CPU backend always caches), else push     */
#define PSV_TRANSPOSE_CACHE  1  /* build A' once and cache it                                  */
#define PSV_TRANSPOSE_PUSH   2  /* never build A' for them: push from A (no memory beyond
                                   one 8-byte sum per column)                                   */

typedef int32_t psv_kernel;
#define PSV_KERNEL_AUTO            0  /* CPU: tile-composite where building it fits
                                          half of the machine's memory, else CSR. CUDA:
                                          PSV_KERNEL_SELL or PSV_KERNEL_STREAM where their
                                          rules (below) take the matrix; otherwise the
                                          candidate plan the performance model predicts fastest
                                          (PSV_OPT_PLAN_CHOICE; psv_matrix_info reports the
                                          kernel chosen and its prediction); without a tuning
                                          table, the rules: CSR; on a large power-law
                                          matrix of 4-byte values its 8192 hottest columns of x
                                          read from shared memory, and x read in column rank
                                          order where it exceeds half of the L2 cache (all of
                                          it without hot columns; psv_matrix_info reports
                                          PSV_KERNEL_CSR) */
#define PSV_KERNEL_TILE_COMPOSITE  1  /* the paper's tiled composite CSR-vector/ELL form;
                                          on the CPU PSV_ERROR_OUT_OF_MEMORY where building it
                                          would not fit the host memory available           */
#define PSV_KERNEL_TILE_COO        2  /* the paper's TILE-COO baseline                    */
#define PSV_KERNEL_CSR             3  /* plain CSR: CUDA cuts the entries into balanced
                                          chunks, a thread block each                        */
#define PSV_KERNEL_STREAM          4  /* CUDA: the streamed (partition-centric) product: x is
                                          never gathered at random. The rows are cut into
                                          partitions whose sums stay in shared memory; each
                                          product scatters x, read in order, once per (column,
                                          partition) pair, then each partition stages its
                                          pairs a piece at a time and sums its rows there.
                                          Extra device memory: 4 bytes per entry (plus a copy
                                          of the values, weighted; the cached A' of PageRank
                                          and HITS holds none until a product that reads
                                          values builds them, on its first call) and about 6
                                          per pair. AUTO chooses it for power-law matrices of
                                          at least 2^23 entries. CPU: the CSR loop */
#define PSV_KERNEL_SELL            5  /* CUDA: sliced ELLPACK (SELL-32): the rows in slices of
                                          32, each slice padded to its longest row and stored
                                          column-major; a warp per slice, a lane per row, every
                                          load coalesced. Extra device memory: (4 + value
                                          bytes) per slot, padding included, beside the CSR
                                          (products of u with absent entries run the CSR
                                          kernel). AUTO chooses it for matrices whose columns
                                          follow no power law, of at least 2^22 entries and
                                          rows of at least 8 on average, whose slots are at
                                          most 1.1x the entries. CPU: the CSR loop */

/* ---------------------------------------------------------------------------------------------
 * Handles (incomplete types: const means const)
 * ------------------------------------------------------------------------------------------- */
typedef struct psv_context_s  psv_context;
typedef struct psv_matrix_s   psv_matrix;
typedef struct psv_vector_s   psv_vector;
typedef struct psv_semiring_s psv_semiring;

/* ---------------------------------------------------------------------------------------------
 * Contexts
 * ------------------------------------------------------------------------------------------- */

/**
 * Create a context: a backend, (for CUDA) a device, stream and memory pool, and the defaults
 * for matrix formats.
 * @param[in]  backend  PSV_BACKEND_AUTO, PSV_BACKEND_CPU or PSV_BACKEND_CUDA
 * @param[in]  device   CUDA device ordinal (ignored by the CPU backend); must be >= 0
 * @param[out] ctx      the new context; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER (ctx NULL); PSV_ERROR_INVALID_VALUE (unknown
 *         backend, negative or absent device); PSV_ERROR_BACKEND_UNAVAILABLE (CUDA requested
 *         but not built or no device); PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_context_create(psv_backend backend, int32_t device, psv_context **ctx);

/** Free a context. Objects still alive in it become unusable (their calls return
 *  PSV_ERROR_UNINITIALIZED_OBJECT) and must still be freed by their own *_free. NULL-safe. */
PSV_API void psv_context_free(psv_context **ctx);

/** The message of the calling thread's last failed call on ctx ("" if none; a static text if
 *  ctx is NULL or invalid). Valid until that thread's next failing call on ctx. */
PSV_API const char *psv_context_last_error(const psv_context *ctx);

/**
 * The backend a context runs on (never PSV_BACKEND_AUTO).
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT.
 */
PSV_API psv_status psv_context_backend(const psv_context *ctx, psv_backend *backend);

/**
 * Set a default format option for matrices built later in this context.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INVALID_VALUE (unknown option or value out of range).
 */
PSV_API psv_status psv_context_set_option(psv_context *ctx, psv_option option, int64_t value);

/** Whether a backend can be used on this machine: 1 if a context of it can be created, else 0. */
PSV_API int32_t psv_backend_available(psv_backend backend);

/* ---------------------------------------------------------------------------------------------
 * Tuning: the performance model's per-device table (docs/design.md, section 6)
 * ------------------------------------------------------------------------------------------- */

/* Where a context's tuning table came from (psv_tuning_info.source). */
#define PSV_TUNING_NONE     0  /* no table: the CPU backend, or a CUDA device of an architecture
                                  no table is shipped for; AUTO follows the rules              */
#define PSV_TUNING_USER     1  /* the user's table for this device, written by psv_context_tune
                                  ($XDG_CACHE_HOME/psv/tuning, else ~/.cache/psv/tuning)       */
#define PSV_TUNING_SHIPPED  2  /* the table shipped with psv for this device                   */
#define PSV_TUNING_NEAREST  3  /* no table for this device: the shipped table of the nearest
                                  architecture (run psv_context_tune, `psv tune-device`, once) */

typedef struct psv_tuning_info {
    int32_t source;          /* PSV_TUNING_*                                                    */
    int32_t cc_major, cc_minor;  /* compute capability the table was measured on (0: none)    */
    int32_t families;        /* kernel families the table prices                               */
    int64_t samples;         /* microbenchmarks it was fitted to                               */
    int64_t reserved[4];
} psv_tuning_info;

/**
 * Where ctx's tuning table came from and what it holds.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT.
 */
PSV_API psv_status psv_context_tuning(const psv_context *ctx, psv_tuning_info *info);

/** ctx's tuning table in words: the device it was measured on and where it came from (a file's
 *  path, or "shipped"), or why there is none. Valid until the next psv_context_tune on ctx or
 *  its free; a static text if ctx is NULL or invalid. */
PSV_API const char *psv_context_tuning_text(const psv_context *ctx);

/**
 * Measure ctx's device and make its tuning table: microbenchmarks of every kernel family on
 * synthetic matrices generated on the device (R-MAT of several skews, scales and edge factors,
 * uniform random, 3-D stencils), the model fitted to them, the table written to `path` and used
 * by ctx for the matrices built afterwards. Progress goes to stderr where `progress` is 1.
 * effort 0 is a quick pass on small matrices (a minute or less; tests), 1 the full set (a few
 * minutes on an H200), whose device memory stays below a quarter of the device's.
 * @param[in] path  the file to write (its folders are made), atomically; NULL: the user's cache,
 *                  $XDG_CACHE_HOME/psv/tuning/NAME.tbl, else $HOME/.cache/psv/tuning/NAME.tbl
 *                  (NAME: the device's name and compute capability), where later contexts on
 *                  this device find it
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INVALID_VALUE (effort or progress not 0 or 1; a multi-part context);
 *         PSV_ERROR_NOT_IMPLEMENTED (the CPU backend: it has no model);
 *         PSV_ERROR_IO (the table cannot be written: nothing is left half-written and the
 *         context keeps its table); PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_context_tune(psv_context *ctx, const char *path, int32_t effort, int32_t progress);

/* ---------------------------------------------------------------------------------------------
 * Multi-part contexts: one process, its matrices and vectors partitioned over several parts
 * ------------------------------------------------------------------------------------------- */

/** The most parts a multi-part context may have. */
#define PSV_MAX_PARTS 1024

/**
 * Create a context of nparts parts. Every call of this header works on it unchanged: a matrix
 * is split by rows over the parts (the bitonic partition: rows sorted by length dealt to the
 * parts in turn, the direction reversing every round, so every part holds an equal share of the
 * rows and a near-equal share of the entries), vectors are split too (psv_vector_get and the
 * other reads gather them), products exchange the parts of their input vector, and reductions
 * combine the parts' results in part order (bit-identical run to run). Results equal those of
 * a one-part context up to the rounding of sums split over the parts.
 * CPU backend: the parts live in this process's memory and exchange by memory copies (devices
 * is ignored and may be NULL). CUDA backend: part p runs on device devices[p] (several parts
 * may name one device; devices NULL: every part on device 0) and exchanges by copies (within a
 * device directly, between two devices through the host; psv_context_create_rank's contexts use
 * NCCL). nparts == 1 gives the context psv_context_create gives.
 * @param[in]  backend  PSV_BACKEND_AUTO, PSV_BACKEND_CPU or PSV_BACKEND_CUDA
 * @param[in]  nparts   1 .. PSV_MAX_PARTS
 * @param[in]  devices  nparts CUDA device ordinals (>= 0), or NULL
 * @param[out] ctx      the new context; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER (ctx NULL);
 *         PSV_ERROR_INVALID_VALUE (unknown backend, nparts out of range, a negative device);
 *         PSV_ERROR_BACKEND_UNAVAILABLE (CUDA requested but not built, or a device absent);
 *         PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_context_create_multi(psv_backend backend, int32_t nparts, const int32_t *devices,
                                            psv_context **ctx);

/**
 * The number of parts of a context (1 for psv_context_create's).
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT.
 */
PSV_API psv_status psv_context_nparts(const psv_context *ctx, int32_t *nparts);

/* ---------------------------------------------------------------------------------------------
 * Rank contexts: one process (or thread) per part, joined through an id, as under MPI
 * ------------------------------------------------------------------------------------------- */

/** Bytes of a psv_id. */
#define PSV_ID_BYTES 256

/** What ranks exchange to find each other: made once by psv_unique_id, copied unchanged to every
 *  rank by any means (MPI_Bcast, a file, shared memory). Opaque. */
typedef struct psv_id {
    int64_t opaque[32]; /* PSV_ID_BYTES bytes */
} psv_id;

/**
 * Make the id of a new group of ranks. The calling process becomes the group's rendezvous: it
 * listens on a TCP port (any interface; the id records this host's first non-loopback IPv4
 * address, or the one in the environment variable PSV_SOCKET_ADDR) and must itself create rank 0
 * with the id, before or while the others join. Ranks exchange small data (scalars, counts,
 * tuples, gathered vectors) over these sockets, relayed by rank 0.
 * backend PSV_BACKEND_CUDA (or AUTO with a device present), in a build with NCCL: the id also
 * carries an NCCL unique id, and the ranks' CUDA parts exchange the product's vector pieces with
 * NCCL, on a stream of their own overlapped with the local product. backend PSV_BACKEND_CPU:
 * sockets only; CUDA ranks joined with such an id exchange through host memory (the way to run
 * several ranks on one GPU, which NCCL refuses). An id whose rank 0 never joins keeps its
 * listening socket until the process ends.
 * @param[in]  backend  PSV_BACKEND_AUTO, PSV_BACKEND_CPU or PSV_BACKEND_CUDA
 * @param[out] id       the id; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_INVALID_VALUE (unknown backend);
 *         PSV_ERROR_BACKEND_UNAVAILABLE (CUDA asked for but absent); PSV_ERROR_COMMUNICATION (no
 *         socket could be opened, NCCL failed).
 */
PSV_API psv_status psv_unique_id(psv_backend backend, psv_id *id);

/**
 * Join rank `rank` of `nranks` ranks to the group of `id` and make its context: a context of
 * nranks parts of which this one holds part `rank` (on CUDA device `device`). Every call of this
 * header works on it as on psv_context_create_multi's, with these rules:
 *  - Calls on a rank context are collective: every rank makes the same calls in the same order,
 *    with the same arguments, except where a call says otherwise below. A rank that stops calling
 *    makes the others fail with PSV_ERROR_COMMUNICATION once PSV_SOCKET_TIMEOUT seconds (default
 *    600) pass without a byte from it, or at once where its process ends.
 *  - psv_matrix_build: each rank passes its own share of the tuples (any split; the matrix is
 *    their union, duplicates across ranks combined by dup in rank order). psv_matrix_read: every
 *    rank reads the same file and keeps an equal share of its entries.
 *  - Vectors: psv_vector_build and psv_vector_set take the whole vector on every rank (the same
 *    values); element writes take effect on the rank holding the element; every read (get,
 *    extract, reductions, nvals) returns the whole result on every rank.
 *  - psv_vector_set_device and psv_vector_get_device take the whole vector in each rank's own
 *    device memory. psv_matrix_write: rank 0 writes the file.
 * This call blocks until all nranks ranks have joined (or PSV_SOCKET_TIMEOUT passes).
 * @param[in]  backend  PSV_BACKEND_AUTO, PSV_BACKEND_CPU or PSV_BACKEND_CUDA
 * @param[in]  id       the id psv_unique_id made (rank 0 in the process that made it)
 * @param[in]  nranks   1 .. PSV_MAX_PARTS, the same on every rank
 * @param[in]  rank     0 .. nranks - 1, each taken once
 * @param[in]  device   the CUDA device ordinal of this rank's part (ignored for the CPU backend)
 * @param[out] ctx      the new context; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_INVALID_VALUE (unknown backend, nranks
 *         or rank out of range, a negative device, an id that psv_unique_id did not make, rank 0
 *         outside the process that made the id); PSV_ERROR_BACKEND_UNAVAILABLE;
 *         PSV_ERROR_COMMUNICATION (a rank did not join in time, two ranks claimed one rank,
 *         the ranks disagree on nranks, NCCL failed); PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_context_create_rank(psv_backend backend, const psv_id *id, int32_t nranks, int32_t rank,
                                           int32_t device, psv_context **ctx);

/**
 * The part a context holds: its rank for psv_context_create_rank's, else 0 (a one-part or a
 * multi-part context holds all its parts).
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT.
 */
PSV_API psv_status psv_context_rank(const psv_context *ctx, int32_t *rank);

/* ---------------------------------------------------------------------------------------------
 * Semirings: add must be a monoid (PLUS, TIMES, MIN, MAX, LOR, LAND, LXOR); multiply any of
 * PLUS, TIMES, MIN, MAX, FIRST, SECOND, PAIR, LOR, LAND, LXOR, MINUS, DIV. Every combination is
 * supported for every type.
 * ------------------------------------------------------------------------------------------- */

/**
 * @param[out] s  the semiring; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT (ctx);
 *         PSV_ERROR_DOMAIN_MISMATCH (add is not a monoid, or an operator not allowed in that
 *         place); PSV_ERROR_INVALID_VALUE (unknown operator or type); PSV_ERROR_OUT_OF_MEMORY.
 */
PSV_API psv_status psv_semiring_create(psv_context *ctx, psv_op add, psv_op multiply,
                                       psv_type type, psv_semiring **s);
PSV_API void psv_semiring_free(psv_semiring **s);

/* ---------------------------------------------------------------------------------------------
 * Matrices
 * ------------------------------------------------------------------------------------------- */

/**
 * Build a matrix from coordinate tuples and convert it to tile-composite form (on the context's
 * backend) using the context's format options.
 * @param[in] type    value type
 * @param[in] nrows, ncols  dimensions, 0 .. 2^31-1
 * @param[in] nvals   number of tuples (>= 0); rows, cols (and values) hold nvals entries each
 * @param[in] values  nvals values of `type`, or NULL for a pattern matrix (every entry 1)
 * @param[in] dup     operator combining duplicate (i,j); PSV_NOOP: a duplicate is an error.
 *                    Ignored for a pattern matrix (duplicates count once).
 * @param[out] A      the matrix; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER (ctx, A, or rows/cols with nvals > 0);
 *         PSV_ERROR_UNINITIALIZED_OBJECT; PSV_ERROR_INVALID_VALUE (type, dims or nvals out of
 *         range, dup not a binary operator); PSV_ERROR_INVALID_INDEX (an index outside the
 *         dimensions); PSV_ERROR_DUPLICATE_ENTRY; PSV_ERROR_OUT_OF_MEMORY (also before
 *         allocating, when the dimensions need more memory than is available: the message names
 *         the sizes); PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_matrix_build(psv_context *ctx, psv_type type, int64_t nrows,
                                    int64_t ncols, int64_t nvals, const int64_t *rows,
                                    const int64_t *cols, const void *values, psv_op dup,
                                    psv_matrix **A);

/**
 * Read a graph or matrix file, detecting its format: Matrix Market coordinate (real, integer,
 * pattern; general, symmetric, skew-symmetric) or a SNAP-style edge list ('#'/'%' comments,
 * tabs or spaces, CRLF, an optional third column of weights), either plain or gzip-compressed.
 * Matrix Market files give their own type (real: PSV_FP64, integer: PSV_INT64, pattern: a
 * pattern PSV_FP32 matrix). Edge lists have max id + 1 vertices, are 0-based, and give a pattern
 * PSV_FP32 matrix (duplicates count once) or, with a third column on every line, PSV_FP64
 * weights (duplicates summed). CSV edge lists (fields separated by ',', ';' or a tab, an
 * optional header line such as "source,target,weight") read the same way. METIS graph files
 * (named *.graph or *.graph.gz; header "n m [fmt [ncon]]", 1-based neighbour lists) give an
 * n x n pattern PSV_FP32 matrix, or PSV_INT64 edge weights when fmt says so. A binary X.graph is
 * a LAW WebGraph BVGraph, read with X.properties (its absence is PSV_ERROR_IO) and X.offsets when
 * present: a nodes x nodes pattern PSV_FP32 matrix, 0-based; a coding psv does not decode
 * (RESIDUALS_GOLOMB, RESIDUALS_NIBBLE), a format version above 0 or another graph class is
 * PSV_ERROR_NOT_IMPLEMENTED; a truncated or corrupt stream, or properties it contradicts (node
 * or arc count), PSV_ERROR_PARSE naming the file and node.
 * A file written by psv_matrix_write (psv's binary format, recognised by its magic) is loaded
 * as it was written, with its id base; its checksums and CSR are verified (PSV_ERROR_PARSE names
 * the part that failed).
 * path "-" is standard input; it and other pipes are read once, in one pass (text formats only).
 * Read options (undirected, relabelled ids): psv_matrix_read_with_flags.
 * @param[out] A  the matrix; untouched on failure
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_IO (cannot open or read); PSV_ERROR_PARSE (malformed: the message names the
 *         line); PSV_ERROR_INVALID_INDEX (an index out of range; the message names the line);
 *         PSV_ERROR_NOT_IMPLEMENTED (a BVGraph feature psv does not decode);
 *         PSV_ERROR_OUT_OF_MEMORY (also before allocating, when the dimensions need more memory
 *         than is available: the message names the sizes); PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_matrix_read(psv_context *ctx, const char *path, psv_matrix **A);

/* Read options for psv_matrix_read_with_flags (OR them together; 0 = none). */
#define PSV_READ_UNDIRECTED  1  /* store both directions of every edge: A(j,i) for each A(i,j)  */
#define PSV_READ_RELABEL     2  /* compact the ids in order of first appearance               */

/**
 * psv_matrix_read with read options (psv_matrix_read(ctx, path, A) is this call with flags 0).
 * PSV_READ_RELABEL: the ids that occur in some entry get new ids 0 .. n-1 in order of first
 * appearance in the file (each line's row id before its column id); the matrix is n x n, rows
 * and columns sharing one id space. Edge-list and CSV ids may then be any integer 0 .. 2^63-1
 * (hashed ids): memory grows with the number of distinct ids, never with their magnitude.
 * Matrix Market and METIS ids stay checked against the file's declared dimensions.
 * psv_matrix_labels gives the original id of each new one.
 * PSV_READ_UNDIRECTED: every entry A(i,j) with i != j gets its mirror A(j,i) (a self loop is
 * stored once). An entry the file gives keeps its own value (duplicates combined first, as
 * without the option); a mirror the file does not give takes A(i,j)'s value. Applied after
 * relabelling; needs a square matrix (PSV_ERROR_DIMENSION_MISMATCH otherwise).
 * A .psv file (psv_matrix_write) takes both options too; its relabelling order is that of its
 * entries (by row, then column).
 * @param[in]  flags  PSV_READ_* bits
 * @param[out] A      the matrix; untouched on failure
 * @return as psv_matrix_read; PSV_ERROR_INVALID_VALUE (unknown flag bits; more than 2^31-1
 *         distinct ids under PSV_READ_RELABEL);
 *         PSV_ERROR_DIMENSION_MISMATCH (PSV_READ_UNDIRECTED on a matrix that is not square).
 */
PSV_API psv_status psv_matrix_read_with_flags(psv_context *ctx, const char *path, int32_t flags,
                                              psv_matrix **A);

/**
 * The original ids of a matrix read with PSV_READ_RELABEL: labels[k] is the id, as written in
 * the file, of row and column k (for Matrix Market and METIS files, 1-based as in the file).
 * @param[out]    labels  *n ids
 * @param[in,out] n       in: capacity of labels; out: number written (nrows(A))
 * @return PSV_SUCCESS; PSV_NO_VALUE (A was not relabelled: labels and *n untouched);
 *         PSV_ERROR_NULL_POINTER (A, labels or n); PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INSUFFICIENT_SPACE (*n < nrows(A); nothing written, *n untouched).
 */
PSV_API psv_status psv_matrix_labels(const psv_matrix *A, int64_t *labels, int64_t *n);

/**
 * Write A to path in psv's own binary format (.psv): a versioned 128-byte header (magic
 * "PSVMTX\0\1", byte-order marker, sizes, type, pattern flag, the id base of the file A was
 * read from, CRC-32 checksums of the header and of each array), then the CSR arrays raw (int64
 * row pointers, int32 columns, values), each 64-byte aligned so the file can be mmap'ed.
 * psv_matrix_read recognises the format by its magic (regular files only, not "-" or pipes) and
 * loads it without parsing. The file is written to path + ".tmp" and renamed onto path, so a
 * failure never leaves a partial file (nor touches an existing file at path).
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_IO (cannot create, write or rename the file; path names something other
 *         than a regular file); PSV_ERROR_OUT_OF_MEMORY;
 *         PSV_ERROR_DEVICE (downloading a device matrix failed).
 */
PSV_API psv_status psv_matrix_write(const psv_matrix *A, const char *path);

/** Free a matrix (and its cached transpose). NULL-safe. */
PSV_API void psv_matrix_free(psv_matrix **A);

/** Dimensions, number of stored entries, value type, and whether it is a pattern matrix.
 *  @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT. */
PSV_API psv_status psv_matrix_nrows(const psv_matrix *A, int64_t *nrows);
PSV_API psv_status psv_matrix_ncols(const psv_matrix *A, int64_t *ncols);
PSV_API psv_status psv_matrix_nvals(const psv_matrix *A, int64_t *nvals);
PSV_API psv_status psv_matrix_type(const psv_matrix *A, psv_type *type);
PSV_API psv_status psv_matrix_is_pattern(const psv_matrix *A, int32_t *is_pattern);

/**
 * Export the entries as tuples, sorted by row then column.
 * @param[out]    rows, cols  *n entries each (either may be NULL to skip it)
 * @param[out]    values      *n values of the matrix type (NULL to skip; a pattern gives 1s)
 * @param[in,out] n           in: capacity of the arrays; out: number written
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER (A or n); PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INSUFFICIENT_SPACE (*n < nvals; nothing written, *n untouched).
 */
PSV_API psv_status psv_matrix_extract_tuples(const psv_matrix *A, int64_t *rows, int64_t *cols,
                                             void *values, int64_t *n);

/**
 * Change a format option of this matrix and rebuild its tile-composite form (and drop the cached
 * transpose, rebuilt with the new options when next used). On failure the old form is kept.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INVALID_VALUE; PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_matrix_set_option(psv_matrix *A, psv_option option, int64_t value);

/**
 * What the tile-composite form of a matrix looks like, and what the matrix holds
 * (psv_matrix_info). Where the matrix's kernel does not read the tile-composite form
 * (PSV_KERNEL_AUTO, PSV_KERNEL_CSR, PSV_KERNEL_STREAM and PSV_KERNEL_SELL on CUDA, PSV_KERNEL_CSR
 * on the CPU), the form is not kept: psv_matrix_info_get and psv_matrix_tile_info build it to
 * describe it and release it again (device_bytes does not count it). On the CPU backend they do so only where its construction fits the host memory
 * available, on CUDA only where the form can hold the matrix (at most 2^32 - 1 entries) and the
 * matrix with the form's construction (about 32 bytes per entry) would take at most half of the
 * device's memory; otherwise the form's fields
 * (tile_width to workload_size) are 0 and the matrix has no tiles to describe.
 */
typedef struct psv_matrix_info {
    int64_t nrows, ncols, nvals;
    int64_t tile_width;          /* columns per dense column tile                           */
    int32_t dense_tiles;         /* dense column tiles (Algorithm 1)                        */
    int32_t sparse_tile;         /* 1 if a sparse remainder tile exists                     */
    int64_t dense_columns;       /* columns covered by dense tiles                          */
    int64_t dense_nvals;         /* entries in dense tiles                                  */
    int64_t workloads;           /* warp workloads, all tiles                               */
    int64_t row_major_workloads; /* of which CSR-vector style (w >= h)                      */
    int64_t stored_entries;      /* entries stored, padding included                        */
    double  padding_ratio;       /* stored_entries / nvals (1 = no padding)                 */
    int64_t bytes;               /* bytes of the tile-composite form on its backend         */
    int64_t workload_size;       /* the workload size of the first tile (autotuned or set)  */
    int32_t kernel;              /* PSV_KERNEL_* that psv_mxv uses for this matrix          */
    int32_t backend;             /* where the form lives                                    */
    int32_t max_row_length, max_col_length;
    double  build_seconds;       /* time to build the form                                  */
    int64_t device_bytes;        /* bytes the matrix holds now in its backend's memory
                                    (device memory on CUDA, host memory on the CPU): its CSR,
                                    the plan or form its kernel reads, and a cached transpose */
    int64_t peak_bytes;          /* the most bytes of its backend's memory held at once while
                                    the matrix was built (its latest construction: the build,
                                    and on the CPU the rebuild of psv_matrix_set_option), its
                                    temporaries included: on the CPU the arrays
                                    psv_matrix_build or psv_matrix_read allocate from the
                                    tuples on, counted as allocated; on CUDA the high-water mark of the device pool's
                                    live allocations above those live when the build began.
                                    Not the caller's tuples, nor a transpose built later     */
    double  predicted_ms;        /* the performance model's time for one psv_mxv with the
                                    matrix's kernel and plan (plus-times of the matrix's type;
                                    plus-second for a pattern); 0 where there is no model (the
                                    CPU backend, a CUDA context without a table, an empty or
                                    multi-part matrix)                                        */
    double  runner_up_ms;        /* the predicted time of the best other candidate plan; 0:
                                    none                                                       */
    int32_t runner_up_kernel;    /* its PSV_KERNEL_* value; -1: none. psv_matrix_plan describes
                                    both plans                                                 */
    int32_t plan_candidates;     /* candidate plans the model compared (0: no model)          */
    int64_t hot_columns;         /* CUDA chunk plans: columns of x read from shared memory    */
    int64_t ranked_columns;      /* CUDA chunk plans: columns whose x is read in column rank
                                    order (0: plain order)                                     */
    int64_t reserved[1];
} psv_matrix_info;

/** @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *          PSV_ERROR_OUT_OF_MEMORY, PSV_ERROR_DEVICE (where the form is built to describe it). */
PSV_API psv_status psv_matrix_info_get(const psv_matrix *A, psv_matrix_info *info);

/**
 * The plan psv_mxv runs for A (which = 0), or the runner-up the performance model ranked second
 * (which = 1), in words: kernel family and parameters, e.g. "hot-column chunk kernel, 8192 hot,
 * ranked columns (first 7864320)". Valid until A's next rebuild (psv_matrix_set_option) or free.
 * @return the text; "" where there is no such plan (no runner-up, no model), A is NULL or
 *         invalid, or which is neither 0 nor 1.
 */
PSV_API const char *psv_matrix_plan(const psv_matrix *A, int32_t which);

/** One tile of the form (tile 0 .. dense_tiles-1 dense, dense_tiles the sparse one). */
typedef struct psv_tile_info {
    int64_t col_begin, col_end;  /* range in the length-ranked column order                */
    int64_t rows;                /* rows with at least one entry in the tile                */
    int64_t nvals;               /* entries in the tile                                     */
    int64_t workloads, row_major_workloads;
    int64_t workload_size;
    int64_t stored_entries;
    int32_t index_bits;          /* width of the tile-local column indices: 16 or 32        */
    int32_t is_sparse;
    int64_t reserved[4];
} psv_tile_info;

/** @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *          PSV_ERROR_INVALID_INDEX (no such tile); PSV_ERROR_OUT_OF_MEMORY, PSV_ERROR_DEVICE (where
 *          the form is built to describe it). */
PSV_API psv_status psv_matrix_tile_info(const psv_matrix *A, int32_t tile, psv_tile_info *info);

/* ---------------------------------------------------------------------------------------------
 * Vectors: n values of one type, each either present or absent (GraphBLAS meaning). A vector
 * is created with no entry present; psv_vector_set and psv_vector_fill make every entry present.
 * On the CUDA backend the values live in device memory.
 * ------------------------------------------------------------------------------------------- */

/** @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *          PSV_ERROR_INVALID_VALUE (type, n < 0 or n > 2^31-1); PSV_ERROR_OUT_OF_MEMORY. */
PSV_API psv_status psv_vector_create(psv_context *ctx, psv_type type, int64_t n,
                                     psv_vector **v);
PSV_API void psv_vector_free(psv_vector **v);

/** Size, number of present entries, type.
 *  @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT. */
PSV_API psv_status psv_vector_size(const psv_vector *v, int64_t *n);
PSV_API psv_status psv_vector_nvals(const psv_vector *v, int64_t *nvals);
PSV_API psv_status psv_vector_type(const psv_vector *v, psv_type *type);

/**
 * Copy n values of the vector's type from host memory; every entry becomes present.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_DIMENSION_MISMATCH (n differs from the size); PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_vector_set(psv_vector *v, const void *values, int64_t n);

/**
 * Copy the n values to host memory; absent entries read as zero.
 * @return as psv_vector_set.
 */
PSV_API psv_status psv_vector_get(const psv_vector *v, void *values, int64_t n);

/**
 * Device-pointer import/export (CUDA backend): copy n values from / to device memory on the
 * context's device, with no host round trip. Every entry becomes present on import.
 * @return as psv_vector_set; PSV_ERROR_BACKEND_UNAVAILABLE on a CPU context.
 */
PSV_API psv_status psv_vector_set_device(psv_vector *v, const void *device_values, int64_t n);
PSV_API psv_status psv_vector_get_device(const psv_vector *v, void *device_values, int64_t n);

/** Make every entry present with value *value (of the vector's type).
 *  @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT. */
PSV_API psv_status psv_vector_fill(psv_vector *v, const void *value);

/**
 * Replace the contents of v by nvals entries (GraphBLAS GrB_Vector_build): entry indices[k] gets
 * values[k] (of the vector's type); every other entry becomes absent. On failure v is unchanged.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INVALID_VALUE (nvals < 0 or > size); PSV_ERROR_INVALID_INDEX (an index
 *         outside the vector); PSV_ERROR_DUPLICATE_ENTRY (an index given twice).
 */
PSV_API psv_status psv_vector_build(psv_vector *v, const int64_t *indices, const void *values,
                                    int64_t nvals);

/** Make every entry absent. @return as psv_vector_fill. */
PSV_API psv_status psv_vector_clear(psv_vector *v);

/** Set entry i to *value (present). @return as psv_vector_fill; PSV_ERROR_INVALID_INDEX. */
PSV_API psv_status psv_vector_set_element(psv_vector *v, int64_t i, const void *value);

/** Read entry i into *value.
 *  @return PSV_SUCCESS; PSV_NO_VALUE (absent; *value untouched); PSV_ERROR_NULL_POINTER;
 *          PSV_ERROR_UNINITIALIZED_OBJECT; PSV_ERROR_INVALID_INDEX. */
PSV_API psv_status psv_vector_get_element(const psv_vector *v, int64_t i, void *value);

/**
 * Export the present entries, in increasing index order.
 * @param[out]    indices, values  *n each (either may be NULL)
 * @param[in,out] n  in: capacity; out: number written
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_INSUFFICIENT_SPACE (nothing written).
 */
PSV_API psv_status psv_vector_extract_tuples(const psv_vector *v, int64_t *indices,
                                             void *values, int64_t *n);

/**
 * w = u op v element-wise, on the entries present in both u and v (GraphBLAS eWiseMult);
 * other entries of w become absent. w may be u or v.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_CONTEXT_MISMATCH; PSV_ERROR_DOMAIN_MISMATCH (types differ);
 *         PSV_ERROR_DIMENSION_MISMATCH; PSV_ERROR_INVALID_VALUE (op is PSV_NOOP or unknown).
 */
PSV_API psv_status psv_vector_ewise(psv_vector *w, psv_op op, const psv_vector *u,
                                    const psv_vector *v);

/**
 * w = u op scalar element-wise on u's present entries (w gets u's pattern). w may be u.
 * @param[in] scalar  one value of the vectors' type
 * @return as psv_vector_ewise.
 */
PSV_API psv_status psv_vector_apply(psv_vector *w, psv_op op, const psv_vector *u,
                                    const void *scalar);

/**
 * Reduce the present entries with a monoid into *result (one value of the vector's type);
 * an empty vector gives the monoid's identity.
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_DOMAIN_MISMATCH (op is not a monoid).
 */
PSV_API psv_status psv_vector_reduce(void *result, psv_op monoid, const psv_vector *v);

/* ---------------------------------------------------------------------------------------------
 * Sparse matrix - vector product
 * ------------------------------------------------------------------------------------------- */

/**
 * w<mask> accum= A (+).(x) u  -- GraphBLAS GrB_mxv.
 * t(i) = add over j with A(i,j) and u(j) present of multiply(A(i,j), u(j)); t(i) is present iff
 * some term exists. Then, where the mask allows, w(i) = accum ? accum(w(i), t(i)) : t(i) (union
 * of w and t under accum); elsewhere w(i) is kept, or deleted with PSV_DESC_REPLACE.
 * Types: u, w and the semiring have one type; A has it too unless A is a pattern matrix. The
 * mask may have any type (a value mask is true where nonzero). w may be u or the mask.
 * Results are deterministic: the same inputs give bit-identical outputs on one backend.
 * @param[in,out] w     output, size nrows(A) (ncols with PSV_DESC_TRANSPOSE_A)
 * @param[in]     mask  NULL for none
 * @param[in]     accum PSV_NOOP or a binary operator
 * @param[in]     desc  PSV_DESC_* bits
 * @return PSV_SUCCESS; PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_CONTEXT_MISMATCH; PSV_ERROR_DOMAIN_MISMATCH; PSV_ERROR_DIMENSION_MISMATCH;
 *         PSV_ERROR_INVALID_VALUE (unknown descriptor bits or accum); PSV_ERROR_OUT_OF_MEMORY;
 *         PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_mxv(psv_vector *w, const psv_vector *mask, psv_op accum,
                           const psv_semiring *s, const psv_matrix *A, const psv_vector *u,
                           int32_t desc);

/* ---------------------------------------------------------------------------------------------
 * Graph algorithms
 * ------------------------------------------------------------------------------------------- */

/**
 * PageRank as LAGraph's LAGr_PageRank defines it: the pattern of A (values ignored), an edge
 * i -> j for each entry A(i,j), damping d, r0 = 1/n, the rank of dangling vertices (no out-edge)
 * spread uniformly, stop when ||r_k - r_{k-1}||_1 <= tolerance.
 * @param[out] rank        a new PSV_FP32 vector of n ranks summing to 1 (caller frees);
 *                         untouched on error, delivered with PSV_NOT_CONVERGED
 * @param[out] iterations  iterations run (may be NULL)
 * @param[in]  damping     in [0, 1)
 * @param[in]  tolerance   >= 0
 * @param[in]  max_iterations  >= 1
 * @return PSV_SUCCESS; PSV_NOT_CONVERGED (max_iterations reached; rank delivered);
 *         PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_DIMENSION_MISMATCH (A not square); PSV_ERROR_INVALID_VALUE (parameters);
 *         PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_pagerank(psv_vector **rank, int32_t *iterations, const psv_matrix *A,
                                double damping, double tolerance, int32_t max_iterations);

/**
 * Personalized PageRank: psv_pagerank with a teleport vector p instead of the uniform 1/n (as
 * networkx.pagerank's personalization): r_new = (1 - d) p + d (sum of r over dangling vertices) p
 * + d A' D^-1 r, i.e. the rank of dangling vertices is spread by p too. r0 = 1/n; stop when
 * ||r_new - r||_1 <= tolerance.
 * @param[out] rank        a new PSV_FP32 vector of n ranks summing to 1 (caller frees);
 *                         untouched on error, delivered with PSV_NOT_CONVERGED
 * @param[out] iterations  iterations run (may be NULL)
 * @param[in]  teleport    PSV_FP32, n entries, finite and >= 0, not all zero (absent entries
 *                         count as 0); normalized to sum 1 internally (the vector is not changed)
 * @param[in]  damping     in [0, 1)
 * @param[in]  tolerance   >= 0
 * @param[in]  max_iterations  >= 1
 * @return PSV_SUCCESS; PSV_NOT_CONVERGED (max_iterations reached; rank delivered);
 *         PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT; PSV_ERROR_CONTEXT_MISMATCH
 *         (A and teleport of different contexts); PSV_ERROR_DOMAIN_MISMATCH (teleport not
 *         PSV_FP32); PSV_ERROR_DIMENSION_MISMATCH (A not square, or teleport not of size n);
 *         PSV_ERROR_INVALID_VALUE (parameters; a negative, NaN or infinite teleport entry, or an
 *         all-zero teleport); PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_pagerank_personalized(psv_vector **rank, int32_t *iterations,
                                             const psv_matrix *A, const psv_vector *teleport,
                                             double damping, double tolerance,
                                             int32_t max_iterations);

/**
 * HITS (Kleinberg) on the pattern of A (values ignored; an edge i -> j for each entry A(i,j)).
 * h0 = a0 = 1/n; each iteration computes the authorities a = A' h, normalized to sum 1, then the
 * hubs h = A a from that new a, normalized to sum 1 (a vector summing to 0 -- no edges -- is left
 * at 0). Converged when ||a - a_prev||_1 + ||h - h_prev||_1 <= tolerance (a_prev, h_prev: the
 * previous iteration's normalized vectors; the sums are taken in double).
 * Form: this "separate" form (two products per iteration, with A and its cached transpose) is
 * used on every backend. The paper's single-matrix form -- x = [a; h] <- [0 A'; A 0] x, one
 * product of a 2n x 2n matrix built at each call -- computes both halves from the previous x, so
 * its iterates are two interleaved chains of the separate form: it needs about twice the
 * iterations at about the same cost per iteration, plus the build of the 2n x 2n matrix. That
 * stacked form stays inside the library, for measurements (this API does not select it); there
 * it converges when ||x_k - x_{k-2}||_1 <= tolerance (x = [a; h], the iterates two products
 * apart), and agrees with the separate form within the tolerance.
 * @param[out] hubs, authorities  new PSV_FP32 vectors of n values each, summing to 1 (caller
 *                         frees); untouched on error, delivered with PSV_NOT_CONVERGED
 * @param[out] iterations  iterations run (may be NULL)
 * @param[in]  tolerance   >= 0
 * @param[in]  max_iterations  >= 1
 * @return PSV_SUCCESS; PSV_NOT_CONVERGED (max_iterations reached; vectors delivered);
 *         PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_DIMENSION_MISMATCH (A not square); PSV_ERROR_INVALID_VALUE (parameters);
 *         PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_hits(psv_vector **hubs, psv_vector **authorities, int32_t *iterations,
                            const psv_matrix *A, double tolerance, int32_t max_iterations);

/**
 * Random walk with restart (Tong et al.; the paper's appendix F): the relevance of every vertex
 * to a query vertex q. The graph of A is taken as undirected: S = pattern of (A + A'), values
 * ignored, a self-loop counted once; W = S with each column divided by its sum (an empty column
 * -- an isolated vertex -- stays 0). r0 = e_q; r_new = c W r + (1 - c) e_q; stop when
 * ||r_new - r||_1 <= tolerance. S is built from A at each call (not cached).
 * @param[out] relevance   a new PSV_FP32 vector of n values (caller frees); untouched on error,
 *                         delivered with PSV_NOT_CONVERGED
 * @param[out] iterations  iterations run (may be NULL)
 * @param[in]  query       the query vertex, 0 .. n-1
 * @param[in]  restart_c   c in (0, 1): the probability of following an edge (the paper: 0.9)
 * @param[in]  tolerance   >= 0
 * @param[in]  max_iterations  >= 1
 * @return PSV_SUCCESS; PSV_NOT_CONVERGED (max_iterations reached; relevance delivered);
 *         PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_DIMENSION_MISMATCH (A not square); PSV_ERROR_INVALID_INDEX (query not in
 *         0 .. n-1); PSV_ERROR_INVALID_VALUE (restart_c, tolerance, max_iterations);
 *         PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_rwr(psv_vector **relevance, int32_t *iterations, const psv_matrix *A,
                           int64_t query, double restart_c, double tolerance,
                           int32_t max_iterations);

/**
 * Random walk with restart for k query vertices at once: psv_rwr for each of queries[0..k-1],
 * computed together with one k-vector product (sparse x dense n-by-k block) per iteration, so
 * the matrix is read once for all queries. Each query converges on its own, by psv_rwr's rule:
 * once ||r_new - r||_1 <= tolerance its column is final and leaves the batch, so column j
 * equals what psv_rwr(queries[j]) gives: bit for bit on the CPU backend, to float rounding on
 * CUDA (where one query takes the single-vector kernel). Queries may repeat. On CUDA the
 * k-vector product runs the tile-composite form's k-vector variant where the matrix runs the
 * tile-composite kernel (PSV_OPT_KERNEL), else a CSR k-vector kernel; the CPU backend uses CSR
 * rows. The whole iteration stays in device memory; the result is copied out once.
 * @param[out] relevance_host  host array of n * k floats, row-major: the relevance of vertex i
 *                         to queries[j] at relevance_host[i * k + j]; untouched on error, written
 *                         with PSV_NOT_CONVERGED (unconverged columns hold their last iterate)
 * @param[out] iterations  the iterations the batch ran: the largest count over the queries
 *                         (max_iterations if one did not converge) (may be NULL)
 * @param[in]  queries     k vertices, each 0 .. n-1
 * @param[in]  k           >= 1
 * @param[in]  restart_c, tolerance, max_iterations  as psv_rwr
 * @return PSV_SUCCESS; PSV_NOT_CONVERGED (some query reached max_iterations; all delivered);
 *         PSV_ERROR_NULL_POINTER; PSV_ERROR_UNINITIALIZED_OBJECT;
 *         PSV_ERROR_DIMENSION_MISMATCH (A not square); PSV_ERROR_INVALID_INDEX (a query not in
 *         0 .. n-1); PSV_ERROR_INVALID_VALUE (k < 1, restart_c, tolerance, max_iterations);
 *         PSV_ERROR_OUT_OF_MEMORY; PSV_ERROR_DEVICE.
 */
PSV_API psv_status psv_rwr_batch(float *relevance_host, int32_t *iterations, const psv_matrix *A,
                                 const int64_t *queries, int32_t k, double restart_c,
                                 double tolerance, int32_t max_iterations);

#ifdef __cplusplus
}
#endif

#endif /* PSV_H */
