/*
 * Small MPI_Gather(v) and MPI_Scatter(v) as programs make them, with every
 * way their ranks may run the call (issue 26): on an oversubscribed node
 * the linear algorithm runs without a schedule for blocks of up to 2 KiB
 * (coll/pair.c), and a rank with a larger block, a root that sees one, or a
 * rank on a node that is not oversubscribed (gather, scatter: binomial)
 * takes the schedule; the messages must pair up whichever each rank takes.
 * Each round: counts that differ by rank (some 0, some above 2 KiB), the
 * root rotating, MPI_IN_PLACE at the root every third round, and a strided
 * type (every other int) on the root's side every other round. Every int
 * received is checked, and what must not change is checked too.
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 60, BIGN = 700 /* ints: 2,800 bytes, above the direct path's 2 KiB */ };

static int count_of(int rank, int round)
{
    switch ((rank + round) % 5) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return 3 + round % 7;
    case 3:
        return round % 4 == 0 ? BIGN : 200;
    default:
        return 17;
    }
}

static int val(int who, int round, int j, int tag)
{
    return tag * 1000000 + who * 10000 + round * 100 + j % 100;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank = mtest_rank, size = mtest_size;
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int *rootbuf = malloc(sizeof(int) * 2 * (size_t)(size * BIGN + 1));
    int *mine = malloc(sizeof(int) * BIGN), *got = malloc(sizeof(int) * (BIGN + 1));
    MPI_Datatype every_other;

    OK(MPI_Type_vector(1, 1, 2, MPI_INT, &every_other));
    OK(MPI_Type_create_resized(every_other, 0, 2 * (MPI_Aint)sizeof(int), &every_other));
    OK(MPI_Type_commit(&every_other));

    for (int round = 0; round < ROUNDS; round++) {
        int root = round % size, total = 0, strided = round % 2, inplace = round % 3 == 0;
        MPI_Datatype rt = strided ? every_other : MPI_INT;
        int scale = strided ? 2 : 1; /* ints of rootbuf per element of rt */
        int n = count_of(rank, round), same = count_of(root, round);
        for (int i = 0; i < size; i++) {
            counts[i] = count_of(i, round);
            displs[i] = total;
            total += counts[i];
        }
        for (int j = 0; j < n; j++)
            mine[j] = val(rank, round, j, 1);

        /* gatherv */
        for (int i = 0; i < 2 * (size * BIGN + 1); i++)
            rootbuf[i] = -1;
        if (rank == root && inplace)
            for (int j = 0; j < n; j++)
                rootbuf[(displs[rank] + j) * scale] = val(rank, round, j, 1);
        OK(MPI_Gatherv(rank == root && inplace ? MPI_IN_PLACE : mine, n, MPI_INT, rootbuf, counts,
                       displs, rt, root, MPI_COMM_WORLD));
        if (rank == root) {
            for (int i = 0; i < size; i++)
                for (int j = 0; j < counts[i]; j++)
                    CHECK(rootbuf[(displs[i] + j) * scale] == val(i, round, j, 1),
                          "round %d gatherv: rank %d's int %d is %d", round, i, j,
                          rootbuf[(displs[i] + j) * scale]);
            if (strided)
                CHECK(rootbuf[1] == -1, "round %d gatherv wrote a gap of the strided type", round);
            CHECK(rootbuf[total * scale] == -1, "round %d gatherv wrote past the blocks", round);
        }

        /* scatterv: the root sends val(i, round, j, 2) to rank i */
        if (rank == root)
            for (int i = 0; i < size; i++)
                for (int j = 0; j < counts[i]; j++)
                    rootbuf[(displs[i] + j) * scale] = val(i, round, j, 2);
        for (int j = 0; j <= BIGN; j++)
            got[j] = -1;
        OK(MPI_Scatterv(rootbuf, counts, displs, rt, rank == root && inplace ? MPI_IN_PLACE : got,
                        n, MPI_INT, root, MPI_COMM_WORLD));
        if (!(rank == root && inplace)) {
            for (int j = 0; j < n; j++)
                CHECK(got[j] == val(rank, round, j, 2), "round %d scatterv: int %d is %d", round,
                      j, got[j]);
            CHECK(got[n] == -1, "round %d scatterv wrote past its block", round);
        }

        /* gather and scatter: every rank the root's count */
        for (int j = 0; j < same; j++)
            mine[j] = val(rank, round, j, 3);
        for (int i = 0; i < 2 * (size * BIGN + 1); i++)
            rootbuf[i] = -1;
        if (rank == root && inplace)
            for (int j = 0; j < same; j++)
                rootbuf[(rank * same + j) * scale] = val(rank, round, j, 3);
        OK(MPI_Gather(rank == root && inplace ? MPI_IN_PLACE : mine, same, MPI_INT, rootbuf, same,
                      rt, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < size; i++)
                for (int j = 0; j < same; j++)
                    CHECK(rootbuf[(i * same + j) * scale] == val(i, round, j, 3),
                          "round %d gather: rank %d's int %d is %d", round, i, j,
                          rootbuf[(i * same + j) * scale]);
        if (rank == root)
            for (int i = 0; i < size; i++)
                for (int j = 0; j < same; j++)
                    rootbuf[(i * same + j) * scale] = val(i, round, j, 4);
        for (int j = 0; j <= BIGN; j++)
            got[j] = -1;
        OK(MPI_Scatter(rootbuf, same, rt, rank == root && inplace ? MPI_IN_PLACE : got, same,
                       MPI_INT, root, MPI_COMM_WORLD));
        if (!(rank == root && inplace)) {
            for (int j = 0; j < same; j++)
                CHECK(got[j] == val(rank, round, j, 4), "round %d scatter: int %d is %d", round, j,
                      got[j]);
            CHECK(got[same] == -1, "round %d scatter wrote past its block", round);
        }
    }
    OK(MPI_Type_free(&every_other));
    free(counts);
    free(displs);
    free(rootbuf);
    free(mine);
    free(got);
    return mtest_finish();
}
