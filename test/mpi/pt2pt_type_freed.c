/*
 * A derived datatype freed by the program while a message still uses it
 * (MPI 4.0 5.1.10: freeing a type does not affect an operation using it):
 * a receive posted with a vector type that is freed before its message
 * comes, and a large send (rendezvous) of a vector type freed before its
 * receive is posted. Between the free and the completion new types of
 * another layout are made, which would take the freed type's memory if
 * the device had not kept its own reference (dt_retain: inline for the
 * builtin types only). The data must land as the first type says. To
 * itself on 1 rank, to the next rank on more.
 */
#include "mtest.h"

enum { N = 8, BIG = 40000, NOTHER = 8 };

/* every other int of n (the type the messages are freed with) */
static MPI_Datatype every_other(int n)
{
    MPI_Datatype v;
    OK(MPI_Type_vector(n, 1, 2, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    return v;
}

/* types of another layout, made while the freed one is still in use */
static void make_others(MPI_Datatype *o)
{
    for (int k = 0; k < NOTHER; k++) {
        OK(MPI_Type_vector(N, 1, 3 + k, MPI_INT, &o[k]));
        OK(MPI_Type_commit(&o[k]));
    }
}

static void free_others(MPI_Datatype *o)
{
    for (int k = 0; k < NOTHER; k++)
        OK(MPI_Type_free(&o[k]));
}

int main(int argc, char **argv)
{
    static int big[2 * BIG], got[BIG];
    int buf[2 * N], s[N], to, from, bad = 0;
    MPI_Datatype v, o[NOTHER];
    MPI_Request r, rs;

    mtest_init(&argc, &argv);
    to = (mtest_rank + 1) % mtest_size;
    from = (mtest_rank + mtest_size - 1) % mtest_size;

    /* a receive whose type is freed before the message comes */
    for (int i = 0; i < 2 * N; i++)
        buf[i] = -1;
    for (int i = 0; i < N; i++)
        s[i] = 100 * mtest_rank + i;
    v = every_other(N);
    OK(MPI_Irecv(buf, 1, v, from, 1, MPI_COMM_WORLD, &r));
    OK(MPI_Type_free(&v));
    make_others(o);
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* (every receive is posted before its message) */
    OK(MPI_Send(s, N, MPI_INT, to, 1, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(buf[2 * i] == 100 * from + i && buf[2 * i + 1] == -1,
              "receive of a freed type: buf[%d..%d] = %d %d, expected %d -1", 2 * i, 2 * i + 1,
              buf[2 * i], buf[2 * i + 1], 100 * from + i);
    free_others(o);

    /* a rendezvous send whose type is freed before its receive is posted */
    for (int i = 0; i < 2 * BIG; i++)
        big[i] = i % 2 ? -1 : 7 * (i / 2) + mtest_rank;
    v = every_other(BIG);
    OK(MPI_Isend(big, 1, v, to, 2, MPI_COMM_WORLD, &rs));
    OK(MPI_Type_free(&v));
    make_others(o);
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* (the message is there before its receive) */
    OK(MPI_Recv(got, BIG, MPI_INT, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&rs, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG && !bad; i++)
        bad = got[i] != 7 * i + from;
    CHECK(!bad, "send of a freed type: the data differ");
    free_others(o);
    return mtest_finish();
}
