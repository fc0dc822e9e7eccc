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

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
    mpi_abi_model_pairs[], mpi_abi_whence_pairs[], mpi_abi_keyval_pairs[],
    mpi_abi_verbosity_pairs[], mpi_abi_bind_pairs[], mpi_abi_scope_pairs[],
    mpi_abi_pvarclass_pairs[], mpi_abi_cbsafety_pairs[], mpi_abi_sourceorder_pairs[];

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
#undef MPI_ABI_HANDLE_TYPE
/* requests: MPI_REQUEST_NULL (0x180 in the standard, the value of most
 * entries after an MPI_Waitall) without the table */
static inline int mpi_abi_to_request(abi_Request h) { return mpi_abi_to_handle(h); }
static inline abi_Request mpi_abi_from_request(int h)
{
    return h == MPI_REQUEST_NULL ? (abi_Request)(uintptr_t)0x180 : (abi_Request)mpi_abi_from_handle(h);
}

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
/* Ranks and tags: a value >= 0 passes; the sentinels near 0 (the standard's
 * MPI_ANY_SOURCE -1, MPI_PROC_NULL -3, MPI_ROOT -4, MPI_ANY_TAG -2 and
 * MPICH's -1 .. -3) index a table of MPI_ABI_NEG entries, filled at load time
 * from the generated pairs (abi_callbacks.c), so that MPI_Send to
 * MPI_PROC_NULL or a status of MPI_ANY_SOURCE costs a load, not a search; any
 * other negative value (MPI_UNDEFINED ...) searches the pairs. */
enum { MPI_ABI_NEG = 4 };
extern int mpi_abi_rank_in_neg[MPI_ABI_NEG], mpi_abi_rank_out_neg[MPI_ABI_NEG],
    mpi_abi_tag_in_neg[MPI_ABI_NEG], mpi_abi_tag_out_neg[MPI_ABI_NEG];
static inline int mpi_abi_rank_in(int r)
{
    if (__builtin_expect(r >= 0, 1))
        return r;
    if ((unsigned)(-1 - r) < MPI_ABI_NEG)
        return mpi_abi_rank_in_neg[-1 - r];
    return mpi_abi_pair_in(mpi_abi_rank_pairs, r, r == MPI_UNDEFINED ? r : MPI_ABI_BAD_SENTINEL);
}
static inline int mpi_abi_rank_out(int r)
{
    if (__builtin_expect(r >= 0, 1))
        return r;
    if ((unsigned)(-1 - r) < MPI_ABI_NEG)
        return mpi_abi_rank_out_neg[-1 - r];
    return mpi_abi_pair_out(mpi_abi_rank_pairs, r, r);
}
static inline int mpi_abi_tag_in(int t)
{
    if (__builtin_expect(t >= 0, 1))
        return t;
    if ((unsigned)(-1 - t) < MPI_ABI_NEG)
        return mpi_abi_tag_in_neg[-1 - t];
    return mpi_abi_pair_in(mpi_abi_tag_pairs, t, MPI_ABI_BAD_SENTINEL);
}
static inline int mpi_abi_tag_out(int t)
{
    if (__builtin_expect(t >= 0, 1))
        return t;
    if ((unsigned)(-1 - t) < MPI_ABI_NEG)
        return mpi_abi_tag_out_neg[-1 - t];
    return mpi_abi_pair_out(mpi_abi_tag_pairs, t, t);
}

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
MPI_ABI_INT_GROUP(verbosity)
MPI_ABI_INT_GROUP(bind)
MPI_ABI_INT_GROUP(scope)
MPI_ABI_INT_GROUP(pvarclass)
MPI_ABI_INT_GROUP(cbsafety)
MPI_ABI_INT_GROUP(sourceorder)
#undef MPI_ABI_INT_GROUP
/* a darg of MPI_Type_create_darray is a block size; only MPI_DISTRIBUTE_DFLT_DARG
 * is a constant (19 in the standard ABI, whatever 19 would mean as a size) */
static inline int mpi_abi_darg_in(int v)
{
    return mpi_abi_distrib_in(v) == MPI_DISTRIBUTE_DFLT_DARG ? MPI_DISTRIBUTE_DFLT_DARG : v;
}
static inline int mpi_abi_darg_out(int v)
{
    return v == MPI_DISTRIBUTE_DFLT_DARG ? mpi_abi_distrib_out(v) : v;
}
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

/* ---------------------------------------------------------------- arrays in place
 * The request-array path (MPI_Startall, MPI_Waitsome ...; MPI_Waitall and
 * MPI_Testall are completed in place by the core, mpi_abi_std_array) converts more entries than fit
 * the stack copy in the user's memory rather than into a malloc'ed copy
 * (mpi/api/gen_abi.py, REQ_IN_PLACE, STATUS_IN_PLACE): a standard request is a pointer, an MPICH request
 * an int, so the ints are packed into the first half of the array (entry i
 * is written at byte 4i after entry i, at 8i >= 4i, and every entry before
 * it were read) and expanded back from the last entry down; a standard status
 * (32 bytes) holds MPICH's (20), so the implementation writes its statuses
 * into the user's array with MPICH's stride and they are expanded from the
 * last down (status i of MPICH's layout ends at 20(i+1) <= 32(i+1)). memcpy
 * keeps the accesses of the two types of one memory defined; it compiles to
 * plain loads and stores. While the call runs the array holds MPICH's values
 * (the user may not touch it then); an invalid handle comes back as what the
 * invalid MPICH handle it became translates to. */
_Static_assert(sizeof(MPI_Request) <= sizeof(abi_Request), "requests convert in place");
_Static_assert(sizeof(MPI_Status) <= sizeof(abi_Status), "statuses convert in place");

static inline MPI_Request *mpi_abi_requests_in(abi_Request *a, int n)
{
    char *p = (char *)a;
    for (int i = 0; i < n; i++) {
        abi_Request v;
        MPI_Request h;
        memcpy(&v, p + sizeof v * (size_t)i, sizeof v);
        h = mpi_abi_to_request(v);
        memcpy(p + sizeof h * (size_t)i, &h, sizeof h);
    }
    return (MPI_Request *)(void *)a;
}
static inline void mpi_abi_requests_out(abi_Request *a, int n)
{
    char *p = (char *)a;
    for (int i = n - 1; i >= 0; i--) {
        MPI_Request h;
        abi_Request v;
        memcpy(&h, p + sizeof h * (size_t)i, sizeof h);
        v = mpi_abi_from_request(h);
        memcpy(p + sizeof v * (size_t)i, &v, sizeof v);
    }
}
static inline MPI_Request *mpi_abi_requests_copy(MPI_Request *l, const abi_Request *a, int n)
{
    for (int i = 0; i < n; i++)
        l[i] = mpi_abi_to_request(a[i]);
    return l;
}
/* MPI_Waitany/Waitsome ...: entry i of a copy back into the user's array if
 * the call changed it (an index out of range, from a call that failed before
 * writing it, is ignored) */
static inline void mpi_abi_request_back(abi_Request *a, const MPI_Request *l, int n, int i)
{
    if (i >= 0 && i < n && l[i] != mpi_abi_to_request(a[i]))
        a[i] = mpi_abi_from_request(l[i]);
}
/* a call of the MPI_Waitall family wrote its statuses (MPI_ERR_IN_STATUS included) */
static inline int mpi_abi_statuses_written(int err)
{
    return err == MPI_SUCCESS || (err >= 0 && err < MPI_ABI_USER_CODES && (err & 127) == MPI_ERR_IN_STATUS);
}
static inline void mpi_abi_statuses_out(abi_Status *a, int n)
{
    /* field by field: one wide load of the implementation's five int stores
     * would wait for them to leave the store buffer */
    for (int i = n - 1; i >= 0; i--) {
        const char *p = (const char *)a + sizeof(MPI_Status) * (size_t)i;
        MPI_Status m;
        memcpy(&m.count_lo, p + offsetof(MPI_Status, count_lo), sizeof(int));
        memcpy(&m.count_hi_and_cancelled, p + offsetof(MPI_Status, count_hi_and_cancelled), sizeof(int));
        memcpy(&m.MPI_SOURCE, p + offsetof(MPI_Status, MPI_SOURCE), sizeof(int));
        memcpy(&m.MPI_TAG, p + offsetof(MPI_Status, MPI_TAG), sizeof(int));
        memcpy(&m.MPI_ERROR, p + offsetof(MPI_Status, MPI_ERROR), sizeof(int));
        mpi_abi_status_out(&a[i], &m);
    }
}

/* MPI_Waitall/Testall: the core completes the caller's arrays in place
 * (mpi/request.c, mpi_std_array_t); this is the standard's MPI_REQUEST_NULL
 * and the conversion of a status with a sentinel or an error code */
extern const mpi_std_array_t mpi_abi_std_array;

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
extern const mpi_datarep_proxy_t mpi_abi_datarep_proxy;

/* MPI_Type_get_contents(_c): the order, distributions and dargs of a subarray or
 * darray's integers as the standard's values (the core keeps MPICH's) */
void mpi_abi_contents_out(MPI_Datatype dt, int *ints);
/* MPI_Comm_spawn(_multiple): the number of error codes the call wrote */
int mpi_abi_spawn_written(void);
/* the number of datatypes of MPI_(Neighbor_)alltoallw's send or receive side */
int mpi_abi_coll_ntypes(abi_Comm comm, int neighbor, int send);
/* MPI_Comm_get_attr, MPI_Attr_get: MPI_HOST and MPI_IO as the standard's ranks */
void mpi_abi_comm_attr_out(int abi_keyval, int **value);
/* MPI_Comm_idup ...: the MPICH handle a failed call left in the low half */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "late handles need a little-endian int");
static inline void mpi_abi_late_handle_out(void **p)
{
    int h;
    memcpy(&h, p, sizeof h);
    *p = h == 0 ? *p : mpi_abi_from_handle(h);
}
/* an output request (MPI_Isend ...): the core wrote MPICH's int into the low
 * half of the zeroed pointer; a user request (a direct handle, negative as an
 * int) is then its own standard value; 0 means the failed call wrote nothing */
static inline void mpi_abi_request_written(abi_Request *p, abi_Request orig)
{
    int h;
    memcpy(&h, p, sizeof h);
    if (__builtin_expect(h < 0, 1))
        return;
    *p = h == 0 ? orig : mpi_abi_from_request(h);
}
/* MPI_Win_get_attr: a flavor or memory model as the standard's value */
void mpi_abi_win_attr_out(int abi_keyval, int **value);
int mpi_abi_nomem(const char *fn);

#endif
