/*
 * A note of a mismatched intercommunicator collective must not reach the
 * next intercommunicator made on the same context ids. Each round makes an
 * intercommunicator A of the two halves of MPI_COMM_WORLD, mismatches a
 * collective on it, frees it and makes B (the same groups: the same
 * context ids come back), where a correct MPI_Barrier, then a correct
 * MPI_Bcast of 1 MiB from group 0's rank 0, must succeed everywhere (the
 * bcast with the root's bytes). Group 0's rank 0 comes late to the barrier
 * (100 ms), so that every other rank waits in it long enough to look for
 * mismatches (coll/watch.c) and would take a stale note of A's call 0.
 * args=tworoots (4 ranks): both groups' rank 0 pass MPI_ROOT to an
 * MPI_Bcast on A; a root gets the other's message and tells its group's
 * other rank, which passed MPI_PROC_NULL and left, on the local
 * communicator inside A, on which it never ran a collective: on e01164e
 * that copy of the notice stayed queued when A was freed, B's local
 * communicator met it, the rank failed B's correct call ("found that the
 * two groups disagree about the root") and its group's rank 0 hung in its
 * send to it. args=reduce (4 ranks): an MPI_Reduce of 1 MiB on A whose
 * root is group 0's rank 1 while group 1 names rank 0
 * (coll_inter_root_mismatch args=reduce): group 1's rank 0 finds it when
 * the root pokes it and tells group 1's rank 1, which had sent its part and
 * left. A second argument: the rounds (default 3).
 */
#include <unistd.h>

#include "mtest.h"
#include "coll_mismatch_expect.h"

enum { N = 1 << 20 };

/* A correct call on B returned rc: MPI_SUCCESS, else say what it said. */
static int correct(int rc, const char *what, int round)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return 1;
    MPI_Error_string(rc, msg, &len);
    msg[len] = '\0';
    CHECK(0, "round %d: rank %d: a correct %s on the next intercommunicator failed: %s", round,
          mtest_rank, what, msg);
    return 0;
}

int main(int argc, char **argv)
{
    int reduce = argc > 1 && strcmp(argv[1], "reduce") == 0;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    MPI_Comm local, inter;
    int lr, color, root, rc;
    char *buf;

    mtest_init(&argc, &argv);
    if (mtest_size < 4) {
        mtest_skipped("needs 4 ranks");
        return mtest_finish();
    }
    color = mtest_rank < mtest_size / 2 ? 0 : 1;
    buf = calloc(N, 1);
    for (int round = 0; round < rounds; round++) {
        inter = halves_inter(&local);
        MPI_Comm_rank(local, &lr);
        if (reduce) {
            root = color == 1 ? 0 : lr == 1 ? MPI_ROOT : MPI_PROC_NULL;
            rc = MPI_Reduce(buf, buf, N / 4, MPI_INT, MPI_SUM, root, inter);
        } else {
            root = lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
            rc = MPI_Bcast(buf, N, MPI_BYTE, root, inter);
        }
        /* (the roots, and in reduce group 1's rank 0, fail; the others may not) */
        if (root == MPI_ROOT || (reduce && color == 1 && lr == 0))
            CHECK(rc != MPI_SUCCESS, "round %d: rank %d: the mismatched call succeeded", round,
                  mtest_rank);
        still_works("the mismatch");
        OK(MPI_Comm_free(&inter));
        OK(MPI_Comm_free(&local));

        inter = halves_inter(&local);
        MPI_Comm_rank(local, &lr);
        memset(buf, color == 0 && lr == 0 ? 0x5a + round : 0, N);
        if (color == 0 && lr == 0)
            usleep(100 * 1000); /* (the others wait and look) */
        correct(MPI_Barrier(inter), "MPI_Barrier", round);
        rc = MPI_Bcast(buf, N, MPI_BYTE, color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                       inter);
        if (correct(rc, "MPI_Bcast", round) && color == 1) {
            CHECK((unsigned char)buf[0] == 0x5a + round && (unsigned char)buf[N - 1] == 0x5a + round,
                  "round %d: rank %d: MPI_Bcast gave %#x, want %#x", round, mtest_rank,
                  (unsigned char)buf[0], 0x5a + round);
        }
        still_works("the correct MPI_Bcast");
        OK(MPI_Comm_free(&inter));
        OK(MPI_Comm_free(&local));
    }
    free(buf);
    return mtest_finish();
}
