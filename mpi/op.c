/*
 * Reduction operations (MPI 4.0 section 6.9): the predefined MPI_Op handles,
 * user-defined operations (MPI_Op_create/_c, MPI_Op_free,
 * MPI_Op_commutative), MPI_Reduce_local, and mpi_op_apply(), the one door
 * through which collectives (coll/op.c) and one-sided accumulates apply an
 * operation. Predefined operations run the datatype engine's kernels
 * (dt_reduce); user functions are called with the datatype handle, in
 * pieces of at most INT_MAX elements for the int-count form.
 *
 * Predefined handles are MPICH's builtin handles 0x58000001 (MPI_MAX) ...
 * 0x5800000e (MPI_NO_OP), whose index follows dt_op_t's order; they need no
 * table. User operations get direct handles. An operation freed while a
 * nonblocking collective still uses it stays valid until that operation
 * drops its reference (mpi_op_retain/mpi_op_release).
 *
 * An operation made by MPICH's C++ library (MPI::Op::Init) has a proxy
 * (mpi_op_set_proxy, from MPII_Op_set_cxx): the user's C++ function is
 * called through it, with the count by value as C++ declares it.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <limits.h>
#include <stdlib.h>

typedef struct {
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;
    mpi_op_proxy_c_t *proxy_c; /* NULL: fn_c is called as C's MPI_User_function_c */
    mpi_op_proxy_t *proxy; /* NULL: fn is called as C's MPI_User_function */
    int commute;
    int refs;
    MPI_Op handle;
} mpi_op_t;

/* The engine operation of a predefined handle, or DT_OP_N. */
dt_op_t mpi_op_builtin(MPI_Op op)
{
    int idx;
    if (mpi_handle_kind(op) != MPI_HKIND_BUILTIN || mpi_handle_objtype(op) != MPI_OBJ_OP)
        return DT_OP_N;
    idx = mpi_handle_index(op);
    if (idx < 1 || idx > DT_OP_N)
        return DT_OP_N;
    return (dt_op_t)(idx - 1);
}

static mpi_op_t *user_op(MPI_Op op)
{
    if (mpi_handle_kind(op) != MPI_HKIND_DIRECT)
        return NULL;
    return mpi_handle_get(MPI_OBJ_OP, op);
}

int mpi_op_valid(MPI_Op op) { return mpi_op_builtin(op) != DT_OP_N || user_op(op) != NULL; }

int mpi_op_is_commutative(MPI_Op op)
{
    mpi_op_t *o = user_op(op);
    return o == NULL ? 1 : o->commute;
}

/* References held by operations in flight (nonblocking collectives, RMA). */
void mpi_op_retain(MPI_Op op)
{
    mpi_op_t *o = user_op(op);
    if (o != NULL)
        __atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
}

void mpi_op_release(MPI_Op op)
{
    mpi_op_t *o = user_op(op);
    if (o != NULL && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        mpi_handle_del(MPI_OBJ_OP, o->handle);
        free(o);
    }
}

int mpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype datatype)
{
    dt_op_t b = mpi_op_builtin(op);
    dt_type_t *t = mpi_dt_get(datatype);
    mpi_op_t *o;

    if (t == NULL)
        return MPI_ERR_TYPE;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (b != DT_OP_N) {
        canal_status_t st = dt_reduce(b, in, inout, (size_t)count, t);
        return st == CANAL_OK ? MPI_SUCCESS : mpi_err_class_of_status(st);
    }
    if ((o = user_op(op)) == NULL)
        return MPI_ERR_OP;
    if (o->fn_c != NULL) {
        MPI_Count n = count;
        MPI_Datatype dh = datatype;
        if (n > 0 && o->proxy_c != NULL)
            o->proxy_c(in, inout, n, dh, o->fn_c);
        else if (n > 0)
            o->fn_c((void *)in, inout, &n, &dh);
        return MPI_SUCCESS;
    }
    /* the int form sees at most INT_MAX elements per call */
    {
        ptrdiff_t ext = dt_extent(t);
        MPI_Count done = 0;
        while (done < count) {
            int n = count - done > INT_MAX ? INT_MAX : (int)(count - done);
            MPI_Datatype dh = datatype;
            if (o->proxy != NULL)
                o->proxy((char *)in + done * ext, (char *)inout + done * ext, n, dh, o->fn);
            else
                o->fn((char *)in + done * ext, (char *)inout + done * ext, &n, &dh);
            done += count - done > INT_MAX ? INT_MAX : count - done;
        }
    }
    return MPI_SUCCESS;
}

int mpi_op_set_proxy(MPI_Op op, mpi_op_proxy_t *proxy)
{
    mpi_op_t *o = user_op(op);
    if (o == NULL || o->fn == NULL)
        return -1;
    o->proxy = proxy;
    return 0;
}

int mpi_op_set_proxy_c(MPI_Op op, mpi_op_proxy_c_t *proxy)
{
    mpi_op_t *o = user_op(op);
    if (o == NULL || o->fn_c == NULL)
        return -1;
    o->proxy_c = proxy;
    return 0;
}

static int op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op,
                     const char *fn_name)
{
    mpi_op_t *o;
    int h;

    if (fn == NULL && fn_c == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn_name, "user_fn is NULL");
    if (op == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn_name, "op is NULL");
    o = calloc(1, sizeof *o);
    if (o == NULL)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name, "operation object");
    o->fn = fn;
    o->fn_c = fn_c;
    o->commute = commute != 0;
    o->refs = 1;
    h = mpi_handle_new(MPI_OBJ_OP, o);
    if (h == 0) {
        free(o);
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name, "no handle left for a new operation");
    }
    o->handle = h;
    *op = h;
    return MPI_SUCCESS;
}

/* The implementations of the generated entry points (mpi/api/06-collectives.api). */
int mpi_op_create_impl(MPI_User_function *user_fn, int commute, MPI_Op *op, const char *fn)
{
    return op_create(user_fn, NULL, commute, op, fn);
}

int mpi_op_create_c_impl(MPI_User_function_c *user_fn, int commute, MPI_Op *op, const char *fn)
{
    return op_create(NULL, user_fn, commute, op, fn);
}

int mpi_op_free_impl(MPI_Op *op, const char *fn)
{
    mpi_op_t *o;

    if (mpi_op_builtin(*op) != DT_OP_N)
        return mpi_err_raise(NULL, MPI_ERR_OP, fn, "%s is predefined and cannot be freed",
                             dt_op_name(mpi_op_builtin(*op)));
    if ((o = user_op(*op)) == NULL)
        return mpi_err_raise(NULL, MPI_ERR_OP, fn, "op=%#x is not a valid operation%s",
                             (unsigned)*op, *op == MPI_OP_NULL ? " (MPI_OP_NULL)" : "");
    mpi_op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

/* op comes checked by the entry point (kind op, mpi_check_op_arg), as below */
int mpi_op_commutative_impl(MPI_Op op, int *commute, const char *fn)
{
    (void)fn;
    *commute = mpi_op_is_commutative(op);
    return MPI_SUCCESS;
}

/* op, count and datatype come checked by the entry point, the op against
 * the datatype too (op(datatype): mpi_check_op_type_arg, before the count as
 * MPICH). */
int mpi_reduce_local_impl(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Op op, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    int err;

    if (count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed here");
    if (count > 0 && dt_size(t) > 0 && (inbuf == NULL || inoutbuf == NULL) &&
        dt_builtin_of(t) != DT_NBUILTIN)
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "%s is NULL with count=%lld",
                             inbuf == NULL ? "inbuf" : "inoutbuf", (long long)count);
    if (mpi_bufs_overlap(inbuf, count, t, inoutbuf, count, t))
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn,
                             "inbuf (%p) and inoutbuf (%p) overlap with count=%lld; the "
                             "buffers must be distinct",
                             inbuf, inoutbuf, (long long)count);
    err = mpi_op_apply(op, inbuf, inoutbuf, count, datatype);
    if (err != MPI_SUCCESS)
        return mpi_err_raise(NULL, err, fn, "the reduction failed");
    return MPI_SUCCESS;
}
