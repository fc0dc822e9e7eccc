/*
 * Small MPI_Scatter(v) and MPI_Gather(v) at the ranks that are not the
 * root, as IMB's loop makes them (issue 26): coll/pair.c runs such a
 * leaf's part without a schedule, on a choice its communicator remembers,
 * and a scatter's leaf takes the root's message with no request when it is
 * already there. Here it is: the root makes its call first and then enters
 * a barrier on another communicator, which the others leave before they
 * make theirs. Every root in turn; the v-forms give some ranks 0 ints and
 * one rank 512 ints (2,048 bytes: the direct run's largest block) or 513
 * (above it: the schedule, with which the direct runs pair up). Every int
 * received is checked. Then the errors such a leaf must still return: a
 * root that sends one leaf an int fewer than it expects (MPI_ERR_OTHER, a
 * size mismatch) or an int more (MPI_ERR_TRUNCATE; MPI_Scatter's binomial
 * tree may say MPI_ERR_OTHER), the other leaves and the later calls
 * unharmed; and a leaf's MPI_Scatter against the root's
 * MPI_Scatterv of the same sizes (different collectives: every leaf fails
 * with a mismatch naming MPI_Scatter, on a communicator of their own).
 * Under MPI_ERRORS_RETURN; the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 24, MAXN = 513 };

static int val(int rank, int round, int j)
{
    return rank * 100000 + round * 1000 + j;
}

/* The ints rank r moves in round `round` of a v-form rooted at root. */
static int count_of(int r, int round, int root)
{
    if (r == (root + 1) % mtest_size)
        return round % 4 == 1 ? MAXN : round % 4 == 3 ? MAXN - 1 : 2;
    return (r + round) % 3 == 0 ? 0 : 1 + (r + round) % 5;
}

static void check_block(const int *got, int n, int r, int round, const char *what)
{
    for (int j = 0; j < n; j++)
        if (got[j] != val(r, round, j)) {
            CHECK(0, "%s round %d: block of rank %d, int %d is %d, want %d", what, round, r, j,
                  got[j], val(r, round, j));
            return;
        }
}

/* One round of kind k (0 MPI_Scatter, 1 MPI_Scatterv, 2 MPI_Gather,
 * 3 MPI_Gatherv) on c; a scatter's root calls before the others (d's
 * barrier after it, before theirs). */
static void round_of(MPI_Comm c, MPI_Comm d, int k, int round, int *big, int *counts,
                     int *displs)
{
    static const char *names[4] = {"MPI_Scatter", "MPI_Scatterv", "MPI_Gather", "MPI_Gatherv"};
    int root = round % mtest_size, me = mtest_rank, v = k % 2, scatter = k < 2, total = 0;
    int n = v ? count_of(me, round, root) : 1 + round % 3, mine[MAXN + 1], got[MAXN + 1];

    for (int r = 0; r < mtest_size; r++) {
        counts[r] = v ? count_of(r, round, root) : n;
        displs[r] = total;
        total += counts[r] + v; /* (v: a gap after each block, untouched) */
    }
    for (int r = 0; r < mtest_size; r++)
        for (int j = 0; j <= counts[r]; j++)
            big[displs[r] + j] = me == root && scatter && j < counts[r] ? val(r, round, j) : -1;
    for (int j = 0; j <= MAXN; j++) {
        mine[j] = val(me, round, j);
        got[j] = -1;
    }
    if (scatter && me != root)
        OK(MPI_Barrier(d));
    /* (the root's side is not significant at the others: they pass a
     * null buffer there, and a count that is not theirs) */
    if (k == 0)
        OK(MPI_Scatter(me == root ? big : NULL, me == root ? n : 7, MPI_INT, got, n, MPI_INT,
                       root, c));
    else if (k == 1)
        OK(MPI_Scatterv(big, counts, displs, MPI_INT, got, n, MPI_INT, root, c));
    else if (k == 2)
        OK(MPI_Gather(mine, n, MPI_INT, me == root ? big : NULL, me == root ? n : 7, MPI_INT,
                      root, c));
    else
        OK(MPI_Gatherv(mine, n, MPI_INT, big, counts, displs, MPI_INT, root, c));
    if (scatter && me == root)
        OK(MPI_Barrier(d));
    if (scatter) {
        check_block(got, n, me, round, names[k]);
        CHECK(got[n] == -1, "%s round %d: an int past the block changed", names[k], round);
    } else if (me == root) {
        for (int r = 0; r < mtest_size; r++) {
            check_block(&big[displs[r]], counts[r], r, round, names[k]);
            CHECK(!v || big[displs[r] + counts[r]] == -1, "%s round %d: the gap after rank "
                  "%d's block changed", names[k], round, r);
        }
    }
}

/* The root (0) sends rank `odd` 2 + delta ints where it expects 2, after
 * the others' barrier on d as above: odd fails with `want`, the others
 * get their 2. */
static void length_error(MPI_Comm c, MPI_Comm d, int delta, int want, int v)
{
    int counts[64], displs[64], big[64 * 4], got[4] = {-1, -1, -1, -1};
    int me = mtest_rank, odd = mtest_size - 1, rc, cls = MPI_SUCCESS;

    for (int r = 0; r < mtest_size; r++) {
        counts[r] = r == odd ? 2 + delta : 2;
        displs[r] = 4 * r;
        for (int j = 0; j < 4; j++)
            big[4 * r + j] = val(r, 99, j);
    }
    if (me != 0)
        OK(MPI_Barrier(d));
    if (v)
        rc = MPI_Scatterv(big, counts, displs, MPI_INT, got, 2, MPI_INT, 0, c);
    else /* (the root's count is the odd one's: 2 + delta to every rank, itself too) */
        rc = MPI_Scatter(big, me == 0 ? 2 + delta : 2, MPI_INT, got, me == 0 ? 2 + delta : 2,
                         MPI_INT, 0, c);
    if (me == 0)
        OK(MPI_Barrier(d));
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (me == odd || (!v && me != 0)) {
        /* (a binomial scatter's leaf, not oversubscribed, may be told of
         * the error further up its tree: MPI_ERR_OTHER) */
        CHECK(cls == want || (!v && cls == MPI_ERR_OTHER),
              "%s: the root sent %d ints where rank %d expects 2: class %d, want %d",
              v ? "MPI_Scatterv" : "MPI_Scatter", 2 + delta, me, cls, want);
    } else if (me != 0) {
        CHECK(cls == MPI_SUCCESS, "MPI_Scatterv with rank %d's block wrong: rank %d got class %d",
              odd, me, cls);
        check_block(got, 2, me, 99, "MPI_Scatterv next to a wrong block");
    }
}

int main(int argc, char **argv)
{
    MPI_Comm c, d, e;
    int *big, counts[64], displs[64];

    mtest_init(&argc, &argv);
    if (mtest_size > 64) {
        if (mtest_rank == 0)
            printf("more than 64 ranks: nothing run\n");
        return mtest_finish();
    }
    big = malloc(sizeof(int) * (size_t)mtest_size * (MAXN + 1));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < 4; k++)
            round_of(c, d, k, round, big, counts, displs);

    if (mtest_size > 1) {
        length_error(c, d, -1, MPI_ERR_OTHER, 1);
        length_error(c, d, 1, MPI_ERR_TRUNCATE, 1);
        length_error(c, d, -1, MPI_ERR_OTHER, 0);
        length_error(c, d, 1, MPI_ERR_TRUNCATE, 0);
        for (int round = 0; round < 8; round++) /* (c works on) */
            for (int k = 0; k < 4; k++)
                round_of(c, d, k, round, big, counts, displs);

        /* a leaf's MPI_Scatter against the root's MPI_Scatterv, its message there */
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &e));
        for (int round = 0; round < 4; round++) /* (the choices remembered) */
            for (int k = 0; k < 2; k++)
                round_of(e, d, k, round, big, counts, displs);
        {
            int one[64], at[64], x = -1, rc, cls = MPI_SUCCESS;
            char msg[MPI_MAX_ERROR_STRING] = "";
            int len = 0;
            for (int r = 0; r < mtest_size; r++) {
                one[r] = 1;
                at[r] = r;
                big[r] = val(r, 77, 0);
            }
            if (mtest_rank != 0) {
                OK(MPI_Barrier(d));
                rc = MPI_Scatter(big, 1, MPI_INT, &x, 1, MPI_INT, 0, e);
                if (rc != MPI_SUCCESS) {
                    MPI_Error_class(rc, &cls);
                    MPI_Error_string(rc, msg, &len);
                }
                msg[len] = '\0';
                CHECK(cls == MPI_ERR_OTHER && strstr(msg, "MPI_Scatter") != NULL,
                      "a leaf's MPI_Scatter against the root's MPI_Scatterv: class %d, want "
                      "MPI_ERR_OTHER naming MPI_Scatter (%s); got %d", cls, msg, x);
            } else {
                /* (a root that only sends returns without an error) */
                rc = MPI_Scatterv(big, one, at, MPI_INT, &x, 1, MPI_INT, 0, e);
                OK(MPI_Barrier(d));
            }
        }
        OK(MPI_Comm_free(&e));
    }
    OK(MPI_Comm_free(&c));
    OK(MPI_Comm_free(&d));
    free(big);
    return mtest_finish();
}
