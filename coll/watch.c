/*
 * Mismatched collectives on the message path (issue 26): ranks of one
 * intracommunicator that call different collectives at the same point (an
 * erroneous program: MPI_Allreduce on one rank, MPI_Reduce_scatter on the
 * others) fail on every rank that waits, with a mismatch naming both calls,
 * instead of hanging. A collective's tag carries its kind in the low
 * COLL_TAG_KIND_BITS bits beside the communicator's call sequence
 * (next_tag in coll/sched.c), so messages of different collectives never
 * pair up. A blocking wait of a schedule or of coll/pair.c's exchange that
 * has lasted WATCH_FIRST_US first pokes the peers whose messages it still
 * expects (a 0-byte message tagged COLL_TAG_POKE + its kind: ranks whose
 * algorithms only receive first would otherwise never see the other
 * call), and then, at doubling intervals, probes for a message or poke of
 * the same call number with another kind, or for a notice (COLL_TAG_ABORT)
 * of a rank that found one. The finder sends that notice (its kind, the
 * other rank and kind) to every other rank, so that ranks whose own
 * messages never crossed the other collective stop too. A rank drains the
 * pokes of its kind at the end of each blocking schedule (a peer that
 * waited long for it; one that arrives after that stays queued). Correct
 * programs pay a counter per poll of a blocking wait, a probe per blocking
 * schedule, and, in waits longer than WATCH_FIRST_US, the pokes and a round
 * of probes. Not covered: nonblocking and persistent calls (MPI_Wait knows
 * no collective), intercommunicators, and a call on the node's shared
 * block against one by messages (coll/shm.c; the block's calls take no
 * tag). A pair in which no rank waits for another (MPI_Bcast from a root
 * against MPI_Reduce to it: every rank only sends) completes without an
 * error. Messages of the mismatched call stay unmatched in their
 * receivers' queues.
 */
#include "coll/coll_impl.h"

#include <stdint.h>
#include <string.h>

#include "common/clock.h"

_Static_assert((int)COLL_NEIGHBOR_ALLTOALLW < (int)COLL_TAG_POKE,
               "a collective's kind fits its tag");

/* The first look after WATCH_FIRST_US of waiting, then at doubling
 * intervals up to WATCH_MAX_US. */
enum { WATCH_FIRST_US = 20000, WATCH_MAX_US = 1000000 };

typedef struct {
    int (*pred)(void *arg);
    void *arg;
    unsigned calls;
    int64_t step, deadline; /* deadline 0: not set yet */
} budget_t;

/* pred, or `step` has passed since the 64th call. The clock is read every
 * 64th call only, so the short waits of correct programs never read it. */
static int budget_pred(void *p)
{
    budget_t *b = p;
    int64_t now;
    if (b->pred(b->arg))
        return 1;
    if ((++b->calls & 63) != 0)
        return 0;
    now = common_now_us();
    if (b->deadline == 0)
        b->deadline = now + b->step;
    return now >= b->deadline;
}

static void send_note(mpi_comm_t *c, int peer, const void *buf, size_t len, int tag);

static const char *kind_name(int k)
{
    return k >= 0 && k <= COLL_NEIGHBOR_ALLTOALLW ? coll_kind_name((coll_kind_t)k)
                                                  : "an unknown collective";
}

/* Tell every other rank of c that call `base` is mismatched. */
static void notify(mpi_comm_t *c, int base, const int32_t note[3])
{
    for (int r = 0; r < coll_size(c); r++)
        if (r != coll_rank(c))
            send_note(c, r, note, 3 * sizeof(int32_t), base | COLL_TAG_ABORT);
}

/* A notice of call `base` from another rank, or a message of that call
 * with another kind than `kind`: the mismatch error (and, for a message,
 * the notice sent to everyone), or CANAL_OK when there is neither. */
static canal_status_t look(mpi_comm_t *c, int base, int kind)
{
    int ctx = coll_context(c) + 1, flag = 0;
    adi_message_t *msg = NULL;
    adi_status_t stat;
    int32_t note[3];

    if (adi_improbe(ADI_ANY_SOURCE, base | COLL_TAG_ABORT, ctx, &flag, &msg, &stat) >= 0 && flag) {
        size_t got = 0;
        adi_status_t rs;
        canal_status_t st = adi_mrecv_now(note, sizeof note, coll_byte(), msg, &rs, &got);
        if (st == CANAL_AGAIN) {
            adi_request_t *q = NULL;
            if (adi_imrecv(note, sizeof note, coll_byte(), msg, &q) >= 0 && q != NULL) {
                adi_wait(q);
                got = q->status.bytes;
                adi_request_free(q);
            }
        }
        if (got != sizeof note)
            return common_err_set(CANAL_ERR_MISMATCH,
                                  "collective mismatch: rank %d found that the ranks called "
                                  "different collectives (this rank called %s)",
                                  stat.source, kind_name(kind));
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective mismatch: rank %d called %s where rank %d called %s "
                              "(this rank called %s)",
                              stat.source, kind_name(note[0]), note[1], kind_name(note[2]),
                              kind_name(kind));
    }
    coll_watch_drain(c, base | kind);
    for (int t = 0; t < 2 * COLL_TAG_POKE; t++) {
        int k = t % COLL_TAG_POKE;
        if (k > COLL_NEIGHBOR_ALLTOALLW || k == kind ||
            adi_iprobe(ADI_ANY_SOURCE, base | (t < COLL_TAG_POKE ? k : COLL_TAG_POKE + k), ctx,
                       &flag, &stat) < 0 ||
            !flag)
            continue;
        note[0] = kind;
        note[1] = stat.source;
        note[2] = k;
        notify(c, base, note);
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective mismatch: this rank called %s where rank %d called %s",
                              kind_name(kind), stat.source, kind_name(k));
    }
    return CANAL_OK;
}

static void send_note(mpi_comm_t *c, int peer, const void *buf, size_t len, int tag)
{
    adi_request_t *q = adi_request_alloc(ADI_REQ_SEND);
    if (q == NULL)
        return;
    if (adi_isend_into(q, buf, len, coll_byte(), coll_host.comm_peer_job_rank(c, peer),
                       coll_rank(c), tag, coll_context(c) + 1, ADI_MODE_STANDARD) >= 0)
        adi_wait(q); /* (at most 12 bytes: eager, done at once) */
    adi_request_free(q);
}

void coll_watch_poke(mpi_comm_t *c, int tag, int peer)
{
    int kind = tag & ((1 << COLL_TAG_KIND_BITS) - 1);
    if (peer != coll_rank(c) && kind < COLL_TAG_POKE)
        send_note(c, peer, NULL, 0, (tag - kind) | (COLL_TAG_POKE + kind));
}

void coll_watch_drain(mpi_comm_t *c, int tag)
{
    int kind = tag & ((1 << COLL_TAG_KIND_BITS) - 1), flag = 1, ctx = coll_context(c) + 1;
    int poke = (tag - kind) | (COLL_TAG_POKE + kind);
    adi_message_t *msg;
    adi_status_t stat;

    while (kind < COLL_TAG_POKE &&
           adi_improbe(ADI_ANY_SOURCE, poke, ctx, &flag, &msg, &stat) >= 0 && flag) {
        size_t got;
        adi_request_t *q = NULL;
        if (adi_mrecv_now(NULL, 0, coll_byte(), msg, &stat, &got) == CANAL_AGAIN &&
            adi_imrecv(NULL, 0, coll_byte(), msg, &q) >= 0 && q != NULL) {
            adi_wait(q);
            adi_request_free(q);
        }
    }
}

canal_status_t coll_watch_wait(mpi_comm_t *c, int tag, int (*pred)(void *arg), void *arg,
                               void (*poke)(void *arg))
{
    budget_t b = {pred, arg, 0, WATCH_FIRST_US, 0};
    int base = tag & ~((1 << COLL_TAG_KIND_BITS) - 1), kind = tag & ((1 << COLL_TAG_KIND_BITS) - 1);
    canal_status_t st;

    for (;;) {
        adi_wait_until(budget_pred, &b);
        if (pred(arg))
            return CANAL_OK;
        if (!coll_is_inter(c) && coll_size(c) >= 2) {
            if (poke != NULL && b.step == WATCH_FIRST_US)
                poke(arg);
            if ((st = look(c, base, kind)) < 0)
                return st;
        }
        if (b.step < WATCH_MAX_US)
            b.step *= 2;
        b.deadline = 0;
    }
}
