/*
 * MPI_Alloc_mem and MPI_Free_mem (MPI 4.0 section 9.2): memory for windows
 * and messages. Plain aligned heap memory: every channel and window in
 * Canal works on any memory, so there is nothing special to register.
 * Kept next to the one-sided code that is their main user.
 */
#include "rma_impl.h"
#include "mpi/api_impl.h"

#include <stdlib.h>

int mpi_alloc_mem_impl(MPI_Aint size, MPI_Info info, void *baseptr, const char *fn)
{
    void *p = NULL;
    if (size < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "size=%lld is negative", (long long)size);
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    if (posix_memalign(&p, 64, size > 0 ? (size_t)size : 1) != 0)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "cannot allocate %lld bytes",
                             (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int mpi_free_mem_impl(void *base, const char *fn)
{
    free(base);
    return MPI_SUCCESS;
}
