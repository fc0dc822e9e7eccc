/*
 * The datatype engine: MPI datatypes without MPI. Constructors build a type
 * tree (kept for MPI_Type_get_contents, element counting and reductions);
 * dt_commit() compiles it into a compact block program (loops of strided
 * blocks, nested only where the shape needs it) that a resumable cursor walks
 * to pack, unpack or describe as iovecs any byte range of (buf, count, type).
 * Reduction kernels for every predefined operation live here too.
 *
 * Callers: mpi/type.c and mpi/op.c (the MPI functions), adi/ (packing
 * non-contiguous messages, chunk by chunk), coll/ (reductions). This layer
 * depends only on common/.
 *
 * Lifetime: types are reference counted. A constructor returns a type with
 * one reference (the caller's); dt_release() drops one. Whoever keeps a
 * type beyond the call that gave it (the device, for a message in flight)
 * takes its own reference with dt_retain(), so a type freed by the user
 * while a message still uses it stays alive. Builtin types are static and
 * retain/release do nothing to them.
 */
#ifndef CANAL_DATATYPE_DT_H
#define CANAL_DATATYPE_DT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "common/status.h"

typedef struct dt_type dt_type_t;

typedef enum {
    DT_CHAR,
    DT_SIGNED_CHAR,
    DT_UNSIGNED_CHAR,
    DT_BYTE,
    DT_SHORT,
    DT_UNSIGNED_SHORT,
    DT_INT,
    DT_UNSIGNED,
    DT_LONG,
    DT_UNSIGNED_LONG,
    DT_LONG_LONG,
    DT_UNSIGNED_LONG_LONG,
    DT_FLOAT,
    DT_DOUBLE,
    DT_LONG_DOUBLE,
    DT_WCHAR,
    DT_C_BOOL,
    DT_INT8_T,
    DT_INT16_T,
    DT_INT32_T,
    DT_INT64_T,
    DT_UINT8_T,
    DT_UINT16_T,
    DT_UINT32_T,
    DT_UINT64_T,
    DT_C_FLOAT_COMPLEX,
    DT_C_DOUBLE_COMPLEX,
    DT_C_LONG_DOUBLE_COMPLEX,
    DT_AINT,
    DT_OFFSET,
    DT_COUNT,
    DT_PACKED,
    /* pair types for MINLOC/MAXLOC: struct { value; int index; } */
    DT_FLOAT_INT,
    DT_DOUBLE_INT,
    DT_LONG_INT,
    DT_2INT,
    DT_SHORT_INT,
    DT_LONG_DOUBLE_INT,
    /* Fortran (gfortran's sizes) */
    DT_INTEGER,
    DT_REAL,
    DT_DOUBLE_PRECISION,
    DT_COMPLEX,
    DT_DOUBLE_COMPLEX,
    DT_LOGICAL,
    DT_CHARACTER,
    DT_2INTEGER,
    DT_2REAL,
    DT_2DOUBLE_PRECISION,
    DT_INTEGER1,
    DT_INTEGER2,
    DT_INTEGER4,
    DT_INTEGER8,
    DT_INTEGER16,
    DT_REAL4,
    DT_REAL8,
    DT_REAL16,
    DT_COMPLEX8,
    DT_COMPLEX16,
    DT_COMPLEX32,
    /* C++ */
    DT_CXX_BOOL,
    DT_CXX_FLOAT_COMPLEX,
    DT_CXX_DOUBLE_COMPLEX,
    DT_CXX_LONG_DOUBLE_COMPLEX,
    /* MPICH extension MPIX_C_FLOAT16 (_Float16) */
    DT_C_FLOAT16,
    /* MPICH 4.2's Fortran types of fixed size (and the MPI 5.0 standard ABI's):
     * LOGICALk are k-byte integers, nonzero true; REAL2 _Float16 and COMPLEX4 a
     * pair of them */
    DT_LOGICAL1,
    DT_LOGICAL2,
    DT_LOGICAL4,
    DT_LOGICAL8,
    DT_LOGICAL16,
    DT_REAL2,
    DT_COMPLEX4,
    /* MPI-1 bound markers (size 0; only meaningful inside struct types) */
    DT_LB,
    DT_UB,
    DT_NBUILTIN
} dt_builtin_t;

/* How a type was made (MPI_Type_get_envelope's combiner, without the MPI_
 * numbering, which mpi/ maps). */
typedef enum {
    DT_COMBINER_NAMED,
    DT_COMBINER_DUP,
    DT_COMBINER_CONTIGUOUS,
    DT_COMBINER_VECTOR,
    DT_COMBINER_HVECTOR,
    DT_COMBINER_INDEXED,
    DT_COMBINER_HINDEXED,
    DT_COMBINER_INDEXED_BLOCK,
    DT_COMBINER_HINDEXED_BLOCK,
    DT_COMBINER_STRUCT,
    DT_COMBINER_SUBARRAY,
    DT_COMBINER_DARRAY,
    DT_COMBINER_F90_REAL,
    DT_COMBINER_F90_COMPLEX,
    DT_COMBINER_F90_INTEGER,
    DT_COMBINER_RESIZED,
} dt_combiner_t;

/* Argument values of subarray and darray (equal to MPICH's constants, but
 * mpi/ passes them through its own mapping anyway). */
enum { DT_ORDER_C = 56, DT_ORDER_FORTRAN = 57 };
enum { DT_DISTRIBUTE_BLOCK = 121, DT_DISTRIBUTE_CYCLIC = 122, DT_DISTRIBUTE_NONE = 123 };
enum { DT_DISTRIBUTE_DFLT_DARG = -49767 };

/* ------------------------------------------------------------ builtins */
/* The static object of a builtin type (never freed); NULL if b is out of range. */
dt_type_t *dt_builtin(dt_builtin_t b);
/* "MPI_INT" etc. */
const char *dt_builtin_name(dt_builtin_t b);
/* The builtin a type is (DT_NBUILTIN for derived types). */
dt_builtin_t dt_builtin_of(const dt_type_t *t);
/* The builtin of the given class and byte size, for MPI_Type_match_size
 * (class: 'r' real, 'i' integer, 'c' complex); DT_NBUILTIN if none. */
dt_builtin_t dt_match_size(char typeclass, size_t size);

/* ------------------------------------------------------------ constructors
 * All return CANAL_OK and a new type with one reference in *out, or an error
 * (CANAL_ERR_ARG with a detail naming the argument) and leave *out alone.
 * Counts and block lengths are element counts; "h" variants and struct take
 * byte displacements, the others displacements in extents of old. A type
 * whose size or bounds do not fit in ptrdiff_t is rejected. */
canal_status_t dt_create_contiguous(size_t count, dt_type_t *old, dt_type_t **out);
canal_status_t dt_create_vector(size_t count, size_t blocklen, ptrdiff_t stride, dt_type_t *old,
                                dt_type_t **out);
canal_status_t dt_create_hvector(size_t count, size_t blocklen, ptrdiff_t stride_bytes,
                                 dt_type_t *old, dt_type_t **out);
canal_status_t dt_create_indexed(size_t count, const size_t *blocklens, const ptrdiff_t *displs,
                                 dt_type_t *old, dt_type_t **out);
canal_status_t dt_create_hindexed(size_t count, const size_t *blocklens,
                                  const ptrdiff_t *displs_bytes, dt_type_t *old, dt_type_t **out);
canal_status_t dt_create_indexed_block(size_t count, size_t blocklen, const ptrdiff_t *displs,
                                       dt_type_t *old, dt_type_t **out);
canal_status_t dt_create_hindexed_block(size_t count, size_t blocklen,
                                        const ptrdiff_t *displs_bytes, dt_type_t *old,
                                        dt_type_t **out);
canal_status_t dt_create_struct(size_t count, const size_t *blocklens,
                                const ptrdiff_t *displs_bytes, dt_type_t *const *types,
                                dt_type_t **out);
/* order: DT_ORDER_C or DT_ORDER_FORTRAN */
canal_status_t dt_create_subarray(int ndims, const size_t *sizes, const size_t *subsizes,
                                  const size_t *starts, int order, dt_type_t *old,
                                  dt_type_t **out);
/* distribs: DT_DISTRIBUTE_*; dargs: a positive block size or DT_DISTRIBUTE_DFLT_DARG */
canal_status_t dt_create_darray(int size, int rank, int ndims, const size_t *gsizes,
                                const int *distribs, const int *dargs, const int *psizes,
                                int order, dt_type_t *old, dt_type_t **out);
canal_status_t dt_create_resized(dt_type_t *old, ptrdiff_t lb, ptrdiff_t extent, dt_type_t **out);
canal_status_t dt_create_dup(dt_type_t *old, dt_type_t **out);
/* A new object equal to old in every respect, its envelope included (for
 * the datatypes MPI_Type_get_contents hands out); its name and user slot
 * start empty. */
canal_status_t dt_create_clone(dt_type_t *old, dt_type_t **out);

/* Compile the block program; idempotent, cheap for builtins. Communication
 * needs committed types (mpi/ checks dt_is_committed). */
canal_status_t dt_commit(dt_type_t *t);
int dt_is_committed(const dt_type_t *t);

/* (inline: a builtin type, most messages', costs one load and no call;
 * dt_retain_ref and dt_release_ref count the others) */
static inline void dt_retain(dt_type_t *t);
static inline void dt_release(dt_type_t *t);
void dt_retain_ref(dt_type_t *t);
void dt_release_ref(dt_type_t *t);

/* ------------------------------------------------------------ queries */
/* What every message asks of its type, at the start of every type (struct
 * dt_type begins with it), so that the device reads it inline instead of
 * through three calls per message (issue 26): filled when the type is
 * committed, all zero before. */
typedef struct {
    size_t size;     /* dt_size */
    ptrdiff_t lb;    /* dt_true_lb */
    int contig;      /* dt_is_contig */
    int is_static;   /* a builtin: dt_retain and dt_release do nothing */
} dt_head_t;

static inline void dt_retain(dt_type_t *t)
{
    if (t != NULL && !((const dt_head_t *)t)->is_static)
        dt_retain_ref(t);
}

static inline void dt_release(dt_type_t *t)
{
    if (t != NULL && !((const dt_head_t *)t)->is_static)
        dt_release_ref(t);
}

/* The data of any count of elements is one block of count*size bytes
 * starting at buf+true_lb (committed types only; 0 otherwise). */
static inline int dt_is_contig(const dt_type_t *t) { return ((const dt_head_t *)t)->contig; }
/* dt_size and dt_true_lb of a type dt_is_contig said yes to. */
static inline size_t dt_contig_size(const dt_type_t *t) { return ((const dt_head_t *)t)->size; }
static inline ptrdiff_t dt_contig_lb(const dt_type_t *t) { return ((const dt_head_t *)t)->lb; }

size_t dt_size(const dt_type_t *t);
ptrdiff_t dt_extent(const dt_type_t *t);
ptrdiff_t dt_lb(const dt_type_t *t);
ptrdiff_t dt_ub(const dt_type_t *t);
ptrdiff_t dt_true_lb(const dt_type_t *t);
ptrdiff_t dt_true_extent(const dt_type_t *t);
/* The same for exactly `count` elements (a single element may be one block
 * even when count > 1 is not, e.g. after a resize). */
int dt_is_contig_count(const dt_type_t *t, size_t count);
/* Basic elements per instance (pair types count 2), MPI_Get_elements' unit. */
size_t dt_elements(const dt_type_t *t);
/* The one builtin the type is made of (DT_NBUILTIN if it mixes several or
 * has no data); used to choose reduction kernels. */
dt_builtin_t dt_basic_type(const dt_type_t *t);
/* Number of basic elements in the first `bytes` packed bytes of (any count
 * of) t: MPI_Get_elements. As in MPICH, a partial basic element at the end
 * is not counted, except for a plain builtin type, where bytes that are not
 * a multiple of its size give *elements_out = SIZE_MAX (MPI_UNDEFINED). */
canal_status_t dt_count_elements(const dt_type_t *t, size_t bytes, size_t *elements_out);
/* Number of blocks (iovec entries) one instance packs from, after merging:
 * a hint for choosing between gathering and packing. */
size_t dt_block_count(const dt_type_t *t);

/* Names (MPI_Type_set_name/get_name); builtins start with their MPI name. */
enum { DT_NAME_MAX = 128 };
void dt_set_name(dt_type_t *t, const char *name);
const char *dt_get_name(const dt_type_t *t);

/* A slot owned by mpi/ (attributes); the engine never looks at it. */
void **dt_user_slot(dt_type_t *t);

/* ------------------------------------------------------------ envelope/contents
 * What MPI_Type_get_envelope/get_contents report. Constructors record their
 * arguments in the MPI layout for the int-count variants: ints (counts,
 * block lengths, integer displacements, ndims, order...), addresses (byte
 * displacements, strides, lb/extent), no large counts, and the old types.
 * mpi/ replaces the record with dt_contents_set() for the _c variants and the
 * f90 types. */
typedef struct {
    dt_combiner_t combiner;
    size_t nints, naddrs, ncounts, ntypes;
    int64_t *ints;
    ptrdiff_t *addrs;
    int64_t *counts;
    dt_type_t **types; /* borrowed: valid while t is */
} dt_contents_t;
const dt_contents_t *dt_contents(const dt_type_t *t);
/* Replace the record (arrays are copied, types retained). */
canal_status_t dt_contents_set(dt_type_t *t, dt_combiner_t combiner, size_t nints,
                               const int64_t *ints, size_t naddrs, const ptrdiff_t *addrs,
                               size_t ncounts, const int64_t *counts, size_t ntypes,
                               dt_type_t *const *types);

/* ------------------------------------------------------------ the program
 * A committed type's program is a tree of nodes. A node is a list of
 * `count` blocks; block i starts at base + disp + i*stride (DT_NODE_VEC) or
 * base + offs[i] (DT_NODE_IDX) and holds blens[i] (or blen) repetitions of
 * the child, spaced by the child's extent; with no child a block is blen raw
 * bytes. Internal to the engine, declared here only so that a cursor can be
 * embedded in callers' structures without allocation. */
enum { DT_NODE_VEC = 1, DT_NODE_IDX = 2 };
typedef struct dt_node dt_node_t;
struct dt_node {
    int kind;
    int depth;                 /* 1 + depth of the deepest child */
    size_t count;              /* number of blocks */
    ptrdiff_t disp, stride;    /* VEC */
    const ptrdiff_t *offs;     /* IDX */
    size_t blen;               /* repetitions (bytes without child) per block */
    const size_t *blens;       /* IDX: per-block repetitions, or NULL for blen */
    const size_t *psum;        /* IDX: packed offset of each block (count + 1), or NULL */
    const dt_node_t *child;    /* NULL: raw bytes */
    const dt_node_t *const *childv; /* IDX from struct: per-block child (NULL: bytes) */
    size_t size;               /* packed bytes of one instance */
    ptrdiff_t extent;          /* spacing of repetitions of this node */
};

/* ------------------------------------------------------------ cursor */
enum { DT_CURSOR_DEPTH = 16 };
typedef struct {
    const dt_node_t *node;
    ptrdiff_t base;   /* offset of this instance from the user buffer */
    size_t i, j;      /* block, repetition within the block */
} dt_frame_t;

typedef struct dt_cursor {
    const dt_type_t *type;
    size_t count;
    size_t total;     /* packed bytes of the whole (count, type) */
    size_t pos;       /* packed bytes done */
    size_t leaf_off;  /* bytes done in the current raw block of the top frame */
    int depth, maxdepth;
    dt_frame_t *heap; /* frames for types nested deeper than DT_CURSOR_DEPTH */
    dt_frame_t frames[DT_CURSOR_DEPTH];
    dt_node_t root;   /* the count-fold repetition of the type */
} dt_cursor_t;

/* Start a cursor over (count, t) at packed offset 0 (commits t if needed).
 * The cursor does not hold a reference: the caller keeps t alive while the
 * cursor is used (the device's request holds one). dt_cursor_fini() frees
 * what a type nested deeper than DT_CURSOR_DEPTH levels needed; call it
 * when done (harmless otherwise, also after a failed init, which leaves an
 * empty cursor: total 0). A cursor points into itself: do not copy or move
 * it while in use. Errors: CANAL_ERR_ARG when count*size overflows,
 * CANAL_ERR_NOMEM. */
canal_status_t dt_cursor_init(dt_cursor_t *c, const dt_type_t *t, size_t count);
void dt_cursor_fini(dt_cursor_t *c);
/* Packs up to max bytes of the data at buf into out; returns the bytes
 * produced, 0 at the end. */
size_t dt_pack_next(dt_cursor_t *c, const void *buf, void *out, size_t max);
/* Scatters up to len bytes from in into buf; returns the bytes consumed. */
size_t dt_unpack_next(dt_cursor_t *c, void *buf, const void *in, size_t len);
/* Describes up to max bytes as at most max_iov (pointer, length) pieces of
 * buf (adjacent pieces merged) and advances; returns the bytes described and
 * the number of pieces in *niov_out. */
size_t dt_iov_next(dt_cursor_t *c, const void *buf, struct iovec *iov, int max_iov, size_t max,
                   int *niov_out);
/* Moves the cursor to a packed offset in [0, total]. */
canal_status_t dt_cursor_seek(dt_cursor_t *c, size_t packed_offset);
static inline size_t dt_cursor_total(const dt_cursor_t *c) { return c->total; }
static inline size_t dt_cursor_pos(const dt_cursor_t *c) { return c->pos; }

/* Whole-buffer helpers (MPI_Pack/MPI_Unpack): pack (buf, count, t) into out
 * (out_size bytes available; CANAL_ERR_TRUNCATE if too small) and the reverse. */
canal_status_t dt_pack(const void *buf, size_t count, const dt_type_t *t, void *out,
                       size_t out_size, size_t *bytes_out);
canal_status_t dt_unpack(const void *in, size_t in_size, void *buf, size_t count,
                         const dt_type_t *t, size_t *bytes_out);

/* ------------------------------------------------------------ external32
 * MPI's portable representation: big-endian, fixed sizes (long is 4 bytes,
 * long double 16 bytes IEEE quad). */
canal_status_t dt_external32_size(const dt_type_t *t, size_t count, size_t *bytes_out);
canal_status_t dt_pack_external32(const void *buf, size_t count, const dt_type_t *t, void *out,
                                  size_t out_size, size_t *bytes_out);
canal_status_t dt_unpack_external32(const void *in, size_t in_size, void *buf, size_t count,
                                    const dt_type_t *t, size_t *bytes_out);

/* ------------------------------------------------------------ reductions */
typedef enum {
    DT_OP_MAX,
    DT_OP_MIN,
    DT_OP_SUM,
    DT_OP_PROD,
    DT_OP_LAND,
    DT_OP_BAND,
    DT_OP_LOR,
    DT_OP_BOR,
    DT_OP_LXOR,
    DT_OP_BXOR,
    DT_OP_MINLOC,
    DT_OP_MAXLOC,
    DT_OP_REPLACE,
    DT_OP_NO_OP,
    DT_OP_N
} dt_op_t;

const char *dt_op_name(dt_op_t op);
/* CANAL_OK if op is defined for t (by the MPI standard's table, for the one
 * basic type t is made of), else CANAL_ERR_OP with a detail. */
canal_status_t dt_op_check(dt_op_t op, const dt_type_t *t);
/* inout[i] = in[i] op inout[i] for count elements of t laid out in both
 * buffers as t describes. */
canal_status_t dt_reduce(dt_op_t op, const void *in, void *inout, size_t count,
                         const dt_type_t *t);

#endif
