/*
 * A user's error handler that clears the code, and the checks inside
 * implementations that went on after it: a request looked up (MPI_Wait,
 * MPI_Request_free, MPI_Cancel, MPI_Request_get_status, MPI_Waitall,
 * MPI_Grequest_complete), a partitioned request looked up (MPI_Pready,
 * MPI_Parrived) or refused half-way through a range (MPI_Pready_range), a
 * ULFM call on an intercommunicator (MPIX_Comm_revoke), and the collectives
 * that MPI_Comm_connect and MPI_Comm_disconnect run on a revoked
 * communicator. Each call must run the handler once with MPICH's class,
 * return the handler's MPI_SUCCESS and stop there. Before (48a4a8c), a
 * cleared request lookup died with SIGSEGV in all eight calls, MPI_Pready_range
 * marked the partitions after the refused one, MPIX_Comm_revoke revoked the
 * intercommunicator it had refused, MPI_Comm_connect ran its handler twice
 * (the broadcast's error, then the port's) and MPI_Comm_disconnect freed the
 * communicator whose barrier had failed.
 */
#include "mtest.h"

#include "err_clear_expect.h"

#define BOGUS ((MPI_Request)0x5a5a5a5a) /* no request of Canal's */

static void requests(void)
{
    MPI_Request req = BOGUS, reqs[2] = {MPI_REQUEST_NULL, BOGUS};
    int flag = -7;

    EXPECT(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    CHECK(req == BOGUS, "a refused MPI_Wait set the request to %#x", (unsigned)req);
    EXPECT(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&req), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&req), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    EXPECT(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE), MPI_COMM_WORLD,
           MPI_ERR_REQUEST);
    CHECK(flag == -7, "a refused MPI_Request_get_status set flag to %d", flag);
    EXPECT(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    EXPECT(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    EXPECT(MPI_Grequest_complete(req), MPI_COMM_WORLD, MPI_ERR_REQUEST);
}

/* MPI_Pready_range over a partition already ready: the partitions after it
 * stay not ready (each can be marked once more without an error). */
static void partitioned(void)
{
    int out[4] = {10, 11, 12, 13}, in[4] = {0, 0, 0, 0}, flag = -7;
    MPI_Request s, r;

    EXPECT(MPI_Pready(0, MPI_REQUEST_NULL), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    EXPECT(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag), MPI_COMM_WORLD, MPI_ERR_REQUEST);
    CHECK(flag == -7, "a refused MPI_Parrived set flag to %d", flag);
    OK(MPI_Psend_init(out, 4, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_INFO_NULL, &s));
    OK(MPI_Precv_init(in, 4, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_INFO_NULL, &r));
    OK(MPI_Start(&r));
    OK(MPI_Start(&s));
    QUIET(MPI_Pready(1, s));
    EXPECT(MPI_Pready_range(0, 3, s), MPI_COMM_SELF, MPI_ERR_ARG);
    QUIET(MPI_Pready(2, s));
    QUIET(MPI_Pready(3, s));
    OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(in[0] == 10 && in[3] == 13, "the partitions carried %d %d %d %d", in[0], in[1], in[2],
          in[3]);
    OK(MPI_Request_free(&s));
    OK(MPI_Request_free(&r));
}

/* MPIX_Comm_revoke takes intracommunicators only: refused, the
 * intercommunicator must not be revoked (its barrier still works). */
static void ulfm(MPI_Errhandler eh, int rank)
{
    MPI_Comm half, inter;

    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 9, &inter));
    OK(MPI_Comm_set_errhandler(inter, eh));
    EXPECT(MPIX_Comm_revoke(inter), inter, MPI_ERR_COMM);
    QUIET(MPI_Barrier(inter));
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&half));
}

/* dyn/'s collectives on a revoked communicator: the first error ends the
 * call (one handler run), and a refused disconnect frees nothing. */
static void dyn(MPI_Errhandler eh)
{
    MPI_Comm d, ic = MPI_COMM_NULL;

    OK(MPI_Comm_dup(MPI_COMM_SELF, &d));
    OK(MPI_Comm_set_errhandler(d, eh));
    QUIET(MPIX_Comm_revoke(d));
    EXPECT(MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, d, &ic), d, MPIX_ERR_REVOKED);
    CHECK(ic == MPI_COMM_NULL, "a refused MPI_Comm_connect made %#x", (unsigned)ic);
    EXPECT(MPI_Comm_disconnect(&d), d, MPIX_ERR_REVOKED);
    CHECK(d != MPI_COMM_NULL, "a refused MPI_Comm_disconnect freed the communicator");
    if (d != MPI_COMM_NULL)
        OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    eh = clear_install();
    requests();
    partitioned();
    if (size % 2 == 0)
        ulfm(eh, rank);
    dyn(eh);
    MPI_Errhandler_free(&eh);
    CHECK(ncalls > 0, "the handler never ran");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mtest_rank = rank;
    mtest_size = size;
    return mtest_finish();
}
