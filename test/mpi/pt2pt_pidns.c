/* Ranks of one job on one node in different pid namespaces (a container per
 * rank that shares the node's /dev/shm): rank 0 starts itself again under
 * `unshare --pid --fork`, so its pid is 1 in a namespace of its own, while
 * the others keep the launcher's. A peer's pid then names nothing (or
 * another process, pid 1 is the node's init for the others) on the other
 * side.
 *
 * Before the pid namespace travelled with the pid (common/proc.c), rank 0
 * took every peer for dead as soon as it waited idle: shm's liveness check
 * found their pids gone (ESRCH) within 0.1 s ("lost rank 1 ... the process
 * of job rank 1 (pid N) is gone") and the job then hung; on ofi, a peer
 * that refused rank 0's probes for CANAL_OFI_PEER_LOST_S was "lost" the
 * same way. And single-copy reads by pid (CMA) could reach pid 1 of the
 * node, not rank 0.
 *
 * So: the other ranks stay out of MPI for argv[1] seconds (default 3)
 * while rank 0 waits in a receive, then every pair exchanges a small and a
 * large message (rendezvous) both ways, checked byte by byte, and the job
 * ends with a barrier and an allreduce. Needs root (or CAP_SYS_ADMIN) for
 * the namespace: without it, every rank says "skipped:". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (4 << 20)

static int can_unshare(void)
{
    return system("unshare --pid --fork true >/dev/null 2>&1") == 0;
}

static void fill(unsigned char *b, size_t n, int from, int to)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + from * 31 + to * 13);
}

static int check(const unsigned char *b, size_t n, int from, int to)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + from * 31 + to * 13)) {
            printf("byte %zu of %zu from rank %d to %d is %d, expected %d\n", i, n, from, to,
                   b[i], (unsigned char)(i * 7 + from * 31 + to * 13));
            return 1;
        }
    return 0;
}

static int report(int rc, const char *what, int rank)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;

    if (rc == MPI_SUCCESS)
        return 0;
    MPI_Error_string(rc, text, &len);
    printf("rank %d: %s failed: %s\n", rank, what, text);
    return 1;
}

int main(int argc, char **argv)
{
    const char *pmi_rank = getenv("PMI_RANK");
    int ok = can_unshare(), rank, size, errs = 0, sum = 0, x = 0;
    double secs = argc > 1 ? atof(argv[1]) : 3.0;
    unsigned char *out, *in;

    if (ok && pmi_rank != NULL && atoi(pmi_rank) == 0 && getenv("PT2PT_PIDNS_INSIDE") == NULL) {
        char *av[64];
        int n = 0;
        setenv("PT2PT_PIDNS_INSIDE", "1", 1);
        av[n++] = "unshare";
        av[n++] = "--pid";
        av[n++] = "--fork";
        for (int i = 0; i < argc && n < 63; i++)
            av[n++] = argv[i];
        av[n] = NULL;
        execvp("unshare", av);
        perror("pt2pt_pidns: exec unshare");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (!ok) {
        if (rank == 0)
            printf("skipped: cannot create a pid namespace here (unshare --pid needs root)\n");
        MPI_Finalize();
        return 0;
    }
    if (rank == 0 && getpid() != 1) {
        printf("rank 0 has pid %d, not 1: not in a pid namespace of its own\n", (int)getpid());
        errs++;
    }
    /* rank 0 waits idle: the liveness checks run and must not lose anyone */
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            errs += report(MPI_Recv(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                           "the first MPI_Recv", rank);
            if (x != 100 + r)
                printf("rank 0 got %d from rank %d, expected %d\n", x, r, 100 + r), errs++;
        }
    } else {
        sleep((unsigned)secs);
        if (secs > (unsigned)secs)
            usleep((useconds_t)((secs - (unsigned)secs) * 1e6));
        x = 100 + rank;
        errs += report(MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD), "the first MPI_Send", rank);
    }
    out = malloc(BIG);
    in = malloc(BIG);
    if (out == NULL || in == NULL) {
        printf("rank %d: no memory for 2 x %d bytes\n", rank, BIG);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < size; r++) {
        if (r == rank)
            continue;
        for (size_t n = 8; n <= BIG; n = n == 8 ? BIG : BIG + 1) {
            fill(out, n, rank, r);
            memset(in, 0, n);
            errs += report(MPI_Sendrecv(out, (int)n, MPI_BYTE, r, 2, in, (int)n, MPI_BYTE, r, 2,
                                        MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                           "MPI_Sendrecv", rank);
            errs += check(in, n, r, rank);
        }
    }
    errs += report(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", rank);
    errs += report(MPI_Allreduce(&errs, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                   "MPI_Allreduce", rank);
    if (rank == 0)
        printf(sum == 0 ? "No Errors\n" : "%d errors\n", sum);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
