/*
 * A correct program whose ranks wait long in a collective, then free the
 * communicator and make the next one (which gets the same context ids):
 * no rank may fail, hang or get a wrong result on the next one.
 * coll/watch.c pokes a peer whose message a rank has waited for more than
 * a second (2.54 s into the wait, then every second); a poke sent just as
 * the peer's message came, which reaches the peer after it freed the
 * communicator, must not be taken for the next one's.
 * Each round: A = MPI_Comm_dup(MPI_COMM_WORLD); the slow rank (the round's,
 * in turn) sleeps about 2.54 s while the others wait in an MPI_Alltoall of
 * 4 KiB per peer on A (by messages, sent eagerly: the slow rank is done as
 * soon as it sent), which is A's call 0; the rounds step the sleep across
 * the pokes' time, so that in some the slow rank's messages come just as
 * the others poke it. It frees A at once and makes B the same way (B gets
 * A's ids); on B, whose call 0 has the poke's number, another rank comes
 * 100 ms late to an MPI_Barrier (the others wait and look for mismatches),
 * then an MPI_Allreduce, MPI_Bcast, MPI_Allgather,
 * MPI_Reduce_scatter_block, MPI_Iallreduce, MPI_Ibcast and an
 * MPI_Comm_idup with an MPI_Allreduce on it, then an intercommunicator of
 * B's two halves with a barrier and a bcast, each result checked. Before
 * the fix (coll_watch_fresh) a round whose poke came late failed B's
 * correct MPI_Barrier ("rank 3 called MPI_Barrier where rank 2 called
 * MPI_Alltoall") or left B out of step, every later call failing.
 * Arguments: the rounds (default 20), the first sleep in microseconds
 * (2540500) and its step per round (350).
 */
#include <unistd.h>

#include "mtest.h"

enum { N = 1024 }; /* ints per peer of the long MPI_Alltoall */

static void correct(int rc, const char *what, int round)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    msg[len] = '\0';
    CHECK(0, "round %d: rank %d: a correct %s after the long wait failed: %s", round, mtest_rank,
          what, msg);
}

/* The collectives of a round on c (intra), each result checked. */
static void many(MPI_Comm c, int round, int late)
{
    int rank, size, x, sum, *v, *w;
    MPI_Request r;
    MPI_Comm d;

    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    v = malloc(sizeof(int) * size * 2);
    w = malloc(sizeof(int) * size * 2);
    if (rank == late)
        usleep(100 * 1000); /* (the others wait and look) */
    correct(MPI_Barrier(c), "MPI_Barrier", round);
    x = rank + round;
    sum = -1;
    correct(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c), "MPI_Allreduce", round);
    CHECK(sum == size * (size - 1) / 2 + size * round, "round %d: MPI_Allreduce gave %d", round,
          sum);
    x = rank == size - 1 ? 77 + round : -1;
    correct(MPI_Bcast(&x, 1, MPI_INT, size - 1, c), "MPI_Bcast", round);
    CHECK(x == 77 + round, "round %d: MPI_Bcast gave %d", round, x);
    x = 10 * rank;
    correct(MPI_Allgather(&x, 1, MPI_INT, v, 1, MPI_INT, c), "MPI_Allgather", round);
    for (int i = 0; i < size; i++)
        CHECK(v[i] == 10 * i, "round %d: MPI_Allgather gave %d at %d", round, v[i], i);
    for (int i = 0; i < size; i++)
        v[i] = rank + i;
    correct(MPI_Reduce_scatter_block(v, &x, 1, MPI_INT, MPI_SUM, c), "MPI_Reduce_scatter_block",
            round);
    CHECK(x == size * (size - 1) / 2 + size * rank, "round %d: MPI_Reduce_scatter_block gave %d",
          round, x);
    x = 1;
    correct(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, c, &r), "MPI_Iallreduce", round);
    correct(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait (MPI_Iallreduce)", round);
    CHECK(x == size, "round %d: MPI_Iallreduce gave %d", round, x);
    for (int i = 0; i < 2 * size; i++)
        w[i] = rank == 0 ? i * 3 : -1;
    correct(MPI_Ibcast(w, 2 * size, MPI_INT, 0, c, &r), "MPI_Ibcast", round);
    correct(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait (MPI_Ibcast)", round);
    for (int i = 0; i < 2 * size; i++)
        CHECK(w[i] == i * 3, "round %d: MPI_Ibcast gave %d at %d", round, w[i], i);
    correct(MPI_Comm_idup(c, &d, &r), "MPI_Comm_idup", round);
    correct(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait (MPI_Comm_idup)", round);
    x = 2;
    correct(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_PROD, d), "MPI_Allreduce (idup)",
            round);
    CHECK(x == 1 << size, "round %d: MPI_Allreduce on the idup gave %d", round, x);
    OK(MPI_Comm_free(&d));
    free(v);
    free(w);
}

/* An intercommunicator of c's two halves: a barrier and a bcast from the
 * low half's rank 0, checked. */
static void inter(MPI_Comm c, int round)
{
    int rank, size, color, lr, x;
    MPI_Comm local, ic;

    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    if (size < 2)
        return;
    color = rank < size / 2 ? 0 : 1;
    OK(MPI_Comm_split(c, color, rank, &local));
    OK(MPI_Intercomm_create(local, 0, c, color == 0 ? size / 2 : 0, 91, &ic));
    MPI_Comm_rank(local, &lr);
    correct(MPI_Barrier(ic), "MPI_Barrier (inter)", round);
    x = color == 0 && lr == 0 ? 5 + round : -1;
    correct(MPI_Bcast(&x, 1, MPI_INT, color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic),
            "MPI_Bcast (inter)", round);
    if (color == 1)
        CHECK(x == 5 + round, "round %d: the inter MPI_Bcast gave %d", round, x);
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    long first_us = argc > 2 ? atol(argv[2]) : 2540500;
    long step_us = argc > 3 ? atol(argv[3]) : 350;
    int *sb, *rb;

    mtest_init(&argc, &argv);
    if (mtest_size < 2) {
        mtest_skipped("needs 2 ranks");
        return mtest_finish();
    }
    sb = malloc(sizeof(int) * N * mtest_size);
    rb = malloc(sizeof(int) * N * mtest_size);
    for (int round = 0; round < rounds; round++) {
        int slow = round % mtest_size, late = (round + 1) % mtest_size;
        MPI_Comm a, b;

        OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
        OK(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < N; i++)
                sb[p * N + i] = (mtest_rank * 1000 + p) * 7 + i + round;
        OK(MPI_Barrier(MPI_COMM_WORLD)); /* (the waits start together) */
        if (mtest_rank == slow)
            usleep((useconds_t)(first_us + step_us * round));
        correct(MPI_Alltoall(sb, N, MPI_INT, rb, N, MPI_INT, a), "MPI_Alltoall (the long wait)",
                round);
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < N; i += 97)
                CHECK(rb[p * N + i] == (p * 1000 + mtest_rank) * 7 + i + round,
                      "round %d: MPI_Alltoall gave %d from %d at %d", round, rb[p * N + i], p, i);
        OK(MPI_Comm_free(&a)); /* (the slow rank at once; a poke to it may be on its way) */

        OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
        OK(MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN));
        many(b, round, late);
        inter(b, round);
        OK(MPI_Comm_free(&b));
    }
    free(sb);
    free(rb);
    return mtest_finish();
}
