/*
 * Helpers shared by the collective test programs (test/mpi/coll_*.c):
 * error counting, the end-of-test report ("No Errors" from rank 0, MPICH
 * test-suite convention; exit status nonzero on failure), and a way to
 * skip parts whose MPI functions this build does not provide yet.
 * The final report travels by point-to-point so that a broken collective
 * cannot hide its own failure.
 */
#ifndef COLL_UTIL_H
#define COLL_UTIL_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs __attribute__((unused));
static int wrank __attribute__((unused)), wsize __attribute__((unused));

static inline void fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    errs++;
    if (errs > 20)
        return;
    fprintf(stderr, "[%d] %s:%d: ", wrank, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail_at(__FILE__, __LINE__, __VA_ARGS__);                                              \
    } while (0)

/* Errors are returned, not fatal: every call is checked with OK(), so a
 * failing collective is reported with its message and the test goes on. */
static inline void test_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

static inline void ok_at(int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    fail_at(file, line, "%s failed: %s", call, msg);
}

#define OK(call) ok_at((call), #call, __FILE__, __LINE__)

/* Returns the exit status: 0 when no rank found an error. */
static inline int test_finish(void)
{
    int total = errs;
    if (wrank == 0) {
        for (int r = 1; r < wsize; r++) {
            int e = 0;
            MPI_Recv(&e, 1, MPI_INT, r, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += e;
        }
        if (total == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total);
        fflush(stdout);
    } else {
        MPI_Send(&errs, 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return total != 0 || errs != 0;
}

/* Does this build provide the function? (Call it with MPI_ERRORS_RETURN
 * set; an unimplemented function fails with MPI_ERR_UNSUPPORTED_OPERATION.) */
static inline int unsupported(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        return 0;
    MPI_Error_class(rc, &cls);
    return cls == MPI_ERR_UNSUPPORTED_OPERATION;
}

/* Note once that part of a test was skipped. */
static inline void skipped(const char *what)
{
    if (wrank == 0)
        fprintf(stderr, "note: skipped %s (not in this build)\n", what);
}

#endif
