/*
 * Cost of point-to-point calls that move nothing and must return at once:
 * MPI_PROC_NULL as the peer of MPI_Send, MPI_Recv, MPI_Isend/MPI_Irecv with
 * MPI_Wait, MPI_Sendrecv, MPI_Probe/MPI_Iprobe, and MPI_Wait/MPI_Test on
 * MPI_REQUEST_NULL. One rank suffices (more ranks only run the same loop).
 *
 * Plain MPI, so the same source builds with Canal's mpicc, mpicc.mpich and
 * mpicc.openmpi. Each call is timed over a batch of iterations; the median of
 * the batches is printed with the fastest and slowest (ns per call), because
 * on a shared machine one preemption inside one long average hides the real
 * number. The statuses are checked (source MPI_PROC_NULL, tag MPI_ANY_TAG,
 * count 0), so a library that returns garbage does not win.
 *
 * Usage: mpiexec -n 1 ./nullcalls [-i iterations] [-b batches] [-t]
 *   -t: initialize with MPI_THREAD_MULTIPLE (one thread calls).
 * Output: '#' comment lines, then "call median_ns min_ns max_ns".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int errors;

static void check_status(const char *what, const MPI_Status *st)
{
    int count = -1;
    MPI_Get_count(st, MPI_CHAR, &count);
    if (st->MPI_SOURCE != MPI_PROC_NULL || st->MPI_TAG != MPI_ANY_TAG || count != 0) {
        fprintf(stderr, "nullcalls: %s: status source %d tag %d count %d\n", what,
                st->MPI_SOURCE, st->MPI_TAG, count);
        errors++;
    }
}

enum { SEND, RECV, ISEND_WAIT, IRECV_WAIT, SENDRECV, PROBE, IPROBE, WAIT_NULL, TEST_NULL, NCALLS };
static const char *names[NCALLS] = {"send",  "recv",   "isend+wait", "irecv+wait", "sendrecv",
                                    "probe", "iprobe", "wait(null)", "test(null)"};

static void run(int which, long n, char *buf)
{
    MPI_Status st;
    MPI_Request req;
    int flag;
    for (long i = 0; i < n; i++) {
        switch (which) {
        case SEND:
            MPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
            break;
        case RECV:
            MPI_Recv(buf, 8, MPI_CHAR, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
            break;
        case ISEND_WAIT:
            MPI_Isend(buf, 8, MPI_CHAR, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, &st);
            break;
        case IRECV_WAIT:
            MPI_Irecv(buf, 8, MPI_CHAR, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, &st);
            break;
        case SENDRECV:
            MPI_Sendrecv(buf, 8, MPI_CHAR, MPI_PROC_NULL, 1, buf + 8, 8, MPI_CHAR, MPI_PROC_NULL,
                         1, MPI_COMM_WORLD, &st);
            break;
        case PROBE:
            MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
            break;
        case IPROBE:
            MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st);
            if (!flag) {
                fprintf(stderr, "nullcalls: iprobe: flag 0\n");
                errors++;
            }
            break;
        case WAIT_NULL:
            req = MPI_REQUEST_NULL;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        case TEST_NULL:
            req = MPI_REQUEST_NULL;
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            break;
        }
    }
    /* (a send's status is undefined by the standard: not checked) */
    if (which != SEND && which != ISEND_WAIT && which != WAIT_NULL && which != TEST_NULL)
        check_status(names[which], &st);
}

int main(int argc, char **argv)
{
    long iters = 1000000;
    int batches = 5, mt = 0, opt, rank, provided;
    char buf[16] = {0};

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-t") == 0)
            mt = 1;
    if (mt)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while ((opt = getopt(argc, argv, "i:b:t")) != -1) {
        if (opt == 'i')
            iters = atol(optarg);
        else if (opt == 'b')
            batches = atoi(optarg);
    }
    if (iters < 1 || batches < 1 || batches > 1000) {
        if (rank == 0)
            fprintf(stderr, "usage: nullcalls [-i iterations] [-b batches] [-t]\n");
        MPI_Finalize();
        return 2;
    }
    double *t = malloc(sizeof(double) * batches);
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *canal = strstr(lib, "Canal Version:");
        char *name = canal ? canal : lib;
        name[strcspn(name, "\n")] = 0;
        printf("# 0-byte MPI_PROC_NULL calls (ns per call); library: %s%s\n", name,
               mt ? "; MPI_THREAD_MULTIPLE" : "");
        printf("# %-12s %10s %10s %10s\n", "call", "median_ns", "min_ns", "max_ns");
    }
    for (int w = 0; w < NCALLS; w++) {
        long per = iters / batches > 0 ? iters / batches : 1;
        run(w, per / 10 + 1, buf);
        for (int b = 0; b < batches; b++) {
            double t0 = MPI_Wtime();
            run(w, per, buf);
            t[b] = (MPI_Wtime() - t0) / per * 1e9;
        }
        qsort(t, batches, sizeof t[0], cmp_double);
        if (rank == 0)
            printf("%-14s %10.1f %10.1f %10.1f\n", names[w], t[batches / 2], t[0], t[batches - 1]);
    }
    free(t);
    MPI_Finalize();
    return errors ? 1 : 0;
}
