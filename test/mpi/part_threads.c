/*
 * Partitioned send whose partitions are readied in random order by four
 * threads (MPI_THREAD_MULTIPLE), over several rounds; the receiver polls
 * MPI_Parrived and checks every partition.
 */
#include "mtest.h"

#include <pthread.h>

enum { PARTS = 64, COUNT = 256, THREADS = 4, ROUNDS = 5 };

static MPI_Request req;
static int errs_thread;

static void *worker(void *arg)
{
    int t = (int)(long)arg, mine[PARTS], n = 0;
    unsigned seed = 1234u + (unsigned)t;
    for (int p = t; p < PARTS; p += THREADS)
        mine[n++] = p;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rand_r(&seed) % (unsigned)(i + 1)), x = mine[i];
        mine[i] = mine[j];
        mine[j] = x;
    }
    for (int i = 0; i < n; i++)
        if (MPI_Pready(mine[i], req) != MPI_SUCCESS)
            __atomic_add_fetch(&errs_thread, 1, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided;
    static int buf[PARTS * COUNT];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (rank == 0)
        MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else if (rank == 1)
        MPI_Precv_init(buf, PARTS, COUNT, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int round = 0; rank < 2 && round < ROUNDS; round++) {
        for (int i = 0; i < PARTS * COUNT; i++)
            buf[i] = rank == 0 ? round * 1000000 + i : -1;
        MPI_Start(&req);
        if (rank == 0) {
            pthread_t th[THREADS];
            for (long t = 0; t < THREADS; t++)
                pthread_create(&th[t], NULL, worker, (void *)t);
            for (int t = 0; t < THREADS; t++)
                pthread_join(th[t], NULL);
        } else {
            int left = PARTS, flag;
            char seen[PARTS] = {0};
            while (left > 0)
                for (int p = 0; p < PARTS; p++)
                    if (!seen[p] && MPI_Parrived(req, p, &flag) == MPI_SUCCESS && flag)
                        seen[p] = 1, left--;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == 1)
            for (int i = 0; i < PARTS * COUNT; i++)
                if (buf[i] != round * 1000000 + i) {
                    CHECK(0, "round %d buf[%d] = %d", round, i, buf[i]);
                    break;
                }
    }
    if (rank < 2)
        MPI_Request_free(&req);
    CHECK(errs_thread == 0, "%d MPI_Pready failures", errs_thread);
    return mtest_finish();
}
