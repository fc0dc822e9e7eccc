/*
 * Dynamic processes: the time of MPI_Comm_spawn of N children (this
 * program) up to a first round trip with them and MPI_Comm_disconnect,
 * median of REPS spawns; and, on one parent-child intercommunicator, the
 * 8-byte round-trip latency and the 1 MiB bandwidth (the path between two
 * jobs: Canal's sock channel, MPICH's and Open MPI's own). Run by
 * bench/spawn.sh with one parent process; prints one line of numbers:
 *   spawn_ms_n1 spawn_ms_n4 lat_us bw_MBps
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 9, LAT_ITERS = 2000, BW_ITERS = 40, BW_BYTES = 1 << 20 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double spawn_once(const char *self, int n, MPI_Comm *keep)
{
    char *args[] = {"child", NULL};
    MPI_Comm inter;
    int v = 1;
    double t0 = MPI_Wtime(), t;

    MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
    MPI_Send(&v, 1, MPI_INT, 0, 1, inter);
    MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
    t = MPI_Wtime() - t0;
    if (keep != NULL) {
        *keep = inter;
        return t;
    }
    v = -1; /* no measurements: go */
    MPI_Send(&v, 1, MPI_INT, 0, 2, inter);
    MPI_Comm_disconnect(&inter);
    return t;
}

static double spawn_median(const char *self, int n)
{
    double t[REPS];
    for (int r = 0; r < REPS; r++)
        t[r] = spawn_once(self, n, NULL);
    qsort(t, REPS, sizeof t[0], cmp);
    return t[REPS / 2] * 1e3;
}

static void child(MPI_Comm parent)
{
    int rank, v;
    char *buf = malloc(BW_BYTES);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
        MPI_Recv(&v, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE);
        if (v == 1) { /* measurements */
            char b8[8];
            for (int i = 0; i < LAT_ITERS + 100; i++) {
                MPI_Recv(b8, 8, MPI_BYTE, 0, 3, parent, MPI_STATUS_IGNORE);
                MPI_Send(b8, 8, MPI_BYTE, 0, 3, parent);
            }
            for (int i = 0; i < BW_ITERS + 2; i++)
                MPI_Recv(buf, BW_BYTES, MPI_BYTE, 0, 4, parent, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 5, parent);
        }
    }
    free(buf);
    MPI_Comm_disconnect(&parent);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    char self[PATH_MAX];
    double s1, s4, lat, bw, t0;
    char b8[8] = {0}, *buf;
    int v = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent);
        MPI_Finalize();
        return 0;
    }
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    spawn_once(self, 1, NULL); /* warm up */
    s1 = spawn_median(self, 1);
    s4 = spawn_median(self, 4);
    spawn_once(self, 1, &inter);
    MPI_Send(&v, 1, MPI_INT, 0, 2, inter);
    for (int i = 0; i < LAT_ITERS + 100; i++) {
        if (i == 100)
            t0 = MPI_Wtime();
        MPI_Send(b8, 8, MPI_BYTE, 0, 3, inter);
        MPI_Recv(b8, 8, MPI_BYTE, 0, 3, inter, MPI_STATUS_IGNORE);
    }
    lat = (MPI_Wtime() - t0) / LAT_ITERS / 2 * 1e6;
    buf = calloc(1, BW_BYTES);
    for (int i = 0; i < BW_ITERS + 2; i++) {
        if (i == 2)
            t0 = MPI_Wtime();
        MPI_Send(buf, BW_BYTES, MPI_BYTE, 0, 4, inter);
    }
    MPI_Recv(&v, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
    bw = (double)BW_BYTES * BW_ITERS / (MPI_Wtime() - t0) / 1e6;
    free(buf);
    MPI_Comm_disconnect(&inter);
    printf("%.1f %.1f %.2f %.0f\n", s1, s4, lat, bw);
    MPI_Finalize();
    return 0;
}
