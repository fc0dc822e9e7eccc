/*
 * A library's idle thread pool beside a 2-rank ping-pong (a BLAS pool of 8
 * threads parked on a condition variable, the program MPI_THREAD_FUNNELED):
 * the threads take no CPU, so the waits of a rank alone on its CPUs keep
 * spinning (adi/device.c, own_threads_look: only runnable threads count).
 * Run bound (MPIEXEC_BIND_TO=core) with CANAL_DEBUG=3: each rank sends its
 * own stderr to a file before MPI_Init and looks there at the end for the
 * device's note that its waits yield ("waits yield after"); there must be
 * none. args=busy: one thread of the pool computes instead (a control: the
 * note must come, so the look is seen to run). Rank 1 pauses 20 ms before
 * each message, so rank 0's waits are long enough to look (a pause, not a
 * measure: nothing here is timed). On c2bcef9 the parked pool switched the
 * waits to yielding (the process had more threads than CPUs). args=blip:
 * the pool is parked but one thread of it wakes and computes through one
 * wait of rank 0 (round BLIP, after a pause of 150 ms without waits, so
 * that wait looks; rank 1 pauses 200 ms there, so it waits), and is parked again before rank 0's next call: one
 * look sees it, the next does not, and the waits must keep spinning (a
 * look is one sample: on 6c07460 that one look switched them to yielding).
 */
#include "mtest.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

enum { POOL = 8, ROUNDS = 12, BLIP = 6 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, all_parked = PTHREAD_COND_INITIALIZER;
static int stop, busy, parked; /* (under lock; busy read once) */
static int blip; /* args=blip: 1 while the blip thread is to compute (under lock) */
static volatile double sink;

static void *pool_thread(void *arg)
{
    if (arg != NULL) { /* the busy one: compute until told to stop */
        double x = 0;
        while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
            for (int i = 0; i < 100000; i++)
                x += i * 1e-9;
        sink = x;
        return NULL;
    }
    pthread_mutex_lock(&lock);
    if (++parked == POOL - busy)
        pthread_cond_signal(&all_parked); /* (main waits until all are parked) */
    while (!stop) {
        pthread_cond_wait(&wake, &lock);
        if (blip == 1 && arg == NULL && !stop) { /* (one thread takes it: 2 while it computes) */
            double x = 0;
            blip = 2;
            parked--;
            pthread_mutex_unlock(&lock);
            while (__atomic_load_n(&blip, __ATOMIC_RELAXED) == 2)
                for (int i = 0; i < 100000; i++)
                    x += i * 1e-9;
            sink = x;
            pthread_mutex_lock(&lock);
            parked++;
            pthread_cond_signal(&all_parked);
        }
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* args=blip, rank 0: wake one parked thread to compute (until blip_end). */
static void blip_start(void)
{
    pthread_mutex_lock(&lock);
    blip = 1;
    pthread_cond_broadcast(&wake);
    while (blip != 2) { /* (it computes before this rank's next wait) */
        pthread_mutex_unlock(&lock);
        sched_yield();
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
}

/* ... and park it again: back inside pthread_cond_wait before this returns. */
static void blip_end(void)
{
    pthread_mutex_lock(&lock);
    __atomic_store_n(&blip, 0, __ATOMIC_RELAXED);
    while (parked < POOL)
        pthread_cond_wait(&all_parked, &lock);
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
    pthread_t t[POOL];
    FILE *log = tmpfile();
    int saved = dup(2), provided, yielded = 0;
    char line[512];

    busy = argc > 1 && strcmp(argv[1], "busy") == 0;
    int blipping = argc > 1 && strcmp(argv[1], "blip") == 0;
    if (log == NULL || saved < 0 || dup2(fileno(log), 2) < 0) {
        printf("skipped: cannot send stderr to a file\n");
        MPI_Init(&argc, &argv);
        MPI_Finalize();
        return 0;
    }
    provided = mtest_init_thread(&argc, &argv, MPI_THREAD_FUNNELED);
    if (provided < MPI_THREAD_FUNNELED || mtest_size != 2) {
        dup2(saved, 2);
        CHECK(0, "needs MPI_THREAD_FUNNELED (got %d) and 2 ranks (got %d)", provided, mtest_size);
        return mtest_finish();
    }
    /* (after MPI_Init, as a library makes its pool at its first call: the
     * threads there at MPI_Init are the device's baseline) */
    for (int i = 0; i < POOL; i++)
        pthread_create(&t[i], NULL, pool_thread, busy && i == 0 ? (void *)1 : NULL);
    /* (every parked thread inside pthread_cond_wait: it holds the lock from
     * its count until the wait releases it) */
    pthread_mutex_lock(&lock);
    while (parked < POOL - busy)
        pthread_cond_wait(&all_parked, &lock);
    pthread_mutex_unlock(&lock);
    for (int r = 0; r < ROUNDS; r++) {
        int v = -1;
        if (mtest_rank == 1) {
            /* (round BLIP: 200 ms, so that rank 0 waits there after its pause) */
            struct timespec ts = {0, (blipping && r == BLIP ? 200 : 20) * 1000 * 1000};
            nanosleep(&ts, NULL);
            OK(MPI_Send(&r, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
            OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            if (blipping && r == BLIP) {
                struct timespec ts = {0, 150 * 1000 * 1000};
                nanosleep(&ts, NULL); /* (no wait for a look's interval: the next one looks) */
                blip_start();
            }
            OK(MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (blipping && r == BLIP)
                blip_end();
            OK(MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
        }
        CHECK(v == r, "rank %d round %d: got %d", mtest_rank, r, v);
    }
    pthread_mutex_lock(&lock);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < POOL; i++)
        pthread_join(t[i], NULL);
    /* the device's notes so far, then stderr back */
    fflush(stderr);
    rewind(log);
    while (fgets(line, sizeof line, log) != NULL)
        if (strstr(line, "waits yield after") != NULL)
            yielded = 1;
    dup2(saved, 2);
    if (mtest_rank == 0) /* (the rank whose waits last 20 ms) */
        CHECK(yielded == busy,
              "rank 0: %s pool of %d threads: the waits %s (CANAL_DEBUG=3's note %s)",
              busy ? "a busy thread in a" : "a parked", POOL,
              yielded ? "yielded" : "kept spinning", yielded ? "came" : "did not come");
    return mtest_finish();
}
