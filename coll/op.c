/*
 * Reductions for coll/: one door to mpi_op_apply (mpi/op.c, the datatype
 * layer's MPI front), which applies every predefined and user-defined
 * operation. Until mpi/op.c is linked into libmpi the references below are
 * weak and resolve to NULL; then predefined operations on types made of one
 * builtin fall back to the engine's kernels (dt_reduce) and user-defined
 * operations are refused. Called by the schedule engine and the MPI front's
 * argument checks.
 */
#include "coll/coll.h"

#include <stdio.h>

/* References that keep a user operation alive while a schedule uses it
 * (mpi/op.c; not in mpiimpl.h). */
void mpi_op_retain(MPI_Op op);
void mpi_op_release(MPI_Op op);

#pragma weak mpi_op_apply
#pragma weak mpi_op_is_commutative
#pragma weak mpi_op_valid
#pragma weak mpi_op_retain
#pragma weak mpi_op_release

/* The engine's operation for a predefined MPI_Op, or DT_OP_N. */
static dt_op_t builtin_op(MPI_Op op)
{
    int idx;
    if (mpi_handle_kind(op) != MPI_HKIND_BUILTIN || mpi_handle_objtype(op) != MPI_OBJ_OP)
        return DT_OP_N;
    idx = mpi_handle_index(op);
    /* MPI_MAX (index 1) ... MPI_NO_OP (index 14) follow dt_op_t's order */
    if (idx < 1 || idx > DT_OP_N)
        return DT_OP_N;
    return (dt_op_t)(idx - 1);
}

int coll_op_valid(MPI_Op op)
{
    if (mpi_op_valid != NULL)
        return mpi_op_valid(op);
    return builtin_op(op) != DT_OP_N;
}

int coll_op_is_commutative(MPI_Op op)
{
    if (mpi_op_is_commutative != NULL)
        return mpi_op_is_commutative(op);
    return 1; /* every predefined operation is */
}

int coll_op_check(MPI_Op op, dt_type_t *dt, char *buf, size_t len)
{
    dt_op_t b;
    if (op == MPI_OP_NULL) {
        snprintf(buf, len, "op is MPI_OP_NULL");
        return MPI_ERR_OP;
    }
    if (!coll_op_valid(op)) {
        snprintf(buf, len, "op=%#x is not a valid operation", (unsigned)op);
        return MPI_ERR_OP;
    }
    b = builtin_op(op);
    if (b == DT_OP_N)
        return MPI_SUCCESS; /* user-defined: any datatype */
    if (b == DT_OP_REPLACE || b == DT_OP_NO_OP) {
        snprintf(buf, len, "op %s is only allowed in one-sided accumulate operations",
                 dt_op_name(b));
        return MPI_ERR_OP;
    }
    if (dt_op_check(b, dt) != CANAL_OK) {
        snprintf(buf, len, "op %s is not defined for datatype %s", dt_op_name(b),
                 dt_get_name(dt)[0] ? dt_get_name(dt) : "(derived)");
        return MPI_ERR_OP;
    }
    return MPI_SUCCESS;
}

int coll_op_apply(MPI_Op op, const void *in, void *inout, size_t count, MPI_Datatype dth,
                  dt_type_t *dt)
{
    dt_op_t b;
    if (mpi_op_apply != NULL)
        return mpi_op_apply(op, in, inout, (MPI_Count)count, dth);
    b = builtin_op(op);
    if (b == DT_OP_N)
        return MPI_ERR_OP;
    return dt_reduce(b, in, inout, count, dt) == CANAL_OK ? MPI_SUCCESS : MPI_ERR_OP;
}

void coll_op_retain(MPI_Op op)
{
    if (mpi_op_retain != NULL)
        mpi_op_retain(op);
}

void coll_op_release(MPI_Op op)
{
    if (mpi_op_release != NULL)
        mpi_op_release(op);
}
