/* A NULL buffer on a v collective's vector side where blocks move: the
 * rank that passed it gets MPI_ERR_BUFFER and nothing is sent (a root
 * alone: the others never call), never a crash. Before, the check was made
 * for the single-block sides only and MPI_Scatterv(NULL, counts > 0, ...,
 * MPI_IN_PLACE) at the root segfaulted in the send (MPI_Gatherv,
 * MPI_Allgatherv, MPI_Alltoallv/w likewise wrote into NULL). Zero counts
 * with NULL, and MPI_BOTTOM with a derived type of absolute addresses,
 * stay legal. Then the ranks run correct v collectives and check them. */
#include "mtest.h"

#define EXPECT_CLASS(call, cls, what)                                                      \
    do {                                                                                   \
        int rc_ = (call), cl_ = -1;                                                        \
        MPI_Error_class(rc_, &cl_);                                                        \
        CHECK(cl_ == (cls), "%s: class %d, expected %d", what, cl_, cls);                 \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int n, me, *cnt, *dsp, *zero, *all, mine = 0;
    MPI_Datatype ints[64];

    mtest_init(&argc, &argv);
    n = mtest_size;
    me = mtest_rank;
    cnt = malloc(sizeof *cnt * n);
    dsp = malloc(sizeof *dsp * n);
    zero = calloc(n, sizeof *zero);
    all = malloc(sizeof *all * n);
    for (int i = 0; i < n && i < 64; i++) {
        cnt[i] = 1;
        dsp[i] = n - 1 - i;
        ints[i] = MPI_INT;
    }
    /* rank 0 alone, as the root of each rooted v form */
    if (me == 0) {
        EXPECT_CLASS(MPI_Scatterv(NULL, cnt, dsp, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "scatterv root, sendbuf NULL, in place");
        EXPECT_CLASS(MPI_Scatterv(NULL, cnt, dsp, MPI_INT, &mine, 1, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "scatterv root, sendbuf NULL");
        EXPECT_CLASS(MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, NULL, cnt, dsp, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "gatherv root, recvbuf NULL, in place");
        EXPECT_CLASS(MPI_Gatherv(&mine, 1, MPI_INT, NULL, cnt, dsp, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "gatherv root, recvbuf NULL");
    }
    /* every rank, each failing on its own arguments before sending */
    EXPECT_CLASS(MPI_Allgatherv(&mine, 1, MPI_INT, NULL, cnt, dsp, MPI_INT, w), MPI_ERR_BUFFER,
                 "allgatherv, recvbuf NULL");
    EXPECT_CLASS(MPI_Alltoallv(NULL, cnt, dsp, MPI_INT, all, cnt, dsp, MPI_INT, w),
                 MPI_ERR_BUFFER, "alltoallv, sendbuf NULL");
    EXPECT_CLASS(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, NULL, cnt, dsp, MPI_INT, w),
                 MPI_ERR_BUFFER, "alltoallv in place, recvbuf NULL");
    if (n <= 64) {
        int *bd = malloc(sizeof *bd * n);
        for (int i = 0; i < n; i++)
            bd[i] = (n - 1 - i) * (int)sizeof(int);
        EXPECT_CLASS(MPI_Alltoallw(all, cnt, bd, ints, NULL, cnt, bd, ints, w), MPI_ERR_BUFFER,
                     "alltoallw, recvbuf NULL");
        free(bd);
    }
    /* legal: NULL where nothing moves */
    OK(MPI_Allgatherv(NULL, 0, MPI_INT, NULL, zero, dsp, MPI_INT, w));
    OK(MPI_Alltoallv(NULL, zero, dsp, MPI_INT, NULL, zero, dsp, MPI_INT, w));
    /* and correct calls afterwards: blocks in reverse order */
    for (int i = 0; i < n; i++)
        all[i] = -1;
    mine = 100 + me;
    OK(MPI_Gatherv(&mine, 1, MPI_INT, all, cnt, dsp, MPI_INT, 0, w));
    if (me == 0)
        for (int i = 0; i < n; i++)
            CHECK(all[n - 1 - i] == 100 + i, "gatherv: block of rank %d is %d", i,
                  all[n - 1 - i]);
    if (me == 0)
        for (int i = 0; i < n; i++)
            all[n - 1 - i] = 200 + i;
    OK(MPI_Scatterv(all, cnt, dsp, MPI_INT, &mine, 1, MPI_INT, 0, w));
    CHECK(mine == 200 + me, "scatterv: got %d", mine);
    OK(MPI_Allgatherv(&mine, 1, MPI_INT, all, cnt, dsp, MPI_INT, w));
    for (int i = 0; i < n; i++)
        CHECK(all[n - 1 - i] == 200 + i, "allgatherv: block of rank %d is %d", i, all[n - 1 - i]);
    free(cnt);
    free(dsp);
    free(zero);
    free(all);
    return mtest_finish();
}
