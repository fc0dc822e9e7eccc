/*
 * Collectives whose ranks pass lengths that do not pair up (MPICH's
 * errors/coll/bcastlength, ibcastlength, gatherlength, scatterlength,
 * allgatherlength, alltoalllength; issue 27). A broadcast whose receivers
 * pass another length than the root: every receiver gets an error --
 * MPI_ERR_TRUNCATE where the message is longer than its buffer,
 * MPI_ERR_OTHER ("collective size mismatch", as MPICH) where it is shorter
 * or where the error happened further up the tree -- and no rank hangs
 * (blocking, nonblocking and persistent forms; every root). Gather whose
 * root expects less: the root fails; scatter whose root sends less: the
 * others fail; allgather where rank 0 contributes less and alltoall where
 * it sends more: the ranks the MPICH tests name fail. With args=big (and an
 * algorithm forced), also messages large enough to go by rendezvous.
 * Afterwards,
 * collectives of matching lengths work again. Under MPI_ERRORS_RETURN.
 * (A count of 0 is a broadcast that does nothing on that rank, as in
 * MPICH: receivers passing 0 to a root that sends data are not detected.)
 */
#include "mtest.h"

enum { BLOCKING, NONBLOCKING, PERSISTENT };

static int bcast(int *buf, int count, int root, int mode)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int rc;
    switch (mode) {
    case NONBLOCKING:
        rc = MPI_Ibcast(buf, count, MPI_INT, root, MPI_COMM_WORLD, &rq);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&rq, MPI_STATUS_IGNORE);
    case PERSISTENT:
        rc = MPI_Bcast_init(buf, count, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Start(&rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (rq != MPI_REQUEST_NULL)
            MPI_Request_free(&rq);
        return rc;
    default:
        return MPI_Bcast(buf, count, MPI_INT, root, MPI_COMM_WORLD);
    }
}

static void mismatch(int root, int mode, int rootcount, int othercount)
{
    int n = rootcount > othercount ? rootcount : othercount, rc, cls = MPI_SUCCESS;
    int *buf = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = mtest_rank == root ? i : -1;
    rc = bcast(buf, mtest_rank == root ? rootcount : othercount, root, mode);
    free(buf);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (mtest_rank == root) {
        /* the root may not notice */
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "mode %d root %d: root got class %d", mode, root, cls);
    } else {
        CHECK(cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "mode %d root %d count %d/%d: rank %d did not detect the mismatch (class %d)",
              mode, root, rootcount, othercount, mtest_rank, cls);
        if (rc != MPI_SUCCESS && getenv("COLL_ERRORS_VERBOSE")) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            printf("[%d] %s\n", mtest_rank, msg);
        }
    }
}

static int failed(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (rc != MPI_SUCCESS && cls != MPI_ERR_OTHER && cls != MPI_ERR_TRUNCATE)
        CHECK(0, "%s: rank %d got class %d, want MPI_ERR_OTHER or MPI_ERR_TRUNCATE", what, mtest_rank,
              cls);
    return rc != MPI_SUCCESS;
}

/* The other collectives, as MPICH's *length tests call them. */
static void others(void)
{
    int buf[20] = {0}, *rbuf = malloc(sizeof(int) * 20 * (size_t)mtest_size), *sbuf;
    MPI_Request rq;
    int rc;
    sbuf = malloc(sizeof(int) * 20 * (size_t)mtest_size);
    for (int i = 0; i < 20 * mtest_size; i++)
        sbuf[i] = i;
    /* gather: the root expects 1 int from each, everybody sends 10 */
    rc = MPI_Gather(buf, 10, MPI_INT, rbuf, mtest_rank == 0 ? 1 : 10, MPI_INT, 0, MPI_COMM_WORLD);
    if (mtest_rank == 0)
        CHECK(failed(rc, "gather"), "gather: the root did not detect the mismatch");
    /* scatter: the root sends 1 int to each, everybody expects 10 */
    rc = MPI_Scatter(sbuf, mtest_rank == 0 ? 1 : 10, MPI_INT, buf, 10, MPI_INT, 0, MPI_COMM_WORLD);
    if (mtest_rank != 0)
        CHECK(failed(rc, "scatter"), "scatter: rank %d did not detect the mismatch", mtest_rank);
    /* allgather: rank 0 contributes 1 int, everybody expects 10 from each */
    rc = MPI_Allgather(buf, mtest_rank == 0 ? 1 : 10, MPI_INT, rbuf, 10, MPI_INT, MPI_COMM_WORLD);
    CHECK(failed(rc, "allgather"), "allgather: rank %d did not detect the mismatch", mtest_rank);
    rc = MPI_Iallgather(buf, mtest_rank == 0 ? 1 : 10, MPI_INT, rbuf, 10, MPI_INT, MPI_COMM_WORLD, &rq);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(failed(rc, "iallgather"), "iallgather: rank %d did not detect the mismatch", mtest_rank);
    /* alltoall: rank 0 sends 2 ints to each, everybody expects 1 from each */
    rc = MPI_Alltoall(sbuf, mtest_rank == 0 ? 2 : 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
    if (mtest_rank == 0)
        CHECK(failed(rc, "alltoall"), "alltoall: rank 0 did not detect the mismatch");
    else
        (void)failed(rc, "alltoall");
    free(rbuf);
    free(sbuf);
}

int main(int argc, char **argv)
{
    int buf[1000];
    mtest_init(&argc, &argv);
    if (mtest_size > 1)
        others();
    for (int mode = BLOCKING; mode <= PERSISTENT && mtest_size > 1; mode++) {
        for (int root = 0; root < mtest_size; root++) {
            mismatch(root, mode, 1, 10);  /* receivers expect more than comes */
            mismatch(root, mode, 10, 1);  /* receivers expect less */
            mismatch(root, mode, 1000, 10); /* a large message */
            mismatch(root, mode, 10, 1000);
            /* messages that go by rendezvous; only with an algorithm forced
             * (args=big): the table picks algorithms by message size, so
             * ranks whose sizes differ this much may otherwise run
             * different algorithms and wait for each other */
            if (argc > 1 && strcmp(argv[1], "big") == 0) {
                mismatch(root, mode, 1 << 20, 10);
                mismatch(root, mode, 10, 1 << 20);
            }
        }
    }
    /* matching collectives work again */
    {
        int mine = mtest_rank + 1, *all = malloc(sizeof(int) * (size_t)mtest_size);
        OK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < mtest_size; r++)
            CHECK(all[r] == r + 1, "allgather after errors: [%d] = %d", r, all[r]);
        free(all);
    }
    for (int root = 0; root < mtest_size; root++) {
        for (int i = 0; i < 1000; i++)
            buf[i] = mtest_rank == root ? i * root : -1;
        OK(MPI_Bcast(buf, 1000, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < 1000; i++)
            if (buf[i] != i * root) {
                CHECK(0, "bcast after errors, root %d: [%d] = %d", root, i, buf[i]);
                break;
            }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
