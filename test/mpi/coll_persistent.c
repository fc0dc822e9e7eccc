/*
 * Persistent collectives (MPI 4.0): each *_init once, then started and
 * completed several times with new data in the same buffers (MPI_Start +
 * MPI_Wait, MPI_Startall + MPI_Waitall, MPI_Test polling), checked
 * exactly, then freed. Also an inactive request's MPI_Wait, and two
 * persistent collectives started in a different order than they were
 * initialized. Run with any number of ranks.
 */
#include "mtest.h"

enum { N = 300, ROUNDS = 4 };

int main(int argc, char **argv)
{
    MPI_Request rq[8];
    int *bb, *ain, *aout, *ga, *gr, *ts, *tr, *rsin, *rsout, *scin, *scout;
    int root;

    mtest_init(&argc, &argv);
    root = mtest_size / 2;
    bb = malloc(sizeof(int) * N);
    ain = malloc(sizeof(int) * N);
    aout = malloc(sizeof(int) * N);
    ga = malloc(sizeof(int) * N);
    gr = malloc(sizeof(int) * N * (size_t)mtest_size);
    ts = malloc(sizeof(int) * N * (size_t)mtest_size);
    tr = malloc(sizeof(int) * N * (size_t)mtest_size);
    rsin = malloc(sizeof(int) * N * (size_t)mtest_size);
    rsout = malloc(sizeof(int) * N);
    scin = malloc(sizeof(int) * N);
    scout = malloc(sizeof(int) * N);

    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    OK(MPI_Bcast_init(bb, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    OK(MPI_Allreduce_init(ain, aout, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]));
    OK(MPI_Gather_init(ga, N, MPI_INT, gr, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[3]));
    OK(MPI_Alltoall_init(ts, N, MPI_INT, tr, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[4]));
    OK(MPI_Reduce_scatter_block_init(rsin, rsout, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &rq[5]));
    OK(MPI_Scan_init(scin, scout, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[6]));
    OK(MPI_Allreduce_init_c(MPI_IN_PLACE, ain, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &rq[7]));

    /* an inactive persistent request completes at once */
    OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK(rq[1] != MPI_REQUEST_NULL, "MPI_Wait freed an inactive persistent request");

    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) {
            bb[i] = mtest_rank == root ? round * 100 + i : -1;
            ain[i] = mtest_rank + i + round;
            ga[i] = mtest_rank * N + i + round;
            scin[i] = mtest_rank + round;
        }
        for (int i = 0; i < N * mtest_size; i++) {
            ts[i] = mtest_rank * 100000 + i + round;
            rsin[i] = (mtest_rank * 31 + i + round) % 97;
        }
        if (round % 2 == 0) {
            /* start in a different order than initialized, wait one by one */
            for (int k = 6; k >= 0; k--)
                OK(MPI_Start(&rq[k]));
            for (int k = 0; k < 7; k++)
                OK(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
        } else {
            int done = 0;
            OK(MPI_Startall(7, rq));
            while (!done)
                OK(MPI_Testall(7, rq, &done, MPI_STATUSES_IGNORE));
        }
        for (int k = 0; k < 7; k++)
            CHECK(rq[k] != MPI_REQUEST_NULL, "persistent request %d freed by completion", k);
        for (int i = 0; i < N; i++) {
            CHECK(bb[i] == round * 100 + i, "bcast_init round %d [%d]=%d", round, i, bb[i]);
            CHECK(aout[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * (i + round),
                  "allreduce_init round %d [%d]=%d", round, i, aout[i]);
            CHECK(scout[i] == mtest_rank * (mtest_rank + 1) / 2 + (mtest_rank + 1) * round,
                  "scan_init round %d [%d]", round, i);
        }
        if (mtest_rank == 0)
            for (int i = 0; i < N * mtest_size; i++)
                CHECK(gr[i] == i + round, "gather_init round %d [%d]=%d", round, i, gr[i]);
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < N; i++)
                CHECK(tr[p * N + i] == p * 100000 + mtest_rank * N + i + round,
                      "alltoall_init round %d [%d][%d]", round, p, i);
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int p = 0; p < mtest_size; p++) {
                int v = (p * 31 + mtest_rank * N + i + round) % 97;
                if (v > want)
                    want = v;
            }
            CHECK(rsout[i] == want, "reduce_scatter_block_init round %d [%d]", round, i);
        }
        /* the in-place one, alone */
        for (int i = 0; i < N; i++)
            ain[i] = (mtest_rank + i) % mtest_size + round;
        OK(MPI_Start(&rq[7]));
        OK(MPI_Wait(&rq[7], MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK(ain[i] == mtest_size - 1 + round, "allreduce_init_c in place round %d [%d]=%d", round,
                  i, ain[i]);
    }
    for (int k = 0; k < 8; k++)
        OK(MPI_Request_free(&rq[k]));
    free(bb);
    free(ain);
    free(aout);
    free(ga);
    free(gr);
    free(ts);
    free(tr);
    free(rsin);
    free(rsout);
    free(scin);
    free(scout);
    return mtest_finish();
}
