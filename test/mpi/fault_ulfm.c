/* A fault-tolerant program (ULFM, run under mpiexec -disable-auto-cleanup):
 * rank `victim` (argv[2]) kills itself with SIGKILL while the others enter
 * argv[1]: "barrier" (MPI_Barrier), "allreduce" (MPI_Allreduce),
 * "iallreduce" (MPI_Iallreduce and MPI_Wait), "bcast"
 * (MPI_Bcast from the lowest survivor), "anyrecv" (MPI_Recv from
 * MPI_ANY_SOURCE), "pending" (the lowest survivor receives from the victim,
 * gets MPIX_ERR_PROC_FAILED and revokes MPI_COMM_WORLD; the others receive
 * from it, a live rank that never sends, and get MPIX_ERR_REVOKED).
 * argv[3] "return" (MPI_ERRORS_RETURN): every survivor gets
 * MPIX_ERR_PROC_FAILED (also the blocking any-source receive, as in ULFM
 * and MPICH's ft/anysource; the nonblocking one is fault_anysource.c's;
 * the root of a broadcast may finish, having only sent), then:
 *   anyrecv: acknowledges the failure (MPIX_Comm_failure_ack), checks the
 *            acknowledged group, and receives from MPI_ANY_SOURCE again;
 *   all:     agree (MPIX_Comm_agree: MPIX_ERR_PROC_FAILED before the
 *            acknowledgement, the bitwise AND of the flags either way),
 *            revoke MPI_COMM_WORLD (an operation on it then fails with
 *            MPIX_ERR_REVOKED), acknowledge, agree again (success), shrink
 *            it (the survivors, in order) and sum the survivors' world
 *            ranks on the new communicator.
 * argv[3] "fatal": MPI_ERRORS_ARE_FATAL ends the job naming the dead rank.
 * argv[4] "noulfm" stops after the first error (no revoke, agree, shrink);
 * "kill2": the lowest survivor, the agreement's coordinator, dies too, as
 * the agreement starts (the next one takes over); "warm": a few more
 * barriers first, so that the failing call is not among the first ones of
 * MPI_COMM_WORLD (Canal's shared block for blocking barriers and
 * allreduces on one node exists from the 3rd: coll/shm.c). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, victim, dead2 = -1;

#include "fault_util.h"

static int survivors_sum(void)
{
    int s = 0;
    for (int r = 0; r < size; r++)
        if (r != victim && r != dead2)
            s += r;
    return s;
}

int main(int argc, char **argv)
{
    const char *phase = argc > 1 ? argv[1] : "barrier";
    const char *handler = argc > 3 ? argv[3] : "return";
    int ulfm = !(argc > 4 && strcmp(argv[4], "noulfm") == 0);
    int kill2 = argc > 4 && strcmp(argv[4], "kill2") == 0;
    int warm = argc > 4 && strcmp(argv[4], "warm") == 0;
    int rc, cls, x = 1, sum = 0, flag, first = 0;
    MPI_Comm shrunk;
    MPI_Group acked;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    victim = argc > 2 ? atoi(argv[2]) : 1;
    if (victim < 0 || victim >= size)
        fail("bad victim", MPI_SUCCESS);
    first = victim == 0 ? 1 : 0; /* the lowest survivor */
    if (strcmp(handler, "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone is up and connected */
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size)
        fail("allreduce before the failure", MPI_SUCCESS);
    for (int i = 0; warm && i < 4; i++)
        MPI_Barrier(MPI_COMM_WORLD);

    /* The victim dies once every rank is past the allreduce (it could
     * finish its part before the others finished theirs): the others tell
     * the rank after it, which tells the victim. (The victim talks to no
     * other rank: under sock, ranks the collectives above did not connect
     * to it learn of its death from mpiexec only.) */
    {
        int collector = (victim + 1) % size;
        if (rank == victim) {
            MPI_Recv(&x, 1, MPI_INT, collector, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            raise(SIGKILL);
            pause();
        }
        if (rank == collector) {
            for (int i = 0; i < size - 2; i++)
                MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, victim, 5, MPI_COMM_WORLD);
        } else {
            x = 1;
            MPI_Send(&x, 1, MPI_INT, collector, 5, MPI_COMM_WORLD);
        }
    }

    if (strcmp(phase, "barrier") == 0) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(phase, "allreduce") == 0) {
        rc = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(phase, "iallreduce") == 0) {
        MPI_Request rq = MPI_REQUEST_NULL;
        rc = MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (strcmp(phase, "bcast") == 0) {
        x = rank == first ? 42 : 0;
        rc = MPI_Bcast(&x, 1, MPI_INT, first, MPI_COMM_WORLD);
        /* A rank whose part needs no message of the victim (the root sends
         * only) may finish; the barrier after it cannot. */
        if (rc == MPI_SUCCESS && x != 42)
            fail("MPI_Bcast succeeded with the wrong value", MPI_SUCCESS);
        if (rc == MPI_SUCCESS)
            rc = MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(phase, "anyrecv") == 0) {
        rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(phase, "pending") == 0) {
        if (rank == first) {
            rc = MPI_Recv(&x, 1, MPI_INT, victim, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS && error_class(rc) == MPIX_ERR_PROC_FAILED &&
                MPIX_Comm_revoke(MPI_COMM_WORLD) != MPI_SUCCESS)
                fail("MPIX_Comm_revoke", MPI_SUCCESS);
        } else {
            /* From a live rank that never sends: only the revocation ends it. */
            rc = MPI_Recv(&x, 1, MPI_INT, first, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        fail("unknown phase", MPI_SUCCESS);
        return 2;
    }
    if (rc == MPI_SUCCESS)
        fail("the operation succeeded although a rank it needs died", rc);
    cls = error_class(rc);
    if (strcmp(phase, "pending") == 0 && rank != first ? cls != MPIX_ERR_REVOKED
                                                       : cls != MPIX_ERR_PROC_FAILED)
        fail("wrong error class", rc);
    printf("rank %d: %s failed with class %d\n", rank, phase, cls);
    fflush(stdout);
    if (!ulfm) {
        MPI_Finalize();
        return 0; /* (a survivor that fails a check aborts: exit code 2) */
    }

    if (strcmp(phase, "anyrecv") == 0) {
        int n = 0, gr = -1, zero = 0;
        if ((rc = MPIX_Comm_failure_ack(MPI_COMM_WORLD)) != MPI_SUCCESS)
            fail("MPIX_Comm_failure_ack", rc);
        if ((rc = MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked)) != MPI_SUCCESS)
            fail("MPIX_Comm_failure_get_acked", rc);
        MPI_Group_size(acked, &n);
        if (n != 1)
            fail("the acknowledged group does not hold one rank", MPI_SUCCESS);
        {
            MPI_Group wg;
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Group_translate_ranks(acked, 1, &zero, wg, &gr);
            MPI_Group_free(&wg);
        }
        if (gr != victim)
            fail("the acknowledged group does not name the victim", MPI_SUCCESS);
        MPI_Group_free(&acked);
        /* Acknowledged: any-source receives work again. */
        if (rank == first) {
            int got = 0;
            for (int i = 0; i < size - 2; i++) {
                if ((rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                    fail("MPI_Recv(MPI_ANY_SOURCE) after MPIX_Comm_failure_ack", rc);
                got += x;
            }
            if (got != survivors_sum() - first)
                fail("wrong sum of any-source messages", MPI_SUCCESS);
        } else if ((rc = MPI_Send(&rank, 1, MPI_INT, first, 8, MPI_COMM_WORLD)) != MPI_SUCCESS) {
            fail("MPI_Send after MPIX_Comm_failure_ack", rc);
        }
    }

    if (kill2) {
        dead2 = first;
        if (rank == dead2) {
            raise(SIGKILL);
            pause();
        }
        first = first + 1 == victim ? first + 2 : first + 1;
    }
    /* Agree first (MPI_COMM_WORLD is not revoked yet: every survivor has
     * seen its error before anyone revokes). The victim's failure is not
     * acknowledged yet (but for anyrecv, without kill2). */
    flag = rank == first ? 6 : 7;
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    if (strcmp(phase, "anyrecv") == 0 && !kill2
            ? rc != MPI_SUCCESS
            : (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED))
        fail("MPIX_Comm_agree before the acknowledgement", rc);
    if (flag != 6)
        fail("MPIX_Comm_agree did not return the AND of the flags", MPI_SUCCESS);
    if ((rc = MPIX_Comm_revoke(MPI_COMM_WORLD)) != MPI_SUCCESS)
        fail("MPIX_Comm_revoke", rc);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_REVOKED)
        fail("MPI_Barrier on a revoked communicator did not fail with MPIX_ERR_REVOKED", rc);
    rc = MPI_Send(&x, 1, MPI_INT, first, 9, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_REVOKED)
        fail("MPI_Send on a revoked communicator did not fail with MPIX_ERR_REVOKED", rc);

    if ((rc = MPIX_Comm_failure_ack(MPI_COMM_WORLD)) != MPI_SUCCESS)
        fail("MPIX_Comm_failure_ack", rc);
    flag = rank == size - 1 || (victim == size - 1 && rank == size - 2) ? 1 : 3;
    if ((rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag)) != MPI_SUCCESS)
        fail("MPIX_Comm_agree after the acknowledgement", rc);
    if (flag != 1)
        fail("MPIX_Comm_agree did not return the AND of the flags", MPI_SUCCESS);

    if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk)) != MPI_SUCCESS)
        fail("MPIX_Comm_shrink", rc);
    {
        int ndead = dead2 >= 0 ? 2 : 1;
        int expect_rank = rank - (rank > victim) - (dead2 >= 0 && rank > dead2);
        int nsize, nrank;
        MPI_Comm_size(shrunk, &nsize);
        MPI_Comm_rank(shrunk, &nrank);
        if (nsize != size - ndead || nrank != expect_rank)
            fail("the shrunk communicator has the wrong size or rank", MPI_SUCCESS);
    }
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    if ((rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk)) != MPI_SUCCESS)
        fail("MPI_Allreduce on the shrunk communicator", rc);
    if (sum != survivors_sum())
        fail("wrong sum on the shrunk communicator", MPI_SUCCESS);
    if ((rc = MPI_Barrier(shrunk)) != MPI_SUCCESS)
        fail("MPI_Barrier on the shrunk communicator", rc);
    printf("rank %d: shrunk to %d ranks, sum %d\n", rank, size - (dead2 >= 0 ? 2 : 1), sum);
    if (rank == first) /* (every survivor got here: the allreduce included them) */
        printf("No Errors\n");
    MPI_Comm_free(&shrunk);
    MPI_Finalize();
    return 0;
}
