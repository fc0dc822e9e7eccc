/*
 * MPI_Alloc_mem and MPI_Free_mem (MPI 4.0 section 9.2): memory for windows
 * and messages. Plain aligned heap memory: every channel and window in
 * Canal works on any memory, so there is nothing special to register.
 * Kept next to the one-sided code that is their main user.
 */
#include "rma_impl.h"

#include <stdlib.h>

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char fn[] = "MPI_Alloc_mem";
    void *p = NULL;
    int err;

    if ((err = mpi_enter(fn)))
        return err;
    if (size < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "size=%lld is negative", (long long)size);
    if (baseptr == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "baseptr is NULL");
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    if (posix_memalign(&p, 64, size > 0 ? (size_t)size : 1) != 0)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "cannot allocate %lld bytes",
                             (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem

int PMPI_Free_mem(void *base)
{
    static const char fn[] = "MPI_Free_mem";
    int err;

    if ((err = mpi_enter(fn)))
        return err;
    free(base);
    return MPI_SUCCESS;
}
#pragma weak MPI_Free_mem = PMPI_Free_mem
