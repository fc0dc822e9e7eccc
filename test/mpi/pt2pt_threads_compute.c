/* A communication thread beside a compute thread (MPI_THREAD_MULTIPLE):
 * rank 0's main thread waits in MPI_Recv for messages that rank 1 sends
 * every 20 ms, while a second thread of rank 0 computes; then the compute
 * thread ends and rank 0 waits for a few more. The data are checked. Run
 * bound (MPIEXEC_BIND_TO=core, one CPU a rank) with CANAL_DEBUG=3, the
 * testlist line looks for the device's note that the waits yield while the
 * threads outnumber the CPUs (a wait that spins 20 ms there takes half the
 * CPU from the compute thread: adi/device.c, own_threads_look).
 * args=funneled: MPI_THREAD_FUNNELED, the compute thread one of a hybrid
 * program's (an OpenMP thread's part; it calls no MPI): the device looked
 * at the threads in locked mode only before, so these waits spun (the
 * testlist's output= was missing). */
#include "mtest.h"

#include <pthread.h>
#include <time.h>

enum { DURING = 12, AFTER = 8 };

static int stop; /* (atomic) */
static volatile double sink;

static void *compute(void *arg)
{
    double x = 0;
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        for (int i = 0; i < 100000; i++)
            x += i * 1e-9;
    sink = x;
    return NULL;
}

int main(int argc, char **argv)
{
    int want = argc > 1 && strcmp(argv[1], "funneled") == 0 ? MPI_THREAD_FUNNELED
                                                             : MPI_THREAD_MULTIPLE;
    int provided = mtest_init_thread(&argc, &argv, want);
    pthread_t t;

    if (provided < want || mtest_size < 2) {
        CHECK(0, "needs thread level %d (got %d) and 2 ranks (got %d)", want, provided,
              mtest_size);
        return mtest_finish();
    }
    if (mtest_rank == 0) {
        CHECK(pthread_create(&t, NULL, compute, NULL) == 0, "pthread_create");
        for (int i = 0; i < DURING + AFTER; i++) {
            int v = -1;
            MPI_Status st;
            if (i == DURING) {
                __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
                pthread_join(t, NULL);
            }
            OK(MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &st));
            CHECK(v == 1000 + i, "message %d carried %d", i, v);
            CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 7, "message %d from %d tag %d", i,
                  st.MPI_SOURCE, st.MPI_TAG);
        }
    } else if (mtest_rank == 1) {
        for (int i = 0; i < DURING + AFTER; i++) {
            struct timespec d = {0, 20 * 1000 * 1000};
            int v = 1000 + i;
            nanosleep(&d, NULL);
            OK(MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        }
    }
    return mtest_finish();
}
