/* MPIX_Comm_revoke reaches every member, and ends what each is blocked in
 * (issue 23). 4 ranks under mpiexec -disable-auto-cleanup with
 * MPI_ERRORS_RETURN. Rank 3 talks to rank 2 only (MPI_Ssend), revokes
 * MPI_COMM_WORLD and kills itself (SIGKILL) at once: over sock it never
 * connected to ranks 0 and 1, so its notices to them die with it, and only
 * rank 2's forwarding can tell them. Meanwhile rank 0 is blocked in a
 * receive from rank 1 (alive, never sends it), and rank 1 in a rendezvous
 * MPI_Send to rank 0 with another tag (its request to send waits in rank
 * 0's unexpected queue). Every survivor's blocked call fails with
 * MPIX_ERR_REVOKED (rank 2's receive from rank 3 with MPIX_ERR_REVOKED or
 * MPIX_ERR_PROC_FAILED), and so do later operations on MPI_COMM_WORLD.
 * Before, ranks 0 and 1 waited for ever. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { BIG = 1 << 20 }; /* above every channel's eager limit: rendezvous */

static int rank;

#include "fault_util.h"

static void expect_revoked(int rc, const char *what)
{
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_REVOKED)
        fail(what, rc);
}

int main(int argc, char **argv)
{
    int size, rc, x = 0, ok = 1, all = 0;
    char *big;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4)
        fail("run with 4 processes", MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if ((big = calloc(BIG, 1)) == NULL)
        fail("no memory", MPI_SUCCESS);
    switch (rank) {
    case 3:
        if ((rc = MPI_Ssend(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD)) != MPI_SUCCESS)
            fail("MPI_Ssend to rank 2", rc);
        if ((rc = MPIX_Comm_revoke(MPI_COMM_WORLD)) != MPI_SUCCESS)
            fail("MPIX_Comm_revoke", rc);
        raise(SIGKILL);
        pause();
        break;
    case 2:
        if ((rc = MPI_Recv(&x, 1, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            fail("MPI_Recv from rank 3", rc);
        rc = MPI_Recv(&x, 1, MPI_INT, 3, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS ||
            (error_class(rc) != MPIX_ERR_REVOKED && error_class(rc) != MPIX_ERR_PROC_FAILED))
            fail("MPI_Recv from the revoker", rc);
        break;
    case 1:
        expect_revoked(MPI_Send(big, BIG, MPI_CHAR, 0, 8, MPI_COMM_WORLD),
                       "a rendezvous MPI_Send pending when the communicator was revoked");
        break;
    case 0:
        expect_revoked(MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                       "a receive from a live rank pending when the communicator was revoked");
        break;
    }
    /* Later operations on the revoked communicator fail too. */
    expect_revoked(MPI_Send(&x, 1, MPI_INT, (rank + 1) % 3, 9, MPI_COMM_WORLD),
                   "MPI_Send on the revoked communicator");
    expect_revoked(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv on the revoked communicator");
    expect_revoked(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier on the revoked communicator");
    /* The survivors go on: agree (rank 3's failure is known by now through
     * the launcher) and shrink. */
    {
        MPI_Comm shrunk;
        rc = MPIX_Comm_agree(MPI_COMM_WORLD, &ok);
        if (rc != MPI_SUCCESS && error_class(rc) != MPIX_ERR_PROC_FAILED)
            fail("MPIX_Comm_agree on the revoked communicator", rc);
        if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk)) != MPI_SUCCESS)
            fail("MPIX_Comm_shrink", rc);
        if ((rc = MPI_Allreduce(&rank, &all, 1, MPI_INT, MPI_SUM, shrunk)) != MPI_SUCCESS ||
            all != 0 + 1 + 2)
            fail("MPI_Allreduce on the shrunk communicator", rc);
        MPI_Comm_free(&shrunk);
    }
    free(big);
    if (rank == 0)
        printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
