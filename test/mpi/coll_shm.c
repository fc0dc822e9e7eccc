/*
 * Many blocking barriers and small allreduces on communicators whose ranks
 * are all on one node (which Canal runs through a shared block from a
 * communicator's 3rd such call: coll/shm.c), on MPI_COMM_WORLD and on
 * duplicated and split communicators created and freed in a loop, mixed
 * with point-to-point traffic and nonblocking collectives. Checked:
 *  - results: MPI_SUM and MPI_MAX of int and double, MPI_MINLOC, MPI_IN_PLACE,
 *    a non-commutative user operation against the rank-order result, a
 *    vector type at one rank against plain ints at the others (the same
 *    type signature), sizes around the block's 512-byte limit;
 *  - every rank gets the same bits for a floating-point sum whose value
 *    depends on the order of the additions;
 *  - a barrier separates: a value written before it is seen after it;
 *  - a mismatched allreduce (different counts) fails at every rank and
 *    leaves the ranks in step.
 * Any number of ranks. Argument: rounds (default 200).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            if (errs++ < 10) {                                                                    \
                fprintf(stderr, "rank %d: ", wrank);                                              \
                fprintf(stderr, __VA_ARGS__);                                                     \
                fprintf(stderr, "\n");                                                            \
            }                                                                                     \
        }                                                                                         \
    } while (0)

/* Affine maps x -> a*x + b modulo P; (f op g) = f after g: associative, not
 * commutative. Stored as pairs of ints. */
enum { P = 1000003 };
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *f = in, *g = inout;
    (void)dt;
    for (int i = 0; i < *len; i++, f += 2, g += 2) {
        long long a = (long long)f[0] * g[0] % P, b = ((long long)f[0] * g[1] + f[1]) % P;
        g[0] = (int)a;
        g[1] = (int)b;
    }
}

static void map_of(int rank, int round, int i, int m[2])
{
    m[0] = (rank * 7 + round * 3 + i + 2) % P;
    m[1] = (rank * 11 + round + 5 * i + 1) % P;
}

static void rounds(MPI_Comm c, int nrounds, MPI_Op op_compose, MPI_Datatype pair)
{
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    for (int round = 0; round < nrounds; round++) {
        int n = 1 + round % 130; /* up to 520 bytes of ints: both sides of the 512-byte limit */
        int x[130], y[130];
        double dx[4], dy[4];

        for (int i = 0; i < n; i++)
            x[i] = rank * 1000 + i + round;
        MPI_Allreduce(x, y, n, MPI_INT, MPI_SUM, c);
        for (int i = 0; i < n; i++)
            CHECK(y[i] == size * (i + round) + 1000 * size * (size - 1) / 2,
                  "round %d: sum[%d] = %d", round, i, y[i]);
        MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_INT, MPI_MAX, c);
        CHECK(x[0] == (size - 1) * 1000 + round, "round %d: in-place max %d", round, x[0]);

        /* a sum whose bits depend on the order: the same at every rank */
        for (int i = 0; i < 4; i++)
            dx[i] = (rank % 2 ? 1e16 : 1.0) * (rank + 1) * (i + 1) / 3.0 + round;
        MPI_Allreduce(dx, dy, 4, MPI_DOUBLE, MPI_SUM, c);
        {
            double lo[4], hi[4];
            MPI_Allreduce(dy, lo, 4, MPI_DOUBLE, MPI_MIN, c);
            MPI_Allreduce(dy, hi, 4, MPI_DOUBLE, MPI_MAX, c);
            CHECK(memcmp(lo, dy, sizeof dy) == 0 && memcmp(hi, dy, sizeof dy) == 0,
                  "round %d: ranks got different double sums", round);
        }
        {
            struct {
                double v;
                int r;
            } in = {(double)((rank * 5 + round) % size), rank}, out;
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, c);
            CHECK(out.v == 0.0 && (out.r * 5 + round) % size == 0, "round %d: minloc %g %d",
                  round, out.v, out.r);
        }
        /* non-commutative: m(0) o m(1) o ... o m(size-1) */
        {
            int k = 1 + round % 3, m[6], want[6], cur[2];
            for (int i = 0; i < k; i++)
                map_of(rank, round, i, m + 2 * i);
            for (int i = 0; i < k; i++) {
                map_of(size - 1, round, i, want + 2 * i);
                for (int r = size - 2; r >= 0; r--) {
                    int one = 1;
                    map_of(r, round, i, cur);
                    compose(cur, want + 2 * i, &one, NULL);
                }
            }
            if (round % 2)
                MPI_Allreduce(MPI_IN_PLACE, m, k, pair, op_compose, c);
            else {
                int out[6];
                MPI_Allreduce(m, out, k, pair, op_compose, c);
                memcpy(m, out, sizeof out);
            }
            CHECK(memcmp(m, want, (size_t)k * 2 * sizeof(int)) == 0,
                  "round %d: non-commutative result %d,%d, expected %d,%d", round, m[0], m[1],
                  want[0], want[1]);
        }
        /* rank 0 passes one vector of 2 ints (stride 2), the others 2 ints */
        {
            int v[3] = {rank + 1, -1, 10 * (rank + 1)}, w[3] = {0, 77, 0};
            if (rank == 0) {
                MPI_Datatype vec;
                MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
                MPI_Type_commit(&vec);
                MPI_Allreduce(v, w, 1, vec, MPI_SUM, c);
                MPI_Type_free(&vec);
                CHECK(w[0] == size * (size + 1) / 2 && w[1] == 77 &&
                          w[2] == 10 * size * (size + 1) / 2,
                      "round %d: vector sum %d %d %d", round, w[0], w[1], w[2]);
            } else {
                int u[2] = {v[0], v[2]};
                MPI_Allreduce(u, w, 2, MPI_INT, MPI_SUM, c);
                CHECK(w[0] == size * (size + 1) / 2 && w[1] == 10 * size * (size + 1) / 2,
                      "round %d: ints against a vector %d %d", round, w[0], w[1]);
            }
        }
        /* odd ranks: a vector with a negative stride (elements v[2], v[0]),
         * with MPI_MAX (through the host's operation) and MPI_PROD */
        {
            int v[3] = {rank + 1, -1, 10 * (rank + 1)}, w[3] = {-5, -5, -5};
            MPI_Op ops[2] = {MPI_MAX, MPI_PROD};
            MPI_Op o = ops[round % 2];
            int want0 = o == MPI_MAX ? 10 * size : 1, want1 = o == MPI_MAX ? size : 1;
            for (int r = 0; o == MPI_PROD && r < size; r++) {
                want0 *= 10 * (r + 1) % 7 + 1;
                want1 *= (r + 1) % 5 + 1;
            }
            if (o == MPI_PROD) {
                v[2] = 10 * (rank + 1) % 7 + 1;
                v[0] = (rank + 1) % 5 + 1;
            }
            if (rank % 2) {
                MPI_Datatype neg;
                MPI_Type_vector(2, 1, -2, MPI_INT, &neg);
                MPI_Type_commit(&neg);
                MPI_Allreduce(v + 2, w + 2, 1, neg, o, c);
                MPI_Type_free(&neg);
                CHECK(w[2] == want0 && w[1] == -5 && w[0] == want1,
                      "round %d: negative-stride vector %d %d %d", round, w[2], w[1], w[0]);
            } else {
                int u[2] = {v[2], v[0]};
                MPI_Allreduce(u, w, 2, MPI_INT, o, c);
                CHECK(w[0] == want0 && w[1] == want1,
                      "round %d: ints against a negative vector %d %d", round, w[0], w[1]);
            }
        }
        /* point-to-point traffic between the collectives, and a barrier
         * that must separate what each rank sent before it */
        {
            int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
            MPI_Request r;
            MPI_Irecv(&got, 1, MPI_INT, from, round, c, &r);
            MPI_Barrier(c);
            MPI_Send(&rank, 1, MPI_INT, to, round, c);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(got == from, "round %d: p2p got %d from %d", round, got, from);
        }
        if (round % 16 == 0) {
            MPI_Request r;
            int s = 1, t = 0;
            MPI_Iallreduce(&s, &t, 1, MPI_INT, MPI_SUM, c, &r);
            MPI_Barrier(c);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(t == size, "round %d: iallreduce %d", round, t);
        }
        MPI_Barrier(c);
    }
}

int main(int argc, char **argv)
{
    int size, nrounds = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Op op_compose;
    MPI_Datatype pair;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op_create(compose, 0, &op_compose);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);

    rounds(MPI_COMM_WORLD, nrounds, op_compose, pair);

    /* communicators made and freed in a loop: each lives a few calls (so
     * some never get a block and some do) */
    for (int i = 0; i < 40; i++) {
        MPI_Comm dup, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &half); /* reversed order */
        rounds(dup, i % 5, op_compose, pair);
        rounds(half, 1 + i % 4, op_compose, pair);
        if (i % 3 == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_free(&half);
        MPI_Comm_free(&dup);
    }

    /* a mismatch fails everywhere and leaves the ranks in step */
    if (size > 1) {
        MPI_Comm dup;
        int x[3] = {1, 2, 3}, y[3], rc;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        for (int i = 0; i < 4; i++)
            MPI_Barrier(dup);
        rc = MPI_Allreduce(x, y, wrank == 0 ? 2 : 3, MPI_INT, MPI_SUM, dup);
        CHECK(rc != MPI_SUCCESS, "mismatched allreduce succeeded");
        MPI_Barrier(dup);
        rc = MPI_Allreduce(x, y, 3, MPI_INT, MPI_SUM, dup);
        CHECK(rc == MPI_SUCCESS && y[0] == size && y[2] == 3 * size,
              "allreduce after a mismatch: rc %d, %d %d", rc, y[0], y[2]);
        MPI_Comm_free(&dup);
    }

    MPI_Type_free(&pair);
    MPI_Op_free(&op_compose);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
