/*
 * The root's part of small MPI_Gather(v) and MPI_Scatter(v), as IMB's loop
 * makes them (issue 26): the front checks the root's arguments itself and
 * runs coll/pair.c's linear root on the choice its communicator remembers
 * (root_direct in mpi/coll.c). Here: every root in turn, int and _c forms,
 * MPI_IN_PLACE at the root in some rounds; the v-forms give some ranks 0
 * ints, take the blocks in reverse order with gaps between them, and put
 * the root's own block (when it has one) in such a gap, so that it lies
 * within the span of the blocks without overlapping one. Every int moved is
 * checked. Then the errors the root must still return, the root alone
 * (the others never call): a NULL buffer where something moves
 * (MPI_ERR_BUFFER), a negative count, own or in the counts array, first or
 * last (MPI_ERR_COUNT), NULL displacements (MPI_ERR_ARG), in both forms;
 * and, every rank calling, a root whose own block does not fit its block
 * (MPI_ERR_TRUNCATE where it is larger than its receive side, else
 * MPI_ERR_OTHER; a scatterv's leaves after the root then fail too) or
 * which expects one int more from a rank than it sends (MPI_ERR_OTHER),
 * the calls after unharmed. Under MPI_ERRORS_RETURN.
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 16, MAXN = 6 };

static int val(int rank, int round, int j)
{
    return rank * 100000 + round * 1000 + j + 1;
}

/* The ints rank r moves in round `round` of a v-form rooted at root. */
static int count_of(int r, int round, int root)
{
    if (r == root)
        return 1 + round % 3;
    return (r + round) % 3 == 0 ? 0 : 1 + (r + round) % MAXN;
}

/* The layout of a v-form's blocks at the root: reversed, a gap of MAXN + 1
 * ints after each. */
static int displ_of(int r, int round, int root)
{
    int d = 0;
    for (int i = mtest_size - 1; i > r; i--)
        d += count_of(i, round, root) + MAXN + 1;
    return d;
}

static void check_ints(const int *got, int n, int r, int round, const char *what)
{
    for (int j = 0; j < n; j++)
        CHECK(got[j] == val(r, round, j), "%s round %d: int %d of rank %d is %d, want %d", what,
              round, j, r, got[j], val(r, round, j));
}

static void round_v(int round, int root, int big)
{
    int p = mtest_size, me = mtest_rank, n = count_of(me, round, root), total = 0;
    int in_place = me == root && round % 4 == 3;
    int *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p);
    MPI_Count *ccnt = malloc(sizeof(MPI_Count) * (size_t)p);
    MPI_Aint *cdsp = malloc(sizeof(MPI_Aint) * (size_t)p);
    int *all, mine[MAXN + 1], *own;

    for (int i = 0; i < p; i++) {
        cnt[i] = count_of(i, round, root);
        dsp[i] = displ_of(i, round, root);
        ccnt[i] = cnt[i];
        cdsp[i] = dsp[i];
        total = dsp[i] + cnt[i] + MAXN + 1 > total ? dsp[i] + cnt[i] + MAXN + 1 : total;
    }
    all = malloc(sizeof(int) * (size_t)total);
    /* the root's own block (not in place) in the gap after the lowest block
     * (rank p-1's), within the span of the blocks when p > 1 */
    own = me == root && !in_place ? all + dsp[p - 1] + cnt[p - 1] : mine;

    /* gatherv */
    for (int j = 0; j < total; j++)
        all[j] = -1;
    for (int j = 0; j < n; j++)
        own[j] = val(me, round, j);
    if (in_place)
        memcpy(all + dsp[me], own, sizeof(int) * (size_t)n);
    if (big)
        OK(MPI_Gatherv_c(in_place ? MPI_IN_PLACE : own, n, MPI_INT, all, ccnt, cdsp, MPI_INT, root,
                         MPI_COMM_WORLD));
    else
        OK(MPI_Gatherv(in_place ? MPI_IN_PLACE : own, n, MPI_INT, all, cnt, dsp, MPI_INT, root,
                       MPI_COMM_WORLD));
    if (me == root)
        for (int i = 0; i < p; i++)
            check_ints(all + dsp[i], cnt[i], i, round, big ? "MPI_Gatherv_c" : "MPI_Gatherv");

    /* scatterv */
    if (me == root)
        for (int i = 0; i < p; i++)
            for (int j = 0; j < cnt[i]; j++)
                all[dsp[i] + j] = val(i, round, j);
    for (int j = 0; j < MAXN + 1; j++)
        own[j] = -1;
    if (big)
        OK(MPI_Scatterv_c(all, ccnt, cdsp, MPI_INT, in_place ? MPI_IN_PLACE : own, n, MPI_INT,
                          root, MPI_COMM_WORLD));
    else
        OK(MPI_Scatterv(all, cnt, dsp, MPI_INT, in_place ? MPI_IN_PLACE : own, n, MPI_INT, root,
                        MPI_COMM_WORLD));
    if (!in_place) {
        check_ints(own, n, me, round, big ? "MPI_Scatterv_c" : "MPI_Scatterv");
        CHECK(own[n] == -1, "scatterv round %d: int %d past the block was written", round, n);
    }
    free(all);
    free(cnt);
    free(dsp);
    free(ccnt);
    free(cdsp);
}

static void round_blocks(int round, int root)
{
    int p = mtest_size, me = mtest_rank, n = 1 + round % 3, in_place = me == root && round % 4 == 1;
    int *all = malloc(sizeof(int) * (size_t)(p * n + 1)), mine[4];

    for (int j = 0; j < p * n + 1; j++)
        all[j] = -1;
    for (int j = 0; j < n; j++)
        mine[j] = val(me, round, j);
    if (in_place)
        memcpy(all + me * n, mine, sizeof(int) * (size_t)n);
    OK(MPI_Gather(in_place ? MPI_IN_PLACE : mine, n, MPI_INT, all, n, MPI_INT, root,
                  MPI_COMM_WORLD));
    if (me == root) {
        for (int i = 0; i < p; i++)
            check_ints(all + i * n, n, i, round, "MPI_Gather");
        CHECK(all[p * n] == -1, "gather round %d: the int past the blocks was written", round);
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < n; j++)
            all[i * n + j] = val(i, round + 1, j);
    memset(mine, 0xff, sizeof mine);
    OK(MPI_Scatter(all, n, MPI_INT, in_place ? MPI_IN_PLACE : mine, n, MPI_INT, root,
                   MPI_COMM_WORLD));
    if (!in_place) {
        check_ints(mine, n, me, round + 1, "MPI_Scatter");
        CHECK(mine[n] == -1, "scatter round %d: int %d past the block was written",
              round, n);
    }
    free(all);
}

/* The root alone: argument errors it must see without any other rank. */
static void root_errors(void)
{
    int p = mtest_size, buf[4] = {0}, *all = calloc((size_t)p * 4 + 8, sizeof(int));
    int *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p);
    int *neg0 = malloc(sizeof(int) * (size_t)p), *negl = malloc(sizeof(int) * (size_t)p);
    MPI_Count *ccnt = malloc(sizeof(MPI_Count) * (size_t)p), *cneg = malloc(sizeof(MPI_Count) * (size_t)p);
    MPI_Aint *cdsp = malloc(sizeof(MPI_Aint) * (size_t)p);
    MPI_Comm w = MPI_COMM_WORLD;
    int r = mtest_rank;

    for (int i = 0; i < p; i++) {
        cnt[i] = neg0[i] = negl[i] = 2;
        dsp[i] = 4 * i;
        ccnt[i] = cneg[i] = 2;
        cdsp[i] = 4 * i;
    }
    neg0[0] = -1;
    negl[p - 1] = -2;
    cneg[p - 1] = -3;

    EXPECT_CLASS(MPI_Gather(buf, 2, MPI_INT, NULL, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "gather, recvbuf NULL");
    EXPECT_CLASS(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, NULL, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "gather in place, recvbuf NULL");
    EXPECT_CLASS(MPI_Gather(NULL, 2, MPI_INT, all, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "gather, sendbuf NULL");
    EXPECT_CLASS(MPI_Gather(buf, -1, MPI_INT, all, 2, MPI_INT, r, w), MPI_ERR_COUNT,
                 "gather, sendcount -1");
    EXPECT_CLASS(MPI_Gather(buf, 2, MPI_INT, all, -1, MPI_INT, r, w), MPI_ERR_COUNT,
                 "gather, recvcount -1");
    EXPECT_CLASS(MPI_Scatter(NULL, 2, MPI_INT, buf, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "scatter, sendbuf NULL");
    EXPECT_CLASS(MPI_Scatter(NULL, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "scatter in place, sendbuf NULL");
    EXPECT_CLASS(MPI_Scatter(all, 2, MPI_INT, NULL, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "scatter, recvbuf NULL");
    EXPECT_CLASS(MPI_Scatter(all, 2, MPI_INT, buf, -1, MPI_INT, r, w), MPI_ERR_COUNT,
                 "scatter, recvcount -1");
    EXPECT_CLASS(MPI_Scatter(all, -1, MPI_INT, buf, 2, MPI_INT, r, w), MPI_ERR_COUNT,
                 "scatter, sendcount -1");

    EXPECT_CLASS(MPI_Gatherv(buf, 2, MPI_INT, all, neg0, dsp, MPI_INT, r, w), MPI_ERR_COUNT,
                 "gatherv, recvcounts[0] -1");
    EXPECT_CLASS(MPI_Gatherv(buf, 2, MPI_INT, all, negl, dsp, MPI_INT, r, w), MPI_ERR_COUNT,
                 "gatherv, last recvcount -2");
    EXPECT_CLASS(MPI_Gatherv_c(buf, 2, MPI_INT, all, cneg, cdsp, MPI_INT, r, w), MPI_ERR_COUNT,
                 "gatherv_c, last recvcount -3");
    EXPECT_CLASS(MPI_Gatherv(buf, 2, MPI_INT, all, cnt, NULL, MPI_INT, r, w), MPI_ERR_ARG,
                 "gatherv, displs NULL");
    EXPECT_CLASS(MPI_Gatherv_c(buf, 2, MPI_INT, all, ccnt, NULL, MPI_INT, r, w), MPI_ERR_ARG,
                 "gatherv_c, displs NULL");
    EXPECT_CLASS(MPI_Gatherv(NULL, 2, MPI_INT, all, cnt, dsp, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "gatherv, sendbuf NULL");
    EXPECT_CLASS(MPI_Gatherv(buf, -1, MPI_INT, all, cnt, dsp, MPI_INT, r, w), MPI_ERR_COUNT,
                 "gatherv, sendcount -1");
    EXPECT_CLASS(MPI_Scatterv(all, neg0, dsp, MPI_INT, buf, 2, MPI_INT, r, w), MPI_ERR_COUNT,
                 "scatterv, sendcounts[0] -1");
    EXPECT_CLASS(MPI_Scatterv(all, negl, dsp, MPI_INT, buf, 2, MPI_INT, r, w), MPI_ERR_COUNT,
                 "scatterv, last sendcount -2");
    EXPECT_CLASS(MPI_Scatterv_c(all, cneg, cdsp, MPI_INT, buf, 2, MPI_INT, r, w), MPI_ERR_COUNT,
                 "scatterv_c, last sendcount -3");
    EXPECT_CLASS(MPI_Scatterv(all, cnt, NULL, MPI_INT, buf, 2, MPI_INT, r, w), MPI_ERR_ARG,
                 "scatterv, displs NULL");
    EXPECT_CLASS(MPI_Scatterv(all, cnt, dsp, MPI_INT, NULL, 2, MPI_INT, r, w), MPI_ERR_BUFFER,
                 "scatterv, recvbuf NULL");
    EXPECT_CLASS(MPI_Scatterv(all, cnt, dsp, MPI_INT, buf, -1, MPI_INT, r, w), MPI_ERR_COUNT,
                 "scatterv, recvcount -1");
    free(all);
    free(cnt);
    free(dsp);
    free(neg0);
    free(negl);
    free(ccnt);
    free(cneg);
    free(cdsp);
}

/* Every rank: the root's own block or a leaf's block of the wrong size. */
static void size_errors(int root)
{
    int p = mtest_size, me = mtest_rank, mine[4] = {1, 2, 3, 4}, rc;
    int *all = calloc((size_t)p * 4, sizeof(int)), *cnt = malloc(sizeof(int) * (size_t)p);
    int *dsp = malloc(sizeof(int) * (size_t)p), leaf = (root + 1) % p;

    for (int i = 0; i < p; i++) {
        cnt[i] = 2;
        dsp[i] = 4 * i;
    }
    /* the root's own block one int larger, then one smaller: its error only */
    rc = MPI_Gatherv(mine, me == root ? 3 : 2, MPI_INT, all, cnt, dsp, MPI_INT, root,
                     MPI_COMM_WORLD);
    if (me == root)
        EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "gatherv, the root's own block 3 ints for 2");
    else
        OK(rc);
    /* (the ranks after the root in its order of sends get an empty message,
     * the schedule's rule after a failed step) */
    rc = MPI_Scatterv(all, cnt, dsp, MPI_INT, mine, me == root ? 1 : 2, MPI_INT, root,
                      MPI_COMM_WORLD);
    if (me == root)
        EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "scatterv, the root's block of 2 ints into its 1");
    else if (me > root)
        EXPECT_CLASS(rc, MPI_ERR_OTHER, "scatterv, a leaf after a root that failed");
    else
        OK(rc);
    rc = MPI_Gather(mine, me == root ? 1 : 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD);
    if (me == root)
        EXPECT_CLASS(rc, MPI_ERR_OTHER, "gather, the root's own block 1 int for 2");
    else
        OK(rc);
    /* the root expects an int more from one leaf than it sends */
    if (p > 1) {
        if (me == root)
            cnt[leaf] = 3;
        rc = MPI_Gatherv(mine, 2, MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
        if (me == root)
            EXPECT_CLASS(rc, MPI_ERR_OTHER, "gatherv, 3 ints expected from a leaf sending 2");
        else
            OK(rc);
    }
    free(all);
    free(cnt);
    free(dsp);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    for (int round = 0; round < ROUNDS; round++) {
        int root = round % mtest_size;
        round_v(round, root, 0);
        round_v(round, root, 1);
        round_blocks(round, root);
    }
    for (int root = 0; root < mtest_size; root++) {
        if (mtest_rank == root)
            root_errors();
        OK(MPI_Barrier(MPI_COMM_WORLD));
        size_errors(root);
        /* then every call still works */
        round_v(ROUNDS + root, root, 0);
        round_blocks(ROUNDS + root, root);
    }
    return mtest_finish();
}
