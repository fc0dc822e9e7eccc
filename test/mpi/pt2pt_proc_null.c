/*
 * MPI_PROC_NULL in every point-to-point form: blocking and nonblocking sends
 * and receives, MPI_Sendrecv and MPI_Sendrecv_replace with either or both
 * peers MPI_PROC_NULL (a shift at the edge of a non-periodic ring), probes,
 * and the requests of MPI_Isend/MPI_Irecv to MPI_PROC_NULL through every
 * completion call (wait, test, waitall, testany, waitsome, request_get_status,
 * cancel, request_free), matched probes (MPI_MESSAGE_NO_PROC through MPI_Mrecv
 * and MPI_Imrecv), MPI_Ibsend/MPI_Irsend, persistent requests and
 * MPI_Isendrecv(_replace). A receive from MPI_PROC_NULL completes at once with
 * source MPI_PROC_NULL, tag MPI_ANY_TAG and count 0 and leaves its buffer
 * alone; the half of a sendrecv whose peer is real still moves its data.
 * Run on any number of ranks; also with MPI_THREAD_MULTIPLE (argument "mt").
 */
#include "mtest.h"

static void check_null_status(const MPI_Status *st, const char *what, int line)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_INT, &cnt);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "%s (line %d): source %d tag %d count %d", what, line, st->MPI_SOURCE, st->MPI_TAG, cnt);
}
#define NULL_STATUS(st, what) check_null_status(&(st), what, __LINE__)

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        b[i] = v + i;
}

static int same(const int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (b[i] != v + i)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int flag, idx, outcount, indices[3];
    int a[8], b[8];
    MPI_Status st, sts[3];
    MPI_Request rq, rqs[3];

    if (argc > 1 && strcmp(argv[1], "mt") == 0) {
        int provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    } else {
        mtest_init(&argc, &argv);
    }
    int rank = mtest_rank, size = mtest_size;
    int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;

    for (int round = 0; round < 3; round++) { /* again: requests come back from the pool */
        /* blocking */
        fill(b, 8, -1);
        OK(MPI_Send(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
        OK(MPI_Ssend(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
        OK(MPI_Rsend(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Recv(b, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
        NULL_STATUS(st, "MPI_Recv");
        CHECK(same(b, 8, -1), "MPI_Recv from MPI_PROC_NULL wrote the buffer");

        /* nonblocking, each completion call */
        OK(MPI_Isend(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq));
        CHECK(rq != MPI_REQUEST_NULL, "MPI_Isend to MPI_PROC_NULL gave MPI_REQUEST_NULL");
        OK(MPI_Wait(&rq, &st));
        CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the request");
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Irecv(b, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq));
        OK(MPI_Request_get_status(rq, &flag, &st));
        CHECK(flag, "MPI_Request_get_status: a receive from MPI_PROC_NULL is not complete");
        NULL_STATUS(st, "MPI_Request_get_status");
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Test(&rq, &flag, &st));
        CHECK(flag && rq == MPI_REQUEST_NULL, "MPI_Test: flag %d", flag);
        NULL_STATUS(st, "MPI_Test");
        CHECK(same(b, 8, -1), "MPI_Irecv from MPI_PROC_NULL wrote the buffer");

        OK(MPI_Irecv(b, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[0]));
        OK(MPI_Issend(a, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[1]));
        OK(MPI_Irecv(b, 8, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rqs[2]));
        memset(sts, 0x5a, sizeof sts);
        OK(MPI_Waitall(3, rqs, sts));
        NULL_STATUS(sts[0], "MPI_Waitall[0]");
        NULL_STATUS(sts[2], "MPI_Waitall[2]");
        CHECK(rqs[0] == MPI_REQUEST_NULL && rqs[1] == MPI_REQUEST_NULL &&
                  rqs[2] == MPI_REQUEST_NULL,
              "MPI_Waitall left requests");

        OK(MPI_Irecv(b, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[0]));
        OK(MPI_Irecv(b, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[1]));
        OK(MPI_Testany(2, rqs, &idx, &flag, &st));
        CHECK(flag && idx >= 0 && idx < 2 && rqs[idx] == MPI_REQUEST_NULL, "MPI_Testany");
        NULL_STATUS(st, "MPI_Testany");
        OK(MPI_Waitsome(2, rqs, &outcount, indices, sts));
        CHECK(outcount == 1 && indices[0] == 1 - idx, "MPI_Waitsome: outcount %d", outcount);
        NULL_STATUS(sts[0], "MPI_Waitsome");

        OK(MPI_Irecv(b, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq));
        OK(MPI_Cancel(&rq));
        OK(MPI_Wait(&rq, &st));
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "a completed receive from MPI_PROC_NULL was cancelled");
        NULL_STATUS(st, "MPI_Wait after MPI_Cancel");
        OK(MPI_Isend(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq));
        OK(MPI_Request_free(&rq));
        CHECK(rq == MPI_REQUEST_NULL, "MPI_Request_free left the request");

        /* probes */
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
        NULL_STATUS(st, "MPI_Probe");
        flag = 0;
        OK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag, "MPI_Iprobe(MPI_PROC_NULL): flag 0");
        NULL_STATUS(st, "MPI_Iprobe");

        /* matched probes: MPI_MESSAGE_NO_PROC, received by MPI_Mrecv and MPI_Imrecv */
        {
            MPI_Message msg = MPI_MESSAGE_NULL;
            fill(b, 8, -1);
            memset(&st, 0x5a, sizeof st);
            OK(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL): message %#x",
                  (unsigned)msg);
            NULL_STATUS(st, "MPI_Mprobe");
            memset(&st, 0x5a, sizeof st);
            OK(MPI_Mrecv(b, 8, MPI_INT, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv left MPI_MESSAGE_NO_PROC");
            NULL_STATUS(st, "MPI_Mrecv(MPI_MESSAGE_NO_PROC)");
            flag = 0;
            memset(&st, 0x5a, sizeof st);
            OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
            CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe(MPI_PROC_NULL): flag %d", flag);
            NULL_STATUS(st, "MPI_Improbe");
            OK(MPI_Imrecv(b, 8, MPI_INT, &msg, &rq));
            CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv left MPI_MESSAGE_NO_PROC");
            memset(&st, 0x5a, sizeof st);
            OK(MPI_Wait(&rq, &st));
            NULL_STATUS(st, "MPI_Imrecv(MPI_MESSAGE_NO_PROC) + MPI_Wait");
            OK(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
            OK(MPI_Imrecv(b, 8, MPI_INT, &msg, &rq));
            OK(MPI_Cancel(&rq));
            OK(MPI_Wait(&rq, &st));
            OK(MPI_Test_cancelled(&st, &flag));
            CHECK(!flag, "a completed MPI_Imrecv(MPI_MESSAGE_NO_PROC) was cancelled");
            OK(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
            OK(MPI_Imrecv(b, 8, MPI_INT, &msg, &rq));
            OK(MPI_Request_free(&rq));
            CHECK(rq == MPI_REQUEST_NULL, "MPI_Request_free left the MPI_Imrecv request");
            CHECK(same(b, 8, -1), "a receive of MPI_MESSAGE_NO_PROC wrote the buffer");
        }

        /* the other modes, persistent requests and MPI_Isendrecv */
        {
            static char bbuf[1024 + MPI_BSEND_OVERHEAD];
            void *old;
            int oldsize;
            OK(MPI_Buffer_attach(bbuf, sizeof bbuf));
            OK(MPI_Ibsend(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rqs[0]));
            OK(MPI_Irsend(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rqs[1]));
            OK(MPI_Waitall(2, rqs, sts));
            OK(MPI_Buffer_detach(&old, &oldsize));
            OK(MPI_Send_init(a, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rqs[0]));
            OK(MPI_Recv_init(b, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rqs[1]));
            for (int i = 0; i < 2; i++) {
                OK(MPI_Startall(2, rqs));
                memset(sts, 0x5a, sizeof sts);
                OK(MPI_Waitall(2, rqs, sts));
                NULL_STATUS(sts[1], "MPI_Recv_init + MPI_Start");
                CHECK(rqs[0] != MPI_REQUEST_NULL && rqs[1] != MPI_REQUEST_NULL,
                      "MPI_Waitall freed a persistent request");
            }
            OK(MPI_Start(&rqs[1]));
            OK(MPI_Cancel(&rqs[1]));
            OK(MPI_Wait(&rqs[1], &st));
            OK(MPI_Test_cancelled(&st, &flag));
            CHECK(!flag, "a completed persistent receive from MPI_PROC_NULL was cancelled");
            OK(MPI_Request_free(&rqs[0]));
            OK(MPI_Request_free(&rqs[1]));
            fill(b, 8, -1);
            memset(&st, 0x5a, sizeof st);
            OK(MPI_Isendrecv(a, 8, MPI_INT, MPI_PROC_NULL, 7, b, 8, MPI_INT, MPI_PROC_NULL, 7,
                             MPI_COMM_WORLD, &rq));
            OK(MPI_Wait(&rq, &st));
            NULL_STATUS(st, "MPI_Isendrecv, both MPI_PROC_NULL");
            memset(&st, 0x5a, sizeof st);
            OK(MPI_Isendrecv_replace(b, 8, MPI_INT, MPI_PROC_NULL, 7, MPI_PROC_NULL, 7,
                                     MPI_COMM_WORLD, &rq));
            OK(MPI_Wait(&rq, &st));
            NULL_STATUS(st, "MPI_Isendrecv_replace, both MPI_PROC_NULL");
            CHECK(same(b, 8, -1), "MPI_Isendrecv from MPI_PROC_NULL wrote the buffer");
        }

        /* sendrecv: both, either half MPI_PROC_NULL */
        fill(b, 8, -1);
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Sendrecv(a, 8, MPI_INT, MPI_PROC_NULL, 4, b, 8, MPI_INT, MPI_PROC_NULL, 4,
                        MPI_COMM_WORLD, &st));
        NULL_STATUS(st, "MPI_Sendrecv, both MPI_PROC_NULL");
        CHECK(same(b, 8, -1), "MPI_Sendrecv from MPI_PROC_NULL wrote the buffer");
        OK(MPI_Sendrecv(a, 8, MPI_INT, MPI_PROC_NULL, 4, b, 8, MPI_INT, MPI_PROC_NULL, 4,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));

        /* a shift to the right: rank 0 receives from nobody, the last sends to nobody */
        fill(a, 8, 100 * rank + round);
        fill(b, 8, -1);
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Sendrecv(a, 8, MPI_INT, right, 5, b, 8, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
        if (left == MPI_PROC_NULL) {
            NULL_STATUS(st, "MPI_Sendrecv, source MPI_PROC_NULL");
            CHECK(same(b, 8, -1), "MPI_Sendrecv from MPI_PROC_NULL wrote the buffer");
        } else {
            int cnt = -1;
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 && cnt == 8,
                  "MPI_Sendrecv shift: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
            CHECK(same(b, 8, 100 * left + round), "MPI_Sendrecv shift: wrong data");
        }
        /* and back to the left, in place */
        fill(b, 8, 100 * rank + round + 7);
        memset(&st, 0x5a, sizeof st);
        OK(MPI_Sendrecv_replace(b, 8, MPI_INT, left, 6, right, 6, MPI_COMM_WORLD, &st));
        if (right == MPI_PROC_NULL) {
            NULL_STATUS(st, "MPI_Sendrecv_replace, source MPI_PROC_NULL");
            CHECK(same(b, 8, 100 * rank + round + 7),
                  "MPI_Sendrecv_replace from MPI_PROC_NULL changed the buffer");
        } else {
            CHECK(st.MPI_SOURCE == right && st.MPI_TAG == 6, "MPI_Sendrecv_replace: source %d",
                  st.MPI_SOURCE);
            CHECK(same(b, 8, 100 * right + round + 7), "MPI_Sendrecv_replace shift: wrong data");
        }
        /* an error in the real half still reports, with the other half MPI_PROC_NULL */
        int bad = MPI_Sendrecv(a, 8, MPI_INT, MPI_PROC_NULL, -5, b, 8, MPI_INT, MPI_PROC_NULL, 4,
                               MPI_COMM_WORLD, &st);
        CHECK(bad != MPI_SUCCESS, "MPI_Sendrecv with tag -5 succeeded");
        if (bad != MPI_SUCCESS) {
            int cls;
            MPI_Error_class(bad, &cls);
            CHECK(cls == MPI_ERR_TAG, "MPI_Sendrecv with tag -5: class %d", cls);
        }
    }
    return mtest_finish();
}
