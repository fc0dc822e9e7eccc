/*
 * What the fault-tolerance tests (test/mpi/fault_*.c) share: the error class
 * of a code, and fail(), which reports an unexpected result and ends the job
 * with exit code 2 (not the 137 of the rank the test kills). The including
 * file defines `rank` (its rank in MPI_COMM_WORLD) before including this.
 */
#ifndef CANAL_FAULT_UTIL_H
#define CANAL_FAULT_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int error_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void fail(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "rank %d: %s (class %d: %s)\n", rank, what,
            rc != MPI_SUCCESS ? error_class(rc) : 0, msg);
    MPI_Abort(MPI_COMM_SELF, 2); /* the job's exit code: 2, not the victim's 137 */
    exit(2);
}

#endif
