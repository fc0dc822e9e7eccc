/*
 * Helpers of the one-sided test programs (test/mpi/rma_*.c), on top of
 * mtest.h. Most RMA tests run the same checks twice: on a window of user
 * memory (flavor 0, MPI_Win_create: the active-message path) and on one the
 * library allocates (flavor 1, MPI_Win_allocate: direct access on a node).
 */
#ifndef CANAL_RMA_UTIL_H
#define CANAL_RMA_UTIL_H

#include "mtest.h"

/* A window of n elements of `unit` bytes (displacement unit `unit`) on
 * MPI_COMM_WORLD, zeroed, of the given flavor; returns its memory. */
static inline void *rma_win_make(int flavor, int n, int unit, MPI_Win *win)
{
    void *mem = NULL;
    int rank;

    if (flavor == 0) {
        mem = calloc((size_t)n > 0 ? (size_t)n : 1, (size_t)unit);
        CHECK(mem != NULL, "no memory for a window of %d x %d bytes", n, unit);
        MPI_Win_create(mem, (MPI_Aint)unit * n, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win);
    } else {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Win_allocate((MPI_Aint)unit * n, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, win);
        /* local stores into window memory: inside an epoch on ourselves */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, *win);
        memset(mem, 0, (size_t)unit * (size_t)n);
        MPI_Win_unlock(rank, *win);
    }
    return mem;
}

/* Frees a window made by rma_win_make (and its memory, for flavor 0). */
static inline void rma_win_free(int flavor, void *mem, MPI_Win *win)
{
    MPI_Win_free(win);
    if (flavor == 0)
        free(mem);
}

/* main() of a test that runs run(flavor, rank, size) on both flavors. */
static inline int rma_run_flavors(int *argc, char ***argv, void (*run)(int, int, int))
{
    int rank, size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(0, rank, size);
    run(1, rank, size);
    return mtest_finish();
}

#endif
