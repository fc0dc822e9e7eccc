/*
 * abi_overhead.c -- the cost of an MPI call's binding, on one rank, so that
 * no other process's scheduling enters the number: 0-byte MPI_Isend and
 * MPI_Irecv to itself completed by MPI_Waitall (four handles, a request
 * array, statuses), and MPI_Send to MPI_PROC_NULL. Built from this one
 * source with mpicc (libmpi.so.12) and mpicc_abi (libmpi_abi.so.1, whose
 * entry points convert every handle, rank, tag, status and error code) by
 * bench/compare_abi.sh. Prints the minimum over batches of the time per
 * iteration, measured as the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so
 * that time spent preempted on a loaded machine is not counted.
 * Usage: ./abi_overhead [-n iterations_per_batch] [-b batches]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int iters = 50000, batches = 10, opt;
    double best_pair = 1e30, best_null = 1e30;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "n:b:")) != -1) {
        if (opt == 'n')
            iters = atoi(optarg);
        else if (opt == 'b')
            batches = atoi(optarg);
    }
    MPI_Get_library_version(version, &len);
    for (int b = 0; b < batches; b++) {
        MPI_Request r[2];
        MPI_Status st[2];
        double t = cpu_now();
        for (int i = 0; i < iters; i++) {
            MPI_Irecv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, st);
        }
        t = (cpu_now() - t) / iters;
        if (t < best_pair)
            best_pair = t;
        t = cpu_now();
        for (int i = 0; i < iters; i++)
            MPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
        t = (cpu_now() - t) / iters;
        if (t < best_null)
            best_null = t;
    }
    printf("# library: %.40s\n", version);
    printf("self_isend_irecv_waitall_ns %.1f\n", best_pair * 1e9);
    printf("send_proc_null_ns %.1f\n", best_null * 1e9);
    MPI_Finalize();
    return 0;
}
