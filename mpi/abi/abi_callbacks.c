/*
 * abi_callbacks.c -- the hand-written part of libmpi_abi.so.1 (the MPI 5.0
 * standard ABI): the load-time tables of abi_conv.h, the conversion of error
 * codes and integer constants, and the trampolines through which the core
 * calls the user's callbacks with standard-ABI handles and codes: user
 * operations, error handlers, attribute copy/delete functions and
 * generalized requests (the core's language proxies, mpiimpl.h, the same
 * hooks MPICH's C++ and Fortran libraries use). Entry points are not here:
 * they are generated (mpi/api/gen_abi.py).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiimpl.h"
#include "mpi/api_impl.h"
#include "mpi/abi/abi_conv.h"

uint16_t mpi_abi_handle_out[2][16][256];
static int class_out[128], class_in[128]; /* MPICH class <-> standard class (< 128) */

/* MPICH's predefined pair types with direct handles (MPI_FLOAT_INT ...) */
abi_Datatype mpi_abi_from_pairtype(int h)
{
    for (const struct mpi_abi_pair *p = mpi_abi_handle_pairs; p->abi != INT_MIN; p++)
        if (p->mpich == h)
            return (abi_Datatype)(uintptr_t)p->abi;
    return (abi_Datatype)(uintptr_t)(unsigned)h;
}

/* Tables of the binding, and the core told that it runs the standard ABI
 * (MPI_Abi_get_version, MPI_Get_library_version, canal-info). */
__attribute__((constructor)) static void abi_init(void)
{
    for (const struct mpi_abi_pair *p = mpi_abi_handle_pairs; p->abi != INT_MIN; p++) {
        unsigned u = (unsigned)p->mpich;
        uint16_t *slot;
        if (u >> 31)
            continue; /* a direct handle: mpi_abi_from_pairtype */
        slot = &mpi_abi_handle_out[u >> 30][(u >> 26) & 0xf][u & 0xff];
        /* a type MPICH's ABI lacks (MPI_INTEGER16) is MPI_DATATYPE_NULL there:
         * the null, listed first, keeps the slot */
        if (*slot == 0)
            *slot = (uint16_t)p->abi;
    }
    for (int i = 0; i < 128; i++)
        class_out[i] = class_in[i] = i; /* classes of neither table (MPIX_) stay */
    for (const struct mpi_abi_pair *p = mpi_abi_class_pairs; p->abi != INT_MIN; p++) {
        if (p->mpich >= 0 && p->mpich < 128)
            class_out[p->mpich] = p->abi;
        if (p->abi >= 0 && p->abi < 128)
            class_in[p->abi] = p->mpich;
    }
    for (int k = 0; k < MPI_ABI_NEG; k++) { /* what the pair functions answer for -1 .. -MPI_ABI_NEG */
        mpi_abi_rank_in_neg[k] = mpi_abi_pair_in(mpi_abi_rank_pairs, -1 - k, MPI_ABI_BAD_SENTINEL);
        mpi_abi_rank_out_neg[k] = mpi_abi_pair_out(mpi_abi_rank_pairs, -1 - k, -1 - k);
        mpi_abi_tag_in_neg[k] = mpi_abi_pair_in(mpi_abi_tag_pairs, -1 - k, MPI_ABI_BAD_SENTINEL);
        mpi_abi_tag_out_neg[k] = mpi_abi_pair_out(mpi_abi_tag_pairs, -1 - k, -1 - k);
    }
    mpi_abi_standard = 1;
}
int mpi_abi_rank_in_neg[MPI_ABI_NEG], mpi_abi_rank_out_neg[MPI_ABI_NEG], mpi_abi_tag_in_neg[MPI_ABI_NEG],
    mpi_abi_tag_out_neg[MPI_ABI_NEG];

/* ---------------------------------------------------------------- integers */
int mpi_abi_pair_in(const struct mpi_abi_pair *t, int v, int unknown)
{
    for (; t->abi != INT_MIN; t++)
        if (t->abi == v)
            return t->mpich;
    return unknown;
}

int mpi_abi_pair_out(const struct mpi_abi_pair *t, int v, int unknown)
{
    for (; t->abi != INT_MIN; t++)
        if (t->mpich == v)
            return t->abi;
    return unknown;
}

/* mode bits (MPI_MODE_*): each bit of the standard's maps to MPICH's; a bit of
 * neither is kept, so the implementation still rejects it */
int mpi_abi_bits_in(const struct mpi_abi_pair *t, int v)
{
    int out = 0;
    for (; t->abi != INT_MIN; t++)
        if (v & t->abi) {
            out |= t->mpich;
            v &= ~t->abi;
        }
    return out | v;
}

int mpi_abi_bits_out(const struct mpi_abi_pair *t, int v)
{
    int out = 0;
    for (; t->abi != INT_MIN; t++)
        if (v & t->mpich) {
            out |= t->abi;
            v &= ~t->mpich;
        }
    return out | v;
}

/* ---------------------------------------------------------------- error codes */
int mpi_abi_code_out_slow(int code)
{
    int cls, abi;
    if (code < 0 || code >= MPI_ABI_USER_CODES)
        return code;
    cls = code & 127;
    abi = mpi_abi_pair_out(mpi_abi_class_pairs, cls, class_out[cls]);
    if (abi >= 128) /* the tool interface's classes (1001..): no message slot */
        return abi;
    return abi | (code & ~127);
}

int mpi_abi_code_in_slow(int code)
{
    if (code < 0 || code >= MPI_ABI_USER_CODES)
        return code;
    if (code >= MPI_ABI_T_FIRST && code <= MPI_ABI_T_LAST)
        return mpi_abi_pair_in(mpi_abi_class_pairs, code, MPI_ERR_UNKNOWN);
    return class_in[code & 127] | (code & ~127);
}

int mpi_abi_nomem(const char *fn)
{
    return mpi_abi_code_out(mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory converting an array"));
}

int mpi_abi_coll_ntypes(abi_Comm comm, int neighbor, int send)
{
    mpi_comm_t *c = mpi_comm_get(mpi_abi_to_comm(comm));
    int in = 0, out = 0;
    const int *s, *d;
    if (c == NULL)
        return 0; /* the call's check raises MPI_ERR_COMM */
    if (!neighbor)
        return c->is_inter && !send ? c->peer_size : c->is_inter ? c->peer_size : c->size;
    if (mpi_topo_neighbors(c, &in, &s, &out, &d) != 0)
        return 0;
    return send ? out : in;
}

/* The integers of a subarray's or darray's envelope carry the order, the
 * distributions and the dargs the core stored as MPICH's values (mpi/type.c:
 * subarray [ndims, sizes, subsizes, starts, order], darray [size, rank,
 * ndims, gsizes, distribs, dargs, psizes, order]; the large-count forms move
 * the sizes to the counts). */
void mpi_abi_contents_out(MPI_Datatype dt, int *ints)
{
    MPI_Count ni = 0, na, nc = 0, nd;
    int comb = 0;
    if (mpi_type_get_envelope_c_impl(dt, &ni, &na, &nc, &nd, &comb, "MPI_Type_get_contents") !=
        MPI_SUCCESS)
        return;
    if (comb == MPI_COMBINER_SUBARRAY && ni >= 2) {
        ints[ni - 1] = mpi_abi_order_out(ints[ni - 1]);
    } else if (comb == MPI_COMBINER_DARRAY && ni >= 4) {
        int n = ints[2], k = 3 + (nc > 0 ? 0 : n);
        if (n < 0 || k + 3 * (MPI_Count)n + 1 != ni)
            return; /* not the layout above: nothing to convert */
        for (int i = 0; i < n; i++) {
            ints[k + i] = mpi_abi_distrib_out(ints[k + i]);
            ints[k + n + i] = mpi_abi_darg_out(ints[k + n + i]);
        }
        ints[ni - 1] = mpi_abi_order_out(ints[ni - 1]);
    }
}

/* The functions of a user data representation: the standard datatype handle
 * in, the standard error code back. */
static int datarep_convert(void (*user_fn)(void), int large, void *userbuf, MPI_Datatype dt,
                           MPI_Count count, void *filebuf, MPI_Offset position, void *extra)
{
    abi_Datatype t = mpi_abi_from_datatype(dt);
    int rc = large ? ((abi_Datarep_conversion_function_c *)user_fn)(userbuf, t, count, filebuf,
                                                                    position, extra)
                   : ((abi_Datarep_conversion_function *)user_fn)(userbuf, t, (int)count, filebuf,
                                                                  position, extra);
    return mpi_abi_code_in(rc);
}

static int datarep_extent(MPI_Datarep_extent_function *user_fn, MPI_Datatype dt, MPI_Aint *extent,
                          void *extra)
{
    abi_Datarep_extent_function *f = (abi_Datarep_extent_function *)(void (*)(void))user_fn;
    return mpi_abi_code_in(f(mpi_abi_from_datatype(dt), extent, extra));
}

const mpi_datarep_proxy_t mpi_abi_datarep_proxy = {datarep_convert, datarep_extent};

int mpi_abi_spawn_written(void) { return mpi_spawn_codes_written(); }

/* MPI_HOST and MPI_IO point at the core's rank (or MPICH's MPI_PROC_NULL,
 * MPI_ANY_SOURCE); the standard ABI's caller gets a pointer to the
 * standard's value, the same on every call. */
void mpi_abi_comm_attr_out(int abi_keyval, int **value)
{
    static int host, io;
    int *slot;
    if (abi_keyval == 503) /* MPI_HOST */
        slot = &host;
    else if (abi_keyval == 502) /* MPI_IO */
        slot = &io;
    else
        return;
    *slot = mpi_abi_rank_out(**value);
    *value = slot;
}

/* The window's flavor and memory model attributes point at the core's int
 * (MPICH's value); the standard ABI's caller gets a pointer to a constant
 * with the standard's value instead. */
void mpi_abi_win_attr_out(int abi_keyval, int **value)
{
    static int flavors[4], models[2];
    int *slots;
    const struct mpi_abi_pair *t;
    int n, i;
    if (abi_keyval == 604) { /* MPI_WIN_CREATE_FLAVOR */
        t = mpi_abi_flavor_pairs, slots = flavors, n = 4;
    } else if (abi_keyval == 605) { /* MPI_WIN_MODEL */
        t = mpi_abi_model_pairs, slots = models, n = 2;
    } else {
        return;
    }
    for (i = 0; i < n && t[i].abi != INT_MIN; i++)
        if (t[i].mpich == **value) {
            slots[i] = t[i].abi; /* the same value on every call: no race to speak of */
            *value = &slots[i];
            return;
        }
}

/* ---------------------------------------------------------------- callbacks */
/* MPI_COMM_DUP_FN and friends are 1 in the standard ABI, MPIR_Dup_fn here */
void (*mpi_abi_copy_fn(void (*f)(void)))(void)
{
    if ((uintptr_t)f == 1)
        return (void (*)(void))MPIR_Dup_fn;
    return f;
}

void mpi_abi_op_proxy(const void *in, void *inout, int len, MPI_Datatype dt,
                      MPI_User_function *user_fn)
{
    abi_Datatype adt = mpi_abi_from_datatype(dt);
    ((abi_User_function *)(void (*)(void))user_fn)((void *)in, inout, &len, &adt);
}

void mpi_abi_op_proxy_c(const void *in, void *inout, MPI_Count len, MPI_Datatype dt,
                        MPI_User_function_c *user_fn)
{
    abi_Datatype adt = mpi_abi_from_datatype(dt);
    ((abi_User_function_c *)(void (*)(void))user_fn)((void *)in, inout, &len, &adt);
}

/* kind 0 communicator, 1 file, 2 window, 3 session (mpi/errors.c) */
void mpi_abi_errh_proxy(int kind, int *handle, int *code, void (*user_fn)(void))
{
    int acode = mpi_abi_code_out(*code);
    if (kind == 1) {
        abi_File f = mpi_abi_from_file((MPI_File)(void *)*(void **)handle);
        ((abi_File_errhandler_function *)user_fn)(&f, &acode);
    } else if (kind == 3) {
        abi_Session s = mpi_abi_from_session(*handle);
        ((abi_Session_errhandler_function *)user_fn)(&s, &acode);
    } else if (kind == 2) {
        abi_Win w = mpi_abi_from_win(*handle);
        ((abi_Win_errhandler_function *)user_fn)(&w, &acode);
    } else {
        abi_Comm c = mpi_abi_from_comm(*handle);
        ((abi_Comm_errhandler_function *)user_fn)(&c, &acode);
    }
}

static void *attr_handle(int handle)
{
    if (mpi_handle_objtype(handle) == MPI_OBJ_DATATYPE)
        return mpi_abi_from_datatype(handle);
    return mpi_abi_from_handle(handle);
}

int mpi_abi_copy_proxy(MPI_Comm_copy_attr_function *user_fn, int handle, int keyval, void *extra,
                       mpi_attr_kind_t kind, void *value, void **newval, int *flag)
{
    (void)kind;
    if (user_fn == NULL) { /* MPI_*_NULL_COPY_FN */
        *flag = 0;
        return MPI_SUCCESS;
    }
    if ((void (*)(void))user_fn == (void (*)(void))MPIR_Dup_fn)
        return MPIR_Dup_fn(handle, keyval, extra, value, newval, flag);
    return mpi_abi_code_in(((abi_Comm_copy_attr_function *)(void (*)(void))user_fn)(
        (abi_Comm)attr_handle(handle), keyval, extra, value, newval, flag));
}

int mpi_abi_delete_proxy(MPI_Comm_delete_attr_function *user_fn, int handle, int keyval,
                         mpi_attr_kind_t kind, void *value, void *extra)
{
    (void)kind;
    if (user_fn == NULL)
        return MPI_SUCCESS;
    return mpi_abi_code_in(((abi_Comm_delete_attr_function *)(void (*)(void))user_fn)(
        (abi_Comm)attr_handle(handle), keyval, value, extra));
}

static int greq_query(MPI_Grequest_query_function *fn, void *extra, MPI_Status *status)
{
    abi_Status a = {0};
    int err;
    mpi_abi_status_out(&a, status);
    err = ((abi_Grequest_query_function *)(void (*)(void))fn)(extra, &a);
    mpi_abi_status_in(status, &a);
    return mpi_abi_code_in(err);
}

static int greq_free(MPI_Grequest_free_function *fn, void *extra)
{
    return mpi_abi_code_in(fn(extra));
}

static int greq_cancel(MPI_Grequest_cancel_function *fn, void *extra, int complete)
{
    return mpi_abi_code_in(fn(extra, complete));
}

const mpi_greq_lang_t mpi_abi_greq_lang = {greq_query, greq_free, greq_cancel};

/* MPI_Waitall/Testall (mpi/request.c): a status the core does not write
 * directly (a sentinel source or tag, an error code) */
static void std_array_status_out(void *std_status, const MPI_Status *st)
{
    abi_Status a;
    memcpy(&a, std_status, sizeof a); /* MPI_internal[2..4] keep the caller's bytes */
    mpi_abi_status_out(&a, st);
    memcpy(std_status, &a, sizeof a);
}
const mpi_std_array_t mpi_abi_std_array = {0x180, std_array_status_out};
