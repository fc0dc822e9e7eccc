/*
 * The MPI_T counter canal_waits counts the blocking waits a process
 * entered: one per MPI_Wait or MPI_Waitall that found its request(s) not
 * done, whether the wait's first poll ended it or it went round the loop,
 * and none for a wait on a request already done or on MPI_REQUEST_NULL.
 * A tool that divides canal_wait_time by it would read wrong numbers if a
 * wait path counted twice or not at all. Rank 0 posts its receive(s)
 * before it sends rank 1 the go that rank 1 answers, so each wait below
 * finds its request not done and must count once:
 * - in the ring: rank 0 sleeps before MPI_Wait, so the answer is there
 *   and the wait's first poll ends it;
 * - late: rank 1 sleeps before it answers, so the wait goes round its loop;
 * - a window: 4 MPI_Irecv, a go, MPI_Waitall (one count), answered
 *   before and after rank 0 waits in turn;
 * - none: MPI_Wait on MPI_REQUEST_NULL, and on a request that
 *   MPI_Request_get_status found done.
 * Every message's data is checked. args=mt runs it under
 * MPI_THREAD_MULTIPLE (the locked waits). Ranks beyond 1 only idle.
 */
#include "mtest.h"

#include <string.h>
#include <unistd.h>

enum { ROUNDS = 64, WIN = 4, PAUSE_US = 3000, TAG_GO = 11, TAG_DATA = 12 };

static MPI_T_pvar_session ses;
static MPI_T_pvar_handle hnd;

static unsigned long long waits(void)
{
    unsigned long long v = 0;

    OK(MPI_T_pvar_read(ses, hnd, &v));
    return v;
}

static void expect(const char *phase, unsigned long long before, unsigned long long want)
{
    unsigned long long moved = waits() - before;

    CHECK(moved == want, "%s: canal_waits moved by %llu, expected %llu", phase, moved, want);
}

/* rank 0: ROUNDS waits for one answer each; the answer is already in the
 * ring (rank 0 pauses) or comes late (rank 1 pauses) */
static void pair_rounds(MPI_Comm comm, const char *phase, int pause_here)
{
    unsigned long long before = waits();
    MPI_Request r;
    int v;

    for (int i = 0; i < ROUNDS; i++) {
        OK(MPI_Irecv(&v, 1, MPI_INT, 1, TAG_DATA, comm, &r));
        OK(MPI_Send(&i, 1, MPI_INT, 1, TAG_GO, comm));
        if (pause_here)
            usleep(PAUSE_US);
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(v == 3 * i + 2, "%s round %d: received %d, expected %d", phase, i, v, 3 * i + 2);
    }
    expect(phase, before, ROUNDS);
}

static void run_counts(MPI_Comm comm)
{
    unsigned long long before;
    MPI_Request r, rs[WIN];
    int v, vs[WIN], idx = -1, count = 0, prov, flag = 0;

    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    OK(MPI_T_pvar_get_index("canal_waits", MPI_T_PVAR_CLASS_COUNTER, &idx));
    OK(MPI_T_pvar_session_create(&ses));
    OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &hnd, &count));
    CHECK(count == 1, "canal_waits: count %d, expected 1", count);
    OK(MPI_T_pvar_start(ses, hnd));

    pair_rounds(comm, "in the ring", 1);
    pair_rounds(comm, "late", 0);

    before = waits();
    for (int i = 0; i < ROUNDS / 4; i++) {
        for (int k = 0; k < WIN; k++)
            OK(MPI_Irecv(&vs[k], 1, MPI_INT, 1, TAG_DATA + 1 + k, comm, &rs[k]));
        OK(MPI_Send(&i, 1, MPI_INT, 1, TAG_GO, comm));
        if (i % 2 == 0)
            usleep(PAUSE_US);
        OK(MPI_Waitall(WIN, rs, MPI_STATUSES_IGNORE));
        for (int k = 0; k < WIN; k++)
            CHECK(vs[k] == i * 10 + k, "window round %d: message %d is %d, expected %d", i, k,
                  vs[k], i * 10 + k);
    }
    expect("window", before, ROUNDS / 4);

    before = waits();
    r = MPI_REQUEST_NULL;
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    expect("MPI_REQUEST_NULL", before, 0);
    OK(MPI_Irecv(&v, 1, MPI_INT, 0, TAG_DATA, comm, &r));
    OK(MPI_Send((int[]){-5}, 1, MPI_INT, 0, TAG_DATA, comm));
    while (!flag)
        OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    before = waits();
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(v == -5, "done: received %d, expected -5", v);
    expect("a request already done", before, 0);

    OK(MPI_T_pvar_stop(ses, hnd));
    OK(MPI_T_pvar_handle_free(ses, &hnd));
    OK(MPI_T_pvar_session_free(&ses));
    OK(MPI_T_finalize());
}

/* rank 1: answer each go, late where rank 0 does not pause */
static void run_peer(MPI_Comm comm)
{
    int g;

    for (int phase = 0; phase < 2; phase++)
        for (int i = 0; i < ROUNDS; i++) {
            int a;
            OK(MPI_Recv(&g, 1, MPI_INT, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
            if (phase == 1)
                usleep(PAUSE_US);
            a = 3 * g + 2;
            OK(MPI_Send(&a, 1, MPI_INT, 0, TAG_DATA, comm));
        }
    for (int i = 0; i < ROUNDS / 4; i++) {
        OK(MPI_Recv(&g, 1, MPI_INT, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
        if (i % 2 == 1)
            usleep(PAUSE_US);
        for (int k = 0; k < WIN; k++) {
            int a = g * 10 + k;
            OK(MPI_Send(&a, 1, MPI_INT, 0, TAG_DATA + 1 + k, comm));
        }
    }
}

int main(int argc, char **argv)
{
    int mt = argc > 1 && strcmp(argv[1], "mt") == 0;
    MPI_Comm comm;

    if (mt)
        mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    else
        mtest_init(&argc, &argv);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (mtest_size < 2) {
        CHECK(0, "needs 2 ranks, has %d", mtest_size);
    } else if (mtest_rank == 0) {
        run_counts(comm);
    } else if (mtest_rank == 1) {
        run_peer(comm);
    }
    OK(MPI_Barrier(comm));
    OK(MPI_Comm_free(&comm));
    return mtest_finish();
}
