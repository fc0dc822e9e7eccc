/*
 * Many outstanding nonblocking requests: rank 1 sends N small messages to
 * rank 0 with MPI_Isend, rank 0 receives them with N MPI_Irecv, both wait
 * with one MPI_Waitall. What it measures is the library's handling of long
 * queues (request allocation, posted and unexpected queue matching, send
 * queues, Waitall over N requests), not the wire: each message is one int.
 *
 * Patterns (-p, comma-separated; default all):
 *   tags      receives posted first, tag i for message i, sent in order
 *   same      receives posted first, every message with one tag
 *   anysrc    receives posted first with MPI_ANY_SOURCE, tag i
 *   reverse   receives posted first for tags 0..N-1, sent in tag order
 *             N-1..0: every arrival matches the last posted receive
 *   unexp     sends first (rank 0 enters the receives only once every send
 *             is posted and has reached it), tag i, received in order
 *   unexprev  sends first, received in reverse tag order: every receive
 *             matches the last unexpected message
 * "Posted first" means a barrier separates rank 0's N MPI_Irecv from rank
 * 1's first MPI_Isend; "sends first" puts the barrier the other way round.
 * Tags above MPI_TAG_UB wrap (tag i mod (TAG_UB + 1)), which the
 * non-overtaking rule still orders.
 *
 * Time: from a barrier before the posts to the end of both ranks' Waitall
 * (rank 0's clock; rank 1 reports to it). Each received value is checked.
 * The median of R repetitions is printed with the fastest and slowest.
 *
 * Plain MPI, built against Canal, MPICH and Open MPI (bench/compare_manyreq.sh).
 * Usage: mpiexec -n 2 ./manyreq [-n count] [-r reps] [-p patterns]
 * Output: '#' lines, then "pattern count median_s min_s max_s".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

enum { P_TAGS, P_SAME, P_ANYSRC, P_REVERSE, P_UNEXP, P_UNEXPREV, P_COUNT };
static const char *const pattern_names[P_COUNT] = {"tags",    "same",  "anysrc",
                                                   "reverse", "unexp", "unexprev"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One repetition of pattern p; returns seconds, or -1 after a data error. */
static double run_once(int p, int n, int rank, int tag_ub, int *buf, MPI_Request *req)
{
    int unexp = p == P_UNEXP || p == P_UNEXPREV;
    int errors = 0;
    double t0, t;

    for (int i = 0; i < n; i++)
        buf[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (rank == 0) {
        if (unexp)
            MPI_Barrier(MPI_COMM_WORLD); /* every send is posted and ahead of the barrier */
        for (int i = 0; i < n; i++) {
            int k = p == P_UNEXPREV ? n - 1 - i : i;
            int tag = p == P_SAME ? 0 : k % (tag_ub + 1);
            int src = p == P_ANYSRC ? MPI_ANY_SOURCE : 1;
            MPI_Irecv(&buf[k], 1, MPI_INT, src, tag, MPI_COMM_WORLD, &req[i]);
        }
        if (!unexp)
            MPI_Barrier(MPI_COMM_WORLD);
    } else {
        if (!unexp)
            MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted */
        for (int i = 0; i < n; i++) {
            int k = p == P_REVERSE ? n - 1 - i : i;
            int tag = p == P_SAME ? 0 : k % (tag_ub + 1);
            buf[i] = k;
            MPI_Isend(&buf[i], 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &req[i]);
        }
        if (unexp)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    if (rank == 0) {
        double t1;
        for (int i = 0; i < n; i++)
            if (buf[i] != i && errors++ < 5)
                fprintf(stderr, "manyreq: %s: receive %d got %d\n", pattern_names[p], i, buf[i]);
        MPI_Recv(&t1, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
    } else {
        double t1 = MPI_Wtime();
        MPI_Send(&t1, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        t = 0;
    }
    MPI_Bcast(&errors, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return errors ? -1 : t;
}

int main(int argc, char **argv)
{
    int n = 100000, reps = 3, rank, size, opt, bad = 0, failed = 0, flag;
    int want[P_COUNT];
    int *tag_ub_p, tag_ub;
    char *patterns = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "n:r:p:")) != -1) {
        switch (opt) {
        case 'n':
            n = atoi(optarg);
            break;
        case 'r':
            reps = atoi(optarg);
            break;
        case 'p':
            patterns = optarg;
            break;
        default:
            bad = 1;
        }
    }
    for (int p = 0; p < P_COUNT; p++)
        want[p] = patterns == NULL;
    for (char *s = patterns ? strtok(patterns, ",") : NULL; s != NULL; s = strtok(NULL, ",")) {
        int p;
        for (p = 0; p < P_COUNT && strcmp(s, pattern_names[p]) != 0; p++)
            ;
        if (p == P_COUNT)
            bad = 1;
        else
            want[p] = 1;
    }
    if (bad || n < 1 || reps < 1 || reps > 100 || size != 2) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mpiexec -n 2 %s [-n count] [-r reps] "
                    "[-p tags,same,anysrc,reverse,unexp,unexprev]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub_p, &flag);
    tag_ub = flag ? *tag_ub_p : 32767;

    int *buf = malloc(sizeof(int) * (size_t)n);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (buf == NULL || req == NULL || t == NULL) {
        fprintf(stderr, "manyreq: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *canal = strstr(lib, "Canal Version:");
        char *name = canal ? canal : lib;
        name[strcspn(name, "\n")] = 0;
        printf("# many outstanding requests; library: %s\n", name);
        printf("# count %d, repetitions %d, MPI_TAG_UB %d\n", n, reps, tag_ub);
        printf("# %-9s %8s %10s %10s %10s\n", "pattern", "count", "median_s", "min_s", "max_s");
        fflush(stdout);
    }
    for (int p = 0; p < P_COUNT; p++) {
        if (!want[p])
            continue;
        int ok = 1;
        for (int r = 0; r < reps; r++) {
            t[r] = run_once(p, n, rank, tag_ub, buf, req);
            if (t[r] < 0)
                ok = 0;
        }
        if (rank == 0) {
            if (!ok) {
                printf("%-11s %8d wrong-data\n", pattern_names[p], n);
                failed = 1;
            } else {
                qsort(t, (size_t)reps, sizeof t[0], cmp_double);
                printf("%-11s %8d %10.4f %10.4f %10.4f\n", pattern_names[p], n, t[reps / 2], t[0],
                       t[reps - 1]);
            }
            fflush(stdout);
        }
    }
    free(t);
    free(req);
    free(buf);
    MPI_Finalize();
    return failed;
}
