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
 * waits to yielding (the process had more threads than CPUs). args=blip
 * (with CANAL_OWN_THREADS_LOOK_US=0: every wait that reads the clock looks
 * once, so which looks see what does not depend on time): after the rounds,
 * one thread of the pool wakes and computes through one exchange of rank 0
 * (whose receive looks: canal_wait_time grew, the wait read the clock), and
 * is parked and asleep (its /proc state no longer R) before the next
 * exchange, which looks too; the blip is repeated until such a look is seen
 * (a receive whose message came before its 64th poll reads no clock). One
 * look sees the thread, the next does not, and the waits must keep
 * spinning: a look is one sample, and on 6c07460 that one sample switched
 * them to yielding.
 */
#include "mtest.h"

#include <pthread.h>
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { POOL = 8, ROUNDS = 12, BLIP_TRIES = 20 };

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
        if (blip == 1 && !stop) { /* (one thread takes it: 2 while it computes) */
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
    pthread_cond_signal(&wake); /* (one thread: the others stay asleep) */
    while (blip != 2) { /* (it computes before this rank's next wait) */
        pthread_mutex_unlock(&lock);
        sched_yield();
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
}

/* Threads of this process other than the caller that are runnable now
 * (state R in /proc/self/task/TID/stat, as the device's look counts). */
static int others_running(void)
{
    char path[64], buf[512], *p;
    long self = syscall(SYS_gettid);
    struct dirent *e;
    DIR *d = opendir("/proc/self/task");
    int n = 0;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        long tid = atol(e->d_name);
        FILE *f;
        if (tid <= 0 || tid == self)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
        if ((f = fopen(path, "r")) == NULL)
            continue; /* (gone meanwhile) */
        /* ("tid (comm) R ...") */
        if (fgets(buf, sizeof buf, f) != NULL && (p = strrchr(buf, ')')) != NULL &&
            p[1] == ' ' && p[2] == 'R')
            n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

/* ... and park it again: back inside pthread_cond_wait, and asleep there,
 * before this returns (a thread between the mutex's release and its sleep
 * is runnable, and a look would count it). */
static void blip_end(void)
{
    pthread_mutex_lock(&lock);
    __atomic_store_n(&blip, 0, __ATOMIC_RELAXED);
    while (parked < POOL)
        pthread_cond_wait(&all_parked, &lock);
    pthread_mutex_unlock(&lock);
    while (others_running() > 0)
        sched_yield();
}

/* Seconds rank 0's waits spent after their first clock reading, where a
 * wait looks at the threads (the MPI_T timer canal_wait_time). */
static double wait_time(void)
{
    static MPI_T_pvar_session ps;
    static MPI_T_pvar_handle h;
    static int ready;
    double v = 0;
    int pi, count, prov;
    if (!ready) {
        OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
        OK(MPI_T_pvar_get_index("canal_wait_time", MPI_T_PVAR_CLASS_TIMER, &pi));
        OK(MPI_T_pvar_session_create(&ps));
        OK(MPI_T_pvar_handle_alloc(ps, pi, NULL, &h, &count));
        OK(MPI_T_pvar_start(ps, h));
        ready = 1;
    }
    OK(MPI_T_pvar_read(ps, h, &v));
    return v;
}

/* args=blip, rank 0: one exchange with rank 1 (which pauses 20 ms before it
 * answers); 1 when this rank's receive read the clock, so looked. cmd < 0:
 * rank 1 stops (no answer). */
static int exchange(int cmd)
{
    double before = wait_time();
    int v = -1;
    OK(MPI_Send(&cmd, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
    if (cmd < 0)
        return 0;
    OK(MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == cmd, "rank 0: exchange %d answered %d", cmd, v);
    return wait_time() > before;
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
    while (!busy && others_running() > 0) /* (and asleep there) */
        sched_yield();
    for (int r = 0; r < ROUNDS; r++) {
        int v = -1;
        if (mtest_rank == 1) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            OK(MPI_Send(&r, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
            OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            OK(MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
        }
        CHECK(v == r, "rank %d round %d: got %d", mtest_rank, r, v);
    }
    if (blipping && mtest_rank == 1) { /* (rank 0's exchanges: answer each after 20 ms) */
        struct timespec ts = {0, 20 * 1000 * 1000};
        int cmd;
        for (;;) {
            OK(MPI_Recv(&cmd, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (cmd < 0)
                break;
            nanosleep(&ts, NULL);
            OK(MPI_Send(&cmd, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
        }
    } else if (blipping) {
        int seen = 0, tries;
        for (tries = 0; tries < BLIP_TRIES && !seen; tries++) {
            blip_start();
            seen = exchange(1); /* (a look with the thread runnable) */
            blip_end();
            for (int calm = 0; calm < 100 && !exchange(0); calm++)
                ; /* (a look with it asleep) */
        }
        exchange(-1);
        CHECK(seen, "rank 0: no receive of %d read the clock while a thread computed (the "
              "look never saw the blip)", BLIP_TRIES);
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
