/* Probes of a dead peer (ULFM), 3 ranks under mpiexec -disable-auto-cleanup
 * with MPI_ERRORS_RETURN: rank 2 kills itself (SIGKILL) after a barrier.
 * Rank 0's MPI_Probe, MPI_Mprobe, an MPI_Iprobe loop and an MPI_Improbe
 * loop on rank 2 end with MPIX_ERR_PROC_FAILED, and so does a blocking
 * MPI_Probe from MPI_ANY_SOURCE with a tag nobody sends (before, each
 * probe waited for ever: the job's timeout killed it). A message rank 1
 * sent before is still probed and received (MPI_Mprobe + MPI_Mrecv). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank;

#include "fault_util.h"

static void expect_failed(int rc, const char *call)
{
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
        fail(call, rc);
}

int main(int argc, char **argv)
{
    int size, rc, flag = 0, x = 0, cnt = -1;
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3)
        fail("run with 3 processes", MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 1) {
        x = 42;
        if ((rc = MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD)) != MPI_SUCCESS)
            fail("MPI_Send to rank 0", rc);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        raise(SIGKILL);
        pause();
    }
    if (rank == 1) {
        MPI_Finalize();
        return 0;
    }
    rc = MPI_Probe(2, 1, MPI_COMM_WORLD, &st);
    expect_failed(rc, "MPI_Probe of the dead rank");
    rc = MPI_Mprobe(2, 1, MPI_COMM_WORLD, &msg, &st);
    expect_failed(rc, "MPI_Mprobe of the dead rank");
    do
        rc = MPI_Iprobe(2, 1, MPI_COMM_WORLD, &flag, &st);
    while (rc == MPI_SUCCESS && !flag);
    expect_failed(rc, "MPI_Iprobe of the dead rank");
    flag = 0;
    do
        rc = MPI_Improbe(2, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    while (rc == MPI_SUCCESS && !flag);
    expect_failed(rc, "MPI_Improbe of the dead rank");
    rc = MPI_Probe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
    expect_failed(rc, "MPI_Probe(MPI_ANY_SOURCE) after the failure");
    /* what the live rank sent before is still there */
    if ((rc = MPI_Mprobe(1, 5, MPI_COMM_WORLD, &msg, &st)) != MPI_SUCCESS)
        fail("MPI_Mprobe of rank 1's message", rc);
    MPI_Get_count(&st, MPI_INT, &cnt);
    if (cnt != 1 || st.MPI_SOURCE != 1 || st.MPI_TAG != 5)
        fail("MPI_Mprobe: wrong status", MPI_SUCCESS);
    if ((rc = MPI_Mrecv(&x, 1, MPI_INT, &msg, &st)) != MPI_SUCCESS || x != 42 ||
        msg != MPI_MESSAGE_NULL)
        fail("MPI_Mrecv of rank 1's message", rc);
    printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
