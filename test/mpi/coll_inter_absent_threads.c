/*
 * MPI_THREAD_MULTIPLE: a rank that passes MPI_PROC_NULL to an
 * intercommunicator MPI_Bcast keeps a record of the call, and the looks of
 * its waits on any communicator answer pokes of it (coll/watch.c,
 * coll_absent_hold). Here one thread makes an intercommunicator of the two
 * halves of MPI_COMM_WORLD, runs a correct MPI_Bcast on it (group 0's rank
 * 0 the root, the rest of group 0 MPI_PROC_NULL: they keep the record) and
 * frees it, over and over, while a second thread waits in MPI_Barrier on a
 * duplicate of MPI_COMM_WORLD that rank 0 enters 30 ms late each time, so
 * that the other ranks' waits look (and drain the recorded
 * intercommunicator, kept a few ms before each free) while the first
 * thread frees it. Every call must
 * succeed with the right bytes; under ASan a look that drained a freed
 * communicator is a use-after-free (fix11's process-wide pointer was read
 * without a lock).
 */
#include <pthread.h>
#include <unistd.h>

#include "mtest.h"

enum { ROUNDS = 250, BARRIERS = 50 };

static MPI_Comm dupw;

static void *barriers(void *arg)
{
    (void)arg;
    for (int i = 0; i < BARRIERS; i++) {
        if (mtest_rank == 0)
            usleep(30 * 1000); /* (the others wait and look) */
        OK(MPI_Barrier(dupw));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    int color, lr;
    pthread_t t;

    if (provided < MPI_THREAD_MULTIPLE || mtest_size < 4) {
        mtest_skipped("needs MPI_THREAD_MULTIPLE and 4 ranks");
        return mtest_finish();
    }
    color = mtest_rank < mtest_size / 2 ? 0 : 1;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
    CHECK(pthread_create(&t, NULL, barriers, NULL) == 0, "pthread_create failed");
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm local, inter;
        int v;
        OK(MPI_Comm_split(MPI_COMM_WORLD, color, mtest_rank, &local));
        OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? mtest_size / 2 : 0, 7,
                                &inter));
        MPI_Comm_rank(local, &lr);
        v = color == 0 && lr == 0 ? round : -1;
        OK(MPI_Bcast(&v, 1, MPI_INT, color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                     inter));
        CHECK(v == (color == 1 || lr == 0 ? round : -1), "round %d: rank %d: MPI_Bcast gave %d",
              round, mtest_rank, v);
        usleep(2000 + 1000 * (round % 5)); /* (the other thread's looks see the record) */
        OK(MPI_Comm_free(&inter));
        OK(MPI_Comm_free(&local));
    }
    pthread_join(t, NULL);
    OK(MPI_Comm_free(&dupw));
    return mtest_finish();
}
