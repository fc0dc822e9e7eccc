/* A fault-tolerant program (run under mpiexec -disable-auto-cleanup) that
 * builds a communicator of the survivors without shrinking: the last rank
 * dies (SIGKILL); every survivor learns it (a receive from the dead rank
 * fails with MPIX_ERR_PROC_FAILED), then the survivors call
 * MPI_Comm_create_group on MPI_COMM_WORLD with the group of the survivors,
 * and MPI_Comm_create_from_group with the same group, and sum their ranks on
 * both. As MPICH's ft/nbccoll does: before the fix, the construction talked
 * on MPI_COMM_WORLD's collective context, where every receive fails once any
 * rank of the communicator is lost, so it failed although every process it
 * needs is alive. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

#include "fault_util.h"

static void sum_on(MPI_Comm c, const char *what, int expect)
{
    int rc, sum = -1;
    if ((rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c)) != MPI_SUCCESS)
        fail(what, rc);
    if (sum != expect) {
        fprintf(stderr, "rank %d: %s: sum %d, expected %d\n", rank, what, sum, expect);
        fail("wrong sum", MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    int rc, x = 0, victim, expect = 0, nsurv;
    MPI_Group world, surv;
    MPI_Comm c1 = MPI_COMM_NULL, c2 = MPI_COMM_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 3)
        fail("needs at least 3 ranks", MPI_SUCCESS);
    victim = size - 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        raise(SIGKILL);
        pause();
    }
    /* Every survivor knows of the loss before it builds anything. */
    rc = MPI_Recv(&x, 1, MPI_INT, victim, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
        fail("receive from the dead rank: expected MPIX_ERR_PROC_FAILED", rc);

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &victim, &surv);
    for (int r = 0; r < size; r++)
        expect += r == victim ? 0 : r;
    if ((rc = MPI_Comm_create_group(MPI_COMM_WORLD, surv, 7, &c1)) != MPI_SUCCESS)
        fail("MPI_Comm_create_group among the survivors", rc);
    MPI_Comm_size(c1, &nsurv);
    if (nsurv != size - 1)
        fail("MPI_Comm_create_group: wrong size", MPI_SUCCESS);
    sum_on(c1, "MPI_Allreduce on the MPI_Comm_create_group communicator", expect);
    if ((rc = MPI_Comm_create_from_group(surv, "org.canal.test.survivors", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &c2)) != MPI_SUCCESS)
        fail("MPI_Comm_create_from_group among the survivors", rc);
    sum_on(c2, "MPI_Allreduce on the MPI_Comm_create_from_group communicator", expect);

    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Group_free(&surv);
    MPI_Group_free(&world);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
