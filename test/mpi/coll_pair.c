/*
 * Two ranks: blocking barriers and small allreduces (which Canal runs as one
 * exchange with the peer, without a schedule: coll/pair.c) mixed with
 * point-to-point traffic and wildcard receives on the same communicator,
 * with nonblocking collectives, with allreduces of non-contiguous types and
 * forced algorithms (which take the schedule, and must pair with the direct
 * path's tags), and on a duplicated communicator. Checked:
 *  - results: MPI_SUM of int and double, MPI_MAXLOC, MPI_IN_PLACE, a
 *    non-commutative user operation (3*x0 + x1 at both ranks, in place or
 *    not), a vector type, up to the 2 KiB direct limit and beyond it;
 *  - no collective message is matched by a user receive: rank 1 posts
 *    MPI_ANY_SOURCE/MPI_ANY_TAG receives before every collective; rank 0
 *    sends its user messages only after the collective, so a receive that
 *    completed with anything but the user's message (tag, count, content)
 *    fails the test;
 *  - after each round's last barrier no message is left to probe (none
 *    lost or duplicated over thousands of rounds), and a mismatched
 *    allreduce fails at both ranks and leaves them in step.
 * Run with any CANAL_COLL_BARRIER/ALLREDUCE setting (testlist.coll).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            if (errs++ < 10) {                                                                    \
                fprintf(stderr, "rank %d: ", rank);                                               \
                fprintf(stderr, __VA_ARGS__);                                                     \
                fprintf(stderr, "\n");                                                            \
            }                                                                                     \
        }                                                                                         \
    } while (0)

static int rank;

/* x0 op x1 = 3 * x0 + x1: not commutative */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = 3 * ((int *)in)[i] + ((int *)inout)[i];
}

enum { NMAX = 600 }; /* ints: 2400 bytes, above the 2 KiB direct limit */

static void one_round(MPI_Comm comm, int it, MPI_Op op_affine, MPI_Datatype vec)
{
    int peer = 1 - rank, user_out[3], user_in[3], flag;
    int a[NMAX], r[NMAX], n = 1 + (it * 37) % NMAX;
    double d[8], dr[8];
    struct {
        double v;
        int i;
    } ml, mlr;
    int sv[2 * 16], rv[2 * 16];
    MPI_Request rq, nb;
    MPI_Status st;

    /* rank 1: a wildcard receive waits across the collectives below */
    if (rank == 1)
        MPI_Irecv(user_in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rq);

    MPI_Barrier(comm);

    for (int i = 0; i < n; i++)
        a[i] = rank * 1000 + i + it;
    MPI_Allreduce(a, r, n, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; i++)
        CHECK(r[i] == 1000 + 2 * (i + it), "it %d: int sum [%d] = %d", it, i, r[i]);

    for (int i = 0; i < 8; i++)
        d[i] = 0.5 * rank + i;
    memcpy(dr, d, sizeof d);
    MPI_Allreduce(MPI_IN_PLACE, dr, 8, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i < 8; i++)
        CHECK(dr[i] == 0.5 + 2.0 * i, "it %d: in-place double sum [%d] = %g", it, i, dr[i]);

    ml.v = (it % 2 == rank) ? 7.0 : 3.0;
    ml.i = rank;
    MPI_Allreduce(&ml, &mlr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    CHECK(mlr.v == 7.0 && mlr.i == it % 2, "it %d: maxloc (%g, %d)", it, mlr.v, mlr.i);

    /* non-commutative, not in place and in place */
    for (int i = 0; i < 4; i++)
        a[i] = (rank + 1) * (i + 1);
    MPI_Allreduce(a, r, 4, MPI_INT, op_affine, comm);
    for (int i = 0; i < 4; i++)
        CHECK(r[i] == 3 * (i + 1) + 2 * (i + 1), "it %d: affine [%d] = %d", it, i, r[i]);
    MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_INT, op_affine, comm);
    for (int i = 0; i < 4; i++)
        CHECK(a[i] == 5 * (i + 1), "it %d: affine in place [%d] = %d", it, i, a[i]);

    /* rank 0's user message, sent after the collectives; a user receive
     * that took a collective message would see another tag or count */
    if (rank == 0) {
        user_out[0] = it;
        user_out[1] = 42;
        user_out[2] = -it;
        MPI_Send(user_out, 3, MPI_INT, peer, it % 32767, comm);
    } else {
        int cnt;
        MPI_Wait(&rq, &st);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == it % 32767 && cnt == 3 && user_in[0] == it &&
                  user_in[1] == 42 && user_in[2] == -it,
              "it %d: wildcard receive got source %d tag %d count %d [%d %d %d]", it,
              st.MPI_SOURCE, st.MPI_TAG, cnt, user_in[0], user_in[1], user_in[2]);
    }

    /* a nonblocking collective in flight across blocking ones */
    for (int i = 0; i < 4; i++)
        a[i] = rank + i;
    MPI_Iallreduce(a, r, 4, MPI_INT, MPI_MAX, comm, &nb);
    MPI_Barrier(comm);
    MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Wait(&nb, MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++)
        CHECK(r[i] == 1 + i, "it %d: iallreduce max [%d] = %d", it, i, r[i]);
    CHECK(d[0] == 0.0 && d[1] == 1.0, "it %d: min %g %g", it, d[0], d[1]);

    /* a non-contiguous type (the schedule's path) between direct ones */
    for (int i = 0; i < 32; i++)
        sv[i] = rank * 100 + i;
    memset(rv, 0, sizeof rv);
    MPI_Allreduce(sv, rv, 1, vec, MPI_SUM, comm);
    for (int i = 0; i < 32; i++)
        CHECK(rv[i] == (i % 2 == 0 ? 100 + 2 * i : 0), "it %d: vector sum [%d] = %d", it, i,
              rv[i]);

    /* a message in each direction, probed with wildcards, then a barrier:
     * nothing of the collectives is left to probe afterwards */
    user_out[0] = rank;
    MPI_Send(user_out, 1, MPI_INT, peer, 7, comm);
    MPI_Recv(user_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    CHECK(st.MPI_TAG == 7 && user_in[0] == peer, "it %d: exchange got tag %d value %d", it,
          st.MPI_TAG, user_in[0]);
    MPI_Barrier(comm);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
    CHECK(!flag, "it %d: a message (tag %d) is waiting after the barrier", it, st.MPI_TAG);
}

int main(int argc, char **argv)
{
    int size, iters = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Op op_affine;
    MPI_Datatype vec;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "coll_pair needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Op_create(affine, 0, &op_affine);
    MPI_Type_vector(16, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    for (int it = 0; it < iters; it++)
        one_round(it % 3 == 2 ? dup : MPI_COMM_WORLD, it, op_affine, vec);

    /* a mismatch is still an error at both ranks: rank 0 passes 2 ints, rank
     * 1 passes 3 (MPI_ERR_TRUNCATE at the smaller side or a mismatch) */
    {
        int x[3] = {1, 2, 3}, y[3], rc, cls;
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        rc = MPI_Allreduce(x, y, rank == 0 ? 2 : 3, MPI_INT, MPI_SUM, dup);
        MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS, "mismatched allreduce succeeded");
        /* both still agree on the tag sequence afterwards */
        MPI_Barrier(dup);
        MPI_Allreduce(x, y, 3, MPI_INT, MPI_SUM, dup);
        CHECK(y[0] == 2 && y[2] == 6, "allreduce after a mismatch: %d %d", y[0], y[2]);
    }

    MPI_Comm_free(&dup);
    MPI_Type_free(&vec);
    MPI_Op_free(&op_affine);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
