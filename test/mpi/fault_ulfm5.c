/* ULFM's MPI-5 era calls (issue 23): MPIX_Comm_get_failed,
 * MPIX_Comm_ack_failed and MPIX_Comm_iagree (mpi_ext.h). 4 ranks under
 * mpiexec -disable-auto-cleanup with MPI_ERRORS_RETURN. Rank 3 dies first
 * (SIGKILL); the others agree with MPIX_Comm_iagree (MPIX_ERR_PROC_FAILED:
 * not acknowledged yet; the flag is the AND of the live ones), find rank 3
 * in MPIX_Comm_get_failed's group, acknowledge it with
 * MPIX_Comm_ack_failed and agree again (success). Then rank 1 dies; ranks
 * 0 and 2 run an iagree across a message exchange (it progresses while
 * they wait in other calls), see the group ordered as the failures came
 * (3, then 1), acknowledge one at a time, and agree a last time. */
#include <mpi.h>
#include <mpi_ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank;

#include "fault_util.h"

/* iagree on MPI_COMM_WORLD with `bits`; the class it ends with and the flag. */
static int iagree(int bits, int *flag_out, int exchange)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc, flag = bits;
    if ((rc = MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req)) != MPI_SUCCESS)
        fail("MPIX_Comm_iagree", rc);
    if (req == MPI_REQUEST_NULL)
        fail("MPIX_Comm_iagree returned no request", MPI_SUCCESS);
    if (exchange) {
        /* Ranks 0 and 2 talk while the agreement runs. */
        int peer = 2 - rank, x = rank, y = -1;
        if ((rc = MPI_Sendrecv(&x, 1, MPI_INT, peer, 4, &y, 1, MPI_INT, peer, 4, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE)) != MPI_SUCCESS ||
            y != peer)
            fail("MPI_Sendrecv during MPIX_Comm_iagree", rc);
    }
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (req != MPI_REQUEST_NULL)
        fail("MPI_Wait left the agreement's request", rc);
    *flag_out = flag;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : error_class(rc);
}

/* MPIX_Comm_get_failed's group as world ranks, in its order. */
static int get_failed(int *out, int max)
{
    MPI_Group g, wg;
    int rc, n = 0;
    if ((rc = MPIX_Comm_get_failed(MPI_COMM_WORLD, &g)) != MPI_SUCCESS)
        fail("MPIX_Comm_get_failed", rc);
    MPI_Group_size(g, &n);
    if (n > max)
        fail("MPIX_Comm_get_failed: too large a group", MPI_SUCCESS);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        MPI_Group_translate_ranks(g, 1, &i, wg, &out[i]);
    MPI_Group_free(&wg);
    if (g != MPI_GROUP_EMPTY)
        MPI_Group_free(&g);
    return n;
}

static void ack(int num, int want)
{
    int rc, got = -1;
    if ((rc = MPIX_Comm_ack_failed(MPI_COMM_WORLD, num, &got)) != MPI_SUCCESS)
        fail("MPIX_Comm_ack_failed", rc);
    if (got != want) {
        fprintf(stderr, "rank %d: MPIX_Comm_ack_failed(%d): %d acknowledged, expected %d\n", rank,
                num, got, want);
        fail("MPIX_Comm_ack_failed count", MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    int size, rc, flag = 0, n, f[4], got;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4)
        fail("run with 4 processes", MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (get_failed(f, 4) != 0)
        fail("MPIX_Comm_get_failed before any failure", MPI_SUCCESS);
    if ((rc = MPIX_Comm_ack_failed(MPI_COMM_WORLD, -1, &got)) == MPI_SUCCESS ||
        error_class(rc) != MPI_ERR_ARG)
        fail("MPIX_Comm_ack_failed(num_to_ack=-1) did not fail with MPI_ERR_ARG", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 3) {
        raise(SIGKILL);
        pause();
    }

    /* Rank 3 died: not acknowledged yet. */
    rc = iagree(0xff & ~(1 << rank), &flag, 0);
    if (rc != MPIX_ERR_PROC_FAILED)
        fail("MPIX_Comm_iagree with a failure not acknowledged", rc);
    if (flag != (0xff & ~7))
        fail("MPIX_Comm_iagree: the flag is not the AND of the live ranks'", MPI_SUCCESS);
    n = get_failed(f, 4);
    if (n != 1 || f[0] != 3)
        fail("MPIX_Comm_get_failed after rank 3 died", MPI_SUCCESS);
    ack(0, 0);
    ack(1, 1);
    if ((rc = iagree(1, &flag, 0)) != MPI_SUCCESS || flag != 1)
        fail("MPIX_Comm_iagree after MPIX_Comm_ack_failed", rc);

    if (rank == 1) {
        raise(SIGKILL);
        pause();
    }
    /* Rank 1 died too: ranks 0 and 2 agree while they exchange messages. */
    rc = iagree(rank == 0 ? 6 : 3, &flag, 1);
    if (rc != MPIX_ERR_PROC_FAILED || flag != 2)
        fail("MPIX_Comm_iagree after rank 1 died", rc == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
    n = get_failed(f, 4);
    if (n != 2 || f[0] != 3 || f[1] != 1)
        fail("MPIX_Comm_get_failed: not {3, 1} in the order of the failures", MPI_SUCCESS);
    ack(1, 1); /* the first of the group: rank 3, acknowledged already */
    ack(5, 2);
    if ((rc = iagree(1, &flag, 1)) != MPI_SUCCESS || flag != 1)
        fail("MPIX_Comm_iagree after both failures were acknowledged", rc);
    if (rank == 0)
        printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
