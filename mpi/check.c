/*
 * Argument checks at the MPI boundary, one function per parameter kind of
 * the API table (the .api files of mpi/api/). The generated entry points call them in
 * parameter order, the communicator first; implementations call them too
 * for the checks that need more than one parameter. Each raises through the
 * error handler of the communicator it is given (NULL: MPI_COMM_WORLD's) and
 * names the call, the argument and the value; MPI_SUCCESS when the argument
 * is acceptable. The error classes are MPICH's.
 */
#include "mpiimpl.h"
#include "objects.h"

#include <stdio.h>

/* The fast tests are inline in mpiimpl.h (the generated entry points call
 * them on every call); these raise when a test failed. */
int mpi_check_comm_fail(MPI_Comm h, const char *fn, mpi_comm_t **out)
{
    mpi_comm_t *c = mpi_comm_get(h);
    if (c != NULL) {
        *out = c;
        return MPI_SUCCESS;
    }
    return mpi_err_raise(NULL, MPI_ERR_COMM, fn, "comm=%#x is not a valid communicator%s",
                         (unsigned)h, h == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
}

int mpi_check_count(mpi_comm_t *c, MPI_Count count, const char *fn)
{
    return mpi_check_count_arg(c, count, fn, "count");
}

int mpi_check_count_fail(mpi_comm_t *c, MPI_Count count, const char *fn, const char *arg)
{
    return mpi_err_raise(c, MPI_ERR_COUNT, fn, "%s=%lld is negative", arg, (long long)count);
}

int mpi_check_buf_fail(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype dt,
                       const char *fn)
{
    /* MPI_IN_PLACE is a collective's word: a send or a receive (an RMA
     * origin, a file's buffer) that took it as the address (void *)-1
     * crashed (MPICH 4.0.2 too) */
    if (buf == MPI_IN_PLACE)
        return mpi_err_raise(c, MPI_ERR_BUFFER, fn,
                             "buf is MPI_IN_PLACE with count=%lld; only collectives take it",
                             (long long)count);
    if (mpi_handle_kind(dt) != MPI_HKIND_BUILTIN)
        return MPI_SUCCESS; /* a derived type may address memory absolutely (MPI_BOTTOM) */
    return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "buf is NULL with count=%lld", (long long)count);
}

/* MPICH 4.0.2 does not look at the datatype of a message of count 0: it
 * accepts MPI_DATATYPE_NULL (a zero-byte receive from MPI_PROC_NULL in its
 * own tests) and a type not yet committed (mpiexec.mpich: MPI_Send,
 * MPI_Isend, MPI_Recv, MPI_Irecv, MPI_Sendrecv of count 0 succeed). Such a
 * message moves as MPI_BYTE: *h is replaced here, on the checked path of
 * the entry point (gen.py passes the address of its parameter), so the
 * implementation never sees the type and the hot path, which takes
 * predefined types only, tests nothing for it. A handle that is no
 * datatype stays MPI_ERR_TYPE (MPICH too). count is MPI_CANAL_ANY_COUNT
 * where the type is checked whatever the count. */
int mpi_check_datatype_slow(mpi_comm_t *c, MPI_Datatype *h, MPI_Count count, const char *fn,
                            const char *arg)
{
    dt_type_t *t;

    if (*h == MPI_DATATYPE_NULL) {
        if (count != 0)
            return mpi_err_raise(c, MPI_ERR_TYPE, fn, "%s is MPI_DATATYPE_NULL", arg);
        *h = MPI_BYTE;
        return MPI_SUCCESS;
    }
    t = mpi_dt_get(*h);
    if (t == NULL)
        return mpi_err_raise(c, MPI_ERR_TYPE, fn, "%s=%#x is not a valid datatype", arg,
                             (unsigned)*h);
    if (!dt_is_committed(t)) {
        if (count != 0)
            return mpi_err_raise(c, MPI_ERR_TYPE, fn,
                                 "%s=%#x has not been committed (MPI_Type_commit)", arg,
                                 (unsigned)*h);
        *h = MPI_BYTE;
    }
    return MPI_SUCCESS;
}

int mpi_check_rank_fail(mpi_comm_t *c, int rank, int any_ok, const char *fn, const char *arg)
{
    if (rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return mpi_err_raise(c, MPI_ERR_RANK, fn, "%s=%d is not in [0, %d)%s or MPI_PROC_NULL%s", arg,
                         rank, c->peer_size, any_ok ? ", MPI_ANY_SOURCE" : "",
                         !any_ok && rank == MPI_ANY_SOURCE ? " (MPI_ANY_SOURCE is not allowed here)"
                                                           : "");
}

int mpi_check_tag_fail(mpi_comm_t *c, int tag, int any_ok, const char *fn, const char *arg)
{
    if (any_ok && tag == MPI_ANY_TAG)
        return MPI_SUCCESS;
    return mpi_err_raise(c, MPI_ERR_TAG, fn, "%s=%d is not in [0, MPI_TAG_UB=%d]%s%s", arg, tag,
                         MPI_CANAL_TAG_UB, any_ok ? " or MPI_ANY_TAG" : "",
                         !any_ok && tag == MPI_ANY_TAG ? " (MPI_ANY_TAG is not allowed here)" : "");
}

int mpi_check_ptr_fail(mpi_comm_t *c, const char *fn, const char *arg)
{
    return mpi_err_raise(c, MPI_ERR_ARG, fn, "%s is NULL", arg);
}

/* ---------------------------------------------------------------- handles */
/* The handles MPICH validates before the other arguments (its generated
 * bindings' first phase: communicator, groups, op) and a datatype that need
 * not be committed (`type`: MPI_Type_size, the type constructors' oldtype).
 * The implementations take them as checked. A bad group or op is raised
 * with mpi_err_fail (MPI_CANAL_HANDLED when the handler cleared the code:
 * the entry points map it, gen.py's check_result_of, and the
 * implementations that check a group or an op of their own -- MPI_Group_free,
 * mpi/coll.c's collectives -- stop on it). */
int mpi_check_group_arg(mpi_comm_t *c, MPI_Group h, const char *fn, const char *arg,
                        mpi_group_t **out)
{
    mpi_group_t *g = mpi_group_get(h);
    if (g != NULL) {
        *out = g;
        return MPI_SUCCESS;
    }
    return mpi_err_fail(c, MPI_ERR_GROUP, fn, "%s=%#x is not a valid group%s", arg, (unsigned)h,
                        h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
}

int mpi_check_op_arg(mpi_comm_t *c, MPI_Op op, const char *fn, const char *arg)
{
    if (op != MPI_OP_NULL && mpi_op_valid(op))
        return MPI_SUCCESS;
    return mpi_err_fail(c, MPI_ERR_OP, fn, "%s=%#x is not a valid operation%s", arg, (unsigned)op,
                        op == MPI_OP_NULL ? " (MPI_OP_NULL)" : "");
}

/* A reduction's op against its datatype, as MPICH checks it before the count
 * and the datatype (MPIR_OP_HDL_TO_DTYPE_FN of its generated bindings): a
 * predefined op is not defined for MPI_DATATYPE_NULL, for a handle that is
 * no datatype or for a type not yet committed (MPI_ERR_OP, where a user's
 * op leaves the datatype to its own check: MPI_ERR_TYPE), nor for a type
 * its operation does not cover (MPI_SUM on MPI_BYTE), and MPI_REPLACE and
 * MPI_NO_OP are for one-sided accumulates only. An invalid op is
 * mpi_check_op_arg's MPI_ERR_OP, first. Raised with mpi_err_fail. */
int mpi_check_op_type_arg(mpi_comm_t *c, MPI_Op op, MPI_Datatype h, const char *fn,
                          const char *arg)
{
    dt_op_t b;
    dt_type_t *t;
    int err;

    if ((err = mpi_check_op_arg(c, op, fn, arg)) != MPI_SUCCESS)
        return err;
    b = mpi_op_builtin(op);
    if (b == DT_OP_N)
        return MPI_SUCCESS;
    if (b == DT_OP_REPLACE || b == DT_OP_NO_OP)
        return mpi_err_fail(c, MPI_ERR_OP, fn,
                            "%s %s is only allowed in one-sided accumulate operations", arg,
                            dt_op_name(b));
    if (h == MPI_DATATYPE_NULL)
        return mpi_err_fail(c, MPI_ERR_OP, fn, "%s %s is not defined for MPI_DATATYPE_NULL", arg,
                            dt_op_name(b));
    if ((t = mpi_dt_get(h)) == NULL)
        return mpi_err_fail(c, MPI_ERR_OP, fn,
                            "%s %s is not defined for datatype=%#x, which is not a valid datatype",
                            arg, dt_op_name(b), (unsigned)h);
    if (!dt_is_committed(t))
        return mpi_err_fail(c, MPI_ERR_OP, fn,
                            "%s %s is not defined for datatype=%#x, which has not been committed "
                            "(MPI_Type_commit)",
                            arg, dt_op_name(b), (unsigned)h);
    if (dt_op_check(b, t) != CANAL_OK)
        return mpi_err_fail(c, MPI_ERR_OP, fn, "%s %s is not defined for datatype %s", arg,
                            dt_op_name(b), dt_get_name(t)[0] ? dt_get_name(t) : "(derived)");
    return MPI_SUCCESS;
}

int mpi_check_type_slow(mpi_comm_t *c, MPI_Datatype h, const char *fn, const char *arg)
{
    if (h == MPI_DATATYPE_NULL)
        return mpi_err_raise(c, MPI_ERR_TYPE, fn, "%s is MPI_DATATYPE_NULL", arg);
    if (mpi_dt_lookup(h) == NULL)
        return mpi_err_raise(c, MPI_ERR_TYPE, fn, "%s=%#x is not a valid datatype", arg,
                             (unsigned)h);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- windows and files */
/* The error objects of chapters 12 and 14 (the `win` and `file` kinds of
 * the table): the entry point checks the object and resolves it, and the
 * out-pointers are checked through the object's own error handler. */
#include "io/io.h"
#include "rma/rma.h"

/* mpi_check_win (inline in mpiimpl.h) when the handle is not a live window */
int mpi_check_win_slow(MPI_Win h, const char *fn, struct rma_win **out)
{
    return rma_win_check(h, fn, out);
}

/* A handle that is not one of its kind at all (MPI_GROUP_NULL too; not
 * MPI_INFO_NULL), as MPICH 4.0.2 tests it first: MPI_Win_create(info=42,
 * comm=MPI_COMM_NULL) is MPI_ERR_INFO and MPI_Win_start(MPI_GROUP_NULL, 0,
 * MPI_WIN_NULL) MPI_ERR_GROUP there. A freed handle of the right kind passes
 * (MPICH too) and is the implementation's. MPICH raises these through
 * MPI_COMM_WORLD's handler even for a live window; a live window's own
 * handler is used here (its call's error object). */
static int check_kind(int h, int objtype, MPI_Win win, int errclass, const char *fn,
                      const char *arg, const char *what)
{
    struct rma_win *w;
    if (mpi_handle_is_kind(h, objtype))
        return MPI_SUCCESS;
    if ((w = mpi_win_fast(win)) != NULL)
        return rma_err(w, errclass, fn, "%s=%#x is not %s handle", arg, (unsigned)h, what);
    return mpi_err_raise(NULL, errclass, fn, "%s=%#x is not %s handle", arg, (unsigned)h, what);
}

int mpi_check_info_kind(MPI_Info h, MPI_Win win, const char *fn, const char *arg)
{
    return h == MPI_INFO_NULL ? MPI_SUCCESS
                              : check_kind(h, MPI_OBJ_INFO, win, MPI_ERR_INFO, fn, arg, "an info");
}

int mpi_check_group_kind(MPI_Group h, MPI_Win win, const char *fn, const char *arg)
{
    return check_kind(h, MPI_OBJ_GROUP, win, MPI_ERR_GROUP, fn, arg, "a group");
}

int mpi_check_win_ptr_arg(struct rma_win *w, const void *p, const char *fn, const char *arg)
{
    if (__builtin_expect(p != NULL, 1))
        return MPI_SUCCESS;
    return rma_err(w, MPI_ERR_ARG, fn, "%s is NULL", arg);
}

int mpi_check_file(MPI_File h, const char *fn, struct ADIOI_FileD **out)
{
    int err = MPI_SUCCESS;
    *out = io_file_get(h, fn, &err);
    return err;
}

int mpi_check_file_ptr_arg(struct ADIOI_FileD *f, const void *p, const char *fn, const char *arg)
{
    if (__builtin_expect(p != NULL, 1))
        return MPI_SUCCESS;
    return io_err(f, MPI_ERR_ARG, fn, "%s is NULL", arg);
}

/* The out-pointers of the functions callable before MPI_Init and after
 * MPI_Finalize (`anytime` entries): while MPI runs, a NULL one is raised
 * through MPI_COMM_WORLD's handler as above; outside, no handler exists and
 * the code is only returned. */
int mpi_check_ptr_anytime(const void *p, const char *fn, const char *arg)
{
    char detail[96];

    if (__builtin_expect(p != NULL, 1))
        return MPI_SUCCESS;
    if (mpi_state == MPI_STATE_INITIALIZED)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL", arg);
    snprintf(detail, sizeof detail, "%s is NULL", arg);
    return mpi_err_code_new(MPI_ERR_ARG, fn, detail);
}
