/*
 * abi_conv.h -- translation between the MPI 5.0 standard ABI and Canal's
 * MPICH-ABI values at the edge of libmpi_abi.so.1 (the generated entry
 * points of mpi/abi/api_abi_*.c include it; nothing below mpi/ sees it).
 *
 * Handles, O(1) both ways and without a lookup for user objects:
 *   standard -> MPICH: a predefined standard handle is a small constant
 *     (< MPI_ABI_HANDLE_LIMIT) that indexes mpi_abi_handle_in[]; any other
 *     value is a handle the library gave out, which carries the MPICH int in
 *     the pointer value. A value above 32 bits is no handle of Canal's: it
 *     becomes 0, an invalid handle, so the call's check raises MPI_ERR_COMM
 *     (MPI_ERR_TYPE ...) as for any bad handle.
 *   MPICH -> standard: a user object's handle (kind 2, "direct") is cast to
 *     the pointer; a builtin or null handle (kind 1 or 0) indexes a table by
 *     kind, object type and low byte (mpi_abi_handle_out, filled at load time
 *     from the generated pairs, mpi/abi/abi_tables.c). MPICH's predefined
 *     pair types with direct handles (MPI_FLOAT_INT ...) have a check of
 *     their own in mpi_abi_from_datatype.
 * Error codes: a class maps through a table; the slot of Canal's code
 * ("class | slot << 7", mpi/errors.c) is kept, so MPI_Error_string and
 * MPI_Error_class work on a returned code; user codes (0x40000000 + n) are
 * the same in both.
 * Integers that carry constants (ranks, tags, thread levels ...) map through
 * the small generated tables of pairs; values that are not constants pass
 * unchanged (a rank or tag >= 0 without a lookup).
 */
#ifndef CANAL_MPI_ABI_CONV_H
#define CANAL_MPI_ABI_CONV_H

#include <stdint.h>

#include "mpiimpl.h"

/* The standard ABI's types as the generated entry points spell them (the
 * MPICH-ABI mpi.h is the one included): the same struct tags as the
 * standard header, so they are the same types for the compiler's purposes. */
typedef struct MPI_ABI_Comm *abi_Comm;
typedef struct MPI_ABI_Datatype *abi_Datatype;
typedef struct MPI_ABI_Group *abi_Group;
typedef struct MPI_ABI_Op *abi_Op;
typedef struct MPI_ABI_Info *abi_Info;
typedef struct MPI_ABI_Errhandler *abi_Errhandler;
typedef struct MPI_ABI_Win *abi_Win;
typedef struct MPI_ABI_File *abi_File;
typedef struct MPI_ABI_Session *abi_Session;
typedef struct MPI_ABI_Message *abi_Message;
typedef struct MPI_ABI_Request *abi_Request;
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} abi_Status;

typedef void (abi_User_function)(void *, void *, int *, abi_Datatype *);
typedef void (abi_User_function_c)(void *, void *, MPI_Count *, abi_Datatype *);
typedef int (abi_Grequest_query_function)(void *, abi_Status *);
typedef int (abi_Grequest_free_function)(void *);
typedef int (abi_Grequest_cancel_function)(void *, int);
typedef int (abi_Copy_function)(abi_Comm, int, void *, void *, void *, int *);
typedef int (abi_Delete_function)(abi_Comm, int, void *, void *);
typedef int (abi_Comm_copy_attr_function)(abi_Comm, int, void *, void *, void *, int *);
typedef int (abi_Comm_delete_attr_function)(abi_Comm, int, void *, void *);
typedef int (abi_Type_copy_attr_function)(abi_Datatype, int, void *, void *, void *, int *);
typedef int (abi_Type_delete_attr_function)(abi_Datatype, int, void *, void *);
typedef int (abi_Win_copy_attr_function)(abi_Win, int, void *, void *, void *, int *);
typedef int (abi_Win_delete_attr_function)(abi_Win, int, void *, void *);
typedef int (abi_Datarep_extent_function)(abi_Datatype, MPI_Aint *, void *);
typedef int (abi_Datarep_conversion_function)(void *, abi_Datatype, int, void *, MPI_Offset, void *);
typedef int (abi_Datarep_conversion_function_c)(void *, abi_Datatype, MPI_Count, void *, MPI_Offset,
                                                void *);
typedef void (abi_Comm_errhandler_function)(abi_Comm *, int *, ...);
typedef void (abi_File_errhandler_function)(abi_File *, int *, ...);
typedef void (abi_Win_errhandler_function)(abi_Win *, int *, ...);
typedef void (abi_Session_errhandler_function)(abi_Session *, int *, ...);

/* the entry points are the library's only exported symbols */
#define MPI_ABI_EXPORT __attribute__((visibility("default")))

/* ---------------------------------------------------------------- tables */
enum { MPI_ABI_HANDLE_LIMIT = 0x400 };
struct mpi_abi_pair {
    int mpich, abi;
};
extern const int mpi_abi_handle_in[MPI_ABI_HANDLE_LIMIT];
extern const struct mpi_abi_pair mpi_abi_handle_pairs[];
/* [kind 0 or 1][object type][low byte of the handle] -> standard value */
extern uint16_t mpi_abi_handle_out[2][16][256];
extern const struct mpi_abi_pair mpi_abi_class_pairs[], mpi_abi_rank_pairs[],
    mpi_abi_tag_pairs[], mpi_abi_thread_pairs[], mpi_abi_amode_pairs[],
    mpi_abi_assert_pairs[], mpi_abi_order_pairs[], mpi_abi_distrib_pairs[],
    mpi_abi_combiner_pairs[], mpi_abi_typeclass_pairs[], mpi_abi_compare_pairs[],
    mpi_abi_topo_pairs[], mpi_abi_split_pairs[], mpi_abi_lock_pairs[], mpi_abi_flavor_pairs[],
    mpi_abi_model_pairs[], mpi_abi_whence_pairs[], mpi_abi_keyval_pairs[];

/* ---------------------------------------------------------------- handles */
static inline int mpi_abi_to_handle(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    if (__builtin_expect(v < MPI_ABI_HANDLE_LIMIT, 1))
        return mpi_abi_handle_in[v];
    return v >> 32 ? 0 : (int)(uint32_t)v;
}

static inline void *mpi_abi_from_handle(int h)
{
    unsigned u = (unsigned)h;
    if (u >> 31) /* direct: a user object (or an invalid handle, kept as is) */
        return (void *)(uintptr_t)u;
    return (void *)(uintptr_t)mpi_abi_handle_out[u >> 30][(u >> 26) & 0xf][u & 0xff];
}

#define MPI_ABI_HANDLE_TYPE(low, T)                                                            \
    static inline int mpi_abi_to_##low(abi_##T h) { return mpi_abi_to_handle(h); }            \
    static inline abi_##T mpi_abi_from_##low(int h) { return (abi_##T)mpi_abi_from_handle(h); }
MPI_ABI_HANDLE_TYPE(comm, Comm)
MPI_ABI_HANDLE_TYPE(group, Group)
MPI_ABI_HANDLE_TYPE(op, Op)
MPI_ABI_HANDLE_TYPE(info, Info)
MPI_ABI_HANDLE_TYPE(errhandler, Errhandler)
MPI_ABI_HANDLE_TYPE(win, Win)
MPI_ABI_HANDLE_TYPE(session, Session)
MPI_ABI_HANDLE_TYPE(request, Request)
#undef MPI_ABI_HANDLE_TYPE

static inline int mpi_abi_to_datatype(abi_Datatype h) { return mpi_abi_to_handle(h); }
/* MPICH's MPI_FLOAT_INT .. MPI_LONG_DOUBLE_INT are direct handles 0x8c000000 + i */
abi_Datatype mpi_abi_from_pairtype(int h);
static inline abi_Datatype mpi_abi_from_datatype(int h)
{
    if (__builtin_expect((unsigned)h - 0x8c000000u < 8u, 0))
        return mpi_abi_from_pairtype(h);
    return (abi_Datatype)mpi_abi_from_handle(h);
}

/* MPICH's MPI_MESSAGE_NULL is MPI_REQUEST_NULL's value: messages have their own */
static inline int mpi_abi_to_message(abi_Message h) { return mpi_abi_to_handle(h); }
static inline abi_Message mpi_abi_from_message(int h)
{
    if (h == MPI_MESSAGE_NULL)
        return (abi_Message)(uintptr_t)0x128;
    return (abi_Message)mpi_abi_from_handle(h);
}

/* MPI_File is a pointer in MPICH's ABI too */
static inline MPI_File mpi_abi_to_file(abi_File h)
{
    return (uintptr_t)h == 0x118 ? MPI_FILE_NULL : (MPI_File)(void *)h;
}
static inline abi_File mpi_abi_from_file(MPI_File h)
{
    return h == MPI_FILE_NULL ? (abi_File)(uintptr_t)0x118 : (abi_File)(void *)h;
}

/* ---------------------------------------------------------------- integers */
int mpi_abi_pair_in(const struct mpi_abi_pair *t, int v, int unknown);
int mpi_abi_pair_out(const struct mpi_abi_pair *t, int v, int unknown);
int mpi_abi_bits_in(const struct mpi_abi_pair *t, int v);
int mpi_abi_bits_out(const struct mpi_abi_pair *t, int v);

/* a negative rank or tag that is no sentinel of the standard: invalid in MPICH's too */
enum { MPI_ABI_BAD_SENTINEL = -32767 };
static inline int mpi_abi_rank_in(int r)
{
    return r >= 0 ? r : mpi_abi_pair_in(mpi_abi_rank_pairs, r, r == MPI_UNDEFINED ? r : MPI_ABI_BAD_SENTINEL);
}
static inline int mpi_abi_rank_out(int r) { return r >= 0 ? r : mpi_abi_pair_out(mpi_abi_rank_pairs, r, r); }
static inline int mpi_abi_tag_in(int t)
{
    return t >= 0 ? t : mpi_abi_pair_in(mpi_abi_tag_pairs, t, MPI_ABI_BAD_SENTINEL);
}
static inline int mpi_abi_tag_out(int t) { return t >= 0 ? t : mpi_abi_pair_out(mpi_abi_tag_pairs, t, t); }

#define MPI_ABI_INT_GROUP(g)                                                                    \
    static inline int mpi_abi_##g##_in(int v) { return mpi_abi_pair_in(mpi_abi_##g##_pairs, v, v); } \
    static inline int mpi_abi_##g##_out(int v) { return mpi_abi_pair_out(mpi_abi_##g##_pairs, v, v); }
MPI_ABI_INT_GROUP(thread)
MPI_ABI_INT_GROUP(order)
MPI_ABI_INT_GROUP(distrib)
MPI_ABI_INT_GROUP(combiner)
MPI_ABI_INT_GROUP(typeclass)
MPI_ABI_INT_GROUP(compare)
MPI_ABI_INT_GROUP(topo)
MPI_ABI_INT_GROUP(split)
MPI_ABI_INT_GROUP(lock)
MPI_ABI_INT_GROUP(whence)
MPI_ABI_INT_GROUP(keyval)
#undef MPI_ABI_INT_GROUP
static inline int mpi_abi_amode_in(int v) { return mpi_abi_bits_in(mpi_abi_amode_pairs, v); }
static inline int mpi_abi_amode_out(int v) { return mpi_abi_bits_out(mpi_abi_amode_pairs, v); }
static inline int mpi_abi_assert_in(int v) { return mpi_abi_bits_in(mpi_abi_assert_pairs, v); }
static inline int mpi_abi_assert_out(int v) { return mpi_abi_bits_out(mpi_abi_assert_pairs, v); }

/* ---------------------------------------------------------------- error codes */
enum { MPI_ABI_USER_CODES = 0x40000000, MPI_ABI_T_FIRST = 1001, MPI_ABI_T_LAST = 1018 };
int mpi_abi_code_out_slow(int code);
int mpi_abi_code_in_slow(int code);
static inline int mpi_abi_code_out(int code)
{
    return __builtin_expect(code == MPI_SUCCESS, 1) ? code : mpi_abi_code_out_slow(code);
}
static inline int mpi_abi_code_in(int code) { return code == 0 ? 0 : mpi_abi_code_in_slow(code); }
#define mpi_abi_class_in mpi_abi_code_in
#define mpi_abi_class_out mpi_abi_code_out

/* ---------------------------------------------------------------- statuses */
static inline void mpi_abi_status_out(abi_Status *a, const MPI_Status *m)
{
    a->MPI_SOURCE = mpi_abi_rank_out(m->MPI_SOURCE);
    a->MPI_TAG = mpi_abi_tag_out(m->MPI_TAG);
    a->MPI_ERROR = mpi_abi_code_out(m->MPI_ERROR);
    a->MPI_internal[0] = m->count_lo;
    a->MPI_internal[1] = m->count_hi_and_cancelled;
}
static inline void mpi_abi_status_in(MPI_Status *m, const abi_Status *a)
{
    m->MPI_SOURCE = mpi_abi_rank_in(a->MPI_SOURCE);
    m->MPI_TAG = mpi_abi_tag_in(a->MPI_TAG);
    m->MPI_ERROR = mpi_abi_code_in(a->MPI_ERROR);
    m->count_lo = a->MPI_internal[0];
    m->count_hi_and_cancelled = a->MPI_internal[1];
}

/* ---------------------------------------------------------------- buffers */
static inline void *mpi_abi_buf(const void *p)
{
    return p == (const void *)1 ? MPI_IN_PLACE : (void *)p;
}
static inline const int *mpi_abi_weights(const int *w)
{
    return w == (const int *)10 ? MPI_UNWEIGHTED : w == (const int *)11 ? MPI_WEIGHTS_EMPTY : w;
}

/* ---------------------------------------------------------------- callbacks (abi_callbacks.c) */
void (*mpi_abi_copy_fn(void (*f)(void)))(void);
mpi_op_proxy_t mpi_abi_op_proxy;
void mpi_abi_op_proxy_c(const void *in, void *inout, MPI_Count len, MPI_Datatype dt,
                        MPI_User_function_c *user_fn);
mpi_errh_proxy_t mpi_abi_errh_proxy;
mpi_attr_copy_proxy_t mpi_abi_copy_proxy;
mpi_attr_delete_proxy_t mpi_abi_delete_proxy;
extern const mpi_greq_lang_t mpi_abi_greq_lang;

/* the number of datatypes of MPI_(Neighbor_)alltoallw's send or receive side */
int mpi_abi_coll_ntypes(abi_Comm comm, int neighbor, int send);
/* MPI_Win_get_attr: a flavor or memory model as the standard's value */
void mpi_abi_win_attr_out(int abi_keyval, int **value);
int mpi_abi_nomem(const char *fn);

#endif
