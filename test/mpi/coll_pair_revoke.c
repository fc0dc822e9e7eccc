/*
 * Two ranks: MPIX_Comm_revoke ends a blocking barrier or allreduce that the
 * peer is waiting in (Canal runs these as one exchange without a schedule
 * at two ranks: coll/pair.c), with MPIX_ERR_REVOKED, and every later
 * collective on the revoked communicator fails the same way at both ranks,
 * while MPI_COMM_WORLD goes on working. Rank 1 waits in the barrier of
 * communicator A, which rank 0 revokes instead of entering; then rank 0
 * waits in the allreduce of B, which rank 1 revokes. (The sleep only makes
 * it likely that the waiter is already blocked; the result must be the same
 * either way.) Argument: how many barriers (on A) and allreduces (on B)
 * come first (default 1; from 3 on, Canal runs them through the node's
 * shared block, coll/shm.c, and the revocation must end that wait too).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank, errs;

static void expect_revoked(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPIX_ERR_REVOKED) {
        fprintf(stderr, "rank %d: %s: error class %d, not MPIX_ERR_REVOKED\n", rank, what, cls);
        errs++;
    }
}

int main(int argc, char **argv)
{
    MPI_Comm a, b;
    int x = 1, y = 0, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "coll_pair_revoke needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
    /* both communicators work first (and the direct path is set up) */
    for (int i = 0; i < (argc > 1 ? atoi(argv[1]) : 1); i++) {
        MPI_Barrier(a);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, b);
        if (y != 2)
            errs++;
    }

    if (rank == 1) {
        expect_revoked(MPI_Barrier(a), "barrier on a, revoked by rank 0 meanwhile");
    } else {
        usleep(200000);
        MPIX_Comm_revoke(a);
    }
    if (rank == 0) {
        expect_revoked(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, b),
                       "allreduce on b, revoked by rank 1 meanwhile");
    } else {
        usleep(200000);
        MPIX_Comm_revoke(b);
    }
    expect_revoked(MPI_Barrier(a), "barrier on revoked a");
    expect_revoked(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, a), "allreduce on revoked a");
    expect_revoked(MPI_Barrier(b), "barrier on revoked b");

    /* the world is untouched */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (y != 2)
        errs++;
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
