/*
 * The abstract device: what mpi/ and coll/ call to move messages. It owns
 * requests, the posted and unexpected queues (matching on context, source
 * rank in the communicator and tag), the eager and rendezvous protocols,
 * the table of peers (job rank -> channel) and the progress engine.
 * It knows communicators only as a context id plus the sender's rank in
 * them; mpi/ translates communicator ranks to job ranks before calling.
 */
#ifndef CANAL_ADI_H
#define CANAL_ADI_H

#include <stddef.h>
#include <stdint.h>

#include "adi/match.h"
#include "common/status.h"
#include "datatype/dt.h"
#include "pmi/pmi.h"

enum { ADI_ANY_SOURCE = -2, ADI_ANY_TAG = -1, ADI_PROC_NULL = -1 };

typedef enum {
    ADI_MODE_STANDARD = 0,
    ADI_MODE_SYNC = 1,  /* completes only when the receive matched */
    ADI_MODE_READY = 2, /* standard on the wire; the receive is known to be posted */
    /* standard; one of several sends from this rank at once (a
     * broadcast's root): offered to be read by its receiver even where the
     * device would otherwise stream it (rndv_offer in adi/pt2pt.c) */
    ADI_MODE_FANOUT = 3,
} adi_send_mode_t;

/* (the order counts: a wait tests `kind < ADI_REQ_GREQ` for a plain send
 * or receive, mpi/request.c req_is_done) */
typedef enum {
    ADI_REQ_SEND = 1,
    ADI_REQ_RECV,
    ADI_REQ_GREQ,       /* generalized request: completed by the user */
    ADI_REQ_COLL,       /* nonblocking collective: completed by coll/ */
    ADI_REQ_PREQ_SEND,  /* persistent send: `inner` is the active send */
    ADI_REQ_PREQ_RECV,  /* persistent receive */
    ADI_REQ_PREQ_OTHER, /* other persistent operations: mpi_ext starts with mpi_persist_ops_t* */
    ADI_REQ_OTHER,      /* anything else mpi/ completes itself */
} adi_req_kind_t;

typedef struct {
    int source;       /* rank in the communicator, or ADI_PROC_NULL */
    int tag;
    int error;        /* canal_status_t of the operation */
    int cancelled;
    size_t bytes;     /* bytes received (or sent) */
    int peer;         /* error CANAL_ERR_PEER: job rank of the peer that was lost */
} adi_status_t;

typedef struct adi_request adi_request_t;
typedef void (*adi_complete_fn)(adi_request_t *req, void *arg);

struct adi_request {
    /* public to mpi/ and coll/ */
    int index;                /* stable index: mpi/ derives the request handle from it */
    adi_req_kind_t kind;
    volatile int done;        /* set (release) when complete */
    adi_status_t status;
    adi_request_t *inner;     /* persistent requests: the active operation, or NULL */
    void *mpi_ext;            /* owned by the layer that created the request */
    adi_complete_fn on_complete; /* called once, from progress, when done is set */
    void *on_complete_arg;
    int user_freed;           /* MPI_Request_free'd while active: released at completion */
    int owner_handle;         /* opaque to adi/: mpi/ keeps the communicator handle here */
    /* Receives only: when set, called once the message size is known (at
     * match time, before any data lands) to supply the buffer; the receive
     * then takes `bytes` bytes of dt (count is recomputed). Returning NULL
     * fails the receive with CANAL_ERR_NOMEM. Runs inside progress. */
    void *(*alloc_buf)(size_t bytes, void *arg);
    void *alloc_arg;

    /* private to adi/ */
    uint8_t live;             /* allocated (atomic: adi_request_at reads it unlocked) */
    uint8_t state;
    uint8_t mode;
    uint8_t proto;
    uint8_t in_queue;
    uint8_t dropped;          /* sends: send_drop left it, nothing of buf is read */
    uint8_t withdrawing;      /* sends: its WITHDRAW waits for the PKT_WITHDRAWN answer
                                 (these two: reset by adi_isend_into; in the padding
                                 before context) */
    uint8_t detached;         /* receives: adi_recv_detach, nothing more lands in buf
                                 (reset by adi_req_init_msg and adi_irecv_into) */
    int context, rank, tag;   /* rank: source to match (recv) or my rank (send) */
    int peer;                 /* job rank of the peer (send) */
    void *buf;
    size_t count;
    dt_type_t *dt;
    size_t size;              /* packed size of the message */
    size_t offset;            /* bytes sent/received so far (rendezvous) */
    uint32_t peer_req;        /* the other side's request index */
    uint64_t rkey;
    void *tmp;                /* bounce buffer (packed eager data, DATA chunk) */
    size_t tmp_len;           /* bytes in tmp waiting to be sent */
    uint64_t ctl_hdr[8];      /* control packet waiting to be sent (REQ_CTRL) */
    adi_mq_entry_t match;     /* receives: place in the posted queue (adi/match.h) */
    adi_request_t *next;      /* the pool's free list */
    common_link_t sendq;      /* place in its peer's pending-send queue (adi_peer_t.sendq) */
    /* Pack/unpack position of a non-contiguous message that is not moved in
     * one piece (rendezvous DATA, eager receive): allocated on first use and
     * kept with the pooled request, since most messages never need its
     * ~660 bytes and clearing them was a tenth of a small message's cost. */
    dt_cursor_t *cursor;
};

/* A matched-but-not-received message (MPI_Mprobe). */
typedef struct adi_message adi_message_t;

/* Bring up channels and peers for the job described by pmi (pmi_init done). */
canal_status_t adi_init(const pmi_info_t *pmi, int thread_multiple);
canal_status_t adi_finalize(void);
/* Rank in the job of this process, size of the job. */
int adi_job_rank(void);
int adi_job_size(void);
/* Whether this node's ranks of the job outnumber its CPUs (or
 * CANAL_OVERSUBSCRIBED says so): the same answer on every rank of a node. */
int adi_oversubscribed(void);
/* Processes of another job may now share this process's CPUs (a spawn,
 * a connection): waits stop assuming CPUs of their own (adi/device.c). */
void adi_cpus_shared(void);
/* Name of the channel serving `peer` ("self", "shm", "sock", "ofi"). */
const char *adi_peer_channel(int peer);
/* One line per channel and the thresholds (CANAL_SUMMARY, canal-info). */
void adi_describe(char *buf, size_t len);

/* Requests. */
adi_request_t *adi_request_alloc(adi_req_kind_t kind);
/* The request of an index, NULL if not a live request: inline, as
 * MPI_Wait and MPI_Test look up every handle through it (a call of 16
 * instructions per wait). The pool's blocks never move; a block's pointer
 * is published (release) before any of its requests is handed out. */
enum { ADI_REQ_BLOCK = 256, ADI_REQ_BLOCKS = 16384 };
extern adi_request_t *adi_req_blocks[ADI_REQ_BLOCKS];
static inline adi_request_t *adi_request_at(int index)
{
    adi_request_t *blk, *r;

    if ((unsigned)index >= (unsigned)ADI_REQ_BLOCK * ADI_REQ_BLOCKS)
        return NULL;
    blk = __atomic_load_n(&adi_req_blocks[(unsigned)index / ADI_REQ_BLOCK], __ATOMIC_ACQUIRE);
    if (blk == NULL)
        return NULL;
    r = &blk[(unsigned)index % ADI_REQ_BLOCK];
    return __atomic_load_n(&r->live, __ATOMIC_ACQUIRE) ? r : NULL;
}
void adi_request_free(adi_request_t *req);
/* Call fn on every live request (the device lock held; adi/request.c):
 * adi/'s finalize and coll/'s release of MPI_COMM_WORLD at MPI_Finalize
 * (the collectives the program left running) look through them. */
void adi_request_each_live(void (*fn)(adi_request_t *r, void *arg), void *arg);
/* Mark a request complete (generalized, collective, persistent...). */
void adi_request_complete(adi_request_t *req);
/* Complete a request just allocated that nothing else has seen and that
 * holds nothing (no type, buffer or callback): no lock, no release work
 * (the MPI_PROC_NULL requests of mpi/). */
void adi_request_done_fresh(adi_request_t *req);
/* Make req, memory of the caller's outside the pool, a complete request of
 * kind with an empty status and the given index (beyond the pool's), which
 * adi_request_free leaves alone and nothing in adi/ writes: one object that
 * any number of handles may name at once (mpi/'s pre-completed collective
 * request). */
void adi_request_init_done(adi_request_t *req, adi_req_kind_t kind, int index);

/* Point to point. `dest`/`src_rank` are job ranks / communicator ranks as named. */
canal_status_t adi_isend(const void *buf, size_t count, dt_type_t *dt, int dest_job_rank,
                         int my_comm_rank, int tag, int context, adi_send_mode_t mode,
                         adi_request_t **req_out);
canal_status_t adi_irecv(void *buf, size_t count, dt_type_t *dt, int src_comm_rank, int tag,
                         int context, adi_request_t **req_out);
/* A standard-mode send's arguments, as one struct in the caller's frame:
 * adi_isend_std reads them from there, so that none of them
 * stays live in a register across the channel call (the fallback after a
 * failed attempt reloads them; about 20 instructions of saves, restores and
 * spills per 8-byte MPI_Isend, doc/bench.md, helper near3). */
typedef struct adi_send_args {
    const void *buf;
    size_t count;
    dt_type_t *dt;
    int dest;    /* job rank */
    int my_rank; /* communicator rank */
    int tag;
    int context;
    int lone; /* a blocking send (MPI_Send): the caller sends nothing more
                 before it waits for something (adi_send_now) */
} adi_send_args_t;
/* A small contiguous standard send with no request: CANAL_OK when sent,
 * CANAL_AGAIN when the caller must use adi_isend (adi/pt2pt.c). lone: the
 * caller is MPI_Send, which sends nothing more before it waits; with no
 * receive posted either, the message is likely a turn of a ping-pong
 * (channel.h, sendv_turn). */
canal_status_t adi_send_now(const void *buf, size_t count, dt_type_t *dt, int dest_job_rank,
                            int my_comm_rank, int tag, int context, int lone);
/* adi_send_now with its arguments in memory (MPI_Send: nothing of its
 * caller's then stays in a register across the call). */
canal_status_t adi_send_now_args(const adi_send_args_t *a);
/* One message of adi_send_now_each: size contiguous bytes at buf (its
 * true lower bound applied) to job rank dest; sent is set to 1 when it went. */
typedef struct adi_each_msg {
    const void *buf;
    size_t size;
    int dest;
    int sent;
} adi_each_msg_t;
/* adi_send_now for n messages of one call, each to a different peer (a
 * rooted collective's blocks): under one lock and one header, every message
 * that can go at once goes; the others (sent 0: no credit, a send queued,
 * ring full, lost, revoked, empty) are left to the caller's adi_isend_into.
 * Returns how many went (adi/pt2pt.c). */
int adi_send_now_each(adi_each_msg_t *m, int n, int my_comm_rank, int tag, int context);
/* A standard-mode MPI_Isend: adi_send_now and, when that cannot send the
 * message at once, adi_isend, in one call. *req_out is left as the caller
 * set it (NULL) when the message went with no request (its buffer is free
 * again), else it is the send's request. */
canal_status_t adi_isend_std(const adi_send_args_t *a, adi_request_t **req_out);
/* A blocking receive with no request: when the first message that
 * (src_comm_rank, tag) matches on context is an eager one waiting in the
 * unexpected queue, and dt is contiguous, its data is copied into buf and
 * CANAL_OK returned with *status_out filled (error CANAL_ERR_TRUNCATE,
 * bytes the part that fit, when it was larger than the buffer) and
 * *size_out its whole size. When nothing is there yet, a receive of at
 * most 256 bytes (ADI_MSG_INLINE) waits for it so, unposted (while nothing is
 * lost or revoked). CANAL_AGAIN: the caller must take the request path
 * (adi_irecv), which finds what is there first just the same
 * (adi/pt2pt.c). */
static inline canal_status_t adi_recv_now(void *buf, size_t count, dt_type_t *dt,
                                          int src_comm_rank, int tag, int context,
                                          adi_status_t *status_out, size_t *size_out);
/* (its two bodies, which adi_recv_now picks by the mode: the test inside one
 * body came after that body's register saves, and a wrapper between moved
 * the arguments on the stack) */
canal_status_t adi_recv_now_locked(void *buf, size_t count, dt_type_t *dt, int src_comm_rank,
                                   int tag, int context, adi_status_t *status_out,
                                   size_t *size_out);
canal_status_t adi_recv_now_unlocked(void *buf, size_t count, dt_type_t *dt, int src_comm_rank,
                                     int tag, int context, adi_status_t *status_out,
                                     size_t *size_out);
/* adi_recv_now that never waits: CANAL_OK when the message is queued or
 * one poll of the device brings it (a receive of at most ADI_MSG_INLINE
 * bytes, while nothing is lost or revoked), else CANAL_AGAIN. */
canal_status_t adi_recv_ready(void *buf, size_t count, dt_type_t *dt, int src_comm_rank, int tag,
                              int context, adi_status_t *status_out, size_t *size_out);
/* Start a send/recv into an already allocated request (persistent requests). */
canal_status_t adi_isend_into(adi_request_t *req, const void *buf, size_t count, dt_type_t *dt,
                              int dest_job_rank, int my_comm_rank, int tag, int context,
                              adi_send_mode_t mode);
canal_status_t adi_irecv_into(adi_request_t *req, void *buf, size_t count, dt_type_t *dt,
                              int src_comm_rank, int tag, int context);
canal_status_t adi_iprobe(int src_comm_rank, int tag, int context, int *flag_out,
                          adi_status_t *status_out);
/* Matched probe: removes the message from the unexpected queue. */
canal_status_t adi_improbe(int src_comm_rank, int tag, int context, int *flag_out,
                           adi_message_t **msg_out, adi_status_t *status_out);
canal_status_t adi_imrecv(void *buf, size_t count, dt_type_t *dt, adi_message_t *msg,
                          adi_request_t **req_out);
/* Blocking probe (take: matched, as adi_improbe): waits for a message that
 * (src, tag) matches, or fails with CANAL_ERR_PEER when the source (any
 * source: any unacknowledged one) is lost, CANAL_ERR_REVOKED when the
 * context is revoked. adi_iprobe/adi_improbe fail the same way when they
 * find nothing (a pending any-source loss: CANAL_ERR_PEER_PENDING). */
canal_status_t adi_probe(int src_comm_rank, int tag, int context, int take,
                         adi_message_t **msg_out, adi_status_t *status_out);
/* The receive of a matched message without a request when it is an eager
 * one and the type contiguous (CANAL_AGAIN: use adi_imrecv): msg is freed,
 * *status_out and *size_out (the message's size) are set as adi_recv_now
 * sets them. */
canal_status_t adi_mrecv_now(void *buf, size_t count, dt_type_t *dt, adi_message_t *msg,
                             adi_status_t *status_out, size_t *size_out);
/* Discard the matched message msg unread, and free it: an eager one's
 * buffering is released (and a synchronous sender answered); a rendezvous
 * one is answered with FIN at once, so that its sender ends without its
 * bytes being read or streamed. For messages nobody wants (coll/watch.c's
 * leftovers of abandoned collectives): their sender may have left the
 * buffer (adi_send_detach) or, at MPI_Finalize, made its last progress. */
void adi_mdiscard(adi_message_t *msg);
/* Cancel: receives always (if not matched), sends while not yet transmitted. */
canal_status_t adi_cancel(adi_request_t *req);
/* A send whose caller leaves without waiting for it (a collective
 * abandoned after a mismatch, coll/sched.c): the bytes it still has to
 * send are copied out of the caller's buffer, which may be freed when
 * this returns; the send goes on from the copy. A receiver that pulls the
 * bytes itself (RDMA) keeps the address it was given. */
canal_status_t adi_send_detach(adi_request_t *req);
/* A receive whose caller leaves without waiting for it (the same abandoned
 * collective), after adi_cancel took it back if it was not matched yet:
 * nothing more is written into the caller's buffer, which may be freed when
 * this returns. A message streamed to it (DATA) is taken and dropped as it
 * comes, and the receive ends with the stream; one being read (a channel
 * that reads asynchronously) or written by its sender (the sender's part of
 * a message both copy) is waited for first, at most CANAL_DETACH_WAIT_MS
 * (then a warning). */
void adi_recv_detach(adi_request_t *req);

/* The job ranks behind the source ranks of `context` (mpi/ calls it for
 * each context of a new communicator): source rank r is job rank
 * job_ranks[r], or r when job_ranks is NULL; n source ranks. The device
 * copies the table and uses it to fail receives that wait for a peer it
 * lost (adi_on_peer_failed). */
canal_status_t adi_ctx_set_ranks(int context, int n, const int *job_ranks);
/* While a scope is pushed, a receive with `tag` on the collective (odd)
 * `context` fails for the loss of one of the n processes job_ranks[] only,
 * not of any rank of the context: for exchanges among a group's members on
 * the parent's collective context (MPI_Comm_create_group). Pop it when the
 * exchange is over. */
canal_status_t adi_ctx_scope_push(int context, int tag, int n, const int *job_ranks);
void adi_ctx_scope_pop(int context, int tag);

/* ULFM (adi/failure.c). mpi/ gives each communicator an even context for
 * point-to-point and the odd one after it for collectives: after a loss,
 * every receive on an odd context whose table holds the lost rank fails.
 * Revoke: every receive on the context (posted or later) and every later
 * send on it fails with CANAL_ERR_REVOKED; 1 if it was not revoked yet. */
int adi_ctx_revoke(int context);
/* The same inside progress (a request's on_complete: device lock held). */
int adi_ctx_revoke_locked(int context);
int adi_ctx_revoked(int context);
/* A communicator's pair (point-to-point context, collective context + 1) is
 * revoked when either is: one atomic load while nothing is revoked. */
int adi_ctx_pair_revoked(int context);
/* The same with its first test inline (contexts revoked so far: none in
 * almost every run), for the paths that count instructions. */
extern int adi_nrevoked;
static inline int adi_ctx_pair_revoked_inline(int context)
{
    return __atomic_load_n(&adi_nrevoked, __ATOMIC_SEQ_CST) != 0 && adi_ctx_pair_revoked(context);
}
/* Another process says that job rank `rank` failed (ULFM's agreement):
 * the device fails it as if a channel had reported it; `how` is the detail. */
void adi_peer_report_failed(int rank, const char *how);
/* An MPI_ANY_SOURCE receive still posted on a point-to-point context that
 * holds a failed rank not acknowledged yet: 1 (*peer_out: that job rank),
 * and a wait returns MPIX_ERR_PROC_FAILED_PENDING without completing it
 * (ULFM); 0 otherwise, at the cost of one load while nobody failed
 * (adi_nlost: peers lost so far, atomic). */
extern int adi_nlost;
int adi_recv_failure_pending_slow(adi_request_t *r, int *peer_out);
static inline int adi_recv_failure_pending(adi_request_t *r, int *peer_out)
{
    if (__builtin_expect(__atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) == 0, 1))
        return 0;
    return adi_recv_failure_pending_slow(r, peer_out);
}
/* Job rank `job` is known lost (one load while nobody failed). */
int adi_peer_failed(int job);
/* Any-source receives on context ignore losses (the ULFM protocol's own). */
canal_status_t adi_ctx_set_ft(int context);
/* Acknowledge the losses known now among the ranks of context: any-source
 * receives no longer fail for them (MPIX_Comm_failure_ack). */
canal_status_t adi_ctx_failure_ack(int context);
/* The source ranks of context that failed (acked_only: whose failure was
 * acknowledged), in order; up to max stored in out, the count returned. */
int adi_ctx_failed_ranks(int context, int acked_only, int *out, int max);
/* The failed source ranks of context in the order the device learnt of
 * them (MPIX_Comm_get_failed), and acknowledging k of them by source rank
 * (MPIX_Comm_ack_failed). */
int adi_ctx_failed_ordered(int context, int *out, int max);
/* The job ranks behind the source ranks of context (the table mpi/ gave):
 * up to max stored in out, their number returned (0: none known). */
int adi_ctx_job_ranks(int context, int *out, int max);
canal_status_t adi_ctx_ack_ranks(int context, const int *ranks, int k);

/* No receive is posted on `context` (mpi/ gives a freed communicator's
 * context ids out again only then). */
int adi_ctx_idle(int context);

/* Progress. */
int adi_progress(void);
/* Block until no channel holds a packet handed to it in its own queues
 * (sock's out-buffers: a peer that reads slowly), progressing; packets
 * still in adi's send queues do not count (coll/watch.c's pokes are
 * handed to the channel before their send returns). */
void adi_wait_sent(void);
/* Block until pred(arg) is nonzero, progressing all channels; spins, then
 * yields, then sleeps (the wait policy of the design). */
canal_status_t adi_wait_until(int (*pred)(void *arg), void *arg);
canal_status_t adi_wait(adi_request_t *req);
/* adi_wait_until returning with the device lock held (adi_lock), so that
 * the caller finishes what it waited for in the poll's own lock round; end
 * it with adi_wait_unlock (adi_unlock, then wake the threads sleeping while
 * this one polled), not adi_unlock. */
canal_status_t adi_wait_until_locked(int (*pred)(void *arg), void *arg);
void adi_wait_unlock(void);
/* adi_wait_until for about `us` microseconds at most, counted from the
 * wait's first clock reading (the loop reads the clock every 64th empty
 * poll, so the limit costs a wait nothing until then): CANAL_OK when pred
 * held, CANAL_AGAIN when the time passed first (pred may hold by now). */
canal_status_t adi_wait_until_for(int (*pred)(void *arg), void *arg, long long us);
/* The same waits naming what they wait for, so that a thread asleep in
 * one (locked mode, while another thread polls) is woken when that word
 * moves rather than at every poll that delivered something: watch(arg,
 * &w) sets w.word to a word that moves away from w.unless when pred may
 * have become true (w.word NULL: it cannot say). Called when the thread is
 * about to sleep, after pred said no. */
typedef struct {
    const volatile int *word;
    int unless;
} adi_watch_t;
canal_status_t adi_wait_until_watch(int (*pred)(void *arg),
                                   void (*watch)(void *arg, adi_watch_t *out), void *arg);
canal_status_t adi_wait_until_locked_watch(int (*pred)(void *arg),
                                          void (*watch)(void *arg, adi_watch_t *out), void *arg);
/* adi_wait_until_locked_watch for a caller that found pred false just now:
 * the first look is a poll, not pred (MPI_Wait's). */
canal_status_t adi_wait_polling_locked_watch(int (*pred)(void *arg),
                                            void (*watch)(void *arg, adi_watch_t *out), void *arg);
/* adi_wait_until_watch for a caller that found pred false just now (the
 * first look is a poll; MPI_Waitall's). */
canal_status_t adi_wait_polling_watch(int (*pred)(void *arg),
                                     void (*watch)(void *arg, adi_watch_t *out), void *arg);
/* The watch of a request: its done flag. */
void adi_watch_request(const adi_request_t *req, adi_watch_t *out);

/* Hooks for layers above the device (RMA agents, managed runtimes):
 * - a progress hook runs at the end of every adi_progress() that polled the
 *   channels (device lock held; a call that found another thread polling
 *   returns 0 at once and runs no hooks);
 * - the wait hook runs while a thread is blocked in adi_wait_until, every
 *   `interval` empty polls, outside the device lock (a managed runtime's
 *   safepoint: the collector may run there). Returns an id for removal. */
int adi_progress_hook_add(void (*fn)(void *arg), void *arg);
void adi_progress_hook_remove(int id);
/* A progress hook that did work for another process (served an RMA
 * mailbox) says so: it counts as progress of that poll, so a blocked wait
 * keeps polling instead of going to sleep while it is being asked
 * (bounded: with nothing asked it sleeps after the usual time). */
void adi_progress_hook_did(int n);
/* Wake `peer` (job rank) if it sleeps in a blocked wait of the channel that
 * reaches it (a spurious wake-up otherwise costs one load). Called without
 * the device lock. */
void adi_wake_peer(int peer);
/* 1 when adi_wake_peer(peer) wakes peer asleep in its channel (shm's
 * doorbell), 0 when nothing can (sock, ofi: they sleep in the kernel until
 * a packet or their timeout). A layer that shares memory with its peers
 * and rings them after writing it needs this to be 1 for every peer. */
int adi_wake_reaches(int peer);
void adi_set_wait_hook(void (*fn)(void *arg), void *arg, long interval);

/* Statistics for the tools interface (MPI_T performance variables). Counters
 * are updated with the device lock held (or relaxed atomics) and read as a
 * snapshot. Channel slots: 0 self, 1 shm, 2 sock, 3 ofi. */
#define ADI_HAVE_STATS 1
enum { ADI_STATS_NCHANNELS = 4 };
extern const char *const adi_stats_channel_names[ADI_STATS_NCHANNELS];
typedef struct {
    uint64_t msgs_sent[ADI_STATS_NCHANNELS], bytes_sent[ADI_STATS_NCHANNELS];
    uint64_t msgs_recv[ADI_STATS_NCHANNELS], bytes_recv[ADI_STATS_NCHANNELS];
    /* (filled by adi_stats_get from the context queues: adi_stats keeps 0) */
    uint64_t unexpected_len, unexpected_hwm, posted_len, posted_hwm;
    uint64_t rndv_sent, rndv_recv, wait_ns, waits;
    uint64_t rndv_pulled; /* rendezvous receives read by the receiver itself (one copy) */
    uint64_t rndv_pushed; /* rendezvous sends whose last part the sender wrote (PKT_PUSH) */
    uint64_t rndv_push_failed; /* receives that read that part themselves: the sender could not */
    /* sleeps of blocked waits in a channel, and those of them that lasted
     * their whole time although what the wait waited for had happened (a
     * wake-up that never came) */
    uint64_t wait_sleeps, wait_sleeps_missed;
    /* sleeps of waiting threads while another thread polls (locked mode),
     * and those of them that lasted their whole bound (the 1 s guard of a
     * wait with a watch) although their wait's watch had moved (a wake-up
     * that never came) */
    uint64_t thread_sleeps, thread_sleeps_missed;
    /* messages (eager or RTS) that arrived before a receive matched them and
     * entered an unexpected queue (each one a queue entry and a second copy) */
    uint64_t unexpected_msgs;
    /* rendezvous receives read together with others from one peer (one
     * rdma_read_batch: a poll that matched several) */
    uint64_t rndv_batched;
} adi_stats_t;
void adi_stats_get(adi_stats_t *out);

/* Processes of other jobs (adi/dynamic.c): a card names this process to
 * them; adi_dyn_peer_connect makes the process of a card a device peer
 * (index >= the job size) that both sides authenticate with the pair secret.
 * Bootstrap links carry the introductions: a listener (one per port), a
 * connection to it, length-prefixed blobs; MPI_Comm_join passes its fd as
 * the link. Links wait while progressing the device. */
enum { ADI_DYN_CARD_MAX = 128, ADI_DYN_SECRET_LEN = 32, ADI_DYN_BLOB_MAX = 64 << 20 };
typedef struct adi_dyn_listener adi_dyn_listener_t;
canal_status_t adi_dyn_card(char *buf, size_t len);
canal_status_t adi_dyn_peer_connect(const char *card, const unsigned char secret[ADI_DYN_SECRET_LEN],
                                    int *peer_out);
canal_status_t adi_dyn_listen(adi_dyn_listener_t **l_out, char *addr_out, size_t len);
void adi_dyn_listener_close(adi_dyn_listener_t *l);
/* timeout_s < 0: wait as long as it takes; CANAL_ERR_TIMEOUT after it. */
canal_status_t adi_dyn_accept(adi_dyn_listener_t *l, double timeout_s, int *link_out);
canal_status_t adi_dyn_dial(const char *addr, int *link_out);
canal_status_t adi_dyn_send(int link, const void *buf, size_t len);
/* timeout_s < 0: wait as long as it takes. *buf_out is malloc'ed, NUL-terminated. */
canal_status_t adi_dyn_recv(int link, void **buf_out, size_t *len_out, double timeout_s);
/* Whether the other side of a bootstrap link has closed it (a connecting
 * root that gave up waiting leaves its request in the listener's queue). */
int adi_dyn_hung_up(int link);
void adi_dyn_close(int link);
void adi_dyn_finalize(void);

/* The device lock (a no-op until the device is in locked mode: with
 * MPI_THREAD_MULTIPLE, or after adi_lock_enable). It is the "wire" lock:
 * held while the channels are polled or sent on, around per-peer send
 * state, and around every completion callback (on_complete). Matching
 * queues and the request pool have their own locks, so holding it does not
 * stop other threads from posting receives or allocating requests; it does
 * exclude progress and completion callbacks, which is what callers outside
 * adi/ use it for. Recursive. See doc/design.md, "Threads and locking". */
extern int adi_locked;  /* locked mode (thread_multiple or adi_lock_enable): locks are taken */

static inline canal_status_t adi_recv_now(void *buf, size_t count, dt_type_t *dt,
                                          int src_comm_rank, int tag, int context,
                                          adi_status_t *status_out, size_t *size_out)
{
    if (__builtin_expect(adi_locked, 0))
        return adi_recv_now_locked(buf, count, dt, src_comm_rank, tag, context, status_out,
                                   size_out);
    return adi_recv_now_unlocked(buf, count, dt, src_comm_rank, tag, context, status_out,
                                 size_out);
}
void adi_lock_slow(void);
void adi_unlock_slow(void);
/* Inline, so that outside locked mode taking and dropping the lock is a
 * load and a branch each, not two calls (an 8-byte MPI_Isend's path). */
static inline void adi_lock(void)
{
    if (__builtin_expect(adi_locked, 0))
        adi_lock_slow();
}

static inline void adi_unlock(void)
{
    if (__builtin_expect(adi_locked, 0))
        adi_unlock_slow();
}
/* Switch the device to locked mode at run time (below MPI_THREAD_MULTIPLE,
 * e.g. to start an RMA progress thread). Called by the main thread at a
 * point where no other thread is inside the device. Cannot be undone. */
void adi_lock_enable(void);

#endif
