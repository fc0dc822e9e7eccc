/*
 * MPICH's MPIX_ queries of accelerator support, part of the MPICH ABI that
 * binaries and language runtimes (mpi4py, for one) call to decide whether
 * they may hand GPU memory to MPI. Canal moves host memory only, so every
 * query answers "no". These functions return the answer, not an error code:
 * a stub raising MPI_ERR_UNSUPPORTED_OPERATION would read as "supported".
 * Called by applications only.
 */
#include "mpiimpl.h"

int PMPIX_GPU_query_support(int gpu_type, int *is_supported)
{
    static const char fn[] = "MPIX_GPU_query_support";
    int err = mpi_enter(fn);

    if (err)
        return err;
    if (is_supported == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "is_supported is NULL");
    if (gpu_type != MPIX_GPU_SUPPORT_CUDA && gpu_type != MPIX_GPU_SUPPORT_ZE &&
        gpu_type != MPIX_GPU_SUPPORT_HIP)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "gpu_type=%d is not MPIX_GPU_SUPPORT_CUDA, _ZE or _HIP", gpu_type);
    *is_supported = 0;
    return MPI_SUCCESS;
}
#pragma weak MPIX_GPU_query_support = PMPIX_GPU_query_support

int PMPIX_Query_cuda_support(void) { return 0; }
#pragma weak MPIX_Query_cuda_support = PMPIX_Query_cuda_support

int PMPIX_Query_hip_support(void) { return 0; }
#pragma weak MPIX_Query_hip_support = PMPIX_Query_hip_support

int PMPIX_Query_ze_support(void) { return 0; }
#pragma weak MPIX_Query_ze_support = PMPIX_Query_ze_support
