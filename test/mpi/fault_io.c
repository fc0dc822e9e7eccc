/* A collective write with a dead member (issue 23), under mpiexec
 * -disable-auto-cleanup: the file's error handler is MPI_ERRORS_RETURN
 * (the default for files). Every rank opens a file on MPI_COMM_WORLD and
 * writes its block once with MPI_File_write_all; rank argv[1] then kills
 * itself (SIGKILL) and the others write again: each survivor's
 * MPI_File_write_all fails with MPIX_ERR_PROC_FAILED (no hang), the
 * survivors close the file alone (MPI_File_close is collective too: it
 * fails the same way), shrink MPI_COMM_WORLD and sum on it. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;

#include "fault_util.h"

int main(int argc, char **argv)
{
    int size, rc, victim, buf[256], all = 0, want = 0;
    char path[256];
    MPI_File fh;
    MPI_Comm shrunk;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    victim = argc > 1 ? atoi(argv[1]) : 1;
    if (victim < 0 || victim >= size)
        fail("bad victim", MPI_SUCCESS);
    if (rank == 0)
        snprintf(path, sizeof path, "/tmp/canal-fault-io-%d.dat", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if ((rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                            MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh)) != MPI_SUCCESS)
        fail("MPI_File_open", rc);
    for (int i = 0; i < 256; i++)
        buf[i] = rank;
    if ((rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof buf, buf, 256, MPI_INT,
                                    MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        fail("the first MPI_File_write_at_all", rc);
    if (rank == victim) {
        raise(SIGKILL);
        pause();
    }
    rc = MPI_File_write_at_all(fh, (MPI_Offset)(size + rank) * sizeof buf, buf, 256, MPI_INT,
                               MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
        fail("MPI_File_write_at_all with a dead member", rc);
    printf("rank %d: MPI_File_write_at_all failed with MPIX_ERR_PROC_FAILED\n", rank);
    fflush(stdout);
    rc = MPI_File_close(&fh);
    if (rc != MPI_SUCCESS && error_class(rc) != MPIX_ERR_PROC_FAILED)
        fail("MPI_File_close with a dead member", rc);
    if (rank == (victim == 0 ? 1 : 0))
        unlink(path); /* (in case the close did not get that far) */

    if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk)) != MPI_SUCCESS)
        fail("MPIX_Comm_shrink", rc);
    if ((rc = MPI_Allreduce(&rank, &all, 1, MPI_INT, MPI_SUM, shrunk)) != MPI_SUCCESS)
        fail("MPI_Allreduce on the shrunk communicator", rc);
    for (int r = 0; r < size; r++)
        want += r == victim ? 0 : r;
    if (all != want)
        fail("wrong sum on the shrunk communicator", MPI_SUCCESS);
    MPI_Comm_free(&shrunk);
    if (rank == (victim == 0 ? 1 : 0))
        printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
