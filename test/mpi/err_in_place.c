/*
 * MPI_IN_PLACE where no call takes it, under MPI_ERRORS_RETURN: a
 * broadcast's buffer, a collective's receive buffer (all ranks pass it, so
 * every rank returns the error and nobody waits), a point-to-point buffer
 * (MPI_PROC_NULL peers: nothing to wait for), a one-sided origin or result
 * buffer, a file's buffer, MPI_Pack's and MPI_Unpack's buffers, the
 * buffered-send buffer and a window's base (MPI_ERR_ARG there, as for NULL),
 * and, with argument "rooted"
 * and CANAL_COLL_CHECK=1, the root's receive buffer of a reduce or a gather
 * and the root's send buffer of a scatter, where the root alone errs and
 * the checking mode tells the others (MPI_ERR_OTHER). Every misuse is
 * MPI_ERR_BUFFER at the rank that made it; before, each call took
 * MPI_IN_PLACE as the address (void *)-1 and the process died of SIGSEGV
 * (MPICH 4.0.2 too, MPI_Bcast). Afterwards collectives and messages work.
 */
#include "mtest.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { N = 4 };

static int buf[64], rbuf[64], cnt[64], dsp[64];

static void expect(int rc, int want, const char *what)
{
    int cls = rc == MPI_SUCCESS ? MPI_SUCCESS : mtest_error_class(rc);
    CHECK(cls == want, "%s: rank %d got class %d, want %d", what, mtest_rank, cls, want);
}

static void wait_one(int rc, MPI_Request *r, const char *what)
{
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    expect(rc, MPI_ERR_BUFFER, what);
}

/* every rank passes MPI_IN_PLACE where it may not */
static void everyone(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    void *ip = MPI_IN_PLACE;
    MPI_Datatype ty[64];
    MPI_Request r;

    for (int i = 0; i < 64; i++)
        ty[i] = MPI_INT;
    expect(MPI_Bcast(ip, N, MPI_INT, 0, w), MPI_ERR_BUFFER, "MPI_Bcast");
    wait_one(MPI_Ibcast(ip, N, MPI_INT, 0, w, &r), &r, "MPI_Ibcast");
    expect(MPI_Bcast_init(ip, N, MPI_INT, 0, w, MPI_INFO_NULL, &r), MPI_ERR_BUFFER,
           "MPI_Bcast_init");
    expect(MPI_Allreduce(buf, ip, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "MPI_Allreduce");
    wait_one(MPI_Iallreduce(buf, ip, N, MPI_INT, MPI_SUM, w, &r), &r, "MPI_Iallreduce");
    expect(MPI_Allgather(buf, 1, MPI_INT, ip, 1, MPI_INT, w), MPI_ERR_BUFFER, "MPI_Allgather");
    expect(MPI_Allgatherv(buf, 1, MPI_INT, ip, cnt, dsp, MPI_INT, w), MPI_ERR_BUFFER,
           "MPI_Allgatherv");
    expect(MPI_Alltoall(buf, 1, MPI_INT, ip, 1, MPI_INT, w), MPI_ERR_BUFFER, "MPI_Alltoall");
    expect(MPI_Alltoallv(buf, cnt, dsp, MPI_INT, ip, cnt, dsp, MPI_INT, w), MPI_ERR_BUFFER,
           "MPI_Alltoallv");
    expect(MPI_Alltoallw(buf, cnt, dsp, ty, ip, cnt, dsp, ty, w), MPI_ERR_BUFFER,
           "MPI_Alltoallw");
    expect(MPI_Reduce_scatter_block(buf, ip, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
           "MPI_Reduce_scatter_block");
    expect(MPI_Reduce_scatter(buf, ip, cnt, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
           "MPI_Reduce_scatter");
    expect(MPI_Scan(buf, ip, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "MPI_Scan");
    expect(MPI_Exscan(buf, ip, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "MPI_Exscan");
    /* point to point: the buffer is checked before the peer */
    expect(MPI_Send(ip, N, MPI_INT, MPI_PROC_NULL, 0, w), MPI_ERR_BUFFER, "MPI_Send");
    expect(MPI_Recv(ip, N, MPI_INT, MPI_PROC_NULL, 0, w, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
           "MPI_Recv");
    expect(MPI_Isend(ip, N, MPI_INT, MPI_PROC_NULL, 0, w, &r), MPI_ERR_BUFFER, "MPI_Isend");
    expect(MPI_Sendrecv(buf, N, MPI_INT, MPI_PROC_NULL, 0, ip, N, MPI_INT, MPI_PROC_NULL, 0, w,
                        MPI_STATUS_IGNORE),
           MPI_ERR_BUFFER, "MPI_Sendrecv");
    /* one-sided (a window of this rank's own memory) and a file */
    {
        MPI_Win win;
        MPI_File f;
        char name[64];
        int cmp = 0;
        OK(MPI_Win_create(rbuf, sizeof rbuf, sizeof(int), MPI_INFO_NULL, w, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, win));
        expect(MPI_Put(ip, N, MPI_INT, mtest_rank, 0, N, MPI_INT, win), MPI_ERR_BUFFER, "MPI_Put");
        expect(MPI_Get(ip, N, MPI_INT, mtest_rank, 0, N, MPI_INT, win), MPI_ERR_BUFFER, "MPI_Get");
        expect(MPI_Accumulate(ip, N, MPI_INT, mtest_rank, 0, N, MPI_INT, MPI_SUM, win),
               MPI_ERR_BUFFER, "MPI_Accumulate");
        expect(MPI_Get_accumulate(buf, N, MPI_INT, ip, N, MPI_INT, mtest_rank, 0, N, MPI_INT,
                                  MPI_SUM, win),
               MPI_ERR_BUFFER, "MPI_Get_accumulate");
        expect(MPI_Compare_and_swap(buf, &cmp, ip, MPI_INT, mtest_rank, 0, win), MPI_ERR_BUFFER,
               "MPI_Compare_and_swap");
        OK(MPI_Win_unlock(mtest_rank, win));
        OK(MPI_Win_free(&win));
        snprintf(name, sizeof name, "/tmp/canal_err_in_place.%d.%d", (int)getpid(), mtest_rank);
        OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR |
                         MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f));
        MPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
        expect(MPI_File_write(f, ip, N, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
               "MPI_File_write");
        OK(MPI_File_close(&f));
    }
    /* packing, the buffered-send buffer, a window's memory */
    {
        char packed[256];
        int pos = 0;
        MPI_Aint xpos = 0;
        MPI_Win win;
        expect(MPI_Pack(ip, N, MPI_INT, packed, sizeof packed, &pos, w), MPI_ERR_BUFFER,
               "MPI_Pack inbuf");
        expect(MPI_Pack(buf, N, MPI_INT, ip, sizeof packed, &pos, w), MPI_ERR_BUFFER,
               "MPI_Pack outbuf");
        OK(MPI_Pack(buf, N, MPI_INT, packed, sizeof packed, &pos, w));
        pos = 0;
        expect(MPI_Unpack(packed, sizeof packed, &pos, ip, N, MPI_INT, w), MPI_ERR_BUFFER,
               "MPI_Unpack outbuf");
        expect(MPI_Pack_external("external32", ip, N, MPI_INT, packed, sizeof packed, &xpos),
               MPI_ERR_BUFFER, "MPI_Pack_external");
        expect(MPI_Buffer_attach(ip, 4096), MPI_ERR_BUFFER, "MPI_Buffer_attach");
        expect(MPI_Win_create(ip, 64, 1, MPI_INFO_NULL, w, &win), MPI_ERR_ARG, "MPI_Win_create");
    }
    /* where it is allowed it still works, and an empty message may name it */
    memcpy(rbuf, buf, sizeof buf);
    OK(MPI_Allreduce(MPI_IN_PLACE, rbuf, N, MPI_INT, MPI_SUM, w));
    for (int i = 0; i < N; i++)
        CHECK(rbuf[i] == buf[i] * mtest_size, "in-place MPI_Allreduce: [%d] = %d", i, rbuf[i]);
    OK(MPI_Send(ip, 0, MPI_INT, MPI_PROC_NULL, 0, w));
}

/* the root alone errs; the others learn of it in the checking mode */
static void rooted(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int root = mtest_size - 1, at_root = mtest_rank == root;
    int want = at_root ? MPI_ERR_BUFFER : mtest_size > 1 ? MPI_ERR_OTHER : MPI_SUCCESS;
    void *ip = MPI_IN_PLACE;

    expect(MPI_Reduce(buf, at_root ? ip : rbuf, N, MPI_INT, MPI_SUM, root, w), want,
           "MPI_Reduce");
    expect(MPI_Gather(buf, 1, MPI_INT, at_root ? ip : rbuf, 1, MPI_INT, root, w), want,
           "MPI_Gather");
    expect(MPI_Gatherv(buf, 1, MPI_INT, at_root ? ip : rbuf, cnt, dsp, MPI_INT, root, w), want,
           "MPI_Gatherv");
    expect(MPI_Scatter(at_root ? ip : buf, 1, MPI_INT, rbuf, 1, MPI_INT, root, w), want,
           "MPI_Scatter");
    expect(MPI_Scatterv(at_root ? ip : buf, cnt, dsp, MPI_INT, rbuf, 1, MPI_INT, root, w), want,
           "MPI_Scatterv");
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    for (int i = 0; i < 64; i++) {
        buf[i] = i + 1;
        cnt[i] = 1;
        dsp[i] = i;
    }
    if (argc > 1 && strcmp(argv[1], "rooted") == 0)
        rooted();
    else
        everyone();
    /* the communicator still works */
    OK(MPI_Bcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
