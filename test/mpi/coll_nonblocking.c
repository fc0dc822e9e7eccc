/*
 * Nonblocking collectives: every MPI_I... collective once, checked
 * exactly; then many in flight at once on several communicators
 * (MPI_COMM_WORLD, a duplicate, an odd/even split), completed in a
 * scrambled order with MPI_Waitall, MPI_Test polling and MPI_Waitany, with
 * point-to-point traffic in between. Run with any number of ranks.
 */
#include "mtest.h"

static int val(int r, int i)
{
    return r * 1000 + i;
}

static void test_each(void)
{
    MPI_Request rq;
    enum { N = 50 };
    int *s = malloc(sizeof(int) * N * (size_t)mtest_size), *r = malloc(sizeof(int) * N * (size_t)mtest_size);
    int *cnts = malloc(sizeof(int) * (size_t)mtest_size), *dsp = malloc(sizeof(int) * (size_t)mtest_size);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)mtest_size);
    int root = mtest_size - 1;

    OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "request not freed by MPI_Wait");

    for (int i = 0; i < N; i++)
        r[i] = mtest_rank == root ? val(root, i) : -1;
    OK(MPI_Ibcast(r, N, MPI_INT, root, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == val(root, i), "ibcast [%d]", i);

    for (int i = 0; i < N; i++)
        s[i] = val(mtest_rank, i);
    OK(MPI_Igather(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (mtest_rank == root)
        for (int i = 0; i < N * mtest_size; i++)
            CHECK(r[i] == val(i / N, i % N), "igather [%d]", i);

    for (int p = 0; p < mtest_size; p++) {
        cnts[p] = p % 3 + 1;
        dsp[p] = p * N;
        types[p] = MPI_INT;
    }
    OK(MPI_Igatherv(s, cnts[mtest_rank], MPI_INT, r, cnts, dsp, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (mtest_rank == 0)
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < cnts[p]; i++)
                CHECK(r[p * N + i] == val(p, i), "igatherv [%d][%d]", p, i);

    for (int i = 0; i < N * mtest_size; i++)
        s[i] = val(i / N, i % N);
    OK(MPI_Iscatter(s, N, MPI_INT, r, N, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == val(mtest_rank, i), "iscatter [%d]", i);
    OK(MPI_Iscatterv(s, cnts, dsp, MPI_INT, r, cnts[mtest_rank], MPI_INT, 0, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < cnts[mtest_rank]; i++)
        CHECK(r[i] == val(mtest_rank, i), "iscatterv [%d]", i);

    for (int i = 0; i < N; i++)
        s[i] = val(mtest_rank, i);
    OK(MPI_Iallgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N * mtest_size; i++)
        CHECK(r[i] == val(i / N, i % N), "iallgather [%d]", i);
    OK(MPI_Iallgatherv(s, cnts[mtest_rank], MPI_INT, r, cnts, dsp, MPI_INT, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int p = 0; p < mtest_size; p++)
        for (int i = 0; i < cnts[p]; i++)
            CHECK(r[p * N + i] == val(p, i), "iallgatherv [%d][%d]", p, i);

    for (int i = 0; i < N * mtest_size; i++)
        s[i] = val(mtest_rank, i);
    OK(MPI_Ialltoall(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int p = 0; p < mtest_size; p++)
        for (int i = 0; i < N; i++)
            CHECK(r[p * N + i] == val(p, mtest_rank * N + i), "ialltoall [%d][%d]", p, i);
    {
        /* pair counts must agree: (me, p) sends as many as (p, me) receives */
        int *pc = malloc(sizeof(int) * (size_t)mtest_size);
        for (int p = 0; p < mtest_size; p++)
            pc[p] = (p + mtest_rank) % 3 + 1;
        for (int i = 0; i < N * mtest_size; i++)
            r[i] = -1;
        OK(MPI_Ialltoallv(s, pc, dsp, MPI_INT, r, pc, dsp, MPI_INT, MPI_COMM_WORLD, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < N; i++)
                CHECK(r[p * N + i] == (i < pc[p] ? val(p, mtest_rank * N + i) : -1),
                      "ialltoallv [%d][%d]", p, i);
        free(pc);
    }
    {
        int *sc = malloc(sizeof(int) * (size_t)mtest_size), *bd = malloc(sizeof(int) * (size_t)mtest_size);
        for (int p = 0; p < mtest_size; p++) {
            sc[p] = 2;
            bd[p] = p * N * (int)sizeof(int);
        }
        OK(MPI_Ialltoallw(s, sc, bd, types, r, sc, bd, types, MPI_COMM_WORLD, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < 2; i++)
                CHECK(r[p * N + i] == val(p, mtest_rank * N + i), "ialltoallw [%d][%d]", p, i);
        free(sc);
        free(bd);
    }

    for (int i = 0; i < N; i++)
        s[i] = mtest_rank + i;
    OK(MPI_Ireduce(s, r, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (mtest_rank == root)
        for (int i = 0; i < N; i++)
            CHECK(r[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * i, "ireduce [%d]", i);
    OK(MPI_Iallreduce(s, r, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == mtest_size - 1 + i, "iallreduce [%d]", i);
    for (int i = 0; i < N * mtest_size; i++)
        s[i] = mtest_rank + i;
    OK(MPI_Ireduce_scatter_block(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * (mtest_rank * N + i), "ireduce_scatter_block");
    OK(MPI_Ireduce_scatter(s, r, cnts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    {
        int off = 0;
        for (int p = 0; p < mtest_rank; p++)
            off += cnts[p];
        for (int i = 0; i < cnts[mtest_rank]; i++)
            CHECK(r[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * (off + i), "ireduce_scatter [%d]", i);
    }
    OK(MPI_Iscan(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == mtest_rank * (mtest_rank + 1) / 2 + (mtest_rank + 1) * i, "iscan [%d]", i);
    OK(MPI_Iexscan(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (mtest_rank > 0)
        for (int i = 0; i < N; i++)
            CHECK(r[i] == (mtest_rank - 1) * mtest_rank / 2 + mtest_rank * i, "iexscan [%d]", i);
    free(s);
    free(r);
    free(cnts);
    free(dsp);
    free(types);
}

/* Many at once on three communicators, completed out of order. */
static void test_many(void)
{
    enum { K = 6, N = 2000 };
    MPI_Comm comms[3];
    int ncomms = 1, sizes[3], ranks[3];
    MPI_Request rq[3 * K];
    int *bufs[3][K], nrq = 0;

    comms[0] = MPI_COMM_WORLD;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]) == MPI_SUCCESS) {
        ncomms = 2;
        if (MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, -mtest_rank, &comms[2]) == MPI_SUCCESS)
            ncomms = 3;
    } else {
        mtest_skipped("several communicators (MPI_Comm_dup)");
    }
    for (int c = 0; c < ncomms; c++) {
        MPI_Comm_size(comms[c], &sizes[c]);
        MPI_Comm_rank(comms[c], &ranks[c]);
    }
    for (int round = 0; round < 3; round++) {
        nrq = 0;
        for (int c = 0; c < ncomms; c++) {
            for (int k = 0; k < K; k++) {
                int *b = bufs[c][k] = malloc(sizeof(int) * N * (size_t)(sizes[c] + 1) * 2);
                int *in = b + N * (sizes[c] + 1);
                for (int i = 0; i < N; i++)
                    in[i] = b[i] = ranks[c] * 7 + k + i + round;
                switch (k % 3) {
                case 0: /* allreduce of everyone's in[] */
                    OK(MPI_Iallreduce(in, b, N, MPI_INT, MPI_SUM, comms[c], &rq[nrq++]));
                    break;
                case 1: /* bcast from the last rank */
                    OK(MPI_Ibcast(b, N, MPI_INT, sizes[c] - 1, comms[c], &rq[nrq++]));
                    break;
                default: /* allgather of 1 element */
                    OK(MPI_Iallgather(in, 1, MPI_INT, b, 1, MPI_INT, comms[c], &rq[nrq++]));
                    break;
                }
            }
        }
        /* some point-to-point in between, on the same communicator */
        if (mtest_size > 1) {
            int x = mtest_rank, y = -1;
            OK(MPI_Sendrecv(&x, 1, MPI_INT, (mtest_rank + 1) % mtest_size, 5, &y, 1, MPI_INT,
                            (mtest_rank + mtest_size - 1) % mtest_size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(y == (mtest_rank + mtest_size - 1) % mtest_size, "sendrecv between collectives");
        }
        if (round == 0) {
            /* reverse order, one by one */
            for (int i = nrq - 1; i >= 0; i--)
                OK(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
        } else if (round == 1) {
            int done = 0;
            while (!done)
                OK(MPI_Testall(nrq, rq, &done, MPI_STATUSES_IGNORE));
        } else {
            for (int i = 0; i < nrq; i++) {
                int idx = -1;
                OK(MPI_Waitany(nrq, rq, &idx, MPI_STATUS_IGNORE));
                CHECK(idx >= 0 && idx < nrq, "waitany index %d", idx);
            }
        }
        for (int c = 0; c < ncomms; c++) {
            int p = sizes[c];
            for (int k = 0; k < K; k++) {
                int *b = bufs[c][k];
                for (int i = 0; i < (k % 3 == 2 ? p : N); i++) {
                    int want;
                    if (k % 3 == 0)
                        want = 7 * p * (p - 1) / 2 + p * (k + i + round);
                    else if (k % 3 == 1)
                        want = (p - 1) * 7 + k + i + round;
                    else
                        want = i * 7 + k + round;
                    CHECK(b[i] == want, "many round=%d comm=%d k=%d [%d]=%d want %d", round, c, k,
                          i, b[i], want);
                }
                free(b);
            }
        }
    }
    for (int c = 1; c < ncomms; c++)
        MPI_Comm_free(&comms[c]);
}

/* Objects the user frees while a nonblocking collective still uses them:
 * the operation, the datatype (MPI keeps them alive until completion). */
static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
    (void)dt;
}

static void test_free_early(void)
{
    enum { N = 1000 };
    MPI_Op op;
    MPI_Datatype pair;
    MPI_Request rq[2];
    int *s = malloc(sizeof(int) * 2 * N), *r = malloc(sizeof(int) * 2 * N);
    int *b = malloc(sizeof(int) * 2 * N);

    if (MPI_Op_create(sum_ints, 1, &op) != MPI_SUCCESS ||
        MPI_Type_contiguous(2, MPI_INT, &pair) != MPI_SUCCESS) {
        mtest_skipped("freeing objects in use (MPI_Op_create, MPI_Type_contiguous)");
        free(s);
        free(r);
        free(b);
        return;
    }
    OK(MPI_Type_commit(&pair));
    for (int i = 0; i < 2 * N; i++) {
        s[i] = mtest_rank + i;
        b[i] = mtest_size == 1 || mtest_rank == 1 % mtest_size ? i * 3 : -1;
    }
    OK(MPI_Iallreduce(s, r, 2 * N, MPI_INT, op, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Ibcast(b, N, pair, 1 % mtest_size, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&pair));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2 * N; i++) {
        CHECK(r[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * i, "iallreduce with freed op [%d]", i);
        CHECK(b[i] == i * 3, "ibcast with freed type [%d]=%d", i, b[i]);
    }
    free(s);
    free(r);
    free(b);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    test_each();
    test_many();
    test_free_early();
    return mtest_finish();
}
