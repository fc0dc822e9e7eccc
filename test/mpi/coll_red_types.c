/*
 * Allreduce whose ranks describe the same data with different datatypes of
 * one type signature, as MPI allows: rank r % 3 == 0 passes a contiguous
 * type of 4 MPI_INT (count n/4), r % 3 == 1 plain MPI_INT (count n),
 * r % 3 == 2 a strided vector of 4 MPI_INT (count n/4, every other int
 * used). Sizes from a few ints to past the large-message thresholds, sum
 * and max, with and without MPI_IN_PLACE; every rank checks every element
 * and that the vector's gaps are untouched. CANAL_COLL_ALLREDUCE forces
 * each algorithm (the splitting ones, ring and rabenseifner, cut the vector
 * into blocks by basic elements, not by each rank's own count).
 */
#include "mtest.h"

static const int sizes[] = {4, 8, 28, 64, 256, 1024, 4096, 65536};
enum { NSIZES = sizeof sizes / sizeof sizes[0], GAP = -7 };

static int val(int r, int i)
{
    return (r * 5 + i * 3) % 13 + 1;
}

int main(int argc, char **argv)
{
    MPI_Datatype quad, strided;
    int mode;

    mtest_init(&argc, &argv);
    mode = mtest_rank % 3;
    OK(MPI_Type_contiguous(4, MPI_INT, &quad));
    OK(MPI_Type_commit(&quad));
    OK(MPI_Type_vector(4, 1, 2, MPI_INT, &strided));
    OK(MPI_Type_commit(&strided));
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int op = 0; op < 2; op++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                /* strided: element j of the vector is int 2*j of the buffer
                 * (the vector's extent is 7 ints; instance q starts at 7q) */
                size_t span = mode == 2 ? (size_t)(n / 4) * 7 + 1 : (size_t)n;
                int *sb = malloc(span * sizeof(int)), *rb = malloc(span * sizeof(int));
                MPI_Datatype dt = mode == 0 ? quad : mode == 1 ? MPI_INT : strided;
                int count = mode == 1 ? n : n / 4;
                for (size_t i = 0; i < span; i++)
                    sb[i] = rb[i] = GAP;
                for (int i = 0; i < n; i++) {
                    size_t at = mode == 2 ? (size_t)(i / 4) * 7 + (size_t)(i % 4) * 2 : (size_t)i;
                    (inplace ? rb : sb)[at] = val(mtest_rank, i);
                }
                OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sb, rb, count, dt, op ? MPI_MAX : MPI_SUM,
                                 MPI_COMM_WORLD));
                for (int i = 0, bad = 0; i < n && bad < 3; i++) {
                    size_t at = mode == 2 ? (size_t)(i / 4) * 7 + (size_t)(i % 4) * 2 : (size_t)i;
                    int want = op ? 0 : 0;
                    for (int r = 0; r < mtest_size; r++)
                        want = op ? (val(r, i) > want ? val(r, i) : want) : want + val(r, i);
                    if (rb[at] != want)
                        bad++;
                    CHECK(rb[at] == want, "n=%d %s%s: element %d is %d, expected %d", n,
                          op ? "MAX" : "SUM", inplace ? " in place" : "", i, rb[at], want);
                }
                for (size_t i = 0; mode == 2 && i < span; i++) {
                    int used = i < (size_t)(n / 4) * 7 && i % 7 % 2 == 0;
                    CHECK(used || rb[i] == GAP, "n=%d: gap int %zu overwritten (%d)", n, i, rb[i]);
                }
                free(sb);
                free(rb);
            }
        }
    }
    OK(MPI_Type_free(&quad));
    OK(MPI_Type_free(&strided));
    return mtest_finish();
}
