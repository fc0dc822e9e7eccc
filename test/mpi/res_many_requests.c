/*
 * Many outstanding requests and a large unexpected queue (issue 11,
 * resource limits). Two processes; argv[1] picks the case:
 *
 *   irecv   rank 1 posts N = 100,000 MPI_Irecv (tag i), then rank 0 sends
 *           them in a scrambled order; MPI_Waitall on all of them.
 *   late    rank 0 starts N MPI_Isend before rank 1 has posted anything (it
 *           waits for a "go" message first), so every message is unexpected
 *           at rank 1 until it posts its receives in reverse order; the
 *           device must keep within CANAL_UNEXPECTED_LIMIT by switching
 *           senders to rendezvous. Rank 1 then posts its receives in the
 *           scrambled order. MPI_Waitall on both sides.
 *
 * argv[2] (optional): message size in bytes (default 16); argv[3]: N. Each
 * message carries its index in every int, and every receive buffer is
 * checked.
 */
#include "mtest.h"

#include <stdint.h>

static int N = 100000;

static void fill(int *b, size_t nint, int i)
{
    for (size_t k = 0; k < nint; k++)
        b[k] = i ^ (int)(k * 7919);
}

static int check(const int *b, size_t nint, int i)
{
    for (size_t k = 0; k < nint; k++)
        if (b[k] != (i ^ (int)(k * 7919)))
            return 0;
    return 1;
}

/* The send order: blocks of 64 in order, reversed inside each block, so
 * that every message matches a receive that is not at the head of the
 * posted queue (a fully random order makes matching against a linear queue
 * of 100,000 quadratic -- MPICH needs minutes too). */
static int scrambled(int j)
{
    int blk = j / 64 * 64, last = blk + 63 < N - 1 ? blk + 63 : N - 1;
    return last - (j - blk);
}

int main(int argc, char **argv)
{
    int rank, size, err, bad = 0, go = 0;
    const char *mode = argc > 1 ? argv[1] : "irecv";
    size_t msg = argc > 2 ? (size_t)atol(argv[2]) : 16, nint;
    int *bufs;
    MPI_Request *reqs;
    MPI_Status *sts;

    MPI_Init(&argc, &argv);
    if (argc > 3)
        N = atoi(argv[3]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (msg < sizeof(int))
        msg = sizeof(int);
    nint = msg / sizeof(int);
    bufs = malloc((size_t)N * nint * sizeof(int));
    reqs = malloc((size_t)N * sizeof *reqs);
    sts = malloc((size_t)N * sizeof *sts);
    if (bufs == NULL || reqs == NULL || sts == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes of buffers\n", (size_t)N * msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (strcmp(mode, "irecv") == 0 && rank < 2) {
        if (rank == 1) {
            memset(bufs, 0xff, (size_t)N * nint * sizeof(int));
            for (int i = 0; i < N; i++) {
                err = MPI_Irecv(bufs + (size_t)i * nint, (int)nint, MPI_INT, 0, i, MPI_COMM_WORLD,
                                &reqs[i]);
                CHECK(err == MPI_SUCCESS, "MPI_Irecv %d: error class %d", i,
                      mtest_error_class(err));
                if (err != MPI_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Send(&go, 1, MPI_INT, 0, N + 1, MPI_COMM_WORLD);
            err = MPI_Waitall(N, reqs, sts);
            CHECK(err == MPI_SUCCESS, "MPI_Waitall: error class %d", mtest_error_class(err));
            for (int i = 0; i < N; i++) {
                if (!check(bufs + (size_t)i * nint, nint, i) || sts[i].MPI_TAG != i ||
                    sts[i].MPI_SOURCE != 0)
                    bad++;
            }
            CHECK(bad == 0, "%d of %d receives have wrong data or status", bad, N);
        } else {
            int *sb = malloc(msg);
            /* all receives are posted before the first send: they are
             * expected messages, matched against a queue of N receives */
            MPI_Recv(&go, 1, MPI_INT, 1, N + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int j = 0; j < N; j++) {
                int i = scrambled(j);
                fill(sb, nint, i);
                err = MPI_Send(sb, (int)nint, MPI_INT, 1, i, MPI_COMM_WORLD);
                CHECK(err == MPI_SUCCESS, "MPI_Send %d: error class %d", i,
                      mtest_error_class(err));
                if (err != MPI_SUCCESS)
                    break;
            }
            free(sb);
        }
    } else if (strcmp(mode, "late") == 0 && rank < 2) {
        if (rank == 0) {
            for (int i = 0; i < N; i++) {
                fill(bufs + (size_t)i * nint, nint, i);
                err = MPI_Isend(bufs + (size_t)i * nint, (int)nint, MPI_INT, 1, i,
                                MPI_COMM_WORLD, &reqs[i]);
                CHECK(err == MPI_SUCCESS, "MPI_Isend %d: error class %d", i,
                      mtest_error_class(err));
                if (err != MPI_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            /* only now may rank 1 post its receives */
            MPI_Send(&go, 1, MPI_INT, 1, N + 1, MPI_COMM_WORLD);
            err = MPI_Waitall(N, reqs, sts);
            CHECK(err == MPI_SUCCESS, "MPI_Waitall: error class %d", mtest_error_class(err));
        } else {
            MPI_Recv(&go, 1, MPI_INT, 0, N + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memset(bufs, 0xff, (size_t)N * nint * sizeof(int));
            /* the receives come in the scrambled order, so each one looks
             * past up to 63 messages of the unexpected queue */
            for (int k = 0; k < N; k++) {
                int i = scrambled(k);
                err = MPI_Irecv(bufs + (size_t)i * nint, (int)nint, MPI_INT, 0, i, MPI_COMM_WORLD,
                                &reqs[k]);
                CHECK(err == MPI_SUCCESS, "MPI_Irecv %d: error class %d", i,
                      mtest_error_class(err));
                if (err != MPI_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            err = MPI_Waitall(N, reqs, sts);
            CHECK(err == MPI_SUCCESS, "MPI_Waitall: error class %d", mtest_error_class(err));
            for (int i = 0; i < N; i++)
                if (!check(bufs + (size_t)i * nint, nint, i))
                    bad++;
            CHECK(bad == 0, "%d of %d receives have wrong data", bad, N);
        }
    }
    free(bufs);
    free(reqs);
    free(sts);
    return mtest_finish();
}
