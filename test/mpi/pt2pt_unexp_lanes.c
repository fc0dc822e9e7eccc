/* Many senders' messages waiting in rank 0's unexpected queue, taken in
 * orders unlike the arrival's (the queue's per-source lanes and the bins
 * it keeps on demand, adi/match.c). Every rank but 0 sends rank 0 small
 * messages with MPI_Isend, all before rank 0 receives any (a barrier), in
 * three phases:
 * - gather: K messages of tags 1000 + i, as a root's gathers whose ranks
 *   ran ahead; rank 0 takes them call by call, by (source, tag), the
 *   sources in rank order or reversed;
 * - mixed: K messages of tags (7 i + s) mod 10; rank 0 takes them with
 *   (source, tag), (any source, tag), (source, any tag) and (any, any)
 *   receives in a pseudo-random order, some through MPI_Probe or
 *   MPI_Mprobe + MPI_Mrecv; an MPI_Iprobe and a receive of a tag nobody
 *   sends find nothing, and that receive is cancelled;
 * - by tag: K messages of tags i mod 500; rank 0 takes them tag by tag,
 *   each tag's from every source (with K 70000 and more, more than 64K
 *   messages wait: the bins' table grows).
 * Each receive must get, of its source's messages that its pattern takes,
 * the oldest not yet received (MPI's non-overtaking rule, whatever the
 * timing), with its content.
 * Usage: pt2pt_unexp_lanes [K [mt]]; mt: MPI_THREAD_MULTIPLE, and rank 0's
 * gather and by-tag phases split the sources between two threads (odd
 * and even ranks), each receiving from its own.
 */
#include "mtest.h"

#include <pthread.h>
#include <stdlib.h>

enum { GATHER_TAG = 1000, MIX_TAGS = 10, BYTAG_TAGS = 500, NOBODY_TAG = 30000 };
enum { PH_GATHER, PH_MIXED, PH_BYTAG, NPHASES };

static int K = 2000, mt;

static int phase_tag(int ph, int s, int i)
{
    switch (ph) {
    case PH_GATHER:
        return GATHER_TAG + i % 20000;
    case PH_MIXED:
        return (7 * i + s) % MIX_TAGS;
    default:
        return i % BYTAG_TAGS;
    }
}

/* Rank 0's view: for each source, which of its messages it received. */
static char **got;
static int *oldest; /* each source's oldest message not received */

static void check_msg(int ph, const int *buf, const MPI_Status *st, int want_src, int want_tag,
                      const char *how)
{
    int s = st->MPI_SOURCE, i = buf[1];

    CHECK(buf[0] == s && i >= 0 && i < K && buf[2] == ph, "%s: message (%d, %d, %d) from %d", how,
          buf[0], buf[1], buf[2], s);
    if (buf[0] != s || i < 0 || i >= K)
        return;
    CHECK(st->MPI_TAG == phase_tag(ph, s, i), "%s: tag %d for message %d of %d", how, st->MPI_TAG,
          i, s);
    CHECK((want_src == MPI_ANY_SOURCE || want_src == s) &&
              (want_tag == MPI_ANY_TAG || want_tag == st->MPI_TAG),
          "%s: (%d, %d) got (%d, %d)", how, want_src, want_tag, s, st->MPI_TAG);
    CHECK(!got[s][i], "%s: message %d of %d twice", how, i, s);
    /* the oldest of s's messages that the pattern takes: the one before it
     * of its tag (a period of each phase's tags) or, any tag, the oldest */
    if (want_tag != MPI_ANY_TAG) {
        int period = ph == PH_GATHER ? 20000 : ph == PH_MIXED ? MIX_TAGS : BYTAG_TAGS;
        CHECK(i < period || got[s][i - period], "%s: (%d, %d) got message %d of %d before %d",
              how, want_src, want_tag, i, s, i - period);
    } else {
        CHECK(i == oldest[s], "%s: (%d, any) got message %d of %d, %d is older", how, want_src, i,
              s, oldest[s]);
    }
    got[s][i] = 1;
    while (oldest[s] < K && got[s][oldest[s]])
        oldest[s]++;
}

static void recv_check(int ph, int src, int tag, const char *how)
{
    int buf[3] = {-1, -1, -1};
    MPI_Status st;

    OK(MPI_Recv(buf, 3, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
    check_msg(ph, buf, &st, src, tag, how);
}

typedef struct {
    int ph, first; /* sources first, first + 2, ... (all with step 1) */
    int step;
} part_t;

/* The gather or by-tag phase's receives from the sources of p. */
static void *take_part(void *arg)
{
    const part_t *p = arg;
    int n = mtest_size;

    if (p->ph == PH_GATHER) {
        int last = p->first + (n - 1 - p->first) / p->step * p->step; /* its last source */
        for (int i = 0; i < K; i++)
            for (int k = p->first; k < n; k += p->step) /* reversed every other call */
                recv_check(PH_GATHER, i % 2 ? last - (k - p->first) : k,
                           phase_tag(PH_GATHER, 0, i), "gather");
        return NULL;
    }
    for (int t = 0; t < BYTAG_TAGS; t++)
        for (int s = p->first; s < n; s += p->step)
            for (int i = t; i < K; i += BYTAG_TAGS)
                recv_check(PH_BYTAG, s, t, "by tag");
    return NULL;
}

static unsigned rnd_state = 7;
static unsigned rnd(unsigned m)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % m;
}

static void take_mixed(void)
{
    int n = mtest_size, total = K * (n - 1), left = total;

    /* a receive nothing takes, cancelled with the queue full */
    {
        MPI_Request r;
        MPI_Status st;
        int flag = 1, cancelled = 0, buf[3];
        OK(MPI_Iprobe(MPI_ANY_SOURCE, NOBODY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe of tag %d found a message", NOBODY_TAG);
        OK(MPI_Irecv(buf, 3, MPI_INT, 1, NOBODY_TAG, MPI_COMM_WORLD, &r));
        OK(MPI_Cancel(&r));
        OK(MPI_Wait(&r, &st));
        OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK(cancelled, "the receive of tag %d was not cancelled", NOBODY_TAG);
    }
    while (left > 0) {
        /* a source with messages left, and one of its messages' tags */
        int s = 1 + (int)rnd((unsigned)(n - 1)), i, src, tag, how = (int)rnd(8);
        while (oldest[s] >= K)
            s = s % (n - 1) + 1;
        i = oldest[s] + (int)rnd(4);
        while (i < K && got[s][i])
            i++;
        if (i >= K)
            i = oldest[s];
        src = how & 1 ? MPI_ANY_SOURCE : s;
        tag = how & 2 ? MPI_ANY_TAG : phase_tag(PH_MIXED, s, i);
        if (how >= 6) {
            /* a matched probe, or a probe then the receive */
            int buf[3] = {-1, -1, -1}, count = -1;
            MPI_Status st, pst;
            MPI_Message msg;
            if (how == 6) {
                OK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &msg, &pst));
                OK(MPI_Mrecv(buf, 3, MPI_INT, &msg, &st));
            } else {
                OK(MPI_Probe(src, tag, MPI_COMM_WORLD, &pst));
                OK(MPI_Recv(buf, 3, MPI_INT, pst.MPI_SOURCE, pst.MPI_TAG, MPI_COMM_WORLD, &st));
                /* the probe's message is the receive's (the oldest of its
                 * source and tag) */
            }
            OK(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(count == 3 && pst.MPI_SOURCE == st.MPI_SOURCE && pst.MPI_TAG == st.MPI_TAG,
                  "probe (%d, %d) against receive (%d, %d), %d ints", pst.MPI_SOURCE, pst.MPI_TAG,
                  st.MPI_SOURCE, st.MPI_TAG, count);
            check_msg(PH_MIXED, buf, &st, src, tag, how == 6 ? "mprobe" : "probe");
        } else {
            recv_check(PH_MIXED, src, tag, "mixed");
        }
        left--;
    }
}

int main(int argc, char **argv)
{
    int n;

    if (argc > 1)
        K = atoi(argv[1]);
    mt = argc > 2 && !strcmp(argv[2], "mt");
    if (mt) {
        if (mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE) < MPI_THREAD_MULTIPLE) {
            printf("SKIP: no MPI_THREAD_MULTIPLE\n");
            MPI_Finalize();
            return 0;
        }
    } else {
        mtest_init(&argc, &argv);
    }
    n = mtest_size;
    if (mtest_rank == 0) {
        got = calloc((size_t)n, sizeof *got);
        oldest = calloc((size_t)n, sizeof *oldest);
        for (int s = 1; s < n; s++)
            got[s] = calloc((size_t)K, 1);
    }
    for (int ph = 0; ph < NPHASES; ph++) {
        if (mtest_rank != 0) {
            int *buf = malloc(sizeof(int) * 3 * (size_t)K);
            MPI_Request *req = malloc(sizeof *req * (size_t)K);
            for (int i = 0; i < K; i++) {
                buf[3 * i] = mtest_rank;
                buf[3 * i + 1] = i;
                buf[3 * i + 2] = ph;
                OK(MPI_Isend(&buf[3 * i], 3, MPI_INT, 0, phase_tag(ph, mtest_rank, i),
                             MPI_COMM_WORLD, &req[i]));
            }
            OK(MPI_Barrier(MPI_COMM_WORLD));
            OK(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
            free(req);
            free(buf);
        } else {
            OK(MPI_Barrier(MPI_COMM_WORLD));
            for (int s = 1; s < n; s++) {
                memset(got[s], 0, (size_t)K);
                oldest[s] = 0;
            }
            if (ph == PH_MIXED) {
                take_mixed();
            } else if (mt && n > 2) {
                pthread_t th;
                part_t a = {ph, 1, 2}, b = {ph, 2, 2};
                CHECK(pthread_create(&th, NULL, take_part, &b) == 0, "pthread_create");
                take_part(&a);
                pthread_join(th, NULL);
            } else {
                part_t a = {ph, 1, 1};
                take_part(&a);
            }
            for (int s = 1; s < n; s++)
                for (int i = 0; i < K; i++)
                    if (!got[s][i]) {
                        CHECK(0, "phase %d: message %d of %d not received", ph, i, s);
                        break;
                    }
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (mtest_rank == 0) {
        for (int s = 1; s < n; s++)
            free(got[s]);
        free(got);
        free(oldest);
    }
    return mtest_finish();
}
