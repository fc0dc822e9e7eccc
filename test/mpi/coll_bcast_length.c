/*
 * A broadcast whose receivers pass another length than the root (MPICH's
 * errors/coll/bcastlength and ibcastlength; issue 27): every receiver gets
 * an error -- MPI_ERR_TRUNCATE where the message is longer than its buffer,
 * MPI_ERR_OTHER ("collective size mismatch", as MPICH) where it is shorter
 * or where the error happened further up the tree -- and no rank hangs.
 * Blocking, nonblocking and persistent forms; every root. Afterwards,
 * broadcasts of matching lengths work again. Under MPI_ERRORS_RETURN.
 * (A count of 0 is a broadcast that does nothing on that rank, as in
 * MPICH: receivers passing 0 to a root that sends data are not detected.)
 */
#include "coll_util.h"

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
    int buf[1000], rc, cls = MPI_SUCCESS;
    for (int i = 0; i < 1000; i++)
        buf[i] = wrank == root ? i : -1;
    rc = bcast(buf, wrank == root ? rootcount : othercount, root, mode);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (wrank == root) {
        /* the root may not notice */
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "mode %d root %d: root got class %d", mode, root, cls);
    } else {
        CHECK(cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "mode %d root %d count %d/%d: rank %d did not detect the mismatch (class %d)",
              mode, root, rootcount, othercount, wrank, cls);
        if (rc != MPI_SUCCESS && getenv("COLL_ERRORS_VERBOSE")) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            printf("[%d] %s\n", wrank, msg);
        }
    }
}

int main(int argc, char **argv)
{
    int buf[1000];
    test_init(&argc, &argv);
    for (int mode = BLOCKING; mode <= PERSISTENT && wsize > 1; mode++) {
        for (int root = 0; root < wsize; root++) {
            mismatch(root, mode, 1, 10);  /* receivers expect more than comes */
            mismatch(root, mode, 10, 1);  /* receivers expect less */
            mismatch(root, mode, 1000, 10); /* a large message */
            mismatch(root, mode, 10, 1000);
        }
    }
    /* matching broadcasts work again */
    for (int root = 0; root < wsize; root++) {
        for (int i = 0; i < 1000; i++)
            buf[i] = wrank == root ? i * root : -1;
        OK(MPI_Bcast(buf, 1000, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < 1000; i++)
            if (buf[i] != i * root) {
                CHECK(0, "bcast after errors, root %d: [%d] = %d", root, i, buf[i]);
                break;
            }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return test_finish();
}
