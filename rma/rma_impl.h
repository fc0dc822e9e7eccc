/*
 * What the files of one-sided communication share (MPI 4.0 chapter 12):
 * the window object, the wire header of the active messages that carry
 * operations and synchronization between windows, the target layouts
 * (flattened (offset, length) lists of a target datatype) and the functions
 * rma.c (windows), rma_sync.c (epochs), rma_ops.c (operations, origin side)
 * and rma_target.c (the target-side agent and the code that applies an
 * operation to window memory) call in each other. The design is described
 * at the top of rma/rma.c. Only the files of rma/ include this header;
 * mpi/ sees rma/rma.h.
 */
#ifndef CANAL_RMA_RMA_IMPL_H
#define CANAL_RMA_RMA_IMPL_H

#include "mpi/objects.h"
#include "rma/rma.h"

#include <stdint.h>

#include "common/list.h"

/* ---------------------------------------------------------------- wire */
/* Kinds of active messages. Everything that must be handled in order with
 * the operations of the same origin travels as one of these to the agent
 * of the peer (tag RMA_TAG_AM); bulk data of large puts and the data of
 * replies travel as plain messages with a per-operation tag. */
enum {
    RMA_AM_PUT = 1,
    RMA_AM_GET,
    RMA_AM_ACC,
    RMA_AM_GACC, /* get_accumulate and fetch_and_op */
    RMA_AM_CAS,
    RMA_AM_LOCK, /* aux: MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE */
    RMA_AM_LOCK_GRANT,
    RMA_AM_UNLOCK,
    RMA_AM_UNLOCK_ACK, /* aux: operations of this origin that failed at the target */
    RMA_AM_FLUSH,
    RMA_AM_FLUSH_ACK, /* aux: as for UNLOCK_ACK */
    RMA_AM_POST,      /* PSCW: the target opened its exposure epoch */
    RMA_AM_COMPLETE,  /* PSCW: the origin closed its access epoch */
};

enum {
    RMA_F_INLINE = 1, /* the origin data follows the header (and the layout) */
    RMA_F_LAYOUT = 2, /* a list of nblocks rma_block_t follows the header */
    RMA_F_FENCE = 4,  /* an operation of a fence epoch: counted for MPI_Win_fence */
    RMA_F_ACTIVE = 8, /* an operation of an MPI_Win_start epoch */
};

typedef struct {
    uint8_t kind;
    uint8_t flags;
    uint8_t epoch; /* fence epoch parity of RMA_F_FENCE operations */
    uint8_t reserved;
    int32_t basic;    /* accumulates: dt_builtin_t of the elements */
    int32_t op;       /* accumulates: the dt_op_t of the (predefined) MPI_Op */
    int32_t tag;      /* data or reply tag of this operation */
    uint64_t disp;    /* target byte offset from the window base (dynamic: address) */
    uint64_t bytes;   /* packed bytes of the target data */
    uint64_t nblocks; /* RMA_F_LAYOUT: entries of the list */
    uint64_t aux;
} rma_hdr_t;

/* One contiguous piece of target memory, relative to the target address. */
typedef struct {
    int64_t off;
    uint64_t len;
} rma_block_t;

/* Tags on the window's context. Replies to an origin use tags the origin
 * chose from the upper half, data sent to a target tags from the lower
 * half, so that a reply and a put going the same way never match each other. */
enum {
    RMA_TAG_AM = 1,
    RMA_TAG_DATA_FIRST = 16,
    RMA_TAG_REPLY_FIRST = 0x20000000,
    RMA_TAG_SPAN = 0x1fffffe0,
};

/* ---------------------------------------------------------------- layouts */
/* A target region: blocks relative to some address, sorted as the datatype
 * visits them; lo/hi bound every byte touched. */
typedef struct {
    size_t n;
    rma_block_t *b; /* &one or an owned array */
    rma_block_t one;
    int64_t lo, hi;
    size_t bytes;
} rma_layout_t;

/* The layout of (count, t) relative to the buffer address. */
canal_status_t rma_layout_from_dt(rma_layout_t *l, dt_type_t *t, size_t count);
/* A layout over blocks received in a message (not copied; n may be 0 for
 * the contiguous case [0, bytes)). */
void rma_layout_from_wire(rma_layout_t *l, const rma_block_t *b, size_t n, size_t bytes);
void rma_layout_fini(rma_layout_t *l);
/* One contiguous block [0, bytes): the layout of a basic-type operation. */
static inline void rma_layout_one(rma_layout_t *l, size_t bytes)
{
    *l = (rma_layout_t){.n = 1, .one = {.len = bytes}, .hi = (int64_t)bytes, .bytes = bytes};
    l->b = &l->one;
}
/* A device datatype that covers the layout at `base` (buf/count/type for
 * adi_isend/adi_irecv); *t_out has one reference the caller drops. */
canal_status_t rma_layout_dt(const rma_layout_t *l, char *base, void **buf_out, size_t *count_out,
                             dt_type_t **t_out);

/* Applying to memory (both the agent and the direct paths). `base` is the
 * address the layout is relative to. */
void rma_apply_unpack(char *base, const rma_layout_t *l, const void *data);
void rma_apply_pack(const char *base, const rma_layout_t *l, void *out);
/* target op= data for the packed elements of basic type `basic`. */
canal_status_t rma_apply_acc(char *base, const rma_layout_t *l, const void *data, dt_op_t op,
                             dt_builtin_t basic);

/* ---------------------------------------------------------------- windows */
/* A shared lock word per rank in a direct window's segment, and its
 * accumulate lock. Slot [size] is the fence's barrier: rw counts the
 * arrivals, acc is the generation. */
typedef struct {
    volatile int rw;  /* readers, or RMA_RW_EXCL */
    volatile int acc; /* spin lock of accumulates */
    char pad[56];
} rma_shm_slot_t;

enum { RMA_RW_EXCL = 0x40000000 };

/* Origin-side lock state toward a target. */
enum { RMA_LK_NONE = 0, RMA_LK_REQUESTED, RMA_LK_GRANTED, RMA_LK_NOCHECK };

typedef struct rma_lockreq {
    common_link_t link; /* in rma_win_t.lq */
    int origin;
    int type;
} rma_lockreq_t;

/* An operation of the next fence epoch that arrived before this process
 * finished the current fence: applied when it does. */
typedef struct rma_deferred {
    common_link_t link; /* in rma_win_t.deferred */
    int src;
    size_t len;
    char msg[];
} rma_deferred_t;

typedef struct rma_region {
    struct rma_region *next;
    uintptr_t base;
    size_t size;
} rma_region_t;

/* What this process knows about one peer of the window, as origin toward
 * that target and as target of that origin. Counters written by the agent
 * are read by waiting loops: volatile. */
typedef struct {
    /* as origin */
    uint8_t lock; /* RMA_LK_* */
    uint8_t lock_type;
    uint8_t in_access;   /* member of the MPI_Win_start group */
    uint8_t post_ok;     /* its POST of this access epoch was consumed */
    volatile int grants; /* LOCK_GRANT received, not yet consumed */
    /* Remote completion: puts/accumulates sent, the count the last FLUSH
     * or UNLOCK covered, those sent, and the acknowledgements received
     * (they come back in order, so ack k answers the k-th request). */
    unsigned issued, covered, sent;
    volatile unsigned acks;
    /* an accumulate went since the last FLUSH/UNLOCK/COMPLETE: MPI_Win_flush_local
     * then completes it remotely too (rma_sync.c's flush) */
    uint8_t acc_uncovered;
    volatile int posts;         /* POST received, not yet consumed */
    volatile int pending_local; /* operations not locally complete */
    uint32_t fence_ops;         /* AM operations toward it in this fence epoch */
    /* as target */
    int pending_data;   /* large-put data still to arrive */
    int deferred_flush; /* FLUSH waiting for pending_data == 0 */
    int deferred_unlock;
    int deferred_complete;
    volatile int completes; /* COMPLETE received, not yet consumed */
    uint32_t posts_seen, completes_seen; /* direct: pscw counters consumed (rma_sync.c) */
    int in_exposure;        /* member of the MPI_Win_post group */
    int bad_ops;            /* its operations that failed here, not yet reported */
} rma_peer_t;

typedef struct rma_win {
    MPI_Win handle;
    int flavor;       /* MPI_WIN_FLAVOR_* */
    mpi_comm_t *comm; /* private communicator (own context pair) */
    int ctx;          /* comm->context: all RMA traffic of the window */
    int rank, size;
    int *job; /* window rank -> job rank */
    void *base;
    MPI_Aint bytes; /* this process's window size */
    MPI_Aint disp_unit;
    int attr_disp_unit;      /* MPI_WIN_DISP_UNIT points here */
    MPI_Aint *sizes, *units; /* of every rank (not for dynamic windows) */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Errhandler errhandler;
    int errh_default; /* never set: MPI_COMM_WORLD's predefined handler applies, as in MPICH */
    mpi_attr_t *attrs;
    MPI_Info hints; /* what MPI_Win_get_info returns */
    int noncontig;
    int progress_thread; /* holds a reference on the progress thread */

    /* memory */
    int direct;            /* every peer's memory is reachable without its agent */
    int cma;               /* direct through process_vm_readv/writev (MPI_Win_create) */
    int *pids;             /* cma: every rank's pid */
    char **maps;           /* mapped created window: each peer's region here (rma_cma_setup) */
    size_t *map_lens;
    struct rma_cma_pending *cq; /* cma: small puts/gets not moved yet (rma_cma.c) */
    int ncq;
    int ncq_ref;  /* cma: gets and unstaged puts among them, which use the origin buffer
                   * until moved, and accumulates, which the target may read once the
                   * origin's flush_local is over (MPI_Win_flush_local moves the queue then) */
    char *cq_stage;   /* cma: copies of the queued puts' and accumulates' origin data */
    size_t cq_staged; /* bytes of cq_stage in use */
    char **peer_base;      /* direct: base of every rank in this process (cma: in that
                            * rank's address space; only peer_base[rank] is ours) */
    rma_shm_slot_t *slots; /* direct: one per rank, and the fence's barrier */
    /* direct: PSCW in the segment, [receiver * size + sender]: MPI_Win_post
     * calls of the sender that opened an exposure to the receiver, and
     * MPI_Win_complete calls of the sender that closed its access to it */
    uint32_t *pscw_post, *pscw_done;
    struct rma_mbox_poll *mpoll; /* cma: per rank, when it last polled (rma_cma.c) */
    struct rma_mbox *mbox;       /* cma: [target * size + origin] small-op mailboxes */
    int mbox_hook;               /* cma: our progress hook serving them, or -1 */
    uint32_t mbox_bell_seen;
    int64_t mbox_fresh_ns, mbox_wait_ns; /* CANAL_RMA_MBOX_FRESH_US, _WAIT_US */
    unsigned mbox_tick;
    int64_t *mbox_rung; /* cma: per target, when we last rang it awake (rma_mbox_ring) */
    size_t mbox_data;   /* cma: bytes a mailbox carries (512, or 112 above 16 ranks) */
    void *seg;
    size_t seg_len;
    void *owned_mem;       /* MPI_Win_allocate without a segment */
    rma_region_t *regions; /* dynamic windows */
    /* dynamic windows through CMA (rma_cma.c, "dynamic windows"): every
     * rank's published table of attached regions in the segment, ours as
     * an array the others read, and our copy of every peer's */
    struct rma_dyn_pub *dyn_pub;
    struct rma_dyn_ent *dyn_tab;
    size_t dyn_cap;
    struct rma_dyn_cache *dyn_cache;
    volatile int dyn_lock; /* the caches, under MPI_THREAD_MULTIPLE */

    /* the agent */
    adi_request_t *agent;
    char *abuf;
    size_t abuf_cap;
    int agent_busy, agent_ready;
    int agent_failed; /* the agent's receives that failed in a row (it stops at 2) */

    /* origin epochs */
    int fence_open;       /* a fence started an epoch (not NOSUCCEED) */
    int fence_used;       /* operations since that fence */
    unsigned fence_epoch; /* fences completed */
    int access;           /* an MPI_Win_start epoch is open */
    int access_nocheck;
    int nlocks;   /* targets locked with MPI_Win_lock */
    int lock_all; /* 0, 1, or 2 with MPI_MODE_NOCHECK */
    int exposure; /* an MPI_Win_post epoch is open */
    int exposure_nocheck;
    uint32_t next_tag;
    volatile int pending_local;
    int late_err; /* an MPI error class found at completion, raised at the next sync */
    char late_msg[200];
    int remote_bad; /* failed operations reported by targets */
    unsigned flush_polls; /* flushes of a direct window (it polls every 16th) */

    /* target */
    int lock_excl;   /* origin holding the exclusive lock, or -1 */
    int lock_shared; /* holders of shared locks */
    common_list_t lq;       /* of rma_lockreq_t, oldest first */
    volatile uint64_t fence_done[2];
    common_list_t deferred; /* of rma_deferred_t, oldest first */
    int in_fence; /* inside MPI_Win_fence (waiting for the epoch to complete) */
    int bad_here; /* failed operations of fence/PSCW epochs, raised at the target */

    rma_peer_t *peer;
} rma_win_t;

/* ---------------------------------------------------------------- shared functions */
/* rma.c */
/* A CANAL_ variable if common/cvar.c has its row, else def. */
long long rma_cvar_int(const char *name, long long def);
int rma_cvar_bool(const char *name, int def);
rma_win_t *rma_win_get(MPI_Win h);
/* Address of `disp` at rank `target` in a direct window, after checking the
 * region [lo, hi) of bytes relative to it; NULL when outside. For rank ==
 * me of any window too (dynamic: the attached regions). */
char *rma_local_addr(rma_win_t *w, int target, MPI_Aint disp, int64_t lo, int64_t hi);
int rma_dynamic_contains(rma_win_t *w, uintptr_t lo, uintptr_t hi);
/* Acquire/release the accumulate lock of `target` in a direct window (or
 * the device lock for this process's own memory). */
void rma_acc_lock(rma_win_t *w, int target);
void rma_acc_unlock(rma_win_t *w, int target);

/* rma_cma.c */
/* Collective over w->comm: whether every rank can reach every other's
 * memory with CMA. On success with *bases_out set (malloc'ed: every rank's
 * window base in its own address space) w->pids is filled; *bases_out NULL
 * means active messages. When every rank's memory is MPI_Alloc_mem memory
 * (rma_mem.c) and all could map all the others' (through /proc/<pid>/fd),
 * *mapped_out is 1, w->maps/map_lens hold the mappings and *bases_out the
 * addresses here: the window is then direct with loads and stores. */
int rma_cma_setup(rma_win_t *w, mpi_comm_t *c, uint64_t **bases_out, int *mapped_out,
                  const char *fn);
/* Dynamic windows on one node (rma_cma.c): direct through CMA like a
 * created window; each rank publishes its attached regions in the
 * segment (a generation word, the count and the address of an array in
 * its memory) and an origin checks an access against its copy of the
 * target's table, read again with one process_vm_readv when the
 * generation moved. rma_dyn_bytes: the segment bytes for the tables;
 * rma_dyn_start: set them up (0, or -1 out of memory); rma_dyn_publish:
 * after w->regions changed (device lock held): 0, or -1 out of memory
 * (nothing changed then); rma_dyn_stop frees ours. */
size_t rma_dyn_bytes(int size);
int rma_dyn_start(rma_win_t *w, void *area);
int rma_dyn_publish(rma_win_t *w);
void rma_dyn_stop(rma_win_t *w);
/* Whether [lo, hi) lies in memory rank t has attached (0 also when t's
 * table cannot be read: the caller raises MPI_ERR_RMA_RANGE). */
int rma_dyn_peer_contains(rma_win_t *w, int t, uintptr_t lo, uintptr_t hi);
/* rma_mem.c: whether [p, p + len) lies in one mappable MPI_Alloc_mem
 * region; then its memfd, p's offset in it and its mapped length. */
int rma_mem_lookup(const void *p, size_t len, int *fd_out, size_t *off_out, size_t *maplen_out);
/* Packed data to / from the layout l at raddr in rank t's address space. */
canal_status_t rma_cma_write(rma_win_t *w, int t, char *raddr, const rma_layout_t *l,
                             const void *data);
canal_status_t rma_cma_read(rma_win_t *w, int t, char *raddr, const rma_layout_t *l, void *out);
/* len contiguous bytes between local and raddr of rank t. */
canal_status_t rma_cma_copy(rma_win_t *w, int t, int write, char *raddr, void *local, size_t len);
/* Contiguous puts and gets are queued (up to RMA_CMA_QUEUE) and moved
 * together, one system call per run of the same target and direction, at
 * the next synchronization call or when the queue is full: a put or get
 * needs to be complete only then (MPI 4.0 section 12.5), and an 8-byte
 * process_vm_readv costs as much as a hundred 8-byte copies. The origin data
 * of a put (or accumulate) of at most RMA_CMA_QUEUE_MAX_BYTES is copied at
 * the call, as an eager send's is: a program that reuses or leaves the scope
 * of a small origin buffer before the flush (erroneous, but it works with
 * MPICH and Open MPI) still puts what it meant. A larger put, up to
 * RMA_CMA_REF_MAX, is queued by reference like a get (the origin buffer is
 * read at the drain, as MPICH's and Open MPI's rendezvous read it later):
 * one system call per operation was the whole cost of OSU's put_bw/get_bw
 * at 8-64 KiB (rma6). Returns 1 if queued, 0 if the caller must do it now.
 * Below MPI_THREAD_MULTIPLE only. */
enum {
    RMA_CMA_QUEUE = 64,
    RMA_CMA_QUEUE_MAX_BYTES = 4096,
    RMA_CMA_REF_MAX = 1 << 20,
    RMA_CMA_ACC_SPAN = 8192,
    RMA_CMA_STAGE = 65536
};
enum { RMA_CMA_GET = 0, RMA_CMA_PUT = 1, RMA_CMA_ACC = 2 };
typedef struct rma_cma_pending {
    char *remote;
    void *local;
    size_t len;
    int t, kind; /* RMA_CMA_* */
    int op, basic; /* RMA_CMA_ACC: dt_op_t, dt_builtin_t */
} rma_cma_pending_t;
int rma_cma_enqueue(rma_win_t *w, int t, int write, char *raddr, void *local, size_t len);
/* MPI_Accumulate (no fetch) of len bytes of contiguous basic elements:
 * queued the same way; at the drain a run of them toward one target whose
 * bytes lie within RMA_CMA_ACC_SPAN is one read, the ops in issue order,
 * and one write of exactly the bytes they touch, under the target's
 * accumulate lock. Returns 1 if queued. */
int rma_cma_enqueue_acc(rma_win_t *w, int t, char *raddr, const void *local, size_t len,
                        dt_op_t op, dt_builtin_t basic);
/* Move what is queued; a failure is recorded as the window's late error
 * (raised by rma_raise_late). CANAL_OK or the first failure. */
canal_status_t rma_cma_drain(rma_win_t *w);
/* Mailboxes of a created window (rma_cma.c): a small get or accumulate goes
 * to a target that is polling (its progress hook ran within the last few
 * microseconds) through a slot in the segment that the target's hook
 * serves; not answered soon, the origin takes it back and uses CMA.
 * rma_mbox_bytes: segment bytes for them (0: none, too many ranks);
 * rma_mbox_start/stop register and remove the serving hook. */
size_t rma_mbox_bytes(int size);
void rma_mbox_start(rma_win_t *w, void *area);
void rma_mbox_stop(rma_win_t *w);
/* MPI_Fetch_and_op / MPI_Get_accumulate (cmp NULL: op on len bytes of
 * basic elements, the old bytes to out) or MPI_Compare_and_swap (cmp: one
 * element) toward rank t at remote, through t's mailbox if t is polling,
 * after the queued operations. 1 if done (*st_out its result), under t's
 * accumulate lock like every accumulate; 0: nothing happened, use CMA. */
int rma_mbox_fetch(rma_win_t *w, int t, char *remote, size_t len, dt_op_t op, dt_builtin_t basic,
                   const void *in, const void *cmp, void *out, canal_status_t *st_out);
static inline canal_status_t rma_cma_flush_queue(rma_win_t *w)
{
    return w->ncq > 0 ? rma_cma_drain(w) : CANAL_OK;
}
/* Whether a get, an unstaged put or an accumulate is queued (MPI_Win_flush_local
 * must move it: a get's or an unstaged put's origin buffer is the user's after it;
 * an accumulate is applied by then at MPICH and Open MPI, and OSU 7.4's
 * osu_acc_latency -s flush_local -c reads the target after the origin's flush_local
 * and a barrier, test rma_acc_flush_local). */
static inline int rma_cma_queued_refs(const rma_win_t *w)
{
    return w->ncq_ref > 0; /* (a scan of the queue cost OSU's put/flush_local loop
                             * 200 instructions per flush at 32 queued puts) */
}

/* rma_target.c */
canal_status_t rma_agent_start(rma_win_t *w);
void rma_agent_stop(rma_win_t *w);
/* Apply the operations deferred until this fence completed (device lock held). */
void rma_agent_replay(rma_win_t *w);
/* Grant what the lock queue holds now that nothing stands in the way. */
void rma_lock_drain(rma_win_t *w);
/* Send a header-only control message to `peer`'s agent. */
canal_status_t rma_send_ctrl(rma_win_t *w, int peer, int kind, uint64_t aux);
/* Send len bytes of an owned malloc'ed buffer; it is freed when sent. */
canal_status_t rma_send_owned(rma_win_t *w, int peer, void *buf, size_t len, int tag);

/* rma_sync.c */
/* Raise a problem that was found at completion (late_err, remote_bad). */
int rma_raise_late(rma_win_t *w, const char *fn);
/* Before an operation to target: wait for its lock grant or PSCW post. */
void rma_wait_access(rma_win_t *w, int target);
int rma_win_busy(rma_win_t *w); /* an epoch is open (MPI_Win_free refuses) */

/* Predefined operation of an MPI_Op handle, or DT_OP_N. */
dt_op_t rma_builtin_op(MPI_Op op);

#endif
