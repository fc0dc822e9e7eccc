/*
 * LD_PRELOAD shim that makes an unmodified MPI program initialize with
 * MPI_THREAD_MULTIPLE: its MPI_Init calls PMPI_Init_thread(MULTIPLE), as
 * mpi4py does, and fails loudly when the library provides less. With it the
 * real OSU and IMB binaries (which call MPI_Init) measure the locked path of
 * Canal, MPICH and Open MPI alike; bench/compare_mt.sh's osu rows use it.
 *
 * Build against each library's own header (MPICH's and Canal's ABI agree,
 * Open MPI's differs):
 *   mpicc.mpich -shared -fPIC -o mt_preload_mpich.so bench/mt_preload.c
 *   mpicc.openmpi -shared -fPIC -o mt_preload_ompi.so bench/mt_preload.c
 * Run: mpiexec -n 2 env LD_PRELOAD=$PWD/mt_preload_mpich.so ./osu_mbw_mr
 * Rank 0 prints "# mt_preload: provided MPI_THREAD_MULTIPLE" to stderr.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int MPI_Init(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE, rank = 0;
    int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);

    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "mt_preload: rank %d: MPI_THREAD_MULTIPLE requested, %d provided\n", rank,
                provided);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        fprintf(stderr, "# mt_preload: provided MPI_THREAD_MULTIPLE\n");
    return MPI_SUCCESS;
}
