/*
 * Collectives on an intercommunicator between the lower third of
 * MPI_COMM_WORLD and the rest (groups of different sizes), checked exactly:
 * barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v),
 * reduce, allreduce, reduce_scatter(_block), with roots in both groups,
 * blocking and nonblocking; and MPI_Scan refused with MPI_ERR_COMM. Needs
 * at least 2 ranks (with 1 it only says "No Errors").
 */
#include "mtest.h"

static MPI_Comm inter;
static int lrank, lsize, rsize, low; /* low: this process is in the lower group */

static int gval(int is_low, int r, int i)
{
    return (is_low ? 1000 : 2000) + r * 37 + i;
}

/* The root sits in group `root_low`, local rank `rr`; every process gets
 * its root argument. */
static int root_arg(int root_low, int rr)
{
    if (low != root_low)
        return rr;
    return lrank == rr ? MPI_ROOT : MPI_PROC_NULL;
}

static void test_rooted(void)
{
    enum { N = 6 };
    int *big = malloc(sizeof(int) * N * 16), buf[N];
    for (int root_low = 0; root_low < 2; root_low++) {
        int rr = root_low ? (lsize > 1 ? 1 : 0) : 0; /* a root that is not always 0 */
        int root, in_root_group = low == root_low;
        int root_group_size = in_root_group ? lsize : rsize;
        int other_size = in_root_group ? rsize : lsize;
        if (rr >= root_group_size)
            rr = 0;
        root = root_arg(root_low, rr);

        /* bcast */
        for (int i = 0; i < N; i++)
            buf[i] = root == MPI_ROOT ? gval(root_low, 99, i) : -1;
        OK(MPI_Bcast(buf, N, MPI_INT, root, inter));
        if (!in_root_group)
            for (int i = 0; i < N; i++)
                CHECK(buf[i] == gval(root_low, 99, i), "inter bcast [%d]=%d", i, buf[i]);

        /* gather: the root receives N from each process of the other group */
        for (int i = 0; i < N; i++)
            buf[i] = gval(low, lrank, i);
        for (int i = 0; i < N * other_size; i++)
            big[i] = -1;
        OK(MPI_Gather(buf, N, MPI_INT, big, N, MPI_INT, root, inter));
        if (root == MPI_ROOT)
            for (int p = 0; p < other_size; p++)
                for (int i = 0; i < N; i++)
                    CHECK(big[p * N + i] == gval(!root_low, p, i), "inter gather [%d][%d]=%d", p, i,
                          big[p * N + i]);

        /* gatherv: process p of the other group sends p % 3 + 1 */
        {
            int cnts[16], dsp[16];
            for (int p = 0; p < other_size; p++) {
                cnts[p] = p % 3 + 1;
                dsp[p] = (other_size - 1 - p) * N;
            }
            for (int i = 0; i < N * other_size; i++)
                big[i] = -1;
            OK(MPI_Gatherv(buf, lrank % 3 + 1, MPI_INT, big, cnts, dsp, MPI_INT, root, inter));
            if (root == MPI_ROOT)
                for (int p = 0; p < other_size; p++)
                    for (int i = 0; i < cnts[p]; i++)
                        CHECK(big[dsp[p] + i] == gval(!root_low, p, i), "inter gatherv [%d][%d]", p,
                              i);
            /* scatterv back the same layout */
            if (root == MPI_ROOT)
                for (int p = 0; p < other_size; p++)
                    for (int i = 0; i < cnts[p]; i++)
                        big[dsp[p] + i] = gval(root_low, p, i + 50);
            for (int i = 0; i < N; i++)
                buf[i] = -1;
            OK(MPI_Scatterv(big, cnts, dsp, MPI_INT, buf, lrank % 3 + 1, MPI_INT, root, inter));
            if (!in_root_group)
                for (int i = 0; i < lrank % 3 + 1; i++)
                    CHECK(buf[i] == gval(root_low, lrank, i + 50), "inter scatterv [%d]", i);
        }

        /* scatter */
        if (root == MPI_ROOT)
            for (int p = 0; p < other_size; p++)
                for (int i = 0; i < N; i++)
                    big[p * N + i] = gval(root_low, p, i + 7);
        for (int i = 0; i < N; i++)
            buf[i] = -1;
        OK(MPI_Scatter(big, N, MPI_INT, buf, N, MPI_INT, root, inter));
        if (!in_root_group)
            for (int i = 0; i < N; i++)
                CHECK(buf[i] == gval(root_low, lrank, i + 7), "inter scatter [%d]=%d", i, buf[i]);

        /* reduce: the root gets the sum over the other group */
        {
            int out[N];
            for (int i = 0; i < N; i++) {
                buf[i] = gval(low, lrank, i);
                out[i] = -1;
            }
            OK(MPI_Reduce(buf, out, N, MPI_INT, MPI_SUM, root, inter));
            if (root == MPI_ROOT)
                for (int i = 0; i < N; i++) {
                    int want = 0;
                    for (int p = 0; p < other_size; p++)
                        want += gval(!root_low, p, i);
                    CHECK(out[i] == want, "inter reduce [%d]=%d want %d", i, out[i], want);
                }
        }
    }
    free(big);
}

static void test_all(void)
{
    enum { N = 5 };
    int buf[N], *big = malloc(sizeof(int) * N * 16), *sb = malloc(sizeof(int) * N * 16);
    MPI_Request rq;

    OK(MPI_Barrier(inter));
    OK(MPI_Ibarrier(inter, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* allgather: everyone gets the other group's blocks */
    for (int i = 0; i < N; i++)
        buf[i] = gval(low, lrank, i);
    for (int i = 0; i < N * rsize; i++)
        big[i] = -1;
    OK(MPI_Allgather(buf, N, MPI_INT, big, N, MPI_INT, inter));
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < N; i++)
            CHECK(big[p * N + i] == gval(!low, p, i), "inter allgather [%d][%d]=%d", p, i,
                  big[p * N + i]);
    /* allgatherv with counts p % 2 + 1 */
    {
        int cnts[16], dsp[16];
        for (int p = 0; p < rsize; p++) {
            cnts[p] = p % 2 + 1;
            dsp[p] = p * N;
        }
        for (int i = 0; i < N * rsize; i++)
            big[i] = -1;
        OK(MPI_Iallgatherv(buf, lrank % 2 + 1, MPI_INT, big, cnts, dsp, MPI_INT, inter, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int p = 0; p < rsize; p++)
            for (int i = 0; i < cnts[p]; i++)
                CHECK(big[p * N + i] == gval(!low, p, i), "inter allgatherv [%d][%d]", p, i);
    }
    /* alltoall: block for remote p is gval(low, lrank * 100 + p) */
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < N; i++)
            sb[p * N + i] = gval(low, lrank * 100 + p, i);
    OK(MPI_Alltoall(sb, N, MPI_INT, big, N, MPI_INT, inter));
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < N; i++)
            CHECK(big[p * N + i] == gval(!low, p * 100 + lrank, i), "inter alltoall [%d][%d]", p,
                  i);
    /* allreduce: the other group's sum */
    {
        int out[N];
        for (int i = 0; i < N; i++)
            buf[i] = gval(low, lrank, i);
        OK(MPI_Allreduce(buf, out, N, MPI_INT, MPI_SUM, inter));
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int p = 0; p < rsize; p++)
                want += gval(!low, p, i);
            CHECK(out[i] == want, "inter allreduce [%d]=%d want %d", i, out[i], want);
        }
    }
    /* reduce_scatter_block: both groups reduce vectors of L*lsize... the
     * vectors must have the same length in both groups: use lsize*rsize
     * elements, each rank of a group getting (its group's) share */
    {
        int total = lsize * rsize, per = rsize; /* per * lsize == total */
        int *in = malloc(sizeof(int) * (size_t)total), out[16];
        for (int i = 0; i < total; i++)
            in[i] = gval(low, lrank, i);
        OK(MPI_Reduce_scatter_block(in, out, per, MPI_INT, MPI_SUM, inter));
        for (int i = 0; i < per; i++) {
            int want = 0;
            for (int p = 0; p < rsize; p++)
                want += gval(!low, p, lrank * per + i);
            CHECK(out[i] == want, "inter reduce_scatter_block [%d]=%d want %d", i, out[i], want);
        }
        free(in);
    }
    /* MPI_Scan is not defined on intercommunicators */
    {
        int rc = MPI_Scan(buf, big, 1, MPI_INT, MPI_SUM, inter), cls = 0;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COMM, "scan on an intercommunicator gave class %d", cls);
    }
    free(big);
    free(sb);
}

int main(int argc, char **argv)
{
    MPI_Comm local;
    mtest_init(&argc, &argv);
    if (mtest_size < 2 || mtest_size > 16)
        return mtest_finish();
    low = mtest_rank < (mtest_size + 2) / 3;
    OK(MPI_Comm_split(MPI_COMM_WORLD, low, mtest_rank, &local));
    if (mtest_unsupported(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? (mtest_size + 2) / 3 : 0, 77,
                                         &inter))) {
        mtest_skipped("intercommunicators (MPI_Intercomm_create)");
        return mtest_finish();
    }
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    test_rooted();
    test_all();
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mtest_finish();
}
