/* Peers that are quiet, not lost (the ofi channel's liveness probes, helper
 * ofi4): the last rank calls MPI_Finalize at once (argv[1] "quiet": without
 * a word to anyone, so no connection to it exists; "talked": after a
 * sendrecv with rank 0, so that it says BYE on that connection), and waits
 * in the finalize fence, progressing nothing. Meanwhile rank 1 computes for
 * argv[2] seconds without calling MPI (a busy loop: the machine is loaded
 * too) and then sends to rank 0, which waits all that time in an
 * MPI_ANY_SOURCE receive on MPI_COMM_WORLD (whose group holds both quiet
 * ranks, so that a false "peer lost" shows as its error); any other ranks
 * wait in a barrier of their own. Run with CANAL_OFI_PEER_LOST_S well below
 * argv[2]: probes refused by a rank that does not progress must not make
 * it lost (on one node its pid still runs; a BYE says it is finalizing).
 *
 * argv[1] "lost" is the other side: rank 1 exits (code 3) right after
 * MPI_Init, without a word to anyone, and every other rank waits in an
 * MPI_ANY_SOURCE receive on MPI_COMM_WORLD that nobody sends to. Run under
 * mpiexec -disable-auto-cleanup with CANAL_PMI_WATCH=0 (the launcher's
 * notice then waits for a PMI call that never comes), the ranks learn of
 * rank 1 from the probes alone: each wait must return
 * MPIX_ERR_PROC_FAILED_PENDING naming rank 1. Before the probes reached
 * peers never talked to, they waited for ever. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, size, last, x = 0, errs = 0, rc;
    double secs = argc > 2 ? atof(argv[2]) : 12.0;
    const char *mode = argc > 1 ? argv[1] : "quiet";
    MPI_Group world_g, rest_g;
    MPI_Comm rest;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    last = size - 1;
    if (strcmp(mode, "lost") == 0) {
        char text[MPI_MAX_ERROR_STRING];
        int len, cls;
        MPI_Request req;
        if (rank == 1)
            _exit(3);
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &req);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
        if (cls != MPIX_ERR_PROC_FAILED_PENDING || strstr(text, "rank 1") == NULL) {
            printf("rank %d: the wait returned class %d (%s); expected "
                   "MPIX_ERR_PROC_FAILED_PENDING naming rank 1\n", rank, cls, text);
            errs++;
        } else {
            printf("rank %d: the wait returned as it must: %s\n", rank, text);
        }
        MPI_Cancel(&req);
        MPI_Request_free(&req);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_SELF);
        if (rank == 0 && errs == 0)
            printf(" No Errors\n");
        fflush(stdout);
        MPI_Finalize();
        return errs != 0;
    }
    if (size < 3) {
        if (rank == 0)
            printf("needs 3 ranks or more\n");
        MPI_Finalize();
        return 1;
    }
    if (strcmp(mode, "talked") == 0 && (rank == 0 || rank == last)) {
        int peer = rank == 0 ? last : 0;
        MPI_Sendrecv(&rank, 1, MPI_INT, peer, 9, &x, 1, MPI_INT, peer, 9, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    if (rank == last) {
        MPI_Finalize();
        return 0;
    }
    /* The ranks but the last: a communicator of their own for the barrier. */
    MPI_Comm_group(MPI_COMM_WORLD, &world_g);
    {
        int range[1][3] = {{0, last - 1, 1}};
        MPI_Group_range_incl(world_g, 1, range, &rest_g);
    }
    MPI_Comm_create_group(MPI_COMM_WORLD, rest_g, 7, &rest);
    if (rank == 0) {
        double t0 = now();
        rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &status);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, text, &len);
            printf("rank 0: the MPI_ANY_SOURCE receive failed after %.1f s: %s\n", now() - t0,
                   text);
            errs++;
        } else if (x != 42 || status.MPI_SOURCE != 1) {
            printf("rank 0: got %d from rank %d, expected 42 from rank 1\n", x, status.MPI_SOURCE);
            errs++;
        }
    } else if (rank == 1) {
        double t0 = now();
        volatile unsigned long spin = 0;
        while (now() - t0 < secs)
            spin++;
        x = 42;
        rc = MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            printf("rank 1: MPI_Send to rank 0 failed\n");
            errs++;
        }
    }
    MPI_Barrier(rest);
    MPI_Comm_free(&rest);
    MPI_Group_free(&rest_g);
    MPI_Group_free(&world_g);
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return errs != 0;
}
