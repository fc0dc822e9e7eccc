/* MPI 4.1's buffered-send buffers: a communicator's buffer
 * (MPI_Comm_attach_buffer) is used before the process's, MPI_BUFFER_AUTOMATIC
 * lets MPI allocate, MPI_Buffer_flush / MPI_Comm_flush_buffer wait for the
 * buffered messages and the iflush forms give a request that completes
 * when they have gone; a session's buffer (MPI_Session_attach_buffer) with
 * its flushes; and the argument errors. Run on 2 ranks (and 1: messages to
 * itself). */
#include "mtest.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { N = 1000, BIG = 200000 };

/* rank 0 bsends `n` messages of N ints to the last rank, which receives
 * them after a barrier (so they sit in the buffer meanwhile). */
static void exchange(MPI_Comm comm, int n, const char *what)
{
    int rank, size, *buf = malloc(sizeof(int) * N);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0)
        for (int m = 0; m < n; m++) {
            for (int i = 0; i < N; i++)
                buf[i] = m * N + i;
            CHECK(MPI_Bsend(buf, N, MPI_INT, size - 1, m, comm) == MPI_SUCCESS, "%s: bsend %d",
                  what, m);
        }
    memset(buf, 0, sizeof(int) * N); /* the message was copied out */
    if (size > 1)
        MPI_Barrier(comm);
    if (rank == size - 1)
        for (int m = 0; m < n; m++) {
            MPI_Recv(buf, N, MPI_INT, 0, m, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                if (buf[i] != m * N + i) {
                    printf("%s: message %d element %d is %d\n", what, m, i, buf[i]);
                    mtest_errors++;
                    break;
                }
        }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size, bsize = 3 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD), isize;
    char *mem = malloc(bsize), *cmem = malloc(bsize);
    void *addr;
    MPI_Count csize;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Session session;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    /* no buffer at all: MPI_ERR_BUFFER */
    if (rank == 0) {
        int x = 1;
        EXPECT_CLASS(MPI_Bsend(&x, 1, MPI_INT, size - 1, 0, dup), MPI_ERR_BUFFER,
                     "MPI_Bsend without a buffer");
    }

    /* the communicator's buffer: used on dup only, room for 3 messages */
    CHECK(MPI_Comm_attach_buffer(dup, cmem, bsize) == MPI_SUCCESS, "MPI_Comm_attach_buffer");
    EXPECT_CLASS(MPI_Comm_attach_buffer(dup, cmem, bsize), MPI_ERR_BUFFER,
                 "MPI_Comm_attach_buffer twice");
    exchange(dup, 3, "communicator buffer");
    if (rank == 0) {
        int x = 1;
        EXPECT_CLASS(MPI_Bsend(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "MPI_Bsend on a communicator without a buffer (the process has none)");
    }
    CHECK(MPI_Comm_flush_buffer(dup) == MPI_SUCCESS, "MPI_Comm_flush_buffer");
    CHECK(MPI_Comm_iflush_buffer(dup, &req) == MPI_SUCCESS &&
              MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "MPI_Comm_iflush_buffer with nothing buffered");
    CHECK(MPI_Comm_detach_buffer(dup, &addr, &isize) == MPI_SUCCESS && addr == cmem &&
              isize == bsize,
          "MPI_Comm_detach_buffer gave %p %d, expected %p %d", addr, isize, (void *)cmem, bsize);
    CHECK(MPI_Comm_detach_buffer_c(dup, &addr, &csize) == MPI_SUCCESS && addr == NULL && csize == 0,
          "MPI_Comm_detach_buffer_c without a buffer gave %p %lld", addr, (long long)csize);

    /* the process's buffer, then a full buffer flushed by MPI_Buffer_iflush */
    CHECK(MPI_Buffer_attach(mem, bsize) == MPI_SUCCESS, "MPI_Buffer_attach");
    exchange(dup, 3, "process buffer");
    if (rank == 0) {
        int *big = calloc(N, sizeof(int));
        MPI_Bsend(big, N, MPI_INT, size - 1, 100, dup);
        MPI_Bsend(big, N, MPI_INT, size - 1, 101, dup);
        MPI_Bsend(big, N, MPI_INT, size - 1, 102, dup);
        CHECK(MPI_Buffer_iflush(&req) == MPI_SUCCESS, "MPI_Buffer_iflush");
        free(big);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        int *big = calloc(N, sizeof(int));
        for (int m = 100; m < 103; m++)
            MPI_Recv(big, N, MPI_INT, 0, m, dup, MPI_STATUS_IGNORE);
        free(big);
    }
    if (rank == 0) {
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "waiting for MPI_Buffer_iflush");
        CHECK(MPI_Buffer_flush() == MPI_SUCCESS, "MPI_Buffer_flush");
    }
    CHECK(MPI_Buffer_detach(&addr, &isize) == MPI_SUCCESS && addr == mem && isize == bsize,
          "MPI_Buffer_detach");

    /* MPI_BUFFER_AUTOMATIC: any number and size of messages */
    CHECK(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS,
          "MPI_Comm_attach_buffer_c(MPI_BUFFER_AUTOMATIC)");
    exchange(dup, 20, "automatic communicator buffer");
    CHECK(MPI_Comm_detach_buffer(dup, &addr, &isize) == MPI_SUCCESS &&
              addr == MPI_BUFFER_AUTOMATIC && isize == 0,
          "MPI_Comm_detach_buffer of MPI_BUFFER_AUTOMATIC gave %p %d", addr, isize);
    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS,
          "MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC)");
    if (rank == 0) {
        char *big = calloc(BIG, 1);
        big[BIG - 1] = 9;
        CHECK(MPI_Bsend(big, BIG, MPI_BYTE, size - 1, 7, dup) == MPI_SUCCESS,
              "a %d-byte bsend with MPI_BUFFER_AUTOMATIC", BIG);
        free(big); /* the library holds its own copy */
        CHECK(MPI_Buffer_iflush(&req) == MPI_SUCCESS, "MPI_Buffer_iflush (automatic)");
    }
    if (rank == size - 1) {
        char *big = calloc(BIG, 1);
        MPI_Recv(big, BIG, MPI_BYTE, 0, 7, dup, MPI_STATUS_IGNORE);
        CHECK(big[BIG - 1] == 9, "the automatic buffer's message arrived wrong");
        free(big);
    }
    if (rank == 0)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(MPI_Buffer_detach(&addr, &isize) == MPI_SUCCESS && addr == MPI_BUFFER_AUTOMATIC,
          "MPI_Buffer_detach of MPI_BUFFER_AUTOMATIC gave %p", addr);

    /* argument errors */
    EXPECT_CLASS(MPI_Comm_attach_buffer(dup, cmem, -4), MPI_ERR_ARG,
                 "MPI_Comm_attach_buffer size -4");
    EXPECT_CLASS(MPI_Comm_attach_buffer(dup, cmem, 8), MPI_ERR_BUFFER,
                 "MPI_Comm_attach_buffer smaller than MPI_BSEND_OVERHEAD");
    EXPECT_CLASS(MPI_Comm_attach_buffer(dup, NULL, bsize), MPI_ERR_BUFFER,
                 "MPI_Comm_attach_buffer(NULL)");
    EXPECT_CLASS(MPI_Comm_attach_buffer(MPI_COMM_NULL, cmem, bsize), MPI_ERR_COMM,
                 "MPI_Comm_attach_buffer(MPI_COMM_NULL)");
    EXPECT_CLASS(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM,
                 "MPI_Comm_flush_buffer(NULL comm)");
    EXPECT_CLASS(MPI_Comm_iflush_buffer(dup, NULL), MPI_ERR_ARG,
                 "MPI_Comm_iflush_buffer(.., NULL)");
    EXPECT_CLASS(MPI_Comm_detach_buffer(dup, &addr, NULL), MPI_ERR_ARG,
                 "MPI_Comm_detach_buffer(.., NULL)");
    EXPECT_CLASS(MPI_Buffer_iflush(NULL), MPI_ERR_ARG, "MPI_Buffer_iflush(NULL)");

    /* a communicator freed with its buffer attached detaches it */
    {
        MPI_Comm d2;
        MPI_Comm_dup(MPI_COMM_WORLD, &d2);
        MPI_Comm_attach_buffer(d2, cmem, bsize);
        exchange(d2, 2, "buffer of a communicator then freed");
        MPI_Comm_free(&d2);
    }

    /* a session's buffer (its errors go to the session's handler) */
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) == MPI_SUCCESS,
          "MPI_Session_init");
    CHECK(MPI_Session_attach_buffer(session, mem, bsize) == MPI_SUCCESS,
          "MPI_Session_attach_buffer");
    EXPECT_CLASS(MPI_Session_attach_buffer(session, mem, bsize), MPI_ERR_BUFFER,
                 "MPI_Session_attach_buffer twice");
    CHECK(MPI_Session_flush_buffer(session) == MPI_SUCCESS, "MPI_Session_flush_buffer");
    CHECK(MPI_Session_iflush_buffer(session, &req) == MPI_SUCCESS &&
              MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "MPI_Session_iflush_buffer");
    CHECK(MPI_Session_detach_buffer_c(session, &addr, &csize) == MPI_SUCCESS && addr == mem &&
              csize == bsize,
          "MPI_Session_detach_buffer_c gave %p %lld", addr, (long long)csize);
    CHECK(MPI_Session_attach_buffer_c(session, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS,
          "MPI_Session_attach_buffer_c(MPI_BUFFER_AUTOMATIC)");
    EXPECT_CLASS(MPI_Session_iflush_buffer(session, NULL), MPI_ERR_ARG,
                 "MPI_Session_iflush_buffer(.., NULL)");
    EXPECT_CLASS(MPI_Session_detach_buffer(session, NULL, &isize), MPI_ERR_ARG,
                 "MPI_Session_detach_buffer(NULL, ..)");
    EXPECT_CLASS(MPI_Session_flush_buffer(MPI_SESSION_NULL), MPI_ERR_SESSION,
                 "MPI_Session_flush_buffer(MPI_SESSION_NULL)");
    MPI_Session_finalize(&session); /* detaches the automatic buffer */

    MPI_Comm_free(&dup);
    MPI_Allreduce(MPI_IN_PLACE, &mtest_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && mtest_errors == 0)
        printf("No Errors\n");
    MPI_Finalize();
    free(mem);
    free(cmem);
    return mtest_errors != 0;
}
