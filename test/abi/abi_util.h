/*
 * abi_util.h -- what the standard-ABI test programs of test/abi share: a
 * failure counter and the "No Errors" line that test/abi/run.sh looks for.
 * The programs include only <mpi.h>: built with mpicc_abi they see Canal's
 * include/abi/mpi.h, built by run.sh against the MPI Forum's stubs header
 * they see that one (CANAL_ABI_STUBS), and must behave the same.
 */
#ifndef ABI_UTIL_H
#define ABI_UTIL_H
#include <stdio.h>

static int abi_errs;
#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            abi_errs++;                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                                \
    } while (0)

static int abi_finish(void)
{
    int rank, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&abi_errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return 0;
}
#endif
