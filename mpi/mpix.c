/*
 * MPICH's MPIX_ queries of accelerator support, part of the MPICH ABI that
 * binaries and language runtimes (mpi4py, for one) call to decide whether
 * they may hand GPU memory to MPI. Canal moves host memory only, so every
 * query answers "no". These functions return the answer, not an error code:
 * a stub raising MPI_ERR_UNSUPPORTED_OPERATION would read as "supported".
 * Called by applications only.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

/* The implementations of the generated entry points (mpi/api/ext-mpich.api);
 * the MPIX_Query_*_support ones are `anytime` and answer 0. */
int mpix_gpu_query_support_impl(int gpu_type, int *is_supported, const char *fn)
{
    if (gpu_type != MPIX_GPU_SUPPORT_CUDA && gpu_type != MPIX_GPU_SUPPORT_ZE &&
        gpu_type != MPIX_GPU_SUPPORT_HIP)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "gpu_type=%d is not MPIX_GPU_SUPPORT_CUDA, _ZE or _HIP", gpu_type);
    *is_supported = 0;
    return MPI_SUCCESS;
}

int mpix_query_cuda_support_impl(const char *fn)
{
    (void)fn;
    return 0;
}

int mpix_query_hip_support_impl(const char *fn)
{
    (void)fn;
    return 0;
}

int mpix_query_ze_support_impl(const char *fn)
{
    (void)fn;
    return 0;
}
