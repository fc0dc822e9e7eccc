/*
 * Reductions for coll/: the host's operations (coll_host, filled by mpi/ at
 * initialization: mpi/op.c applies every predefined and user-defined
 * operation) behind the names the schedule engine and the MPI front's
 * argument checks call. Also home of the host table itself.
 */
#include "coll/coll.h"

#include <stdio.h>

coll_host_t coll_host;

void coll_host_set(const coll_host_t *h)
{
    coll_host = *h;
}

int coll_op_valid(MPI_Op op)
{
    return coll_host.op_valid(op);
}

int coll_op_is_commutative(MPI_Op op)
{
    return coll_host.op_is_commutative(op);
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
    b = coll_host.op_builtin(op);
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
    dt_op_t b = dt != NULL ? coll_host.op_builtin(op) : DT_OP_N;
    if (b != DT_OP_N)
        return dt_reduce(b, in, inout, count, dt) == CANAL_OK ? MPI_SUCCESS : MPI_ERR_OP;
    return coll_host.op_apply(op, in, inout, (MPI_Count)count, dth);
}

void coll_op_retain(MPI_Op op)
{
    coll_host.op_retain(op);
}

void coll_op_release(MPI_Op op)
{
    coll_host.op_release(op);
}
