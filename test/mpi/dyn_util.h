/*
 * Helpers of the dynamic-process test programs that start a second job
 * themselves (dyn_twojobs, dyn_exchange, dyn_accept_threads): where the
 * mpiexec of the library under test is. Include after defining _GNU_SOURCE.
 */
#ifndef CANAL_DYN_UTIL_H
#define CANAL_DYN_UTIL_H

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>

/* The mpiexec installed with the library this program runs on. */
static inline void find_mpiexec(char *out, size_t len)
{
    Dl_info di;
    char lib[PATH_MAX];
    if (dladdr((void *)MPI_Init, &di) != 0 && di.dli_fname != NULL) {
        snprintf(lib, sizeof lib, "%s", di.dli_fname);
        snprintf(out, len, "%s/../bin/mpiexec", dirname(lib));
    } else {
        snprintf(out, len, "mpiexec");
    }
}

#endif
