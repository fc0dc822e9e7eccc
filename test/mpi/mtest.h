/*
 * Tiny helpers shared by Canal's MPI test programs: CHECK(cond, fmt...)
 * records a failure with its line; mtest_finish() reduces the error count
 * over MPI_COMM_WORLD, prints "No Errors" from rank 0 when there were none
 * (the MPICH test-suite convention the runner looks for) and returns the
 * exit code.
 */
#ifndef CANAL_MTEST_H
#define CANAL_MTEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mtest_errors;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            int r_;                                                                        \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                            \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, \
                    #cond);                                                                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            mtest_errors++;                                                                \
        }                                                                                  \
    } while (0)

static inline int mtest_error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

static inline int mtest_finish(void)
{
    int total = mtest_errors, rank, size, e;
    /* point to point only, so that these tests do not depend on collectives */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Recv(&e, 1, MPI_INT, i, 32767, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += e;
        }
    } else {
        MPI_Send(&mtest_errors, 1, MPI_INT, 0, 32767, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}

#endif
