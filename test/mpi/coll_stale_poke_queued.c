/*
 * A poke of coll/watch.c that waits in its sender's queue behind a full
 * socket or ring past the next communicator's first collective (a correct
 * program: no rank may fail). Three ranks; S = rank 1, R = rank 2. Each
 * round: S sends R `msgs` eager messages of 16 KiB on MPI_COMM_WORLD
 * (MPI_Isend; R receives them at the round's end), more than the socket
 * (or ring) holds while R sleeps; A = MPI_Comm_dup(MPI_COMM_WORLD); R
 * sleeps about 3 s, then roots an MPI_Bcast on A, which the others wait
 * for: after a second they poke R, and S's poke queues behind its
 * messages. All free A and make B (A's context ids; the agreement of
 * three ranks runs 2 -> 0 -> 2, R never hears from S directly), and call
 * MPI_Barrier on B, where rank 0 comes 100 ms late, so that R waits and
 * looks: a poke of A's bcast arriving then would be taken for B's call.
 * Arguments: rounds (default 3), msgs (default 400).
 */
#include <unistd.h>

#include "mtest.h"

enum { BYTES = 16 << 10 };

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3, msgs = argc > 2 ? atoi(argv[2]) : 400;
    char *data, msg[MPI_MAX_ERROR_STRING];
    MPI_Request *reqs;
    int x = 0, rc, len;

    mtest_init(&argc, &argv);
    if (mtest_size != 3) {
        if (mtest_rank == 0)
            printf("needs 3 ranks\n");
        return mtest_finish();
    }
    data = calloc((size_t)msgs, BYTES);
    reqs = calloc((size_t)msgs, sizeof *reqs);
    CHECK(data != NULL && reqs != NULL, "no memory for %d messages", msgs);
    for (int round = 0; round < rounds && mtest_errors == 0; round++) {
        MPI_Comm a, b;

        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (mtest_rank == 1)
            for (int i = 0; i < msgs; i++)
                OK(MPI_Isend(data + (size_t)i * BYTES, BYTES, MPI_BYTE, 2, 7, MPI_COMM_WORLD,
                             &reqs[i]));
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
        if (mtest_rank == 2)
            usleep(3000 * 1000 + round * 250 * 1000);
        x = mtest_rank == 2 ? 42 + round : -1;
        OK(MPI_Bcast(&x, 1, MPI_INT, 2, a));
        CHECK(x == 42 + round, "round %d: bcast gave %d", round, x);
        OK(MPI_Comm_free(&a));
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
        if (mtest_rank == 0)
            usleep(100 * 1000);
        rc = MPI_Barrier(b);
        if (rc != MPI_SUCCESS) {
            MPI_Error_string(rc, msg, &len);
            msg[len] = '\0';
            CHECK(0, "round %d: rank %d: a correct MPI_Barrier on the next communicator failed: "
                     "%s",
                  round, mtest_rank, msg);
        }
        OK(MPI_Comm_free(&b));
        if (mtest_rank == 2)
            for (int i = 0; i < msgs; i++)
                OK(MPI_Recv(data + (size_t)i * BYTES, BYTES, MPI_BYTE, 1, 7, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        if (mtest_rank == 1)
            OK(MPI_Waitall(msgs, reqs, MPI_STATUSES_IGNORE));
    }
    free(data);
    free(reqs);
    return mtest_finish();
}
