/*
 * Communicators of every size from 1 to the job's, made by MPI_Comm_split,
 * MPI_Comm_dup and MPI_Comm_create_group, several at a time: the context id
 * of each is agreed by all its members (a power of two of them or not), so
 * a message sent on one must arrive on that one only. Each new communicator
 * carries a ring of messages, sent before a message on its parent that uses
 * the same tag, and each rank checks which one it received where.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errs;

static void ring_check(MPI_Comm c, MPI_Comm parent, int stamp)
{
    int rank, size, prank, psize, got = -1, pgot = -1, v = stamp;
    MPI_Request r[4];

    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(parent, &prank);
    MPI_Comm_size(parent, &psize);
    int pv = -stamp - 1;
    MPI_Irecv(&pgot, 1, MPI_INT, (prank + psize - 1) % psize, 7, parent, &r[0]);
    MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 7, c, &r[1]);
    MPI_Isend(&pv, 1, MPI_INT, (prank + 1) % psize, 7, parent, &r[2]);
    MPI_Isend(&v, 1, MPI_INT, (rank + 1) % size, 7, c, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    if (got != stamp || pgot != -stamp - 1) {
        errs++;
        fprintf(stderr, "size %d stamp %d: got %d on the new communicator, %d on its parent\n",
                size, stamp, got, pgot);
    }
}

int main(int argc, char **argv)
{
    int wrank, wsize, toterrs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int iter = 0; iter < 20; iter++) {
        for (int k = 1; k <= wsize; k++) {
            /* ranks below k form one communicator of size k, the rest another */
            MPI_Comm sub, dup, grp;
            MPI_Group g;
            int color = wrank < k ? 0 : 1;

            MPI_Comm_split(MPI_COMM_WORLD, color, wsize - wrank, &sub);
            ring_check(sub, MPI_COMM_WORLD, 1000 * iter + k);
            MPI_Comm_dup(sub, &dup);
            ring_check(dup, sub, 1000 * iter + k + 100);
            MPI_Comm_group(dup, &g);
            MPI_Comm_create_group(dup, g, 5, &grp);
            ring_check(grp, dup, 1000 * iter + k + 200);
            MPI_Group_free(&g);
            MPI_Comm_free(&grp);
            MPI_Comm_free(&sub); /* freed out of creation order */
            MPI_Comm_free(&dup);
        }
    }
    MPI_Allreduce(&errs, &toterrs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && toterrs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return toterrs != 0;
}
