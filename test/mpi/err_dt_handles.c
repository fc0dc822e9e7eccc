/*
 * A datatype argument that is not a datatype (issue 26: the entry points'
 * check of predefined types): a communicator's, an operation's or a group's
 * handle, a handle with a predefined type's kind and object type but no
 * such type, and MPI_INT with its size bits changed. Every call must return
 * MPI_ERR_TYPE naming the value (MPI_ERR_OP for a reduction with a
 * predefined op, whose type MPICH 4.0.2 checks first; MPI_ERRORS_RETURN; MPICH 4.0 does so for
 * the other objects' handles and accepts the made-up ones); before,
 * any handle of the builtin kind passed as "predefined" and MPI_Send crashed
 * in the implementation. Covered: MPI_Send/MPI_Recv with MPI_PROC_NULL (the
 * shortest paths), MPI_Isend/MPI_Irecv to a real peer, MPI_Sendrecv,
 * MPI_Bcast/MPI_Ibcast/MPI_Allreduce (count 1 and count 0, the empty-call
 * shortcut). Good calls follow, so a check that rejects
 * everything fails too. Any number of processes.
 */
#include "mtest.h"
#include <stdio.h>
#include <string.h>

static int errs, rank;

static void expect_class_err(int line, const char *what, MPI_Datatype dt, int want_cls, int err)
{
    char msg[MPI_MAX_ERROR_STRING] = "", want[32];
    int cls = -1, len = 0;

    if (err != MPI_SUCCESS) {
        MPI_Error_class(err, &cls);
        MPI_Error_string(err, msg, &len);
    }
    snprintf(want, sizeof want, "%#x", (unsigned)dt);
    if (cls != want_cls) {
        fprintf(stderr, "[%d] line %d: %s with datatype %s: class %d, expected %d\n", rank, line,
                what, want, cls, want_cls);
        errs++;
    } else if (strstr(msg, want) == NULL || strstr(msg, what) == NULL) {
        fprintf(stderr, "[%d] line %d: %s: message does not name the call and %s: \"%s\"\n", rank,
                line, what, want, msg);
        errs++;
    }
}

static void expect_type_err(int line, const char *what, MPI_Datatype dt, int err)
{
    expect_class_err(line, what, dt, MPI_ERR_TYPE, err);
}

static void expect_ok(int line, const char *what, int err)
{
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "[%d] line %d: %s failed (%d)\n", rank, line, what, err);
        errs++;
    }
}

int main(int argc, char **argv)
{
    MPI_Group world_group;
    MPI_Request req;
    MPI_Status st;
    char buf[64] = "", rbuf[64];
    int size, total = 0, count;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);

    const MPI_Datatype bad[] = {
        (MPI_Datatype)MPI_COMM_WORLD, (MPI_Datatype)MPI_SUM, (MPI_Datatype)world_group,
        (MPI_Datatype)0x4c00ffff,      /* the kind and object type of MPI_INT, no such type */
        (MPI_Datatype)(MPI_INT ^ 0x100), /* MPI_INT with another size */
    };
    const int nbad = (int)(sizeof bad / sizeof bad[0]);
    const int peer = (rank + 1) % size, from = (rank + size - 1) % size;

    for (int i = 0; i < nbad; i++) {
        MPI_Datatype dt = bad[i];
        expect_type_err(__LINE__, "MPI_Send", dt,
                        MPI_Send(buf, 1, dt, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
        expect_type_err(__LINE__, "MPI_Send", dt, MPI_Send(buf, 1, dt, peer, 0, MPI_COMM_WORLD));
        expect_type_err(__LINE__, "MPI_Recv", dt,
                        MPI_Recv(rbuf, 1, dt, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        req = MPI_REQUEST_NULL;
        expect_type_err(__LINE__, "MPI_Isend", dt,
                        MPI_Isend(buf, 1, dt, peer, 0, MPI_COMM_WORLD, &req));
        expect_type_err(__LINE__, "MPI_Irecv", dt,
                        MPI_Irecv(rbuf, 1, dt, from, 0, MPI_COMM_WORLD, &req));
        expect_type_err(__LINE__, "MPI_Sendrecv", dt,
                        MPI_Sendrecv(buf, 1, dt, MPI_PROC_NULL, 0, rbuf, 1, MPI_CHAR,
                                     MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        expect_type_err(__LINE__, "MPI_Bcast", dt, MPI_Bcast(buf, 1, dt, 0, MPI_COMM_WORLD));
        expect_type_err(__LINE__, "MPI_Bcast", dt, MPI_Bcast(buf, 0, dt, 0, MPI_COMM_WORLD));
        expect_type_err(__LINE__, "MPI_Ibcast", dt,
                        MPI_Ibcast(buf, 0, dt, 0, MPI_COMM_WORLD, &req));
        /* a predefined op is checked against the type first, before the
         * count: MPI_ERR_OP (MPICH 4.0.2) */
        expect_class_err(__LINE__, "MPI_Allreduce", dt, MPI_ERR_OP,
                         MPI_Allreduce(buf, rbuf, 0, dt, MPI_SUM, MPI_COMM_WORLD));
        if (req != MPI_REQUEST_NULL) {
            fprintf(stderr, "[%d] a failed call set the request\n", rank);
            errs++;
        }
    }

    /* the good calls still work */
    expect_ok(__LINE__, "MPI_Send", MPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    expect_ok(__LINE__, "MPI_Recv",
              MPI_Recv(rbuf, 8, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    if (count != 0 || st.MPI_SOURCE != MPI_PROC_NULL) {
        fprintf(stderr, "[%d] MPI_Recv(MPI_PROC_NULL): count %d source %d\n", rank, count,
                st.MPI_SOURCE);
        errs++;
    }
    expect_ok(__LINE__, "MPI_Sendrecv",
              MPI_Sendrecv(buf, 4, MPI_DOUBLE, peer, 1, rbuf, 4, MPI_DOUBLE, from, 1,
                           MPI_COMM_WORLD, &st));
    expect_ok(__LINE__, "MPI_Ibcast", MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &req));
    expect_ok(__LINE__, "MPI_Wait", MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect_ok(__LINE__, "MPI_Allreduce",
              MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

    MPI_Group_free(&world_group);
    mtest_errors += errs;
    return mtest_finish();
}
