/* Matching with thousands of requests outstanding: every rank but 0 sends
 * rank 0 K messages with tags drawn from 40, a few of them rendezvous-sized;
 * rank 0 posts a receive for each, in a shuffled order, with patterns that
 * mix specific receives, MPI_ANY_SOURCE, MPI_ANY_TAG and both, plus
 * receives nothing can match, which it cancels while the traffic flows;
 * some receives are matched probes (MPI_Mprobe / MPI_Improbe + MPI_Mrecv).
 * Three rounds: receives posted before any send, sends before any receive
 * (long unexpected queue), and both at once.
 *
 * Checks: every message is received once, by a receive whose pattern takes
 * its envelope, with its data and status; cancelled receives report it; and
 * MPI's ordering rules: there are never two receives R (posted first) and
 * R' (posted later) and two messages m1, m2 of one sender (m1 sent first)
 * with R getting m2, R' getting m1 and R's pattern taking m1 (whatever the
 * timing, either R took m2 while m1 waited, or R' took m1 while R waited).
 *
 * So that every receive completes whatever the timing, the patterns are
 * chosen by tag class: tags = 0 mod 4 are received with (any, tag), 1 and 2
 * mod 4 with (source, tag), 3 mod 4 with (source, any) and then (any, any),
 * posted after all the others, in as many receives as messages per class.
 * Usage: pt2pt_match [K]  (default 4000 / (size - 1) + 1000 per sender).
 */
#include "mtest.h"

#include <stdint.h>

enum { NTAGS = 40, SMALL = 4, BIG = 6000, DUMMY_TAG = 30000, ROUNDS = 3 };
enum { R_POSTED_FIRST, R_SENDS_FIRST, R_CONCURRENT };
enum { OP_IRECV, OP_MPROBE, OP_IMPROBE, OP_DUMMY };

typedef struct {
    int tag, count;
} msg_t;

typedef struct {
    int src, tag;     /* pattern */
    int kind;         /* OP_* */
    int count;        /* buffer, ints */
    int *buf;
    MPI_Request req;
    int probe_src;    /* OP_IMPROBE: the probe's status */
    int got_src, got_j;
} op_t;

static uint64_t rng;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng >> 33) % n;
}

/* The messages sender s sends in round r (the receiver computes them too). */
static void schedule(int round, int s, int k, msg_t *m)
{
    rng = 0x9e3779b97f4a7c15ull * (uint64_t)(round * 131 + s + 1);
    for (int j = 0; j < k; j++) {
        m[j].tag = (int)rnd(NTAGS);
        m[j].count = (m[j].tag % 4 == 1 || m[j].tag % 4 == 2) && rnd(40) == 0 ? BIG : SMALL;
    }
}

static int takes(int psrc, int ptag, int src, int tag)
{
    return (psrc == MPI_ANY_SOURCE || psrc == src) && (ptag == MPI_ANY_TAG || ptag == tag);
}

static void fill(int *b, int count, int s, int j, int tag)
{
    b[0] = s;
    b[1] = j;
    b[2] = tag;
    for (int i = 3; i < count; i++)
        b[i] = s * 7 + j * 3 + i;
}

static void sender(int round, int rank, int k, msg_t *m)
{
    int **bufs = malloc(sizeof(int *) * (size_t)k);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)k);

    schedule(round, rank, k, m);
    if (round == R_POSTED_FIRST)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int j = 0; j < k; j++) {
        bufs[j] = malloc(sizeof(int) * (size_t)m[j].count);
        fill(bufs[j], m[j].count, rank, j, m[j].tag);
        MPI_Isend(bufs[j], m[j].count, MPI_INT, 0, m[j].tag, MPI_COMM_WORLD, &rq[j]);
    }
    if (round == R_SENDS_FIRST)
        MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "round %d: send waitall", round);
    for (int j = 0; j < k; j++)
        free(bufs[j]);
    free(bufs);
    free(rq);
}

static void shuffle(op_t *o, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1);
        op_t t = o[i];
        o[i] = o[j];
        o[j] = t;
    }
}

/* Post (or probe and receive) op o; returns 0 on success. */
static int post(op_t *o)
{
    MPI_Message msg;
    MPI_Status st;
    int flag = 0, err;

    o->buf = malloc(sizeof(int) * (size_t)o->count);
    o->buf[0] = o->buf[1] = -1;
    switch (o->kind) {
    case OP_MPROBE:
        err = MPI_Mprobe(o->src, o->tag, MPI_COMM_WORLD, &msg, &st);
        if (err == MPI_SUCCESS)
            err = MPI_Imrecv(o->buf, o->count, MPI_INT, &msg, &o->req);
        return err;
    case OP_IMPROBE:
        do
            err = MPI_Improbe(o->src, o->tag, MPI_COMM_WORLD, &flag, &msg, &st);
        while (err == MPI_SUCCESS && !flag);
        if (err == MPI_SUCCESS)
            err = MPI_Mrecv(o->buf, o->count, MPI_INT, &msg, &st);
        o->req = MPI_REQUEST_NULL;
        o->probe_src = st.MPI_SOURCE; /* checked against the data below */
        return err;
    default:
        return MPI_Irecv(o->buf, o->count, MPI_INT, o->src, o->tag, MPI_COMM_WORLD, &o->req);
    }
}

static void receiver(int round, int size, int k, msg_t **m)
{
    int nops = 0, nsrc = size - 1, n3 = 0;
    int total = nsrc * k;
    op_t *ops = calloc((size_t)(total + total / 20 + 8), sizeof(op_t));
    int *next_big = calloc((size_t)size * NTAGS, sizeof(int)); /* (s, tag) -> next j */
    char **seen = malloc(sizeof(char *) * (size_t)size);
    MPI_Status *st;
    int first2, ndummy = 0;

    for (int s = 1; s < size; s++) {
        schedule(round, s, k, m[s]);
        seen[s] = calloc((size_t)k, 1);
    }
    rng = 0x51ed27ull + (uint64_t)round;
    /* first block: (any, tag) and (source, tag), shuffled together */
    for (int s = 1; s < size; s++)
        for (int j = 0; j < k; j++) {
            int t = m[s][j].tag;
            if (t % 4 == 3) {
                n3++;
                continue;
            }
            ops[nops].src = t % 4 == 0 ? MPI_ANY_SOURCE : s;
            ops[nops].tag = t;
            ops[nops++].kind = OP_IRECV;
        }
    shuffle(ops, nops);
    /* second block: (source, any) for 2/3 of each sender's class-3
     * messages, shuffled; then (any, any) for the rest */
    first2 = nops;
    for (int s = 1; s < size; s++) {
        int c = 0;
        for (int j = 0; j < k; j++)
            c += m[s][j].tag % 4 == 3;
        for (int i = 0; i < c * 2 / 3; i++) {
            ops[nops].src = s;
            ops[nops].tag = MPI_ANY_TAG;
            ops[nops++].kind = OP_IRECV;
            n3--;
        }
    }
    shuffle(ops + first2, nops - first2);
    while (n3-- > 0) {
        ops[nops].src = MPI_ANY_SOURCE;
        ops[nops].tag = MPI_ANY_TAG;
        ops[nops++].kind = OP_IRECV;
    }
    /* buffer sizes: a (source, tag) receive gets that pair's messages in
     * order; the others only small ones. Some become matched probes
     * (not while the senders wait for the receives to be posted). */
    for (int i = 0; i < nops; i++) {
        op_t *o = &ops[i];
        o->count = SMALL;
        if (o->src != MPI_ANY_SOURCE && o->tag != MPI_ANY_TAG) {
            int *nj = &next_big[o->src * NTAGS + o->tag];
            while (m[o->src][*nj].tag != o->tag)
                (*nj)++;
            o->count = m[o->src][*nj].count;
            (*nj)++;
        }
        if (round != R_POSTED_FIRST && i < first2 && rnd(25) == 0)
            o->kind = rnd(2) ? OP_MPROBE : OP_IMPROBE;
    }
    /* receives that nothing matches, spread through the queue; cancelled */
    for (int i = 0; i < total / 40 + 3; i++) {
        int at = (int)rnd((unsigned)nops + 1);
        memmove(&ops[at + 1], &ops[at], sizeof(op_t) * (size_t)(nops - at));
        ops[at] = (op_t){.kind = OP_DUMMY, .count = SMALL};
        switch (i % 3) {
        case 0: ops[at].src = MPI_ANY_SOURCE, ops[at].tag = DUMMY_TAG; break;
        case 1: ops[at].src = 0, ops[at].tag = MPI_ANY_TAG; break; /* rank 0 sends itself nothing */
        default: ops[at].src = 1 + i % nsrc, ops[at].tag = DUMMY_TAG + 1; break;
        }
        nops++;
        ndummy++;
    }

    if (round == R_SENDS_FIRST)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < nops; i++)
        CHECK(post(&ops[i]) == MPI_SUCCESS, "round %d: posting receive %d", round, i);
    if (round == R_POSTED_FIRST)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < nops; i++) {
        if (ops[i].kind != OP_DUMMY)
            continue;
        CHECK(MPI_Cancel(&ops[i].req) == MPI_SUCCESS, "round %d: cancel", round);
    }
    st = malloc(sizeof(MPI_Status) * (size_t)nops);
    {
        MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)nops);
        for (int i = 0; i < nops; i++)
            rq[i] = ops[i].req;
        CHECK(MPI_Waitall(nops, rq, st) == MPI_SUCCESS, "round %d: receive waitall", round);
        free(rq);
    }

    for (int i = 0; i < nops; i++) {
        op_t *o = &ops[i];
        int s = o->buf[0], j = o->buf[1], flag = 0;
        if (o->kind == OP_DUMMY) {
            MPI_Test_cancelled(&st[i], &flag);
            CHECK(flag, "round %d: receive %d (%d, %d) matching nothing was not cancelled",
                  round, i, o->src, o->tag);
            o->got_src = -1;
            free(o->buf);
            continue;
        }
        o->got_src = -1;
        if (s < 1 || s >= size || j < 0 || j >= k) {
            CHECK(0, "round %d: receive %d (%d, %d) holds no message (%d, %d)", round, i, o->src,
                  o->tag, s, j);
            free(o->buf);
            continue;
        }
        CHECK(!seen[s][j], "round %d: message %d of rank %d received twice", round, j, s);
        seen[s][j] = 1;
        CHECK(takes(o->src, o->tag, s, m[s][j].tag),
              "round %d: receive %d (%d, %d) got message %d of rank %d, tag %d", round, i, o->src,
              o->tag, j, s, m[s][j].tag);
        CHECK(o->buf[2] == m[s][j].tag, "round %d: message %d of rank %d: tag %d in the data",
              round, j, s, o->buf[2]);
        if (o->kind != OP_IMPROBE) {
            int count = -1;
            MPI_Get_count(&st[i], MPI_INT, &count);
            CHECK(st[i].MPI_SOURCE == s && st[i].MPI_TAG == m[s][j].tag &&
                      count == m[s][j].count,
                  "round %d: receive %d: status (%d, %d, %d), message (%d, %d, %d)", round, i,
                  st[i].MPI_SOURCE, st[i].MPI_TAG, count, s, m[s][j].tag, m[s][j].count);
        } else {
            CHECK(o->probe_src == s, "round %d: probe %d: status source %d, message from %d",
                  round, i, o->probe_src, s);
        }
        for (int x = 3; x < m[s][j].count && x < o->count; x += 97)
            CHECK(o->buf[x] == s * 7 + j * 3 + x, "round %d: message %d of rank %d: int %d is %d",
                  round, j, s, x, o->buf[x]);
        o->got_src = s;
        o->got_j = j;
        free(o->buf);
    }
    for (int s = 1; s < size; s++)
        for (int j = 0; j < k; j++)
            CHECK(seen[s][j], "round %d: message %d of rank %d never received", round, j, s);
    /* ordering: per sender, receives in posting order */
    for (int s = 1; s < size; s++) {
        int *idx = malloc(sizeof(int) * (size_t)k), n = 0, bad = 0;
        for (int i = 0; i < nops; i++)
            if (ops[i].got_src == s)
                idx[n++] = i;
        for (int a = 0; a < n && bad < 3; a++) {
            op_t *r = &ops[idx[a]];
            for (int b = a + 1; b < n; b++) {
                op_t *r2 = &ops[idx[b]];
                if (r->got_j > r2->got_j && takes(r->src, r->tag, s, m[s][r2->got_j].tag)) {
                    CHECK(0,
                          "round %d: receive %d (%d, %d) got message %d of rank %d but the "
                          "later receive %d (%d, %d) got its earlier message %d, which the "
                          "first one takes",
                          round, idx[a], r->src, r->tag, r->got_j, s, idx[b], r2->src, r2->tag,
                          r2->got_j);
                    bad++;
                    break;
                }
            }
        }
        free(idx);
    }
    for (int s = 1; s < size; s++)
        free(seen[s]);
    free(seen);
    free(st);
    free(next_big);
    free(ops);
}

int main(int argc, char **argv)
{
    int rank, size, k;
    msg_t **m;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2) {
        if (rank == 0)
            printf(" No Errors\n");
        MPI_Finalize();
        return 0;
    }
    k = argc > 1 ? atoi(argv[1]) : 4000 / (size - 1) + 1000;
    m = malloc(sizeof(msg_t *) * (size_t)size);
    for (int s = 0; s < size; s++)
        m[s] = malloc(sizeof(msg_t) * (size_t)k);
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 0)
            receiver(round, size, k, m);
        else
            sender(round, rank, k, m[rank]);
        /* a sender's next round must not feed this round's wildcards */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int s = 0; s < size; s++)
        free(m[s]);
    free(m);
    return mtest_finish();
}
