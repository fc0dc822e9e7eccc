/*
 * Context ids are agreed the same on every member although the members
 * differ in what the agreement once hashed its starting point from: the
 * thread level (processes may ask MPI_Init_thread for different levels:
 * here odd ranks MPI_THREAD_MULTIPLE, even ranks MPI_THREAD_SINGLE, or
 * every rank MULTIPLE with "all") and, for an intercommunicator, the two
 * groups' local communicators (one group builds it from a duplicate of its
 * split communicator, the other from the split one itself). Each
 * communicator made is used, so a context id that differs between members
 * would leave a message unmatched (a hang, which the runner's timeout turns
 * into a failure): MPI_Comm_dup of MPI_COMM_WORLD, MPI_Comm_split,
 * MPI_Intercomm_create, traffic both ways at once over the
 * intercommunicator, its barrier, MPI_Comm_dup of it, MPI_Intercomm_merge.
 * Needs at least 2 processes.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, provided = -1, want, all = argc > 1 && strcmp(argv[1], "all") == 0;
    MPI_Comm dup, half, local, inter, inter2, merged;

    /* the rank is not known before init: the launcher's PMI_RANK says it */
    {
        const char *r = getenv("PMI_RANK");
        int early = r != NULL ? atoi(r) : 0;
        want = all || early % 2 == 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    }
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided >= want, "asked for %d, got %d", want, provided);
    if (size < 2) {
        CHECK(0, "needs at least 2 processes");
        return mtest_finish();
    }

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    {
        int v = rank, sum = -1;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup);
        CHECK(sum == size * (size - 1) / 2, "allreduce on the dup: %d", sum);
    }

    MPI_Comm_split(dup, rank % 2, rank, &half);
    if (rank % 2 == 0)
        MPI_Comm_dup(half, &local); /* a context the other group's local comm does not have */
    else
        local = half;
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 77, &inter);
    {
        int lrank, rsize, *in, *out, bad = 0;
        MPI_Request *rq;
        MPI_Comm_rank(inter, &lrank);
        MPI_Comm_remote_size(inter, &rsize);
        in = malloc(sizeof(int) * (size_t)rsize);
        out = malloc(sizeof(int) * (size_t)rsize);
        rq = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
        for (int r = 0; r < rsize; r++) {
            out[r] = 1000 * (rank % 2) + 100 * lrank + r;
            in[r] = -1;
            MPI_Irecv(&in[r], 1, MPI_INT, r, 3, inter, &rq[r]);
        }
        for (int r = 0; r < rsize; r++)
            MPI_Isend(&out[r], 1, MPI_INT, r, 3, inter, &rq[rsize + r]);
        MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE);
        for (int r = 0; r < rsize; r++)
            bad += in[r] != 1000 * (1 - rank % 2) + 100 * r + lrank;
        CHECK(bad == 0, "%d wrong messages over the intercommunicator", bad);
        free(in);
        free(out);
        free(rq);
    }
    MPI_Barrier(inter);
    MPI_Comm_dup(inter, &inter2);
    MPI_Barrier(inter2);
    MPI_Intercomm_merge(inter2, rank % 2, &merged);
    {
        int mrank, msize, sum = -1;
        MPI_Comm_rank(merged, &mrank);
        MPI_Comm_size(merged, &msize);
        CHECK(msize == size, "merged size %d", msize);
        MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
        CHECK(sum == size * (size - 1) / 2, "merged allreduce %d", sum);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter2);
    MPI_Comm_free(&inter);
    if (local != half)
        MPI_Comm_free(&local);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    return mtest_finish();
}
