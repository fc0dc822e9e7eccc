/*
 * Mismatched collectives on the message path (issue 26): ranks of one
 * intracommunicator that call different collectives at the same point (an
 * erroneous program: MPI_Allreduce on one rank, MPI_Reduce_scatter on the
 * others) fail on every rank that waits, with a mismatch naming both calls,
 * instead of hanging. A collective's tag carries its kind in the low
 * COLL_TAG_KIND_BITS bits beside the communicator's call sequence
 * (next_tag in coll/sched.c), so messages of different collectives never
 * pair up. A blocking wait of a schedule or of coll/pair.c's exchange
 * looks, once it has waited WATCH_FIRST_US and then at doubling intervals,
 * for a message of the same call number with another kind, for a poke
 * (tag COLL_TAG_POKE, data: call and kind) of such a call, or for a notice
 * (COLL_TAG_ABORT in the kind bits) of a rank that found one; from a second
 * of waiting on, every look also pokes the peers whose messages the wait
 * still expects (ranks whose algorithms only receive first would otherwise
 * never see the other call). The finder sends the notice (its kind, the
 * other rank and kind) to every other rank, so that ranks whose own
 * messages never crossed the other collective stop too. A rank whose
 * blocking call ends with a message of the wrong size (the ranks passed
 * counts that do not match: a longer one truncated, a shorter one a
 * mismatch) sends the notice too (coll_watch_failed), so that the ranks
 * whose algorithm still waits for a message it will never send stop
 * instead of hanging. Pokes that reach
 * a rank of a correct program (a peer waited a second for it) are taken at
 * its looks and at every WATCH_DRAIN_EVERY-th blocking schedule, one probe;
 * when the communicator is freed (coll_watch_leftovers); and, for a poke
 * that was still on its way then (its sender decided to poke just as this
 * rank's message reached it, and this rank had finished the call and freed
 * the communicator), when the next communicator on the same context ids
 * makes its collective state, at its first collective here
 * (coll_watch_fresh): such a poke was sent before its sender took part in
 * making that communicator, so it has arrived by then, and a poke taken
 * for the new communicator's call of the same number failed a correct
 * call there (coll_stale_poke); a rank that poked waits at its next free
 * for the poke to leave its channel's queue, and the fresh drain polls
 * until nothing more comes (coll_stale_poke_queued); a note that the last
 * communicator was out of step is drained there unheeded, and its sender
 * waits at the free for it to leave too (coll_step_stale), and so is a
 * mismatch's notice that came after this rank freed it (coll_stale_notice):
 * the notes at the head of each sender's queue.
 * The time between looks is the device's wait limit (adi_wait_until_for,
 * read where its loop reads the clock anyway), so correct programs pay
 * nothing per poll and, in waits longer than WATCH_FIRST_US, a round of
 * probes per look. A call on the
 * node's shared block (coll/shm.c), which takes no tag, waits here too
 * (coll_watch_wait_block) with the call number the communicator's next tag
 * has, and any message or poke of that number is another call's; the
 * nonblocking and persistent calls' MPI_Wait too (coll_request_wait in
 * coll/sched.c), MPI_Waitall's (one coll_request_wait per collective) and
 * MPI_Waitany's and MPI_Waitsome's (coll_request_look at each of the
 * device's limits; mpi/request.c), and loops of MPI_Test (every 64th test
 * that finds a collective not done). On an intercommunicator a look probes
 * its collective context and its local communicator's (where the call's
 * local part runs with the same tag), and a notice goes to both groups. A
 * pair in which no rank waits for another (MPI_Bcast from a root against
 * MPI_Reduce to it: every rank only sends) completes without an error.
 * Messages of the mismatched call stay unmatched in their receivers'
 * queues until the communicator is freed: then coll_watch_leftovers takes
 * them unread (adi_mdiscard) and warns naming the call (which is how a
 * send-only pair is told; on an intercommunicator too, where both groups
 * passing MPI_ROOT to an MPI_Bcast is such a pair). A root mismatch
 * across an intercommunicator is also seen from a message of the call
 * from a remote rank the call never receives from (hooks->receives), or a
 * poke of the call from one it never sends to (hooks->sends: that rank
 * waits for a message that will never come), or a poke of a call this rank
 * took no part in (MPI_PROC_NULL: coll_sched_set_absent's record), or
 * whose part across was one send to another rank (a reduce's leader:
 * coll_sched_set_sent_only), which it answers (answer_absent) at any look
 * on any communicator or drain; a send across that waits pokes its
 * receiver too (POKE_FROM_SEND: only such a record answers it); where
 * every rank that could tell has left the call, it is not (doc/design.md).
 * A call on the block that meets one by messages leaves the communicator
 * out of step (the block's ranks entered a call the others did not, the
 * others took a tag): step_out marks it (coll_comm_step_out) and pokes
 * every rank with the note, and every later collective on it fails.
 */
#include "coll/coll_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

_Static_assert((int)COLL_NEIGHBOR_ALLTOALLW < (int)COLL_TAG_POKE,
               "a collective's kind fits its tag");

/* The first look after WATCH_FIRST_US of waiting, then at doubling
 * intervals up to WATCH_MAX_US, from where every look pokes; pokes are
 * drained at every WATCH_DRAIN_EVERY-th blocking schedule (and at looks). */
enum { WATCH_FIRST_US = COLL_WATCH_FIRST_US, WATCH_MAX_US = 1000000, WATCH_DRAIN_EVERY = 64 };

static void send_note(mpi_comm_t *c, int peer, const void *buf, size_t len, int tag);

/* Notes sent since a communicator's free last waited for the channels to
 * hand them on (atomic; pokes, step_out's notes, notices and answers:
 * send_note counts them): a poke may still wait in
 * its channel's own queue (sock's out-buffer, behind a socket its peer
 * reads slowly) when its call ends; coll_watch_leftovers waits for it there, before this rank can take
 * part in making the next communicator on the same context ids. */
static unsigned pokes_unsent;

/* A poke whose call is STEP_NOTE says that c is out of step (its data:
 * STEP_NOTE and the kind of the call on the block). */
enum { STEP_NOTE = -2 };

/* This rank's call of `kind` on the node's block failed because another
 * rank called a collective by messages: c is out of step (the block's
 * ranks entered a call the others did not, the others took a tag the
 * block's did not). Mark it and tell every other rank, once: every later
 * collective on c fails at once here, and a rank that waits in one stops
 * at its next look (or takes the poke at its next drain). */
static void step_out(mpi_comm_t *c, int kind)
{
    int32_t note[2] = {STEP_NOTE, kind};
    if (!coll_comm_step_out(c, coll_rank(c), kind))
        return;
    for (int r = 0; r < coll_size(c); r++)
        if (r != coll_rank(c))
            send_note(c, r, note, sizeof note, COLL_TAG_POKE);
}

void coll_watch_step_out(mpi_comm_t *c, coll_kind_t kind)
{
    if (!coll_is_inter(c) && coll_size(c) >= 2)
        step_out(c, (int)kind);
}

static const char *kind_name(int k)
{
    return k >= 0 && k <= COLL_NEIGHBOR_ALLTOALLW ? coll_kind_name((coll_kind_t)k)
                                                  : "an unknown collective";
}

/* Tell every other rank of c that call `base` is mismatched: on an
 * intercommunicator, every rank of the remote group (on c) and every
 * other rank of the local group (on its local communicator, where the
 * call's local part runs with the same tag). */
static void notify(mpi_comm_t *c, int base, const int32_t note[3])
{
    mpi_comm_t *l = c;
    if (coll_is_inter(c)) {
        for (int r = 0; r < coll_peer_size(c); r++)
            send_note(c, r, note, 3 * sizeof(int32_t), base | COLL_TAG_ABORT);
        l = coll_local(c);
    }
    for (int r = 0; r < coll_size(l); r++)
        if (r != coll_rank(l))
            send_note(l, r, note, 3 * sizeof(int32_t), base | COLL_TAG_ABORT);
}

/* Rank `other` called collective `k` at call `base` where this rank
 * called `kind` (on the node's block when kind holds COLL_WATCH_BLOCK):
 * tell everyone (the notice first: a rank that takes the out-of-step poke
 * has the notice of the call too), and the error. */
static canal_status_t found(mpi_comm_t *c, mpi_comm_t *p, int base, int kind, int other, int k)
{
    const char *grp = !coll_is_inter(c) ? "" : p == c ? " of the remote group" : " of this group";
    int32_t note[3] = {kind & (COLL_WATCH_BLOCK - 1), other, k};
    notify(c, base, note);
    if (kind & COLL_WATCH_BLOCK)
        step_out(c, kind & (COLL_WATCH_BLOCK - 1));
    kind &= COLL_WATCH_BLOCK - 1;
    return common_err_set(CANAL_ERR_MISMATCH,
                          "collective mismatch: this rank called %s where rank %d%s called %s",
                          kind_name(kind), other, grp, kind_name(k));
}

static void drain(mpi_comm_t *c, mpi_comm_t *p, int base, int kind, int32_t who[3]);

/* The second word of a notice whose finder saw the two groups of an
 * intercommunicator disagree about a call's root (root_disagrees). */
enum { ROOT_NOTE = -3 };
/* The second word of the answer of a rank that took no part in the call
 * (MPI_PROC_NULL) to a remote rank that poked it (answer_absent); of one
 * whose part across was a send to another remote rank (SENT_NOTE). */
enum { ABSENT_NOTE = -4, SENT_NOTE = -5 };

/* A message of this call (kind `kind`, the same as this rank's) came to
 * this rank of intercommunicator c from rank `other` of the remote group,
 * which the call never receives from, or (waits) a poke of it, which the
 * call never sends to: the groups disagree about the root (one names a
 * root the other does not have; both pass MPI_ROOT, and a root gets the
 * other's message; both name a remote root, and each waits for the other).
 * Tell everyone, and the error. */
static canal_status_t root_disagrees(mpi_comm_t *c, int base, int kind, int other, int waits)
{
    int32_t note[3] = {kind, ROOT_NOTE, kind};
    notify(c, base, note);
    return common_err_set(CANAL_ERR_MISMATCH,
                          "collective mismatch: rank %d of the remote group %s of its %s, which "
                          "this rank's call does not %s it: the two groups disagree about the "
                          "root (MPI_ROOT, MPI_PROC_NULL or the root's rank)",
                          other, waits ? "waits for this rank's message" : "sent this rank a message",
                          kind_name(kind), waits ? "send to" : "receive from");
}

/* Receive the probed message msg (a note of watch.c, a few bytes) into
 * buf: the bytes received, 0 when it could not be taken. */
static size_t take(adi_message_t *msg, void *buf, size_t len)
{
    adi_status_t rs;
    adi_request_t *q = NULL;
    size_t got = 0;

    if (adi_mrecv_now(buf, len, coll_byte(), msg, &rs, &got) != CANAL_AGAIN)
        return got;
    if (adi_imrecv(buf, len, coll_byte(), msg, &q) < 0 || q == NULL)
        return 0;
    adi_wait(q);
    got = q->status.bytes;
    adi_request_free(q);
    return got;
}

/* A notice of call `base` from another rank, or a message of that call
 * with another kind than `kind`: the mismatch error (and, for a message,
 * the notice sent to everyone), or CANAL_OK when there is neither. A call
 * on the node's shared block (COLL_WATCH_BLOCK in kind) sends no message:
 * any message or poke of call `base` is another call's, unless pred holds
 * when it is seen (its sender had left this call, a correct program). */
static canal_status_t look_on(mpi_comm_t *c, mpi_comm_t *p, int base, int kind,
                              int (*pred)(void *arg), void *arg, const coll_watch_hooks_t *hooks)
{
    int any = kind >= COLL_WATCH_BLOCK;
    int ctx = coll_context(p) + 1, flag = 0;
    adi_message_t *msg = NULL;
    adi_status_t stat;
    int32_t note[3];

    if (adi_improbe(ADI_ANY_SOURCE, base | COLL_TAG_ABORT, ctx, &flag, &msg, &stat) >= 0 && flag) {
        size_t got = take(msg, note, sizeof note);
        if (any)
            step_out(c, kind & (COLL_WATCH_BLOCK - 1));
        else
            drain(c, p, base, kind, NULL); /* (the out-of-step poke, if the finder sent one) */
        if (got != sizeof note)
            return common_err_set(CANAL_ERR_MISMATCH,
                                  "collective mismatch: rank %d found that the ranks called "
                                  "different collectives (this rank called %s)",
                                  stat.source, kind_name(kind & (COLL_WATCH_BLOCK - 1)));
        if ((note[1] == ABSENT_NOTE || note[1] == SENT_NOTE) && p == c &&
            coll_is_inter(c)) { /* (answer_absent's) */
            int32_t rn[3] = {kind, ROOT_NOTE, kind};
            notify(c, base, rn);
            return common_err_set(
                CANAL_ERR_MISMATCH,
                "collective mismatch: rank %d of the remote group, which this rank's %s waits "
                "for, %s %s%s: the two groups disagree about the root (no rank of the root's "
                "group passed MPI_ROOT, a group named the wrong rank, or the receiving group "
                "passed MPI_PROC_NULL)",
                stat.source, kind_name(kind),
                note[1] == SENT_NOTE ? "sent its part of its" : "passed MPI_PROC_NULL to its",
                kind_name(note[0]),
                note[1] == SENT_NOTE ? " to another rank of this group and returned"
                                     : " (it took no part in the call and returned)");
        }
        if (note[1] == ROOT_NOTE) /* (root_disagrees's) */
            return common_err_set(CANAL_ERR_MISMATCH,
                                  "collective mismatch: rank %d%s found that the two groups "
                                  "disagree about the root of %s (MPI_ROOT, MPI_PROC_NULL or "
                                  "the root's rank; this rank called %s)",
                                  stat.source,
                                  !coll_is_inter(c) ? "" : p == c ? " of the remote group"
                                                                  : " of this group",
                                  kind_name(note[0]), kind_name(kind & (COLL_WATCH_BLOCK - 1)));
        if (note[0] == note[2]) /* (coll_watch_failed's) */
            return common_err_set(CANAL_ERR_MISMATCH,
                                  "collective mismatch: rank %d found that the ranks' calls of "
                                  "%s did not match in size (this rank called %s)",
                                  stat.source, kind_name(note[0]),
                                  kind_name(kind & (COLL_WATCH_BLOCK - 1)));
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective mismatch: rank %d called %s where rank %d called %s "
                              "(this rank called %s)",
                              stat.source, kind_name(note[0]), note[1], kind_name(note[2]),
                              kind_name(kind & (COLL_WATCH_BLOCK - 1)));
    }
    for (int k = 0; k <= COLL_NEIGHBOR_ALLTOALLW; k++) {
        if (k == kind || adi_iprobe(ADI_ANY_SOURCE, base | k, ctx, &flag, &stat) < 0 || !flag)
            continue;
        if (any && pred(arg))
            return CANAL_OK;
        return found(c, p, base, kind, stat.source, k);
    }
    if (!any && p == c && coll_is_inter(c) && hooks != NULL && hooks->receives != NULL &&
        adi_iprobe(ADI_ANY_SOURCE, base | kind, ctx, &flag, &stat) >= 0 && flag &&
        !hooks->receives(arg, c, stat.source))
        return root_disagrees(c, base, kind, stat.source, 0);
    {
        int32_t who[3] = {-1, -1, -1};
        canal_status_t st;
        drain(c, p, base, kind, who);
        if (who[0] >= 0 && !(any && pred(arg)))
            return found(c, p, base, kind, who[0], who[1]);
        /* (a remote rank waits in this call for a message this rank's call
         * never sends it; pokes come only after a second of waiting) */
        if (who[2] >= 0 && !any && p == c && coll_is_inter(c) && hooks != NULL &&
            hooks->sends != NULL && !hooks->sends(arg, c, who[2]))
            return root_disagrees(c, base, kind, who[2], 1);
        /* (a rank said c is out of step: this call waits for a rank that
         * fails its calls on c at once) */
        if ((st = coll_comm_step_check(c)) < 0 && !(any && pred(arg)))
            return st;
    }
    return CANAL_OK;
}

/* look_on c's context; on an intercommunicator, also on its local
 * communicator's (the local part of the call: messages of the local
 * group's ranks, and the notices and pokes they send). */
static canal_status_t look(mpi_comm_t *c, int base, int kind, int (*pred)(void *arg), void *arg,
                           const coll_watch_hooks_t *hooks)
{
    canal_status_t st = look_on(c, c, base, kind, pred, arg, hooks);
    mpi_comm_t *a;
    if (st >= 0 && coll_is_inter(c))
        st = look_on(c, coll_local(c), base, kind, pred, arg, hooks);
    /* (answer the pokes of the last call this rank took no part in, on
     * whatever communicator it waits now; held, as another thread may
     * free it meanwhile) */
    if ((a = coll_absent_hold(c)) != NULL) {
        drain(a, a, -1, -1, NULL);
        coll_absent_drop(a);
    }
    return st;
}

/* Send a note (a poke, a STEP_NOTE, a notice, an answer) to peer of c,
 * counted in pokes_unsent: out of the channels before this rank takes
 * part in making the next communicator on c's ids (coll_watch_leftovers). */
static void send_note(mpi_comm_t *c, int peer, const void *buf, size_t len, int tag)
{
    adi_request_t *q = adi_request_alloc(ADI_REQ_SEND);
    __atomic_add_fetch(&pokes_unsent, 1, __ATOMIC_RELAXED);
    if (q == NULL)
        return;
    if (adi_isend_into(q, buf, len, coll_byte(), coll_host.comm_peer_job_rank(c, peer),
                       coll_rank(c), tag, coll_context(c) + 1, ADI_MODE_STANDARD) >= 0)
        adi_wait(q); /* (at most 12 bytes: eager, done at once) */
    adi_request_free(q);
}

void coll_watch_failed(mpi_comm_t *c, int tag, canal_status_t st)
{
    int kind = tag & ((1 << COLL_TAG_KIND_BITS) - 1);
    int32_t note[3] = {kind, -1, kind};
    if ((st == CANAL_ERR_TRUNCATE || st == CANAL_ERR_MISMATCH) &&
        (coll_is_inter(c) || coll_size(c) >= 2))
        notify(c, tag - kind, note);
}

/* The second word of a poke from a send that waits for its receiver
 * (coll_watch_poke_receiver) holds this bit beside the call's kind. */
enum { POKE_FROM_SEND = 1 << 16 };

static void poke(mpi_comm_t *c, int tag, int peer, int32_t from_send)
{
    int kind = tag & ((1 << COLL_TAG_KIND_BITS) - 1);
    int32_t note[2] = {tag - kind, kind | from_send};
    if (coll_is_inter(c) || peer != coll_rank(c)) /* (inter: peer is a remote rank) */
        send_note(c, peer, note, sizeof note, COLL_TAG_POKE);
}

void coll_watch_poke(mpi_comm_t *c, int tag, int peer) { poke(c, tag, peer, 0); }

void coll_watch_poke_receiver(mpi_comm_t *c, int tag, int peer)
{
    poke(c, tag, peer, POKE_FROM_SEND);
}

/* Take every poke that reached this rank on p's context (c's, or on an
 * intercommunicator c its local communicator's); who: a poke of call
 * `base` with another kind than `kind` (any kind when kind holds
 * COLL_WATCH_BLOCK), if any: (rank, kind); and who[2], the rank of a poke
 * of that call with the same kind (a peer that waits for this rank). */
/* A poke (call, kind) from remote rank `from` of intercommunicator c, of
 * a call this rank took no part in (coll_comm_was_absent: it passed
 * MPI_PROC_NULL and returned): the remote rank waits for a message this
 * rank never sends, which a correct program never does. Answer it with a
 * notice of that call (ABSENT_NOTE: the remote rank fails saying the
 * groups disagree about the root, and stops its group); 1 when answered. */
static int answer_absent(mpi_comm_t *c, const int32_t poke[2], int from)
{
    int k = -1, sent = 0;
    int32_t note[3];
    if (!coll_comm_was_absent(c, poke[0], &k) &&
        !(sent = coll_comm_sent_elsewhere(c, poke[0], from, &k)))
        return 0;
    note[0] = k >= 0 ? k : poke[1];
    note[1] = sent ? SENT_NOTE : ABSENT_NOTE;
    note[2] = poke[1];
    send_note(c, from, note, sizeof note, poke[0] | COLL_TAG_ABORT);
    return 1;
}

static void drain(mpi_comm_t *c, mpi_comm_t *p, int base, int kind, int32_t who[3])
{
    int flag = 1, ctx = coll_context(p) + 1;
    adi_message_t *msg;
    adi_status_t stat;

    while (adi_improbe(ADI_ANY_SOURCE, COLL_TAG_POKE, ctx, &flag, &msg, &stat) >= 0 && flag) {
        int32_t note[2] = {-1, -1}, from_send;
        if (take(msg, note, sizeof note) != sizeof note)
            continue;
        from_send = note[0] >= 0 ? note[1] & POKE_FROM_SEND : 0;
        note[1] &= ~from_send;
        if (note[0] == STEP_NOTE) {
            coll_comm_step_out(c, stat.source, note[1]);
        } else if (p == c && coll_is_inter(c) && note[0] >= 0 && answer_absent(c, note, stat.source))
            continue;
        else if (from_send) /* (this rank's call takes that message, or has taken it) */
            continue;
        else if (note[0] == base && note[1] != kind && who != NULL) {
            who[0] = stat.source;
            who[1] = note[1];
        } else if (note[0] == base && who != NULL) {
            who[2] = stat.source;
        }
    }
}

/* A note of this file on a collective context (tags below `limit`): a
 * poke (a STEP_NOTE too) or a notice (COLL_TAG_ABORT in the kind bits). */
static int is_note(int tag, int limit)
{
    return tag == COLL_TAG_POKE ||
           (tag >= 0 && tag < limit &&
            (tag & ((1 << COLL_TAG_KIND_BITS) - 1)) == COLL_TAG_ABORT);
}

/* Take unread the notes at the head of what source `src` (ADI_ANY_SOURCE:
 * any) has queued on context ctx; 1 when a message that is no note comes
 * first (there may be notes of another source behind it). */
static int drop_notes(int src, int ctx, int limit)
{
    int flag = 0;
    adi_status_t stat;
    adi_message_t *msg;

    while (adi_iprobe(src, ADI_ANY_TAG, ctx, &flag, &stat) >= 0 && flag) {
        if (!is_note(stat.tag, limit))
            return 1;
        if (adi_improbe(stat.source, stat.tag, ctx, &flag, &msg, &stat) < 0 || !flag)
            return 0;
        adi_mdiscard(msg);
    }
    return 0;
}

/* drop_notes on p's collective context, whose sources are n ranks: what
 * comes first, and source by source behind a message that is no note (a
 * freed communicator's notes from a rank came before anything that rank
 * sent on this one: a pair's messages stay in order). */
static void fresh_on(mpi_comm_t *p, int n, int limit)
{
    int ctx = coll_context(p) + 1;
    if (drop_notes(ADI_ANY_SOURCE, ctx, limit))
        for (int r = 0; r < n; r++)
            drop_notes(r, ctx, limit);
}

void coll_watch_fresh(mpi_comm_t *c, int limit)
{
    if (!coll_is_inter(c) && coll_size(c) < 2)
        return;
    /* (what has come, all of it: a note may follow a backlog that one
     * poll does not read, sock's 8 buffers a connection) */
    for (int i = 0; i < 64 && adi_progress() > 0; i++)
        ;
    /* (a note that the communicator is out of step is the last one's too,
     * and would fail this one's first call here alone; a notice of the
     * last one's call k failed this one's correct call k: coll_stale_notice) */
    if (coll_is_inter(c)) {
        fresh_on(c, coll_peer_size(c), limit);
        fresh_on(coll_local(c), coll_size(coll_local(c)), limit);
    } else {
        fresh_on(c, coll_size(c), limit);
    }
}

void coll_watch_drain(mpi_comm_t *c, int tag)
{
    if (((tag >> COLL_TAG_KIND_BITS) & (WATCH_DRAIN_EVERY - 1)) == 0) {
        drain(c, c, 0, 0, NULL);
        if (coll_is_inter(c))
            drain(c, coll_local(c), 0, 0, NULL);
    }
}

void coll_watch_leftovers(mpi_comm_t *c, int limit)
{
    int ctx = coll_context(c) + 1, flag = 0, n = 0, first_src = -1, first_tag = 0;
    int inter = coll_is_inter(c);
    unsigned poked = __atomic_load_n(&pokes_unsent, __ATOMIC_RELAXED);
    adi_status_t stat;
    adi_message_t *msg;

    /* This rank's pokes out of its channels' queues (to the kernel or the
     * peer's memory) before it can take part in making a communicator on
     * these context ids, which the poked rank's coll_watch_fresh follows:
     * before, a poke behind a full socket came after it and failed the
     * next communicator's correct first call (coll_stale_poke_queued on
     * sock). Only after a poke (a wait of a second): nothing otherwise. */
    if (poked != 0) {
        adi_wait_sent();
        __atomic_compare_exchange_n(&pokes_unsent, &poked, 0, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    }
    /* (an intercommunicator's context carries the messages across the two
     * groups, from ranks of the other one: its local part's run on its
     * local communicator, released on its own) */
    if (!inter && coll_size(c) < 2)
        return;
    /* One message at a time, by its source and tag. The collectives' tags
     * are 0 .. limit - 1 on every kind of communicator, wrapped or not
     * (next_tag in coll/sched.c: the call number modulo limit >> 6); the
     * tags from `limit` on are mpi/comm.c's and dyn/'s, never taken here.
     * A negative one is mpi/part.c's (partitioned communication on the same
     * context), left by a receive freed before it came: taken (its sender
     * is answered) but not counted as a collective's. */
    while (adi_iprobe(ADI_ANY_SOURCE, ADI_ANY_TAG, ctx, &flag, &stat) >= 0 && flag &&
           stat.tag < limit &&
           adi_improbe(stat.source, stat.tag, ctx, &flag, &msg, &stat) >= 0 && flag) {
        int kind = stat.tag & ((1 << COLL_TAG_KIND_BITS) - 1);
        if (stat.tag >= 0 && kind <= COLL_NEIGHBOR_ALLTOALLW && stat.tag != COLL_TAG_POKE &&
            n++ == 0) {
            first_src = stat.source;
            first_tag = stat.tag;
        }
        /* (its bytes are nobody's: not moved; a rendezvous sender is
         * answered at once, so this waits for no sender, one in
         * MPI_Finalize's fence among them) */
        adi_mdiscard(msg);
    }
    if (n > 0)
        LOG_WARN("collective mismatch on %s being freed: %srank %d's %s (its call %d on the "
                 "communicator) never met a matching call on rank %d (the ranks called "
                 "different collectives there%s; one that only sends returns without an "
                 "error); %d such message(s) discarded",
                 inter ? "an intercommunicator" : "a communicator",
                 inter ? "the other group's " : "", first_src,
                 kind_name(first_tag & ((1 << COLL_TAG_KIND_BITS) - 1)),
                 first_tag >> COLL_TAG_KIND_BITS, coll_rank(c),
                 inter ? ", or the groups disagreed about the root" : "", n);
}

long long coll_watch_step(long long prev)
{
    return prev <= 0 ? WATCH_FIRST_US : prev < WATCH_MAX_US ? prev * 2 : WATCH_MAX_US;
}

/* A look of a wait for call `base` (-1: the call number c's next tag
 * has, read now: a block's call) that has waited `step` at a time:
 * from WATCH_MAX_US on, poke(arg) first. */
static canal_status_t watch_look(mpi_comm_t *c, int *base, int kind, int (*pred)(void *arg),
                                 void *arg, const coll_watch_hooks_t *hooks, long long step)
{
    if (*base < 0)
        *base = coll_comm_peek_tag(c);
    if (*base < 0 || (!coll_is_inter(c) && coll_size(c) < 2))
        return CANAL_OK;
    if (hooks != NULL && hooks->poke != NULL && step >= WATCH_MAX_US)
        hooks->poke(arg);
    return look(c, *base, kind, pred, arg, hooks);
}

/* The wait of coll_watch_wait and coll_watch_wait_block after their first
 * WATCH_FIRST_US (coll_impl.h's inline part, so that a wait that ends
 * before pays nothing more than the device's wait): kind may hold
 * COLL_WATCH_BLOCK (a call on the node's shared block, which has no tag);
 * base -1: the call number c's next tag has, read at the first look (no
 * look when c's state cannot be made). The time between looks is the
 * device's wait limit (adi_wait_until_for), so the polls pay nothing for
 * the watch. */
static canal_status_t watch_wait(mpi_comm_t *c, int base, int kind, int (*pred)(void *arg),
                                 void *arg, const coll_watch_hooks_t *hooks)
{
    canal_status_t st;
    long long step = WATCH_FIRST_US;

    for (;;) {
        if (pred(arg))
            return CANAL_OK;
        if ((st = watch_look(c, &base, kind, pred, arg, hooks, step)) < 0)
            return st;
        step = coll_watch_step(step);
        if (adi_wait_until_for(pred, arg, step) == CANAL_OK)
            return CANAL_OK;
    }
}

canal_status_t coll_watch_look(mpi_comm_t *c, int tag, int (*pred)(void *arg), void *arg,
                               const coll_watch_hooks_t *hooks, long long step)
{
    int base = tag & ~((1 << COLL_TAG_KIND_BITS) - 1);
    return watch_look(c, &base, tag & ((1 << COLL_TAG_KIND_BITS) - 1), pred, arg, hooks, step);
}

canal_status_t coll_watch_wait_late(mpi_comm_t *c, int tag, int (*pred)(void *arg), void *arg,
                                    const coll_watch_hooks_t *hooks)
{
    return watch_wait(c, tag & ~((1 << COLL_TAG_KIND_BITS) - 1),
                      tag & ((1 << COLL_TAG_KIND_BITS) - 1), pred, arg, hooks);
}

canal_status_t coll_watch_wait_block_late(mpi_comm_t *c, coll_kind_t kind,
                                          int (*pred)(void *arg), void *arg)
{
    return watch_wait(c, -1, COLL_WATCH_BLOCK | (int)kind, pred, arg, NULL);
}
