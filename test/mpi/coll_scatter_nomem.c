/*
 * A scatter root that finds no memory part way (coll/pair.c, the linear
 * root's sends): CANAL_FAULT_COLL_REQS_NOMEM=0 makes rank 0 find none for
 * the requests a linear scatter keeps, which it needs for the blocks the
 * device cannot send at once. The root returns MPI_ERR_NO_MEM; a leaf
 * whose block went before gets it; every other leaf fails (MPI_ERR_OTHER,
 * "sent no data": the root sends an empty message in its block's place,
 * with no request) instead of waiting for ever. Run with
 * CANAL_COLL_SCATTER=linear and CANAL_EAGER_LIMIT=256. Two calls, each on
 * a communicator of its own under MPI_ERRORS_RETURN: an MPI_Scatterv of
 * contiguous bytes, 16 to rank 1 (sent at once, with no request) and 1 KiB
 * to the others (over the eager limit: a request each); an MPI_Scatter
 * whose root sends a vector type (the root takes the requests before any
 * send). On c2bcef9 the leaves left without their block waited for ever
 * (the runner's timeout). Then MPI_COMM_WORLD still works.
 */
#include "mtest.h"

#include <string.h>

enum { BIG = 1024, SMALL = 16, INTS = 4 };

/* rc is the leaf's failure: MPI_ERR_OTHER saying the root sent no data */
static void expect_no_data(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int cls = MPI_SUCCESS, len = 0;

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        msg[len] = '\0';
    }
    CHECK(cls == MPI_ERR_OTHER && strstr(msg, "sent no data") != NULL,
          "%s: rank %d got class %d, want MPI_ERR_OTHER saying the root sent no data (%s)", what,
          mtest_rank, cls, msg);
}

static void expect_no_mem(int rc, const char *what)
{
    CHECK(mtest_error_class(rc) == MPI_ERR_NO_MEM, "%s: the root got class %d, want MPI_ERR_NO_MEM",
          what, mtest_error_class(rc));
}

int main(int argc, char **argv)
{
    MPI_Comm c;
    int rank, size, rc;

    mtest_init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;
    if (size < 3) {
        mtest_skipped("needs 3 ranks");
        return mtest_finish();
    }

    /* contiguous: rank 1's block goes at once, the others' need requests */
    {
        int sc[64], sd[64];
        char *send = NULL, recv[BIG];
        int mine = rank == 1 ? SMALL : BIG, off = 0;

        for (int r = 0; r < size && r < 64; r++) {
            sc[r] = r == 1 ? SMALL : BIG;
            sd[r] = off;
            off += sc[r];
        }
        if (rank == 0) {
            send = malloc((size_t)off);
            for (int i = 0; i < off; i++)
                send[i] = (char)(i % 101);
        }
        memset(recv, 0, sizeof recv);
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        rc = MPI_Scatterv(send, sc, sd, MPI_CHAR, recv, mine, MPI_CHAR, 0, c);
        if (rank == 0)
            expect_no_mem(rc, "MPI_Scatterv");
        else if (rank == 1) {
            CHECK(rc == MPI_SUCCESS, "MPI_Scatterv: rank 1, whose block went first, got %d", rc);
            for (int i = 0; i < SMALL && rc == MPI_SUCCESS; i++)
                CHECK(recv[i] == (char)((sd[1] + i) % 101), "MPI_Scatterv: rank 1's byte %d", i);
        } else
            expect_no_data(rc, "MPI_Scatterv");
        OK(MPI_Comm_free(&c));
        free(send);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* a vector type at the root: no block goes before the requests */
    {
        MPI_Datatype vec, one;
        int *send = NULL, recv[INTS] = {0};

        MPI_Type_vector(INTS, 1, 2, MPI_INT, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * INTS * sizeof(int)), &one);
        MPI_Type_commit(&one);
        if (rank == 0) {
            send = malloc(sizeof(int) * 2 * INTS * (size_t)size);
            for (int i = 0; i < 2 * INTS * size; i++)
                send[i] = i;
        }
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        rc = MPI_Scatter(send, 1, one, recv, INTS, MPI_INT, 0, c);
        if (rank == 0)
            expect_no_mem(rc, "MPI_Scatter of a vector");
        else
            expect_no_data(rc, "MPI_Scatter of a vector");
        OK(MPI_Comm_free(&c));
        MPI_Type_free(&one);
        MPI_Type_free(&vec);
        free(send);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
