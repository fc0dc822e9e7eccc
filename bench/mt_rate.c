/*
 * Multithreaded message rate between ranks 0 and 1 (MPI_THREAD_MULTIPLE).
 * Each rank runs T threads; thread i of rank 0 streams to thread i of
 * rank 1: a window of 64 MPI_Isend (rank 0) / MPI_Irecv (rank 1) of 8 bytes,
 * MPI_Waitall, then a zero-byte acknowledgement back so the sender cannot
 * run ahead of the receiver (osu_mbw_mr style). Two variants:
 *   dup:    every thread pair has its own communicator (MPI_Comm_dup);
 *   shared: all pairs use one communicator, told apart by tag = i.
 *
 * Plain MPI plus pthreads, so the same source is built against Canal, MPICH
 * and Open MPI by bench/compare_mt.sh. The timed part is split into batches
 * (all threads run each batch between two MPI_Barrier on the world, taken by
 * the main thread); the median batch rate is printed with the slowest and
 * the fastest, because on a shared 2-core machine one preemption inside a
 * long average hides the real figure.
 *
 * Beside the rate, which on a shared machine moves with everybody's load,
 * each rank counts what the timed batches cost it (getrusage around them,
 * every thread of the process): CPU time and voluntary and involuntary
 * context switches, summed over ranks 0 and 1 and printed per 1000
 * messages. Those move much less with the load: a library that spins
 * against a descheduled peer pays CPU time, one that sleeps and wakes pays
 * context switches. Where the library has them (Canal), the MPI_T pvars
 * canal_thread_wait_sleeps and canal_thread_wait_missed_wakes are read the
 * same way: how often a waiting thread went to sleep, and how many of those
 * sleeps a lost wake-up ended (-1 with other libraries).
 *
 * Usage: mpiexec -n 2 ./mt_rate [-t threads] [-m dup|shared] [-n windows] [-b batches]
 * Output: comment lines start with '#'; then one line
 *   "threads mode median_msgs_per_s min max cpu_us vcsw ivcsw sleeps missed"
 *   (rank 0 prints it; cpu_us to sleeps per 1000 messages, missed a count,
 *   both ranks summed).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { WINDOW = 64, MSG = 8, MAX_THREADS = 64 };

typedef struct {
    int id;
    MPI_Comm comm;
    int tag;
    long windows;
    char buf[WINDOW][MSG];
} worker_t;

static int rank;
static pthread_barrier_t start_bar, end_bar;
static volatile int quit;

static void stream(worker_t *w, long windows)
{
    MPI_Request req[WINDOW];
    for (long k = 0; k < windows; k++) {
        if (rank == 0) {
            for (int j = 0; j < WINDOW; j++)
                MPI_Isend(w->buf[j], MSG, MPI_CHAR, 1, w->tag, w->comm, &req[j]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_CHAR, 1, w->tag, w->comm, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < WINDOW; j++)
                MPI_Irecv(w->buf[j], MSG, MPI_CHAR, 0, w->tag, w->comm, &req[j]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_CHAR, 0, w->tag, w->comm);
        }
    }
}

/* A worker runs one batch per pass of the two barriers; the main thread
 * synchronizes the ranks between passes. */
static void *worker_main(void *arg)
{
    worker_t *w = arg;
    stream(w, w->windows / 10 + 1); /* warm-up */
    for (;;) {
        pthread_barrier_wait(&start_bar);
        if (quit)
            break;
        stream(w, w->windows);
        pthread_barrier_wait(&end_bar);
    }
    return NULL;
}

/* This process's CPU time (us) and voluntary and involuntary context
 * switches so far, every thread included. */
static void usage_now(double out[3])
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    out[0] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
             (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    out[1] = (double)ru.ru_nvcsw;
    out[2] = (double)ru.ru_nivcsw;
}

/* The counter pvars read around the batches (MPI_T counters count from
 * MPI_T_pvar_start: started once, read cumulatively); -1 where the
 * library has none. */
static const char *const pvar_names[2] = {"canal_thread_wait_sleeps",
                                          "canal_thread_wait_missed_wakes"};
static MPI_T_pvar_session pvar_session;
static MPI_T_pvar_handle pvar_handle[2];
static int pvar_ok[2];

static void pvars_start(void)
{
    int tprov, idx, count;

    if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &tprov) != MPI_SUCCESS ||
        MPI_T_pvar_session_create(&pvar_session) != MPI_SUCCESS)
        return;
    for (int i = 0; i < 2; i++)
        pvar_ok[i] =
            MPI_T_pvar_get_index(pvar_names[i], MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS &&
            MPI_T_pvar_handle_alloc(pvar_session, idx, NULL, &pvar_handle[i], &count) ==
                MPI_SUCCESS &&
            count == 1 && MPI_T_pvar_start(pvar_session, pvar_handle[i]) == MPI_SUCCESS;
}

static double pvar_value(int i)
{
    unsigned long long v;
    if (!pvar_ok[i] || MPI_T_pvar_read(pvar_session, pvar_handle[i], &v) != MPI_SUCCESS)
        return -1;
    return (double)v;
}

/* usage_now, then the pvars (out[3], out[4]). */
static void cost_now(double out[5])
{
    usage_now(out);
    out[3] = pvar_value(0);
    out[4] = pvar_value(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int nthreads = 1, batches = 5, provided, size, opt, shared = 0;
    long windows = 400;
    worker_t *w;
    pthread_t tid[MAX_THREADS];
    double rate[64], use0[5], use1[5], use[5] = {0, 0, 0, 0, 0}, use_sum[5];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "t:m:n:b:")) != -1) {
        switch (opt) {
        case 't': nthreads = atoi(optarg); break;
        case 'm': shared = strcmp(optarg, "shared") == 0; break;
        case 'n': windows = atol(optarg); break;
        case 'b': batches = atoi(optarg); break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: %s [-t threads] [-m dup|shared] [-n windows] [-b batches]\n",
                        argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (provided < MPI_THREAD_MULTIPLE || size < 2 || nthreads < 1 || nthreads > MAX_THREADS ||
        batches < 1 || batches > 64 || windows < 1) {
        if (rank == 0)
            fprintf(stderr, "mt_rate: need MPI_THREAD_MULTIPLE (got %d), 2 ranks (got %d), "
                            "1..%d threads, 1..64 batches\n",
                    provided, size, MAX_THREADS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    w = calloc((size_t)nthreads, sizeof *w);
    for (int i = 0; i < nthreads; i++) {
        w[i].id = i;
        w[i].windows = windows;
        w[i].tag = shared ? i : 0;
        if (shared || rank > 1)
            w[i].comm = MPI_COMM_WORLD;
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
    }
    if (rank > 1) { /* spectators */
        MPI_Barrier(MPI_COMM_WORLD);
        for (int b = 0; b < batches; b++) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        /* (they add nothing: they took no part in the batches) */
        MPI_Reduce(use, use_sum, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    pvars_start();
    pthread_barrier_init(&start_bar, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&end_bar, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&tid[i], NULL, worker_main, &w[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < batches; b++) {
        double t0, t1;
        MPI_Barrier(MPI_COMM_WORLD);
        cost_now(use0);
        t0 = MPI_Wtime();
        pthread_barrier_wait(&start_bar);
        pthread_barrier_wait(&end_bar);
        t1 = MPI_Wtime();
        cost_now(use1);
        for (int i = 0; i < 5; i++)
            use[i] = use[i] < 0 || use0[i] < 0 ? -1 : use[i] + use1[i] - use0[i];
        MPI_Barrier(MPI_COMM_WORLD);
        rate[b] = (double)nthreads * (double)windows * WINDOW / (t1 - t0);
    }
    quit = 1;
    pthread_barrier_wait(&start_bar);
    for (int i = 0; i < nthreads; i++)
        pthread_join(tid[i], NULL);
    qsort(rate, (size_t)batches, sizeof rate[0], cmp_double);
    MPI_Reduce(use, use_sum, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double kmsgs = (double)nthreads * (double)windows * WINDOW * batches / 1000.0;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        printf("# mt_rate: %d threads per rank, %s, window %d x %d B, %ld windows per thread "
               "per batch, %d batches, %ld online CPUs%s\n",
               nthreads, shared ? "one shared communicator (tag = thread)" : "one communicator "
               "per thread (dup)", WINDOW, MSG, windows, batches, cpus,
               2L * nthreads > cpus ? " (oversubscribed: more threads than cores)" : "");
        printf("%d %s %.0f %.0f %.0f %.2f %.3f %.3f %.3f %.0f\n", nthreads,
               shared ? "shared" : "dup", rate[batches / 2], rate[0], rate[batches - 1],
               use_sum[0] / kmsgs, use_sum[1] / kmsgs, use_sum[2] / kmsgs,
               use_sum[3] < 0 ? -1 : use_sum[3] / kmsgs, use_sum[4] < 0 ? -1 : use_sum[4]);
    }
    for (int i = 0; i < nthreads; i++)
        if (w[i].comm != MPI_COMM_WORLD)
            MPI_Comm_free(&w[i].comm);
    free(w);
    pthread_barrier_destroy(&start_bar);
    pthread_barrier_destroy(&end_bar);
    MPI_Finalize();
    return 0;
}
