/*
 * IMB-MPI1's Reduce and Gather loops at large sizes: MPI_Reduce (MPI_SUM of
 * floats) or MPI_Gather to rank 0, then MPI_Barrier, 20 rounds a size, from
 * 1 KiB (eager) to 1 MiB (rendezvous), the results checked at the root.
 * On an oversubscribed node rank 0 leaves such a barrier after the others
 * (coll/shm.c, gather_follows: the call before it was a gather or reduce),
 * which every rank must decide alike: a rank that decided otherwise leaves
 * without saying so, and rank 0 waits for it in the barrier while it waits
 * in the next reduce for rank 0 to take its rendezvous data. In an 8-rank
 * binomial reduce of 256 KiB, rank 4 adds two children's parts, whose
 * temporaries are too large for the replay cache: it built a new schedule
 * each call, which recorded its call's kind as 0 where the others' replayed
 * schedules recorded MPI_Reduce's, and IMB's loop hung at 256 KiB.
 * Optional argument: the largest size in KiB (default 1024).
 */
#include "mtest.h"

#include <stdlib.h>

enum { ROUNDS = 20 };

int main(int argc, char **argv)
{
    int rank, size;
    size_t max_kib = argc > 1 ? (size_t)atoi(argv[1]) : 1024;

    mtest_init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;

    for (size_t kib = 1; kib <= max_kib; kib *= 4) {
        int count = (int)(kib * 1024 / sizeof(float));
        float *in = malloc((size_t)count * sizeof(float));
        float *out = malloc((size_t)count * sizeof(float) * (rank == 0 ? (size_t)size : 1));
        if (in == NULL || out == NULL) {
            fprintf(stderr, "no memory for %zu KiB\n", kib);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < count; i++)
            in[i] = (float)(rank + 1) + (float)(i % 7);

        for (int r = 0; r < ROUNDS; r++) {
            OK(MPI_Reduce(in, out, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD));
            if (rank == 0)
                for (int i = 0; i < count; i += 97) {
                    float want = (float)(size * (size + 1) / 2) + (float)size * (float)(i % 7);
                    CHECK(out[i] == want, "reduce %zu KiB round %d: [%d] = %g, expected %g", kib,
                          r, i, (double)out[i], (double)want);
                }
            OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        for (int r = 0; r < ROUNDS; r++) {
            OK(MPI_Gather(in, count, MPI_FLOAT, out, count, MPI_FLOAT, 0, MPI_COMM_WORLD));
            if (rank == 0)
                for (int p = 0; p < size; p++)
                    for (int i = 0; i < count; i += 97) {
                        float want = (float)(p + 1) + (float)(i % 7);
                        CHECK(out[(size_t)p * (size_t)count + (size_t)i] == want,
                              "gather %zu KiB round %d: rank %d's [%d] wrong", kib, r, p, i);
                    }
            OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        free(in);
        free(out);
    }
    return mtest_finish();
}
