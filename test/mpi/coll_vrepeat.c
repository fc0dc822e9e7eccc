/*
 * The v collectives called again and again on the same buffers, as
 * programs and benchmarks loop: MPI_Allgatherv, MPI_Alltoallv (also in
 * place), MPI_Reduce_scatter, and MPI_Gatherv and MPI_Scatterv (also in
 * place; their arrays count at the root only, so a pattern that differs
 * from an earlier one at the root only finds the other ranks' schedules
 * unchanged), each round with counts and displacements
 * that are the same as an earlier round's or differ from them in one
 * entry only (a count moved between two ranks, a displacement shifted
 * with the same counts), with int arrays and the large-count (_c) forms,
 * and more patterns than a communicator keeps schedules of; and a small
 * reduce_scatter_block of a strided type (the node's shared block). Every result
 * is checked exactly, gaps included: a schedule made for one call's
 * arrays must never serve another's. Run with any number of ranks.
 */
#include "mtest.h"

enum { NPAT = 6, ROUNDS = 3, GAP = -7 };

/* Pattern k: rank p's count, and how far its block sits from the next. */
static int pat_count(int k, int p, int size)
{
    int n = 2 + (p % 3);
    if (k == 1 && size > 1 && p == 0)
        n += 1; /* one element moved from the last rank to rank 0 */
    if (k == 1 && size > 1 && p == size - 1)
        n -= 1;
    if (k == 3)
        n = p % 2 == 0 ? 0 : n; /* some empty */
    if (k == 5)
        n = 1;
    return n;
}

static int pat_gap(int k, int p)
{
    return k == 2 && p == 0 ? 3 : (k == 4 ? p % 2 : 1); /* 2: same counts, one shifted */
}

/* counts/displs of pattern k in reverse rank order; returns the extent. */
static int pat_layout(int k, int size, int *counts, int *displs)
{
    int off = 0;
    for (int p = size - 1; p >= 0; p--) {
        counts[p] = pat_count(k, p, size);
        displs[p] = off;
        off += counts[p] + pat_gap(k, p);
    }
    return off;
}

static int val(int from, int to, int i)
{
    return from * 10000 + to * 100 + i;
}

static void check_layout(const int *r, int total, const int *counts, const int *displs,
                         int from_is_block, int me, const char *what, int k)
{
    for (int x = 0; x < total; x++) {
        int owner = -1, i = 0;
        for (int p = 0; p < mtest_size; p++)
            if (x >= displs[p] && x < displs[p] + counts[p])
                owner = p, i = x - displs[p];
        if (owner < 0)
            CHECK(r[x] == GAP, "%s pattern %d: gap at %d is %d", what, k, x, r[x]);
        else
            CHECK(r[x] == (from_is_block ? val(owner, 0, i) : val(owner, me, i)),
                  "%s pattern %d: element %d (rank %d's %d) is %d", what, k, x, owner, i, r[x]);
    }
}

int main(int argc, char **argv)
{
    int size, me;
    int *counts, *displs, *scounts, *sdispls, *s, *r;
    MPI_Count *cc, *rcc;
    MPI_Aint *cd;
    int cap;

    mtest_init(&argc, &argv);
    size = mtest_size;
    me = mtest_rank;
    counts = malloc(sizeof(int) * (size_t)size);
    displs = malloc(sizeof(int) * (size_t)size);
    scounts = malloc(sizeof(int) * (size_t)size);
    sdispls = malloc(sizeof(int) * (size_t)size);
    cc = malloc(sizeof(MPI_Count) * (size_t)size);
    rcc = malloc(sizeof(MPI_Count) * (size_t)size);
    cd = malloc(sizeof(MPI_Aint) * (size_t)size);
    cap = size * 8 + 16;
    s = malloc(sizeof(int) * (size_t)cap);
    r = malloc(sizeof(int) * (size_t)cap); /* the same buffers every call */

    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < NPAT; k++) {
            int total = pat_layout(k, size, counts, displs), n = counts[me];

            /* allgatherv: rank p's block is val(p, 0, i); int arrays, then _c */
            for (int large = 0; large < 2; large++) {
                for (int i = 0; i < cap; i++)
                    r[i] = GAP;
                for (int i = 0; i < n; i++)
                    s[i] = val(me, 0, i);
                if (large) {
                    for (int p = 0; p < size; p++)
                        cc[p] = counts[p], cd[p] = displs[p];
                    OK(MPI_Allgatherv_c(s, n, MPI_INT, r, cc, cd, MPI_INT, MPI_COMM_WORLD));
                } else {
                    OK(MPI_Allgatherv(s, n, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD));
                }
                check_layout(r, total, counts, displs, 1, me, "MPI_Allgatherv", k);
            }

            /* alltoallv: rank q sends its count n_q = counts[q] to every
             * rank, which receives it at displs[q] */
            for (int i = 0; i < cap; i++)
                r[i] = GAP;
            for (int p = 0; p < size; p++) {
                scounts[p] = n;
                sdispls[p] = p * n;
                for (int i = 0; i < n; i++)
                    s[p * n + i] = val(me, p, i);
            }
            OK(MPI_Alltoallv(s, scounts, sdispls, MPI_INT, r, counts, displs, MPI_INT,
                             MPI_COMM_WORLD));
            check_layout(r, total, counts, displs, 0, me, "MPI_Alltoallv", k);

            /* in place the counts must be alike everywhere (what i sends
             * to j is what j receives from i): 1-3 elements per block,
             * with pattern k's gaps */
            {
                int u = 1 + k % 3, off = 0;
                for (int p = size - 1; p >= 0; p--) {
                    scounts[p] = u;
                    sdispls[p] = off;
                    off += u + pat_gap(k, p);
                }
                for (int i = 0; i < cap; i++)
                    r[i] = GAP;
                for (int q = 0; q < size; q++)
                    for (int i = 0; i < u; i++)
                        r[sdispls[q] + i] = val(me, q, i);
                OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, scounts, sdispls,
                                 MPI_INT, MPI_COMM_WORLD));
                check_layout(r, off, scounts, sdispls, 0, me, "MPI_Alltoallv in place", k);
            }

            /* reduce_scatter: rank p gets counts[p] sums; element j of the
             * vector is sum over ranks of (rank + j) */
            {
                int vlen = 0, off = 0, want;
                for (int p = 0; p < size; p++)
                    vlen += counts[p];
                for (int p = 0; p < me; p++)
                    off += counts[p];
                for (int j = 0; j < vlen; j++)
                    s[j] = me + j;
                for (int i = 0; i < cap; i++)
                    r[i] = GAP;
                OK(MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
                for (int i = 0; i < n; i++) {
                    want = size * (size - 1) / 2 + size * (off + i);
                    CHECK(r[i] == want, "MPI_Reduce_scatter pattern %d: element %d is %d, not %d",
                          k, i, r[i], want);
                }
                CHECK(r[n] == GAP, "MPI_Reduce_scatter pattern %d: wrote past %d elements", k, n);
                for (int p = 0; p < size; p++)
                    rcc[p] = counts[p];
                for (int i = 0; i < cap; i++)
                    r[i] = GAP;
                OK(MPI_Reduce_scatter_c(s, r, rcc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
                for (int i = 0; i < n; i++) {
                    want = size * (size - 1) / 2 + size * (off + i);
                    CHECK(r[i] == want, "MPI_Reduce_scatter_c pattern %d: element %d is %d, not %d",
                          k, i, r[i], want);
                }
            }
        }
    }
    /* gatherv, then scatterv, each alone in its loop so that the
     * communicator's kept schedules are theirs: pattern after pattern with
     * the root's arrays (the same int arrays, changed in place) and the
     * others passing none, the root moving each round; every pattern's
     * non-roots find their schedule of an earlier pattern, the root must
     * not when its arrays differ. Block i of rank p is val(p, 0, i). */
    for (int which = 0; which < 4; which++) {
        int gather = which < 2, inplace = which % 2;
        const char *what = gather ? (inplace ? "MPI_Gatherv in place" : "MPI_Gatherv")
                                  : (inplace ? "MPI_Scatterv in place" : "MPI_Scatterv");
        for (int round = 0; round < ROUNDS + 1; round++) {
            int root = (round / 2) % size, isroot = me == root;
            for (int k = 0; k < NPAT; k++) {
                int total = pat_layout(k, size, counts, displs), n = counts[me];
                for (int i = 0; i < cap; i++)
                    r[i] = GAP;
                if (gather) {
                    for (int i = 0; i < n; i++)
                        s[i] = val(me, 0, i);
                    if (isroot && inplace)
                        for (int i = 0; i < n; i++)
                            r[displs[me] + i] = val(me, 0, i);
                    OK(MPI_Gatherv(isroot && inplace ? MPI_IN_PLACE : s, n, MPI_INT, r,
                                   isroot ? counts : NULL, isroot ? displs : NULL, MPI_INT, root,
                                   MPI_COMM_WORLD));
                    if (isroot)
                        check_layout(r, total, counts, displs, 1, me, what, k);
                    continue;
                }
                for (int i = 0; i < cap; i++)
                    s[i] = GAP;
                if (isroot)
                    for (int p = 0; p < size; p++)
                        for (int i = 0; i < counts[p]; i++)
                            s[displs[p] + i] = val(p, 0, i);
                if (isroot && inplace) {
                    OK(MPI_Scatterv(s, counts, displs, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root,
                                    MPI_COMM_WORLD));
                    continue;
                }
                OK(MPI_Scatterv(s, isroot ? counts : NULL, isroot ? displs : NULL, MPI_INT, r, n,
                                MPI_INT, root, MPI_COMM_WORLD));
                for (int i = 0; i < n; i++)
                    CHECK(r[i] == val(me, 0, i), "%s pattern %d round %d: element %d is %d, not %d",
                          what, k, round, i, r[i], val(me, 0, i));
                CHECK(r[n] == GAP, "%s pattern %d: wrote past %d elements", what, k, n);
            }
        }
    }
    /* reduce_scatter_block of a strided type (2 ints with a hole between):
     * small enough for the node's shared block, laid out with gaps */
    {
        MPI_Datatype v;
        int *vs = malloc(sizeof(int) * (size_t)(3 * size)), vr[3 * 2];
        OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
        OK(MPI_Type_commit(&v));
        for (int round = 0; round < 5; round++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                int *in = inplace ? malloc(sizeof(int) * (size_t)(3 * size)) : vs;
                for (int q = 0; q < size; q++)
                    for (int j = 0; j < 3; j++)
                        in[3 * q + j] = j == 1 ? GAP : me + 10 * q + j + round;
                for (int i = 0; i < 6; i++)
                    vr[i] = GAP;
                if (inplace)
                    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, in, 1, v, MPI_SUM, MPI_COMM_WORLD));
                else
                    OK(MPI_Reduce_scatter_block(vs, vr, 1, v, MPI_SUM, MPI_COMM_WORLD));
                {
                    const int *got = inplace ? in : vr;
                    for (int j = 0; j < 3; j += 2) {
                        int want = size * (size - 1) / 2 + size * (10 * me + j + round);
                        CHECK(
                            got[j] == want,
                            "strided MPI_Reduce_scatter_block%s round %d: element %d is %d, not %d",
                            inplace ? " in place" : "", round, j, got[j], want);
                    }
                    CHECK(got[1] == GAP,
                          "strided MPI_Reduce_scatter_block%s: the hole was written (%d)",
                          inplace ? " in place" : "", got[1]);
                    if (!inplace)
                        CHECK(vr[3] == GAP,
                              "strided MPI_Reduce_scatter_block: wrote past one element");
                }
                if (inplace)
                    free(in);
            }
        }
        OK(MPI_Type_free(&v));
        free(vs);
    }
    free(counts);
    free(displs);
    free(scounts);
    free(sdispls);
    free(cc);
    free(rcc);
    free(cd);
    free(s);
    free(r);
    return mtest_finish();
}
