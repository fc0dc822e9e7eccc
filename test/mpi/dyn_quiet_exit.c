/* A job that another job spawned (argv[1] "spawn"), or that connected to it
 * through a port (argv[1] "accept": the children MPI_Comm_connect to a port
 * the parents opened and MPI_Comm_accept on), disconnects and exits while the
 * parents keep going: rank 0 of the parents waits argv[2] seconds in an
 * MPI_ANY_SOURCE receive on a duplicate of MPI_COMM_WORLD made before the
 * spawn, until rank 1, which computes meanwhile without calling MPI (a busy
 * loop), sends to it. A process of a job that disconnected and exited must
 * never be reported lost (no error anywhere), whatever the channel within
 * each job (the testlist runs it over ofi with CANAL_OFI_PEER_LOST_S below
 * argv[2], helper ofi4). Two parents and two children. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mtest.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void exchange(MPI_Comm inter, int root_side)
{
    int v = root_side ? 17 : 0;
    OK(MPI_Bcast(&v, 1, MPI_INT, root_side ? (mtest_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                 inter));
    CHECK(v == 17, "bcast over the intercommunicator gave %d", v);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "spawn";
    double secs = argc > 2 ? atof(argv[2]) : 12.0;
    MPI_Comm parent, inter = MPI_COMM_NULL, conn = MPI_COMM_NULL, dup;
    char port[MPI_MAX_PORT_NAME] = "";

    mtest_init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        /* A child: argv[3] is the port in "accept" mode. */
        MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
        exchange(parent, 0);
        if (strcmp(mode, "accept") == 0 && argc > 3) {
            OK(MPI_Comm_connect(argv[3], MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn));
            MPI_Comm_set_errhandler(conn, MPI_ERRORS_RETURN);
            exchange(conn, 0);
            OK(MPI_Comm_disconnect(&conn));
        }
        OK(MPI_Comm_disconnect(&parent));
        if (mtest_errors != 0)
            printf("child %d: %d errors\n", mtest_rank, mtest_errors);
        MPI_Finalize();
        return mtest_errors != 0;
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    {
        char *cargs[4] = {(char *)mode, argc > 2 ? argv[2] : "12", port, NULL};
        if (strcmp(mode, "accept") == 0 && mtest_rank == 0)
            OK(MPI_Open_port(MPI_INFO_NULL, port));
        OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
        OK(MPI_Comm_spawn(argv[0], cargs, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                          MPI_ERRCODES_IGNORE));
    }
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    exchange(inter, 1);
    if (strcmp(mode, "accept") == 0) {
        OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn));
        MPI_Comm_set_errhandler(conn, MPI_ERRORS_RETURN);
        exchange(conn, 1);
        OK(MPI_Comm_disconnect(&conn));
        if (mtest_rank == 0)
            OK(MPI_Close_port(port));
    }
    OK(MPI_Comm_disconnect(&inter));
    if (mtest_rank == 0) {
        int x = 0;
        MPI_Status status;
        double t0 = now();
        OK(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, dup, &status));
        CHECK(x == 42 && status.MPI_SOURCE == 1, "got %d from %d after %.1f s", x,
              status.MPI_SOURCE, now() - t0);
    } else if (mtest_rank == 1) {
        double t0 = now();
        volatile unsigned long spin = 0;
        int x = 42;
        while (now() - t0 < secs)
            spin++;
        OK(MPI_Send(&x, 1, MPI_INT, 0, 3, dup));
    }
    OK(MPI_Comm_free(&dup));
    return mtest_finish();
}
