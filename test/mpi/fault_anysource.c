/* ULFM's MPI_ANY_SOURCE receive when a possible sender dies (issue 23),
 * 3 ranks under mpiexec -disable-auto-cleanup with MPI_ERRORS_RETURN:
 * rank 2 kills itself (SIGKILL). Rank 0 has two any-source receives
 * posted. MPI_Test and MPI_Wait on the first return
 * MPIX_ERR_PROC_FAILED_PENDING and leave the request active (MPI_Test
 * with flag 0); a blocking MPI_Recv from MPI_ANY_SOURCE fails with
 * MPIX_ERR_PROC_FAILED (as in MPICH's ft/anysource); the second request,
 * also pending, is cancelled. After MPIX_Comm_failure_ack rank 0 tells
 * rank 1 to send, and the first request, the same handle, receives rank
 * 1's message. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank;

#include "fault_util.h"

static void expect_pending(int rc, MPI_Request req, const char *call)
{
    char what[128];
    snprintf(what, sizeof what, "%s on a held-up any-source receive", call);
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED_PENDING)
        fail(what, rc);
    if (req == MPI_REQUEST_NULL) {
        snprintf(what, sizeof what, "%s freed the held-up any-source receive", call);
        fail(what, MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    int size, rc, flag = 1, x = 0, y = 0, z = 0, go = 1;
    MPI_Request req = MPI_REQUEST_NULL, req2 = MPI_REQUEST_NULL;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3)
        fail("run with 3 processes", MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        raise(SIGKILL);
        pause();
    }
    if (rank == 1) {
        /* Only once rank 0 saw its receive held up. */
        if ((rc = MPI_Recv(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            fail("MPI_Recv of the go-ahead", rc);
        x = 42;
        if ((rc = MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD)) != MPI_SUCCESS)
            fail("MPI_Send to rank 0", rc);
        MPI_Finalize();
        return 0;
    }

    rc = MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS && error_class(rc) != MPIX_ERR_PROC_FAILED_PENDING)
        fail("MPI_Irecv(MPI_ANY_SOURCE)", rc);
    rc = MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req2);
    if (rc != MPI_SUCCESS && error_class(rc) != MPIX_ERR_PROC_FAILED_PENDING)
        fail("MPI_Irecv(MPI_ANY_SOURCE)", rc);
    /* Test until the failure is seen: an error, and the request still active. */
    do
        rc = MPI_Test(&req, &flag, &st);
    while (rc == MPI_SUCCESS && !flag);
    expect_pending(rc, req, "MPI_Test");
    if (flag)
        fail("MPI_Test set flag for a receive that did not complete", rc);
    rc = MPI_Wait(&req, &st);
    expect_pending(rc, req, "MPI_Wait");
    if (st.MPI_ERROR != rc)
        fail("MPI_Wait did not set status.MPI_ERROR", rc);
    /* A blocking any-source receive fails (it cannot stay pending). */
    rc = MPI_Recv(&z, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
        fail("MPI_Recv(MPI_ANY_SOURCE) after the failure", rc);
    /* The second one: pending too, then cancelled. */
    rc = MPI_Wait(&req2, &st);
    expect_pending(rc, req2, "MPI_Wait (second request)");
    if ((rc = MPI_Cancel(&req2)) != MPI_SUCCESS)
        fail("MPI_Cancel of the held-up receive", rc);
    if ((rc = MPI_Wait(&req2, &st)) != MPI_SUCCESS)
        fail("MPI_Wait after MPI_Cancel", rc);
    MPI_Test_cancelled(&st, &flag);
    if (!flag || req2 != MPI_REQUEST_NULL)
        fail("the cancelled receive is not reported cancelled and freed", MPI_SUCCESS);

    if ((rc = MPIX_Comm_failure_ack(MPI_COMM_WORLD)) != MPI_SUCCESS)
        fail("MPIX_Comm_failure_ack", rc);
    if ((rc = MPI_Send(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD)) != MPI_SUCCESS)
        fail("MPI_Send of the go-ahead", rc);
    /* Acknowledged: the same request now matches rank 1's message. */
    if ((rc = MPI_Wait(&req, &st)) != MPI_SUCCESS)
        fail("MPI_Wait after MPIX_Comm_failure_ack", rc);
    if (req != MPI_REQUEST_NULL || x != 42 || st.MPI_SOURCE != 1 || st.MPI_TAG != 1)
        fail("the held-up receive got the wrong message", MPI_SUCCESS);
    printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
