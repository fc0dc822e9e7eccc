/*
 * What a barrier promises: no rank leaves it before every rank has entered
 * it. Each rank adds one to a counter of the round in a shared-memory
 * window (MPI_Win_allocate_shared over the node's ranks) before it enters,
 * and reads the counter after it leaves: it must hold the number of ranks.
 * 300 rounds of MPI_Barrier, then 300 of MPI_Ibarrier + MPI_Wait, then a
 * persistent MPI_Barrier_init started 100 times; also on a communicator of
 * the odd ranks in reverse order (its rank 0 is not world's). Run under
 * every barrier algorithm (CANAL_COLL_BARRIER=...) and oversubscribed,
 * where the table picks `linear` (all to rank 0 and back) from 3 ranks.
 * Then 5,000 rounds of a gather to rank 0 (MPI_Gatherv, MPI_Gather and
 * MPI_Reduce in turn, the results checked) and MPI_Barrier, IMB-MPI1's loop: there, on an
 * oversubscribed node, rank 0 leaves each barrier after the others
 * (coll/shm.c, gather_follows) and must still not leave it, nor let them,
 * before all entered, nor take a gather's message from a rank that left
 * for a sign that the ranks called different collectives: in 3 more
 * rounds the last rank stops rank 1 (SIGSTOP) inside the barrier for
 * 100 ms, leaves, and sends its block of the next gather meanwhile.
 * Ranks on other nodes (no shared window across nodes) skip the check.
 */
#include "mtest.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 300, PROUNDS = 100, GROUNDS = 5000, SROUNDS = 3 };

/* rounds of barriers of kind 0 (blocking), 1 (nonblocking), 2 (persistent)
 * on comm, whose ranks share cnt[] */
static void rounds(MPI_Comm comm, int *cnt, int n, int kind, const char *what)
{
    int size;
    MPI_Request rq = MPI_REQUEST_NULL;

    OK(MPI_Comm_size(comm, &size));
    if (kind == 2)
        OK(MPI_Barrier_init(comm, MPI_INFO_NULL, &rq));
    for (int i = 0; i < n; i++) {
        int seen;
        __atomic_add_fetch(&cnt[i], 1, __ATOMIC_SEQ_CST);
        if (kind == 0) {
            OK(MPI_Barrier(comm));
        } else if (kind == 1) {
            OK(MPI_Ibarrier(comm, &rq));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Start(&rq));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        seen = __atomic_load_n(&cnt[i], __ATOMIC_SEQ_CST);
        if (seen != size) {
            CHECK(0, "%s round %d: %d of %d ranks had entered when rank %d left", what, i, seen,
                  size, mtest_rank);
            break;
        }
    }
    if (kind == 2)
        OK(MPI_Request_free(&rq));
}

/* n rounds of (a gather of each rank's int to rank 0, MPI_Barrier) on
 * comm, whose ranks share cnt[] */
static void gather_rounds(MPI_Comm comm, int *cnt, int n)
{
    int size, rank, *all, *counts, *displs;

    OK(MPI_Comm_size(comm, &size));
    OK(MPI_Comm_rank(comm, &rank));
    all = malloc(sizeof(int) * 3 * (size_t)size);
    CHECK(all != NULL, "no memory");
    counts = all + size;
    displs = all + 2 * size;
    for (int r = 0; r < size; r++) {
        counts[r] = 1;
        displs[r] = size - 1 - r; /* (reversed: a real gatherv layout) */
    }
    for (int i = 0; i < n; i++) {
        int mine = i * 1000 + rank, seen;
        for (int r = 0; r < size; r++)
            all[r] = -1;
        if (i % 3 == 0)
            OK(MPI_Gatherv(&mine, 1, MPI_INT, all, counts, displs, MPI_INT, 0, comm));
        else if (i % 3 == 1)
            OK(MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, comm));
        else
            OK(MPI_Reduce(&mine, all, 1, MPI_INT, MPI_SUM, 0, comm));
        if (rank == 0 && i % 3 == 2)
            CHECK(all[0] == i * 1000 * size + size * (size - 1) / 2,
                  "reduce round %d: the sum is %d", i, all[0]);
        for (int r = 0; rank == 0 && i % 3 != 2 && r < size; r++) {
            int at = i % 3 == 0 ? size - 1 - r : r;
            if (all[at] != i * 1000 + r) {
                CHECK(0, "gather round %d: rank %d's block holds %d, not %d", i, r, all[at],
                      i * 1000 + r);
                break;
            }
        }
        __atomic_add_fetch(&cnt[i], 1, __ATOMIC_SEQ_CST);
        OK(MPI_Barrier(comm));
        seen = __atomic_load_n(&cnt[i], __ATOMIC_SEQ_CST);
        if (seen != size) {
            CHECK(0, "gather round %d: %d of %d ranks had entered the barrier when rank %d left",
                  i, seen, size, rank);
            break;
        }
    }
    free(all);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&t, NULL);
}

/* rounds of (gather, barrier in which rank 1 is stopped for 100 ms by the
 * last rank, gather, barrier) on comm (at least 3 ranks), whose ranks
 * share flag[] */
static void stalled_rounds(MPI_Comm comm, int *flag, int n)
{
    int size, rank, pid = (int)getpid(), *pids, *all;

    OK(MPI_Comm_size(comm, &size));
    OK(MPI_Comm_rank(comm, &rank));
    pids = malloc(sizeof(int) * (size_t)size);
    all = malloc(sizeof(int) * (size_t)size);
    CHECK(pids != NULL && all != NULL, "no memory");
    OK(MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, comm));
    OK(MPI_Barrier(comm));
    for (int i = 0; i < n; i++) {
        OK(MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, comm));
        if (rank == 1) {
            __atomic_store_n(&flag[i], 1, __ATOMIC_SEQ_CST);
            OK(MPI_Barrier(comm)); /* (stopped in there) */
        } else if (rank == size - 1) {
            while (__atomic_load_n(&flag[i], __ATOMIC_SEQ_CST) == 0)
                sleep_ms(1);
            sleep_ms(20); /* (rank 1 waits in the barrier now) */
            kill(pids[1], SIGSTOP);
            OK(MPI_Barrier(comm));
        } else {
            OK(MPI_Barrier(comm));
        }
        for (int r = 0; r < size; r++)
            all[r] = -1;
        OK(MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, comm));
        if (rank == size - 1) {
            sleep_ms(100); /* (its block sent, rank 1 still stopped) */
            kill(pids[1], SIGCONT);
        }
        for (int r = 0; rank == 0 && r < size; r++)
            CHECK(all[r] == r, "stalled round %d: rank %d's block holds %d", i, r, all[r]);
        OK(MPI_Barrier(comm));
    }
    free(pids);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Comm node, odd;
    MPI_Win win;
    int nsize, *cnt, disp;
    MPI_Aint bytes;
    size_t total = (size_t)(3 * ROUNDS + 2 * PROUNDS + GROUNDS + SROUNDS);

    mtest_init(&argc, &argv);
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    OK(MPI_Comm_size(node, &nsize));
    if (nsize != mtest_size) { /* ranks on several nodes: nothing shared to count in */
        OK(MPI_Comm_free(&node));
        return mtest_finish();
    }
    OK(MPI_Win_allocate_shared(mtest_rank == 0 ? (MPI_Aint)(total * sizeof(int)) : 0,
                               sizeof(int), MPI_INFO_NULL, node, &cnt, &win));
    OK(MPI_Win_shared_query(win, 0, &bytes, &disp, &cnt));
    if (mtest_rank == 0)
        for (size_t i = 0; i < total; i++)
            cnt[i] = 0;
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* (the zeros are there before anyone counts) */

    rounds(MPI_COMM_WORLD, cnt, ROUNDS, 0, "MPI_Barrier");
    rounds(MPI_COMM_WORLD, cnt + ROUNDS, ROUNDS, 1, "MPI_Ibarrier");
    rounds(MPI_COMM_WORLD, cnt + 2 * ROUNDS, PROUNDS, 2, "MPI_Barrier_init");
    /* odd ranks, reversed: the highest odd rank is rank 0 there */
    OK(MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_size - mtest_rank, &odd));
    if (mtest_rank % 2)
        rounds(odd, cnt + 2 * ROUNDS + PROUNDS, ROUNDS, 0, "MPI_Barrier (odd ranks)");
    else
        rounds(odd, cnt + 3 * ROUNDS + PROUNDS, PROUNDS, 1, "MPI_Ibarrier (even ranks)");
    OK(MPI_Comm_free(&odd));
    gather_rounds(MPI_COMM_WORLD, cnt + 3 * ROUNDS + 2 * PROUNDS, GROUNDS);
    if (mtest_size >= 3)
        stalled_rounds(MPI_COMM_WORLD, cnt + 3 * ROUNDS + 2 * PROUNDS + GROUNDS, SROUNDS);

    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_free(&win));
    OK(MPI_Comm_free(&node));
    return mtest_finish();
}
