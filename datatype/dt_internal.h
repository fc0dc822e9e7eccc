/*
 * What the files of datatype/ share and nobody else sees: the type object,
 * the table of builtin types, the program arena and the tree walker. Only
 * the .c files of datatype/ include this header.
 */
#ifndef CANAL_DATATYPE_DT_INTERNAL_H
#define CANAL_DATATYPE_DT_INTERNAL_H

#include "datatype/dt.h"

#include <stdint.h>

/* MPI_COMPLEX4's storage: two _Float16 (clang has no _Complex _Float16). */
typedef struct {
    _Float16 re, im;
} dt_cf16_t;

/* How the type tree stores a type. Byte displacements everywhere: vector
 * and indexed are stored as their h-forms, contiguous keeps its own kind.
 * Subarray, darray and dup are ALIAS of the type that implements them. */
typedef enum {
    DT_KIND_BUILTIN,
    DT_KIND_CONTIG,   /* count reps of old */
    DT_KIND_HVECTOR,  /* count blocks of blen old, block i at i*stride */
    DT_KIND_HINDEXED, /* count blocks of blens[i] (or blen) old at displs[i] */
    DT_KIND_STRUCT,   /* count blocks of blens[i] types[i] at displs[i] */
    DT_KIND_RESIZED,  /* old with new bounds */
    DT_KIND_ALIAS,    /* exactly old (different envelope) */
} dt_kind_t;

/* Classes of basic types for the reduction table of the MPI standard. */
typedef enum {
    DT_CLASS_NONE,    /* LB, UB */
    DT_CLASS_CINT,    /* C integer */
    DT_CLASS_FINT,    /* Fortran integer */
    DT_CLASS_FLOAT,   /* floating point */
    DT_CLASS_COMPLEX,
    DT_CLASS_LOGICAL,
    DT_CLASS_BYTE,
    DT_CLASS_MULTI,   /* multi-language: MPI_AINT, MPI_OFFSET, MPI_COUNT */
    DT_CLASS_PAIR,    /* MINLOC/MAXLOC pairs */
    DT_CLASS_CHAR,    /* MPI_CHAR, MPI_CHARACTER: reduced as integers (an MPICH extension) */
    DT_CLASS_OTHER,   /* wchar, packed: only REPLACE/NO_OP */
} dt_class_t;

/* Machine representation, which selects the reduction kernel. */
typedef enum {
    DT_K_NONE,
    DT_K_I8, DT_K_U8, DT_K_I16, DT_K_U16, DT_K_I32, DT_K_U32, DT_K_I64, DT_K_U64, DT_K_I128,
    DT_K_F16, DT_K_F32, DT_K_F64, DT_K_LD, DT_K_F128,
    DT_K_C32, DT_K_C64, DT_K_CLD, DT_K_C128,
    DT_K_BOOL,  /* C _Bool / C++ bool: one byte */
    DT_K_FLOG,  /* Fortran LOGICAL: a 4-byte integer, nonzero is true */
    DT_K_FLOG1, DT_K_FLOG2, DT_K_FLOG8, DT_K_FLOG16, /* LOGICAL1 ... of other sizes */
    DT_K_C16,   /* complex of two _Float16 (MPI_COMPLEX4, dt_cf16_t) */
    DT_K_P_FLOAT_INT, DT_K_P_DOUBLE_INT, DT_K_P_LONG_INT, DT_K_P_2INT, DT_K_P_SHORT_INT,
    DT_K_P_LD_INT, DT_K_P_2FLOAT, DT_K_P_2DOUBLE,
} dt_kern_t;

/* External32 conversion of one basic element. */
typedef enum {
    DT_X_SWAP,   /* same size, byte order reversed (1-byte types copied) */
    DT_X_SWAP2,  /* two halves, each reversed (complex) */
    DT_X_LONG,   /* native 8-byte long -> 4 bytes */
    DT_X_ULONG,
    DT_X_LD,     /* long double -> IEEE quad */
    DT_X_LD2,    /* complex long double */
    DT_X_PAIR,   /* value then int index, each converted */
    DT_X_NONE,   /* no data */
} dt_xconv_t;

typedef struct {
    const char *name;
    size_t size, extent, align;
    dt_class_t cls;
    dt_kern_t kern;
    size_t x32_size;
    dt_xconv_t xconv;
    dt_builtin_t pair_value, pair_index; /* pairs only */
    size_t pair_ioff;                    /* offset of the index */
} dt_binfo_t;

extern const dt_binfo_t dt_binfo[DT_NBUILTIN];

/* Program memory of one type: freed with the type. */
typedef struct dt_arena dt_arena_t;
void *dt_arena_alloc(dt_arena_t **a, size_t n);
void dt_arena_free(dt_arena_t **a);

struct dt_type {
    dt_head_t head; /* first: dt.h's inline queries read it (dt_head_fill) */
    int refs;
    int is_static;
    dt_kind_t kind;
    dt_builtin_t builtin;  /* DT_NBUILTIN for derived types */
    int committed;

    size_t size;
    ptrdiff_t lb, ub, true_lb, true_ub;
    size_t align;
    dt_builtin_t basic;       /* the one basic type, DT_NBUILTIN if none or mixed */
    int mixed;
    size_t nelems;            /* basic elements per instance (pairs count 2) */
    size_t x32_size;          /* external32 bytes per instance */
    size_t dense;             /* k: exactly k back-to-back basics from lb, extent k*ext */
    int depth;                /* nesting depth of the tree */

    /* tree */
    size_t count, blen;
    ptrdiff_t stride;
    size_t *blens;            /* NULL: blen for every block */
    ptrdiff_t *displs;
    dt_type_t *old;
    dt_type_t **types;

    /* program (after commit) */
    const dt_node_t *prog;
    dt_arena_t *arena;
    int contig;               /* one block of size bytes at true_lb, and extent == size */
    int contig1;              /* one instance is one block at true_lb */
    size_t nblocks;

    dt_contents_t env;
    char name[DT_NAME_MAX];
    void *user;
};

/* Walk the basic elements of `reps` instances of t at offset off from an
 * imaginary buffer, in typemap (pack) order. fn gets runs of n basics of
 * type b at off, off + E, ... (E = extent of b); a nonzero return stops the
 * walk and is returned. */
typedef int (*dt_run_fn)(void *ctx, dt_builtin_t b, ptrdiff_t off, size_t n);
int dt_walk(const dt_type_t *t, ptrdiff_t off, size_t reps, dt_run_fn fn, void *ctx);

/* The node for r repetitions of t (spaced by its extent) at offset 0, if it
 * is one strided raw loop, written into *tmp or returned shared; NULL when
 * the repetitions must be a block of r children t->prog. */
const dt_node_t *dt_node_reps(const dt_type_t *t, size_t r, dt_node_t *tmp);

/* Builtins are initialized on first use. */
void dt_builtins_init(void);
/* Fill t's head (dt.h) from its fields: at commit and builtin setup. */
void dt_head_fill(dt_type_t *t);

#endif
