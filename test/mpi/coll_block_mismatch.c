/*
 * A rank in a collective that goes through the node's shared block (a
 * small blocking barrier or allreduce, coll/shm.c) while the others call
 * one that goes by messages (an erroneous program): every rank that waits
 * gets an error of class MPI_ERR_OTHER whose message names both calls (or,
 * where another rank's notice that this call stepped the communicator out
 * of step reaches it first, says it is out of step: seen once under heavy
 * load), and no rank hangs (issue 26; on 5d96284 each pair hangs). Pairs, each on a
 * communicator of its own (a duplicate of MPI_COMM_WORLD whose block is
 * made by three barriers first): MPI_Allreduce of 4 ints (the block)
 * against MPI_Allreduce of 1024 (messages: different counts), MPI_Barrier
 * (the block) against MPI_Allreduce of 1024 ints, and MPI_Barrier against
 * MPI_Bcast from the barrier's rank (the others only receive, so only a
 * poke tells the barrier's rank), and MPI_Barrier against MPI_Allreduce of
 * one int, both on the block (an oversubscribed barrier is gathered and
 * released by rank 0, an allreduce waited for by all). Afterwards MPI_COMM_WORLD still works
 * (the pair's communicator is out of step: its ranks disagree on how many
 * calls it has had, doc/design.md). Rank 0
 * makes the odd call; with args=split the even ranks do. On the sock
 * channel (no block) or with CANAL_COLL_SHM=0, both calls go by messages
 * and the same errors come from coll/watch.c; there a rank of the 4-int
 * allreduce gets a longer message (MPI_ERR_TRUNCATE) and its notice stops
 * the others (coll_watch_failed; on 48a4a8c they hung: the 1024-int
 * algorithm waits for a second message). Under MPI_ERRORS_RETURN;
 * the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

/* c still works: a barrier, a small and a large allreduce. */
static void still_works_large(MPI_Comm c, const char *what)
{
    int one = 1, sum = 0, *v = malloc(sizeof(int) * 1024), *w = malloc(sizeof(int) * 1024);
    for (int i = 0; i < 1024; i++)
        v[i] = i;
    OK(MPI_Barrier(c));
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == mtest_size, "after %s: allreduce gave %d, want %d", what, sum, mtest_size);
    OK(MPI_Allreduce(v, w, 1024, MPI_INT, MPI_SUM, c));
    CHECK(w[1023] == 1023 * mtest_size, "after %s: allreduce gave %d, want %d", what, w[1023],
          1023 * mtest_size);
    OK(MPI_Barrier(c));
    free(v);
    free(w);
}

static int truncated(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls == MPI_ERR_TRUNCATE;
}

int main(int argc, char **argv)
{
    int rc, first = 0;
    MPI_Comm c;

    if (!mismatch_init(&argc, &argv, 1024, 0))
        return 0;

    c = fresh();
    rc = MPI_Allreduce(a, b, odd_one ? 4 : 1024, MPI_INT, MPI_SUM, c);
    /* (by messages, a rank given a longer message than its count says fails
     * with MPI_ERR_TRUNCATE, doc/design.md; the others with the mismatch) */
    if (block_used() || !truncated(rc))
        expect_block_pair(rc, "MPI_Allreduce of 4 against 1024 ints", "MPI_Allreduce",
                          "MPI_Allreduce");
    still_works_large(MPI_COMM_WORLD, "MPI_Allreduce of 4 against 1024 ints");

    c = fresh();
    rc = odd_one ? MPI_Barrier(c) : MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, c);
    expect_block_pair(rc, "MPI_Barrier against MPI_Allreduce", "MPI_Barrier", "MPI_Allreduce");
    still_works_large(MPI_COMM_WORLD, "MPI_Barrier against MPI_Allreduce");

    /* the bcast's root is the first rank that calls the barrier */
    while (first < mtest_size && !(argc > 1 && strcmp(argv[1], "split") == 0 ? first % 2 == 0
                                                                              : first == 0))
        first++;
    c = fresh();
    rc = odd_one ? MPI_Barrier(c) : MPI_Bcast(a, 1024, MPI_INT, first, c);
    expect_block_pair(rc, "MPI_Barrier against MPI_Bcast", "MPI_Barrier", "MPI_Bcast");
    still_works_large(MPI_COMM_WORLD, "MPI_Barrier against MPI_Bcast");

    /* both on the block: on an oversubscribed node rank 0 gathers and
     * releases a barrier, while an allreduce's ranks wait for all (fe443f3) */
    c = fresh();
    rc = odd_one ? MPI_Barrier(c) : MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, c);
    expect_mismatch(rc, "MPI_Barrier against MPI_Allreduce of 1 int", "MPI_Barrier",
                    "MPI_Allreduce");
    still_works_large(MPI_COMM_WORLD, "MPI_Barrier against MPI_Allreduce of 1 int");

    mismatch_finish();
    return 0;
}
