/*
 * The schedule engine of coll/ (see coll/coll.h): recording of actions,
 * and the one executor that runs them for blocking, nonblocking and
 * persistent collectives. Also the per-communicator state (tag sequence,
 * node layout). Called by the algorithms while they record, by mpi/coll.c
 * to start and wait, and by adi/ progress through completion callbacks.
 *
 * Execution: actions run in order; a send or receive is posted and counted
 * as pending; a fence stops the walk while anything is pending; the
 * completion callback of the last pending request continues the walk.
 * Each send and receive action owns its device request and reposts it at
 * every run (adi_isend_into/adi_irecv_into), so replayed and persistent
 * schedules allocate nothing. Callbacks run inside adi/ progress with the
 * device lock held; a schedule freed from a callback must not free the
 * request it is called for (adi/ still touches it): that one is marked
 * user_freed and adi/ releases it after the callback.
 */
#include "coll/coll_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/cvar.h"

typedef enum {
    ACT_SEND = 1,
    ACT_RECV,
    ACT_FENCE,
    ACT_COPY,
    ACT_REDUCE,
} act_kind_t;

typedef struct {
    act_kind_t kind;
    int peer;
    mpi_comm_t *comm;
    const void *src; /* send, copy: source; reduce: in */
    void *dst;       /* recv, copy: destination; reduce: inout */
    size_t count, dcount;
    dt_type_t *dt, *ddt;
    MPI_Datatype dth;
    MPI_Op op;
    adi_request_t *req; /* send, recv: the device request, reused run after run */
} act_t;

/* What makes two blocking calls the same collective (the schedule of one
 * serves the other). */
typedef struct {
    coll_kind_t kind;
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    dt_type_t *sdt;
    void *recvbuf;
    MPI_Count recvcount;
    MPI_Datatype recvtype;
    dt_type_t *rdt;
    MPI_Op op;
    int root, commutative;
} cache_key_t;

enum { ARENA = 1024, POOL_MAX = 8 };

struct coll_sched {
    mpi_comm_t *comm;
    int tag;
    coll_sched_t *pool_next;
    int cache_slot;         /* slot of the replay cache it was taken from, or -1 */
    int absent;             /* this rank takes no part (1: coll_sched_set_absent), or its
                               part across is one send, to remote rank absent - 2
                               (coll_sched_set_sent_only) */
    int fanout;             /* some step sends to several ranks at once: every send of s is
                               made in the device's fan-out mode (coll_send) */
    int step_sends;         /* sends added since the last fence (building) */
    cache_key_t key;        /* its key there */
    const char *key_arrays; /* and the count/displacement arrays of a v collective */
    size_t key_arrays_len;  /* (bytes; both in the schedule's temporaries) */
    act_t *acts;
    int nacts, cap;
    struct { char *p; size_t len; } *tmps; /* malloc'ed temporaries (coll_tmp) */
    int ntmps, tmpcap;
    dt_type_t **owned;
    int nowned, ownedcap;
    canal_status_t rec_err;
    /* run state */
    int pc;
    int pending;
    canal_status_t err;
    int err_peer; /* job rank of the lost peer behind err (CANAL_ERR_PEER*), or of the one
                     that dropped its message (CANAL_ERR_REMOTE: recv_dropped), or -1 */
    volatile int done;
    int running;
    int abandoned; /* left after a mismatch (coll_watch_wait): posts nothing more */
    /* MPI_Test loops' watch (coll_request_tested): the next look's time
     * (0: not tested yet) and the step since the last */
    long long test_at, test_step;
    int in_advance, again;
    adi_request_t *cb_req; /* request whose completion callback is running */
    adi_request_t *req;    /* completed at the end (nonblocking, persistent) */
    int persistent;
    int free_at_end;
    size_t tmp_bytes; /* malloc'ed temporaries */
    /* small temporaries come from here instead of malloc */
    size_t arena_used;
    _Alignas(16) char arena[ARENA];
};

enum { CACHE_WAYS = 4, CACHE_TMP_MAX = 256 * 1024 };

/* Tags of collectives stay below the ones mpi/comm.c reserves on the
 * collective context for communicator construction. */
enum { COLL_TAG_LIMIT = 0x3ff00000 };

struct coll_comm {
    unsigned seq;
    int active; /* schedules running on this communicator */
    int nodes_known;
    int nnodes;
    int *node_of;                    /* comm rank -> node index, NULL when one node */
    int over_known, over;            /* coll_comm_oversubscribed's answer */
    coll_sched_t *cache[CACHE_WAYS]; /* replay cache of blocking calls (keys in s->key) */
    int cache_next;
    adi_request_t *pair[2];  /* coll/pair.c's receive and send, made on first use */
    /* coll/pair.c's linear rooted calls: receives and sends, made on first
     * use and kept (coll_comm_direct_reqs) */
    adi_request_t **lin_recv, **lin_send;
    int nlin_recv, nlin_send;
    coll_choice_t choice[COLL_CHOICE_SLOTS]; /* coll_run_direct's memory (coll/select.c) */
    coll_shm_state_t shm;    /* coll/shm.c's block */
    /* out of step since a call on the block met one by messages
     * (coll_comm_step_out): the rank that said so and its call's kind */
    int step_out, step_rank, step_kind;
    /* the last run of consecutive calls on an intercommunicator that this
     * rank took no part in (coll_sched_set_absent): their bases, from and
     * to, and the last one's kind; absent_to -1: none */
    int absent_from, absent_to, absent_kind;
    /* the last call on an intercommunicator whose part across on this
     * rank was one send (coll_sched_set_sent_only): its tag << 32 | the
     * remote rank it sent to, UINT64_MAX: none (one word: a look in
     * another thread reads both at once) */
    uint64_t sent_only;
    int last_kind; /* the kind of the last tag taken (next_tag; -1: none yet) */
};

/* The intercommunicator of the last call this rank took no part in, so
 * that a look on any communicator answers the pokes of that call
 * (coll_absent_hold). Not a record in the process that outlives it: it
 * changes under the device lock (adi_lock, a no-op below
 * MPI_THREAD_MULTIPLE), coll_comm_release clears it under that lock when
 * the communicator is destroyed, and a look in another thread takes a
 * reference under the lock (comm_hold, refused once the last reference is
 * gone) and drains it without the lock, whose progress may destroy a
 * communicator (an MPI_Comm_idup's end releases its parent): so no look
 * drains a freed communicator, nor one whose context a new one took. */
static mpi_comm_t *absent_comm;

/* ---------------------------------------------------------------- per communicator */
coll_comm_t *coll_comm_state(mpi_comm_t *c)
{
    void **slot = coll_host.comm_coll_slot(c);
    if (*slot == NULL) {
        coll_comm_t *cs = calloc(1, sizeof(coll_comm_t));
        if (cs != NULL) {
            cs->absent_to = -1; /* (before another thread's look can see it) */
            cs->sent_only = UINT64_MAX;
            cs->last_kind = -1;
        }
        *slot = cs;
        if (cs != NULL) /* (once per communicator: a freed one's late pokes) */
            coll_watch_fresh(c, COLL_TAG_LIMIT);
    }
    return *slot;
}

static void sched_destroy(coll_sched_t *s);
static void final_abandon(mpi_comm_t *c, coll_comm_t *cs);

static int comm_idle(void *arg)
{
    return __atomic_load_n(&((coll_comm_t *)arg)->active, __ATOMIC_ACQUIRE) == 0;
}

void coll_comm_release(mpi_comm_t *c)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(c);
    /* (only a call on c sets it to c, and none runs while c is freed) */
    if (__atomic_load_n(&absent_comm, __ATOMIC_RELAXED) == c) {
        adi_lock();
        if (absent_comm == c)
            __atomic_store_n(&absent_comm, NULL, __ATOMIC_RELAXED);
        adi_unlock();
    }
    if (cs != NULL && !comm_idle(cs)) {
        /* MPI_Comm_free with nonblocking collectives still running: they
         * use the communicator, so they finish first. */
        LOG_DEBUG("freeing a communicator with %d collective(s) in progress: completing them",
                  cs->active);
        if (c == coll_host.comm_world()) /* (only MPI_Finalize frees it) */
            final_abandon(c, cs);
        else
            adi_wait_until(comm_idle, cs);
    }
    /* An intercommunicator's local communicator carries its calls' local
     * parts and the notices of coll/watch.c, but may have no state of its
     * own (no call runs on it directly): its leftovers are taken here,
     * before it is released after c, or they stayed queued on its context
     * and the next communicator made on it met them
     * (coll_inter_stale_note). */
    if (coll_is_inter(c) && *coll_host.comm_coll_slot(coll_local(c)) == NULL)
        coll_watch_leftovers(coll_local(c), COLL_TAG_LIMIT);
    if (cs == NULL)
        return;
    coll_watch_leftovers(c, COLL_TAG_LIMIT);
    for (int i = 0; i < CACHE_WAYS; i++)
        if (cs->cache[i] != NULL)
            sched_destroy(cs->cache[i]);
    for (int i = 0; i < 2; i++)
        if (cs->pair[i] != NULL)
            adi_request_free(cs->pair[i]);
    for (int i = 0; i < cs->nlin_recv; i++)
        adi_request_free(cs->lin_recv[i]);
    for (int i = 0; i < cs->nlin_send; i++)
        adi_request_free(cs->lin_send[i]);
    free(cs->lin_recv);
    free(cs->lin_send);
    coll_shm_free(&cs->shm);
    free(cs->node_of);
    free(cs);
    *coll_host.comm_coll_slot(c) = NULL;
}

/* CANAL_COLL_FAKE_NODES, read once. */
static long long fake_nodes(void)
{
    static int known;
    static long long fake;
    if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
        fake = common_cvar_int("COLL_FAKE_NODES");
        __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
    }
    return fake;
}

const int *coll_comm_nodes(mpi_comm_t *c, int *nnodes_out)
{
    coll_comm_t *cs = coll_comm_state(c);
    long long fake;
    int *node_of, *seen, n = 0, job_nnodes = 0;
    const int *job_node_of = coll_host.job_nodes(&job_nnodes);

    *nnodes_out = 1;
    if (cs == NULL || coll_is_inter(c) || coll_size(c) < 2)
        return NULL;
    if (cs->nodes_known) {
        *nnodes_out = cs->nnodes;
        return cs->node_of;
    }
    fake = fake_nodes();
    cs->nodes_known = 1;
    cs->nnodes = 1;
    if (fake <= 1 && (job_nnodes <= 1 || job_node_of == NULL))
        return NULL;
    node_of = malloc(sizeof(int) * (size_t)coll_size(c));
    seen = malloc(sizeof(int) * (size_t)(fake > 1 ? fake : job_nnodes));
    if (node_of == NULL || seen == NULL) {
        free(node_of);
        free(seen);
        return NULL;
    }
    if (fake > 1) {
        /* Testing: pretend ranks are spread over `fake` nodes in blocks. */
        if (fake > coll_size(c))
            fake = coll_size(c);
        for (int r = 0; r < coll_size(c); r++)
            node_of[r] = (int)((long long)r * fake / coll_size(c));
        n = (int)fake;
    } else {
        /* Renumber the job's nodes densely in order of first appearance.
         * Processes of other jobs (a communicator merged after a spawn or
         * a connect) are numbered beyond this job's ranks and their nodes
         * are not known here (each job numbers its own nodes): the flat
         * algorithms then, the same on both sides. */
        for (int i = 0; i < job_nnodes; i++)
            seen[i] = -1;
        for (int r = 0; r < coll_size(c); r++) {
            int j = coll_host.comm_peer_job_rank(c, r), node;
            if (j < 0 || j >= adi_job_size()) {
                free(node_of);
                free(seen);
                return NULL;
            }
            node = job_node_of[j];
            if (node < 0 || node >= job_nnodes)
                node = 0;
            if (seen[node] < 0)
                seen[node] = n++;
            node_of[r] = seen[node];
        }
    }
    free(seen);
    if (n <= 1) {
        free(node_of);
        return NULL;
    }
    cs->node_of = node_of;
    cs->nnodes = n;
    *nnodes_out = n;
    return node_of;
}

/* Oversubscribed is a property of a node, and each node decides its own;
 * every rank of c must choose the same algorithm, so c counts as
 * oversubscribed only when all of it is on this rank's node and of this
 * job (a merged job has its own count of local ranks). */
coll_shm_state_t *coll_comm_shm(mpi_comm_t *c)
{
    coll_comm_t *cs = coll_comm_state(c);
    return cs != NULL ? &cs->shm : NULL;
}

int coll_comm_on_this_node(mpi_comm_t *c)
{
    int nn, job_nnodes = 0, me;
    const int *job_node_of;

    if (coll_is_inter(c) || coll_comm_nodes(c, &nn) != NULL || fake_nodes() > 1)
        return 0;
    job_node_of = coll_host.job_nodes(&job_nnodes);
    me = adi_job_rank();
    for (int r = 0; r < coll_size(c); r++) {
        int j = coll_host.comm_peer_job_rank(c, r);
        if (j < 0 || j >= adi_job_size())
            return 0;
        if (job_node_of != NULL && job_nnodes > 1 && job_node_of[j] != job_node_of[me])
            return 0;
    }
    return 1;
}

int coll_comm_oversubscribed(mpi_comm_t *c)
{
    coll_comm_t *cs = coll_comm_state(c);

    if (cs == NULL || coll_is_inter(c) || coll_size(c) < 2)
        return 0;
    if (cs->over_known)
        return cs->over;
    cs->over_known = 1;
    cs->over = adi_oversubscribed() && coll_comm_on_this_node(c);
    return cs->over;
}

/* ---------------------------------------------------------------- recording */
static canal_status_t rec_fail(coll_sched_t *s, canal_status_t st)
{
    if (s->rec_err == CANAL_OK)
        s->rec_err = st;
    return st;
}

static act_t *act_new(coll_sched_t *s, act_kind_t kind)
{
    act_t *a;
    if (s->rec_err != CANAL_OK)
        return NULL;
    if (s->nacts == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        act_t *n = realloc(s->acts, sizeof(act_t) * (size_t)cap);
        if (n == NULL) {
            rec_fail(s, common_err_set(CANAL_ERR_NOMEM, "no memory for a collective schedule"));
            return NULL;
        }
        s->acts = n;
        s->cap = cap;
    }
    a = &s->acts[s->nacts++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    return a;
}

static void keep_dt(dt_type_t *dt)
{
    if (dt != NULL)
        dt_retain(dt);
}

/* Finished schedules keep their arrays for the next collective: most
 * calls then allocate nothing. Guarded by the device lock. */
static coll_sched_t *pool;
static int pool_len;

/* The next call's tag (under the device lock): its number in the
 * communicator's sequence above the kind bits (coll_impl.h), which hold
 * `kind`. */

static int seq_base(unsigned seq)
{
    return (int)((seq % ((unsigned)COLL_TAG_LIMIT >> COLL_TAG_KIND_BITS)) << COLL_TAG_KIND_BITS);
}

static int next_tag(coll_comm_t *cs, int kind)
{
    cs->last_kind = kind;
    return seq_base(cs->seq++) | kind;
}

unsigned coll_comm_tags_taken(mpi_comm_t *c, int *last_kind)
{
    coll_comm_t *cs = coll_comm_state(c);
    unsigned n = 0;

    *last_kind = -1;
    if (cs == NULL)
        return 0;
    adi_lock();
    n = cs->seq;
    *last_kind = cs->last_kind;
    adi_unlock();
    return n;
}

int coll_comm_peek_tag(mpi_comm_t *c)
{
    coll_comm_t *cs = coll_comm_state(c);
    int base;
    if (cs == NULL)
        return -1;
    adi_lock();
    base = seq_base(cs->seq);
    adi_unlock();
    return base;
}

/* The error of every collective on a communicator out of step. */
static canal_status_t step_error(const coll_comm_t *cs)
{
    return common_err_set(CANAL_ERR_MISMATCH,
                          "collective mismatch: this communicator is out of step: at this call or "
                          "an earlier one rank %d's %s went through (or was making) the node's shared "
                          "block while another "
                          "rank called a collective by messages, so its ranks disagree on how "
                          "many collectives it has had; every collective on it fails (free it; "
                          "other communicators work)",
                          cs->step_rank,
                          cs->step_kind >= 0 && cs->step_kind <= COLL_NEIGHBOR_ALLTOALLW
                              ? coll_kind_name((coll_kind_t)cs->step_kind)
                              : "collective");
}

static int tag_kind(int tag)
{
    return tag & ((1 << COLL_TAG_KIND_BITS) - 1);
}

void coll_sched_set_kind(coll_sched_t *s, coll_kind_t kind)
{
    s->tag = (s->tag & ~((1 << COLL_TAG_KIND_BITS) - 1)) | (int)kind;
}

/* A schedule on c with tag `tag`, or (tag < 0) the next tag of c's
 * sequence, taken for a call of `kind`: the kind the communicator then
 * remembers as its last call's (coll_comm_tags_taken) is the call's on
 * every rank, whether its schedule is new or replayed (coll/shm.c's
 * gather_follows decides by it, alike on every rank). */
static canal_status_t sched_new(mpi_comm_t *c, coll_kind_t kind, coll_sched_t **out, int tag)
{
    coll_comm_t *cs = coll_comm_state(c);
    coll_sched_t *s;

    if (cs == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a collective schedule");
    if (cs->step_out)
        return step_error(cs);
    adi_lock();
    s = pool;
    if (s != NULL) {
        pool = s->pool_next;
        pool_len--;
    }
    adi_unlock();
    if (s == NULL && (s = calloc(1, sizeof *s)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a collective schedule");
    s->comm = c;
    s->pool_next = NULL;
    s->cache_slot = -1;
    s->absent = 0;
    s->fanout = 0;
    s->step_sends = 0;
    s->key_arrays = NULL;
    s->key_arrays_len = 0;
    if (tag >= 0) {
        s->tag = tag;
    } else {
        adi_lock();
        s->tag = next_tag(cs, (int)kind);
        adi_unlock();
    }
    s->done = 1;
    *out = s;
    return CANAL_OK;
}

canal_status_t coll_sched_create(mpi_comm_t *c, coll_kind_t kind, coll_sched_t **out)
{
    return sched_new(c, kind, out, -1);
}

coll_choice_t *coll_comm_choice(mpi_comm_t *c, int slot)
{
    coll_comm_t *cs = coll_comm_state(c);
    return cs != NULL ? &cs->choice[slot] : NULL;
}

int coll_comm_leaf_tag(mpi_comm_t *c, coll_kind_t k)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(c); /* (made by the first call's choice) */
    int tag;

    if (cs == NULL || !cs->choice[coll_rooted_slot(k)].leaf)
        return -1;
    adi_lock();
    tag = next_tag(cs, (int)k);
    adi_unlock();
    return tag;
}

int coll_comm_step_out(mpi_comm_t *c, int rank, int kind)
{
    coll_comm_t *cs = coll_comm_state(c);
    coll_sched_t *cached[CACHE_WAYS];
    if (cs == NULL || cs->step_out)
        return 0;
    cs->step_out = 1;
    cs->step_rank = rank;
    cs->step_kind = kind;
    /* Its calls then go to the schedule's creation, which fails, through
     * state the matched paths read anyway (nothing tests the mark per
     * call): no block; no 2-rank exchange (the barrier's remembered choice
     * says none, and the allreduce's is forgotten: coll_run_direct's miss
     * tests the mark); no replay (the cache is emptied). */
    cs->shm.state = -1;
    cs->choice[0] = (coll_choice_t){.valid = 1, .algo = NULL};
    for (int i = 1; i < COLL_CHOICE_SLOTS; i++)
        cs->choice[i].valid = cs->choice[i].leaf = 0;
    adi_lock();
    for (int i = 0; i < CACHE_WAYS; i++) {
        cached[i] = cs->cache[i];
        cs->cache[i] = NULL;
    }
    adi_unlock();
    for (int i = 0; i < CACHE_WAYS; i++)
        if (cached[i] != NULL)
            sched_destroy(cached[i]);
    return 1;
}

canal_status_t coll_comm_step_check(mpi_comm_t *c)
{
    coll_comm_t *cs = coll_comm_state(c);
    return cs != NULL && cs->step_out ? step_error(cs) : CANAL_OK;
}

adi_request_t **coll_comm_pair_reqs(mpi_comm_t *c, coll_kind_t kind, int *tag)
{
    coll_comm_t *cs = coll_comm_state(c);
    if (cs == NULL)
        return NULL;
    if (cs->pair[0] == NULL && (cs->pair[0] = adi_request_alloc(ADI_REQ_RECV)) == NULL)
        return NULL;
    if (cs->pair[1] == NULL && (cs->pair[1] = adi_request_alloc(ADI_REQ_SEND)) == NULL)
        return NULL;
    adi_lock();
    *tag = next_tag(cs, (int)kind);
    adi_unlock();
    return cs->pair;
}

static canal_status_t do_copy(const act_t *a);

/* Grow *arr (of *n requests of `kind`) to want; 0, or -1 without memory
 * (what was made stays; CANAL_FAULT_COLL_REQS_NOMEM, testing: this job
 * rank's growth fails as if malloc had, for coll_scatter_nomem). */
static int reqs_grow(adi_request_t ***arr, int *n, int want, adi_req_kind_t kind)
{
    adi_request_t **a;

    if (*n >= want)
        return 0;
    if (common_cvar_int("FAULT_COLL_REQS_NOMEM") == adi_job_rank() ||
        (a = realloc(*arr, sizeof *a * (size_t)want)) == NULL)
        return -1;
    *arr = a;
    while (*n < want) {
        if ((a[*n] = adi_request_alloc(kind)) == NULL)
            return -1;
        (*n)++;
    }
    return 0;
}

canal_status_t coll_comm_direct_reqs(mpi_comm_t *c, int nrecv, int nsend, adi_request_t ***recv,
                                     adi_request_t ***send)
{
    coll_comm_t *cs = coll_comm_state(c);

    if (cs == NULL ||
        (cs->nlin_recv < nrecv &&
         reqs_grow(&cs->lin_recv, &cs->nlin_recv, nrecv, ADI_REQ_RECV) < 0) ||
        (cs->nlin_send < nsend && reqs_grow(&cs->lin_send, &cs->nlin_send, nsend, ADI_REQ_SEND) < 0))
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the requests of a collective");
    *recv = cs->lin_recv;
    *send = cs->lin_send;
    return CANAL_OK;
}

canal_status_t coll_copy_acted(const void *src, size_t scount, dt_type_t *sdt, void *dst,
                               size_t dcount, dt_type_t *ddt)
{
    act_t a = {.kind = ACT_COPY,
               .src = src,
               .count = scount,
               .dt = sdt,
               .dst = dst,
               .dcount = dcount,
               .ddt = ddt};

    /* (as coll_copy records it: nothing when either side is empty) */
    if (scount * dt_size(sdt) == 0 || dcount * dt_size(ddt) == 0)
        return CANAL_OK;
    return do_copy(&a);
}

int coll_sched_tag(const coll_sched_t *s)
{
    return s->tag;
}
canal_status_t coll_sched_run(const coll_args_t *a, coll_record_fn record)
{
    return coll_sched_run_as(a, record, -1);
}

static inline int take_tag(mpi_comm_t *c, coll_kind_t kind, int in_step)
{
    coll_comm_t *cs = coll_comm_state(c);
    int tag;
    if (cs == NULL || (in_step && cs->step_out))
        return -1;
    adi_lock();
    tag = next_tag(cs, (int)kind);
    adi_unlock();
    return tag;
}

int coll_comm_take_tag(mpi_comm_t *c, coll_kind_t kind)
{
    return take_tag(c, kind, 0);
}

int coll_comm_take_tag_in_step(mpi_comm_t *c, coll_kind_t kind)
{
    return take_tag(c, kind, 1);
}

canal_status_t coll_sched_run_as(const coll_args_t *a, coll_record_fn record, int tag)
{
    coll_sched_t *s;
    canal_status_t st = sched_new(a->comm, a->kind, &s, tag);

    if (st < 0)
        return st;
    coll_sched_set_kind(s, a->kind);
    st = record(s, a);
    if (tag >= 0)
        s->tag = tag; /* (record set the kind bits to a's) */
    if (st >= 0)
        st = coll_sched_status(s);
    if (st >= 0)
        st = coll_sched_start(s, NULL, 0);
    if (st >= 0)
        st = coll_sched_wait(s);
    coll_sched_free(s);
    return st;
}

canal_status_t coll_sched_status(const coll_sched_t *s)
{
    return s->rec_err;
}

void coll_send(coll_sched_t *s, mpi_comm_t *c, int peer, const void *buf, size_t count,
               dt_type_t *dt)
{
    act_t *a = act_new(s, ACT_SEND);
    if (a == NULL)
        return;
    a->comm = c;
    a->peer = peer;
    a->src = buf;
    a->count = count;
    a->dt = dt;
    keep_dt(dt);
    /* A step that sends to several ranks at once (a broadcast's or a
     * scatter's root, a tree's inner node, a linear allgather or alltoall)
     * fans out: its receivers copy their messages themselves where the
     * device can (ADI_MODE_FANOUT), so one rank does not copy them all. */
    if (++s->step_sends > 1)
        s->fanout = 1;
}

void coll_recv(coll_sched_t *s, mpi_comm_t *c, int peer, void *buf, size_t count, dt_type_t *dt)
{
    act_t *a = act_new(s, ACT_RECV);
    if (a == NULL)
        return;
    a->comm = c;
    a->peer = peer;
    a->dst = buf;
    a->count = count;
    a->dt = dt;
    keep_dt(dt);
}

void coll_fence(coll_sched_t *s)
{
    /* a fence right after a fence (or at the start) waits for nothing */
    if (s->nacts == 0 || s->acts[s->nacts - 1].kind == ACT_FENCE)
        return;
    act_new(s, ACT_FENCE);
    s->step_sends = 0;
}

void coll_copy(coll_sched_t *s, const void *src, size_t scount, dt_type_t *sdt, void *dst,
               size_t dcount, dt_type_t *ddt)
{
    act_t *a;
    if (scount * dt_size(sdt) == 0 || dcount * dt_size(ddt) == 0)
        return;
    if ((a = act_new(s, ACT_COPY)) == NULL)
        return;
    a->src = src;
    a->count = scount;
    a->dt = sdt;
    a->dst = dst;
    a->dcount = dcount;
    a->ddt = ddt;
    keep_dt(sdt);
    keep_dt(ddt);
}

void coll_reduce(coll_sched_t *s, const void *in, void *inout, size_t count, dt_type_t *dt,
                 MPI_Datatype dth, MPI_Op op)
{
    act_t *a;
    if (count == 0)
        return;
    if ((a = act_new(s, ACT_REDUCE)) == NULL)
        return;
    a->src = in;
    a->dst = inout;
    a->count = count;
    a->dt = dt;
    a->dth = dth;
    a->op = op;
    keep_dt(dt);
    coll_op_retain(op);
}

void *coll_tmp(coll_sched_t *s, size_t bytes)
{
    void *p;
    size_t need = (bytes + 15) & ~(size_t)15;
    if (s->rec_err != CANAL_OK)
        return NULL;
    if (need <= ARENA - s->arena_used) {
        p = s->arena + s->arena_used;
        s->arena_used += need ? need : 16;
        memset(p, 0, bytes);
        return p;
    }
    if (s->ntmps == s->tmpcap) {
        int cap = s->tmpcap ? 2 * s->tmpcap : 8;
        void *n = realloc(s->tmps, sizeof *s->tmps * (size_t)cap);
        if (n == NULL) {
            rec_fail(s, common_err_set(CANAL_ERR_NOMEM, "no memory for a collective schedule"));
            return NULL;
        }
        s->tmps = n;
        s->tmpcap = cap;
    }
    p = calloc(1, bytes ? bytes : 1);
    s->tmp_bytes += bytes;
    if (p == NULL) {
        rec_fail(s, common_err_set(CANAL_ERR_NOMEM,
                                   "no memory for a %zu-byte temporary buffer of a collective",
                                   bytes));
        return NULL;
    }
    s->tmps[s->ntmps].p = p;
    s->tmps[s->ntmps++].len = bytes;
    return p;
}

void *coll_tmp_typed(coll_sched_t *s, size_t count, dt_type_t *dt)
{
    ptrdiff_t ext = dt_extent(dt), lo, hi;
    char *p;
    if (count == 0)
        return coll_tmp(s, 1);
    /* the lowest and highest byte count elements of dt touch */
    lo = dt_true_lb(dt) + (ext < 0 ? (ptrdiff_t)(count - 1) * ext : 0);
    hi = dt_true_lb(dt) + dt_true_extent(dt) + (ext > 0 ? (ptrdiff_t)(count - 1) * ext : 0);
    p = coll_tmp(s, (size_t)(hi - lo));
    return p != NULL ? p - lo : NULL;
}

dt_type_t *coll_keep_type(coll_sched_t *s, canal_status_t st, dt_type_t *t)
{
    if (st < 0) {
        rec_fail(s, st);
        return NULL;
    }
    if ((st = dt_commit(t)) < 0) {
        dt_release(t);
        rec_fail(s, st);
        return NULL;
    }
    if (s->nowned == s->ownedcap) {
        int cap = s->ownedcap ? 2 * s->ownedcap : 8;
        dt_type_t **n = realloc(s->owned, sizeof(dt_type_t *) * (size_t)cap);
        if (n == NULL) {
            dt_release(t);
            rec_fail(s, common_err_set(CANAL_ERR_NOMEM, "no memory for a collective schedule"));
            return NULL;
        }
        s->owned = n;
        s->ownedcap = cap;
    }
    s->owned[s->nowned++] = t;
    return t;
}

/* ---------------------------------------------------------------- freeing */

/* Release what the schedule holds and put it back in the pool (or free
 * it when the pool is full). */
static void sched_destroy(coll_sched_t *s)
{
    for (int i = 0; i < s->nacts; i++) {
        if (s->acts[i].dt != NULL)
            dt_release(s->acts[i].dt);
        if (s->acts[i].ddt != NULL)
            dt_release(s->acts[i].ddt);
        if (s->acts[i].kind == ACT_REDUCE)
            coll_op_release(s->acts[i].op);
        if (s->acts[i].req != NULL) {
            if (s->acts[i].req == s->cb_req)
                s->acts[i].req->user_freed = 1; /* adi/ frees it after our callback */
            else
                adi_request_free(s->acts[i].req);
        }
    }
    s->cb_req = NULL;
    for (int i = 0; i < s->nowned; i++)
        dt_release(s->owned[i]);
    for (int i = 0; i < s->ntmps; i++)
        free(s->tmps[i].p);
    adi_lock();
    if (pool_len < POOL_MAX && s->cap <= 256) {
        s->nacts = s->ntmps = s->nowned = 0;
        s->arena_used = s->tmp_bytes = 0;
        s->rec_err = CANAL_OK;
        s->running = s->persistent = s->free_at_end = 0;
        s->key_arrays = NULL;
        s->key_arrays_len = 0;
        s->req = NULL;
        s->pool_next = pool;
        pool = s;
        pool_len++;
        adi_unlock();
        return;
    }
    adi_unlock();
    free(s->owned);
    free(s->tmps);
    free(s->acts);
    free(s);
}

/* Called at MPI_Finalize: free the pooled schedules. */
void coll_sched_pool_drain(void)
{
    adi_lock();
    while (pool != NULL) {
        coll_sched_t *s = pool;
        pool = s->pool_next;
        free(s->owned);
        free(s->tmps);
        free(s->acts);
        free(s);
    }
    pool_len = 0;
    adi_unlock();
}

void coll_sched_free(coll_sched_t *s)
{
    if (s == NULL)
        return;
    adi_lock();
    if (s->running) {
        /* a persistent request freed while active: finish first */
        s->persistent = 0;
        s->free_at_end = 1;
        adi_unlock();
        return;
    }
    adi_unlock();
    sched_destroy(s);
}

/* ---------------------------------------------------------------- local actions */
/* Copy as packed bytes, through a bounce buffer when both sides are
 * non-contiguous. */
/* A copy within this rank (its own block: the send side of a rank's call
 * into its receive side) moves the smaller of the two sizes; sizes that
 * differ mean that the rank's own counts and datatypes do not pair up, an
 * error that the walk then carries to the other ranks like a failed
 * receive. */
static canal_status_t copy_outcome(size_t n, size_t m)
{
    if (n > m)
        return common_err_set(CANAL_ERR_TRUNCATE,
                              "this rank's own contribution (%zu bytes) is larger than the "
                              "%zu bytes its receive side expects from it",
                              n, m);
    if (n < m)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective size mismatch: this rank's own contribution is %zu "
                              "bytes where its receive side expects %zu",
                              n, m);
    return CANAL_OK;
}

static canal_status_t do_copy(const act_t *a)
{
    size_t n = a->count * dt_size(a->dt), m = a->dcount * dt_size(a->ddt);
    int sc = dt_is_contig_count(a->dt, a->count), dc = dt_is_contig_count(a->ddt, a->dcount);
    const char *src = (const char *)a->src;
    char *dst = (char *)a->dst;
    canal_status_t st = copy_outcome(n, m);
    dt_cursor_t in, out;

    if (m < n)
        n = m;
    if (sc && dc) {
        memmove(dst + dt_true_lb(a->ddt), src + dt_true_lb(a->dt), n);
        return st;
    }
    if (sc) {
        dt_cursor_init(&out, a->ddt, a->dcount);
        dt_unpack_next(&out, dst, src + dt_true_lb(a->dt), n);
        dt_cursor_fini(&out);
        return st;
    }
    if (dc) {
        dt_cursor_init(&in, a->dt, a->count);
        dt_pack_next(&in, src, dst + dt_true_lb(a->ddt), n);
        dt_cursor_fini(&in);
        return st;
    }
    {
        enum { CHUNK = 65536 };
        char *bounce = malloc(n < CHUNK ? (n ? n : 1) : CHUNK);
        if (bounce == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory to copy %zu bytes in a collective",
                                  n);
        dt_cursor_init(&in, a->dt, a->count);
        dt_cursor_init(&out, a->ddt, a->dcount);
        while (n > 0) {
            size_t k = dt_pack_next(&in, src, bounce, n < CHUNK ? n : CHUNK);
            if (k == 0)
                break;
            dt_unpack_next(&out, dst, bounce, k);
            n -= k;
        }
        dt_cursor_fini(&in);
        dt_cursor_fini(&out);
        free(bounce);
    }
    return st;
}

static canal_status_t do_reduce(const act_t *a)
{
    int cls = coll_op_apply(a->op, a->src, a->dst, a->count, a->dth, a->dt);
    if (cls != MPI_SUCCESS)
        return common_err_set(CANAL_ERR_OP,
                              "the reduction operation %#x cannot be applied to "
                              "datatype %#x",
                              (unsigned)a->op, (unsigned)a->dth);
    return CANAL_OK;
}

/* ---------------------------------------------------------------- execution */
static void on_done(adi_request_t *r, void *arg);
static int sched_advance(coll_sched_t *s);

static void set_err(coll_sched_t *s, canal_status_t st)
{
    if (st < 0 && s->err == CANAL_OK) {
        s->err = st;
        s->err_peer = -1;
    }
}

/* The outcome of request r; a lost peer is remembered for the message. */
static void set_err_req(coll_sched_t *s, canal_status_t st, const adi_request_t *r)
{
    int first = s->err == CANAL_OK;
    set_err(s, st);
    if (first && (st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING ||
                  st == CANAL_ERR_REMOTE))
        s->err_peer = r->status.peer;
}

/* The outcome of a finished send or receive. Every message of a collective
 * carries exactly what its receive expects when the ranks' counts and
 * datatypes pair up as the standard asks, so a shorter message means the
 * ranks disagree (a broadcast whose root passed fewer elements): an error,
 * as MPICH reports it, instead of silently stale data. (A longer one fails
 * in adi/ as truncated.) The walk goes on either way, so that the ranks
 * further down still get their messages and none of them waits for ever;
 * once a schedule has failed, its later sends carry no data (see post()),
 * and that is how the ranks they reach learn of the error: as in MPICH,
 * which flags such messages in the tag, an error travels on with the
 * collective's own messages. */
static canal_status_t act_outcome(const act_t *a, const adi_request_t *r)
{
    size_t want;
    if (r->status.error != CANAL_OK || a->kind != ACT_RECV)
        return r->status.error;
    want = a->count * dt_size(a->dt);
    if (r->status.bytes == 0 && want > 0)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "rank %d sent no data where %zu bytes were expected: this "
                              "collective failed there, or the ranks passed counts or datatypes "
                              "that do not match",
                              a->peer, want);
    if (r->status.bytes != want)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective size mismatch: %zu bytes came from rank %d where %zu "
                              "were expected (the ranks passed counts or datatypes that do not "
                              "match)",
                              r->status.bytes, a->peer, want);
    return CANAL_OK;
}

static void post(coll_sched_t *s, act_t *a)
{
    mpi_comm_t *c = a->comm;
    adi_request_t *r = a->req;
    canal_status_t st;

    if (r == NULL) {
        r = adi_request_alloc(a->kind == ACT_SEND ? ADI_REQ_SEND : ADI_REQ_RECV);
        if (r == NULL) {
            set_err(s, common_err_set(CANAL_ERR_NOMEM, "no memory for a request of a collective"));
            return;
        }
        a->req = r;
    }
    if (a->kind == ACT_SEND)
        st = adi_isend_into(r, a->src, s->err != CANAL_OK ? 0 : a->count, a->dt,
                            coll_host.comm_peer_job_rank(c, a->peer), coll_rank(c), s->tag, coll_context(c) + 1,
                            s->fanout ? ADI_MODE_FANOUT : ADI_MODE_STANDARD);
    else
        st = adi_irecv_into(r, a->dst, a->count, a->dt, a->peer, s->tag, coll_context(c) + 1);
    if (st < 0) {
        set_err(s, st);
        if (s->err == st && (st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING))
            s->err_peer = coll_host.comm_peer_job_rank(c, a->peer);
        return;
    }
    if (r->done) {
        set_err_req(s, act_outcome(a, r), r);
        return;
    }
    r->mpi_ext = a; /* (coll/'s own request: for on_done) */
    r->on_complete = on_done;
    r->on_complete_arg = s;
    s->pending++;
}

/* The walk is over: hand the result to whoever waits. Returns 1 if s was
 * freed. */
static int sched_finish(coll_sched_t *s)
{
    adi_request_t *req = s->req;
    int destroy = s->free_at_end;
    coll_comm_t *cs;

    s->running = 0;
    s->req = NULL;
    cs = s->abandoned ? NULL : *coll_host.comm_coll_slot(s->comm); /* (counted off already) */
    if (cs != NULL)
        __atomic_sub_fetch(&cs->active, 1, __ATOMIC_RELEASE);
    if (req != NULL) {
        req->mpi_ext = NULL;
        req->status.error = s->err;
        req->status.peer = s->err_peer; /* (mpi/ names the lost rank from it) */
    }
    /* after this store a blocking waiter may free s */
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    if (destroy)
        sched_destroy(s);
    if (req != NULL)
        adi_request_complete(req);
    return destroy;
}

/* Run actions until a fence with pending requests or the end. Called with
 * the device lock held. Returns 1 if s was freed. */
static int sched_advance(coll_sched_t *s)
{
    if (s->in_advance) {
        s->again = 1;
        return 0;
    }
    s->in_advance = 1;
    do {
        s->again = 0;
        if (s->pending > 0)
            break;
        while (s->pc < s->nacts) {
            act_t *a;
            if (s->err == CANAL_ERR_PEER || s->err == CANAL_ERR_PEER_PENDING ||
                s->err == CANAL_ERR_REVOKED || s->abandoned) {
                /* A lost peer or a revoked communicator: what is left would
                 * send data that is not the result (a partial sum) or wait
                 * for peers that stopped too; the other survivors learn
                 * of the loss themselves. (Other errors go on, with empty
                 * sends that tell the ranks further down: act_outcome.) */
                s->pc = s->nacts;
                break;
            }
            a = &s->acts[s->pc++];
            if (a->kind == ACT_FENCE) {
                if (s->pending > 0)
                    break;
                continue;
            }
            switch (a->kind) {
            case ACT_SEND:
            case ACT_RECV:
                post(s, a);
                break;
            case ACT_COPY:
                set_err(s, do_copy(a));
                break;
            case ACT_REDUCE:
                set_err(s, do_reduce(a));
                break;
            default:
                break;
            }
        }
        if (s->pending == 0 && s->pc >= s->nacts) {
            s->in_advance = 0;
            return sched_finish(s);
        }
    } while (s->again);
    s->in_advance = 0;
    return 0;
}

static void on_done(adi_request_t *r, void *arg)
{
    coll_sched_t *s = arg;
    set_err_req(s, r->mpi_ext != NULL ? act_outcome(r->mpi_ext, r) : r->status.error, r);
    if (--s->pending == 0) {
        s->cb_req = r;
        if (!sched_advance(s))
            s->cb_req = NULL;
    }
}

canal_status_t coll_sched_start(coll_sched_t *s, adi_request_t *req, int persistent)
{
    if (s->rec_err != CANAL_OK)
        return s->rec_err;
    adi_lock();
    s->pc = 0;
    s->pending = 0;
    s->err = CANAL_OK;
    s->err_peer = -1;
    s->req = req;
    if (req != NULL)
        req->mpi_ext = s; /* (coll_request_wait's; until the end) */
    s->persistent = persistent;
    s->free_at_end = req != NULL && !persistent;
    s->running = 1;
    s->abandoned = 0;
    s->test_at = 0;
    s->cb_req = NULL;
    __atomic_add_fetch(&((coll_comm_t *)*coll_host.comm_coll_slot(s->comm))->active, 1,
                       __ATOMIC_RELAXED);
    __atomic_store_n(&s->done, 0, __ATOMIC_RELEASE);
    sched_advance(s);
    adi_unlock();
    return CANAL_OK;
}

canal_status_t coll_sched_restart(coll_sched_t *s, adi_request_t *req)
{
    canal_status_t st = coll_comm_step_check(s->comm);
    return st < 0 ? st : coll_sched_start(s, req, 1);
}

int coll_sched_done(const coll_sched_t *s)
{
    return __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
}

static int done_pred(void *arg)
{
    return coll_sched_done(arg);
}

/* The schedule a nonblocking or persistent collective's request r runs
 * (r->mpi_ext while it runs, set by coll_sched_start), NULL once done.
 * Under the device lock: a finished nonblocking schedule is freed. */
static coll_sched_t *req_sched(adi_request_t *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) ? NULL : r->mpi_ext;
}

/* Whether the bytes send a reads lie in s's own temporaries (the arena or
 * a coll_tmp block), which live as long as s, and s as long as a's
 * request runs (an abandoned schedule frees itself at its end): such a
 * send needs no copy when its caller leaves. */
static int send_in_scratch(const coll_sched_t *s, const act_t *a)
{
    ptrdiff_t ext = dt_extent(a->dt), lo, hi;
    const char *from, *to;

    if (a->count == 0)
        return 1;
    lo = dt_true_lb(a->dt) + (ext < 0 ? (ptrdiff_t)(a->count - 1) * ext : 0);
    hi = dt_true_lb(a->dt) + dt_true_extent(a->dt) +
         (ext > 0 ? (ptrdiff_t)(a->count - 1) * ext : 0);
    from = (const char *)a->src + lo;
    to = (const char *)a->src + hi;
    if (from >= s->arena && to <= s->arena + ARENA)
        return 1;
    for (int i = 0; i < s->ntmps; i++)
        if (from >= s->tmps[i].p && to <= s->tmps[i].p + s->tmps[i].len)
            return 1;
    return 0;
}

/* The ranks called different collectives (coll/watch.c found it): stop
 * posting, cancel the receives that wait for messages the other
 * collective never sends (and detach those matched already, whose
 * messages may still be coming), and count the schedule off its communicator
 * (a send whose receiver never matches it may keep it running: then it
 * frees itself if that send ever ends, and it is never replayed). The
 * request of a nonblocking or persistent call (r, NULL for a blocking
 * one) completes at once with err. The cancelled receives' outcomes do
 * not replace err's message. 1: abandoned, 0: s had ended. */
static int sched_abandon(coll_sched_t *s, adi_request_t *r, canal_status_t err)
{
    char msg[512];
    coll_comm_t *cs;
    int free_at_end, dropped = 0;

    snprintf(msg, sizeof msg, "%s", common_err_detail());
    adi_lock();
    if (r != NULL ? req_sched(r) != s : s->done) {
        adi_unlock();
        return 0;
    }
    s->err = err;
    s->err_peer = -1;
    s->abandoned = 1;
    s->pc = s->nacts;
    cs = *coll_host.comm_coll_slot(s->comm);
    if (cs != NULL)
        __atomic_sub_fetch(&cs->active, 1, __ATOMIC_RELEASE);
    if (r != NULL) {
        s->req = NULL;
        r->mpi_ext = NULL;
        r->status.error = err;
        r->status.peer = -1;
        adi_request_complete(r);
    }
    /* (a nonblocking schedule that finishes while its receives are
     * cancelled below is freed here, not at its end) */
    free_at_end = s->free_at_end;
    s->free_at_end = 0;
    adi_unlock();
    /* Receives are cancelled; sends that go on (a receiver may still take
     * them) stop reading the caller's buffer, which it may free once the
     * call returns (a rendezvous send of an abandoned MPI_Bcast read a
     * freed buffer in a later call's progress: coll_length_mismatch big). */
    /* A send whose bytes cannot be kept is dropped (its receiver's call
     * fails); the caller's error says so. One from s's temporaries needs
     * no copy. */
    for (int i = 0; i < s->nacts; i++) {
        if (s->acts[i].req == NULL)
            continue;
        if (s->acts[i].kind == ACT_RECV) {
            adi_cancel(s->acts[i].req); /* (does nothing to a finished one) */
            /* a matched one may still be streamed into the caller's buffer,
             * which it may free once the call returns (rank 2 of
             * coll_leftover_finalize, 3 ranks, CANAL_SHM_CMA=no, crashed
             * in recv_put under load) */
            adi_recv_detach(s->acts[i].req);
        }
        else if (s->acts[i].kind == ACT_SEND && !send_in_scratch(s, &s->acts[i]) &&
                 adi_send_detach(s->acts[i].req) < 0 && !dropped++) /* (nor this) */
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "; and %s",
                     common_err_detail());
    }
    adi_lock();
    if (free_at_end && !s->running)
        sched_destroy(s);
    else
        s->free_at_end = free_at_end;
    adi_unlock();
    common_err_set(err, "%s", msg);
    return 1;
}

/* The schedules of nonblocking or persistent calls still running on one
 * communicator (final_abandon's search; device lock held). */
typedef struct {
    mpi_comm_t *comm;
    adi_request_t *reqs[16];
    int n;
} running_t;

static void running_find(adi_request_t *r, void *arg)
{
    running_t *f = arg;
    coll_sched_t *s;

    if (r->kind == ADI_REQ_COLL && f->n < 16 && (s = req_sched(r)) != NULL && s->comm == f->comm &&
        !s->abandoned)
        f->reqs[f->n++] = r;
}

/* MPI_Finalize's release of MPI_COMM_WORLD (coll_module_finalize): a
 * nonblocking or persistent collective still running there is one the
 * program never completed (erroneous: MPI_Finalize with a request
 * active). Its messages' receivers may be in MPI_Finalize's fence
 * already, where they take nothing: it gets CANAL_FINALIZE_WAIT_MS, the
 * limit adi_finalize gives the sends abandoned collectives left, and is
 * then abandoned as a mismatched call is (sched_abandon: its receives
 * detached, its sends kept or withdrawn, then adi_finalize's final word
 * and limit). Before, the release waited for ever: over ofi the RTS of
 * rank 1's MPI_Ibcast to rank 2, queued behind a connection rank 2 in its
 * fence never accepted, never left (coll_detach_wait args=final). */
static void final_abandon(mpi_comm_t *c, coll_comm_t *cs)
{
    long long limit_ms = common_cvar_int("FINALIZE_WAIT_MS");
    running_t f = {.comm = c};

    if (adi_wait_until_for(comm_idle, cs, limit_ms > 0 ? limit_ms * 1000 : 1) == CANAL_OK)
        return;
    do {
        f.n = 0;
        adi_lock();
        adi_request_each_live(running_find, &f);
        adi_unlock();
        for (int i = 0; i < f.n; i++) {
            int kind = tag_kind(((coll_sched_t *)f.reqs[i]->mpi_ext)->tag);
            LOG_WARN("MPI_Finalize: a nonblocking collective on MPI_COMM_WORLD (%s) was still "
                     "running after CANAL_FINALIZE_WAIT_MS (%lld ms): the program never "
                     "completed its request; abandoning it",
                     kind <= COLL_NEIGHBOR_ALLTOALLW ? coll_kind_name((coll_kind_t)kind)
                                                     : "a collective",
                     limit_ms);
            common_err_set(CANAL_ERR_PENDING, "the collective was still running at MPI_Finalize");
            adi_lock();
            coll_sched_t *s = req_sched(f.reqs[i]);
            adi_unlock();
            if (s != NULL)
                sched_abandon(s, f.reqs[i], CANAL_ERR_PENDING);
        }
    } while (f.n == 16);
}

/* Poke the peers whose messages s still waits for (coll/watch.c); s
 * stays alive meanwhile (a blocking schedule) or r is its request. */
static void poke_peers(coll_sched_t *s, adi_request_t *r)
{
    int peers[64], n = 0, tag = 0, inter;
    mpi_comm_t *comms[64]; /* (an intercommunicator's local part: its local communicator) */
    unsigned char sender[64];

    adi_lock();
    if (r != NULL && (s = req_sched(r)) == NULL) {
        adi_unlock();
        return;
    }
    inter = coll_is_inter(s->comm);
    for (int i = 0; i < s->nacts && n < 64; i++) {
        const act_t *a = &s->acts[i];
        /* (and a send across an intercommunicator that waits for its
         * receiver, a rendezvous: the remote rank may have taken no part
         * in the call, MPI_PROC_NULL, and answers from its record) */
        if ((a->kind == ACT_RECV ||
             (a->kind == ACT_SEND && inter && (a->comm == NULL || a->comm == s->comm))) &&
            a->req != NULL && !a->req->done && a->peer >= 0) {
            comms[n] = a->comm != NULL ? a->comm : s->comm;
            sender[n] = a->kind == ACT_SEND;
            peers[n++] = a->peer;
        }
    }
    tag = s->tag;
    adi_unlock();
    for (int i = 0; i < n; i++)
        (sender[i] ? coll_watch_poke_receiver : coll_watch_poke)(comms[i], tag, peers[i]);
}

static void sched_poke(void *arg)
{
    poke_peers(arg, NULL);
}

static void req_poke(void *arg)
{
    poke_peers(NULL, arg);
}

/* Whether s (r's schedule when s is NULL; 1 when it has none any more)
 * has an act of `kind` (receives from, or sends to) rank `peer` of
 * intercommunicator c in any of its steps (coll_watch_hooks_t.receives and
 * .sends: the two groups agree about the root). */
static int has_act(coll_sched_t *s, adi_request_t *r, int kind, mpi_comm_t *c, int peer)
{
    int yes = 0;

    adi_lock();
    if (r != NULL && (s = req_sched(r)) == NULL)
        yes = 1;
    for (int i = 0; !yes && i < s->nacts; i++) {
        const act_t *a = &s->acts[i];
        yes = (int)a->kind == kind && a->peer == peer && (a->comm != NULL ? a->comm : s->comm) == c;
    }
    adi_unlock();
    return yes;
}

static int sched_receives(void *arg, mpi_comm_t *c, int peer)
{
    return has_act(arg, NULL, ACT_RECV, c, peer);
}

static int req_receives(void *arg, mpi_comm_t *c, int peer)
{
    return has_act(NULL, arg, ACT_RECV, c, peer);
}

static int sched_sends(void *arg, mpi_comm_t *c, int peer)
{
    return has_act(arg, NULL, ACT_SEND, c, peer);
}

static int req_sends(void *arg, mpi_comm_t *c, int peer)
{
    return has_act(NULL, arg, ACT_SEND, c, peer);
}

static const coll_watch_hooks_t sched_hooks = {sched_poke, sched_receives, sched_sends};
static const coll_watch_hooks_t req_hooks = {req_poke, req_receives, req_sends};

static int req_done(void *arg)
{
    return __atomic_load_n(&((adi_request_t *)arg)->done, __ATOMIC_ACQUIRE);
}

/* The running schedule of request r, its communicator and tag; NULL when
 * there is none. */
static coll_sched_t *req_watched(adi_request_t *r, mpi_comm_t **c, int *tag)
{
    coll_sched_t *s;
    adi_lock();
    if ((s = req_sched(r)) != NULL) {
        *c = s->comm;
        *tag = s->tag;
    }
    adi_unlock();
    return s;
}

/* A mismatch st found for r's schedule s: abandon it, completing r with st
 * (CANAL_OK when s ended meanwhile, with its own outcome). */
static canal_status_t req_mismatch(coll_sched_t *s, adi_request_t *r, canal_status_t st)
{
    return st < 0 && !sched_abandon(s, r, st) ? CANAL_OK : st;
}

canal_status_t coll_request_wait(adi_request_t *r)
{
    mpi_comm_t *c = NULL;
    int tag = 0;
    coll_sched_t *s = req_watched(r, &c, &tag);

    if (s == NULL)
        return CANAL_OK; /* (the caller's wait) */
    return req_mismatch(s, r, coll_watch_wait(c, tag, req_done, r, &req_hooks));
}

canal_status_t coll_request_look(adi_request_t *r, long long step)
{
    mpi_comm_t *c = NULL;
    int tag = 0;
    coll_sched_t *s = req_watched(r, &c, &tag);

    if (s == NULL)
        return CANAL_OK;
    return req_mismatch(s, r, coll_watch_look(c, tag, req_done, r, &req_hooks, step));
}

canal_status_t coll_request_tested(adi_request_t *r)
{
    mpi_comm_t *c = NULL;
    int tag = 0;
    long long now = common_now_us(), step = 0;
    coll_sched_t *s = NULL;

    adi_lock();
    if ((s = req_sched(r)) != NULL) {
        if (s->test_at == 0) {
            s->test_step = coll_watch_step(0);
            s->test_at = now + s->test_step;
        } else if (now >= s->test_at) {
            step = s->test_step;
            s->test_step = coll_watch_step(step);
            s->test_at = now + s->test_step;
            c = s->comm;
            tag = s->tag;
        }
    }
    adi_unlock();
    if (step == 0)
        return CANAL_OK;
    return req_mismatch(s, r, coll_watch_look(c, tag, req_done, r, &req_hooks, step));
}

void coll_sched_set_absent(coll_sched_t *s)
{
    s->absent = 1;
}

void coll_sched_set_sent_only(coll_sched_t *s, int peer)
{
    s->absent = 2 + peer;
}

/* Record that this rank took no part in s's call (a few stores, no
 * message): a poke of that call that reaches it later comes from a rank
 * of the other group that waits for it, which a correct program never
 * does (coll_comm_was_absent). No lock: the calls on one communicator are
 * not concurrent, and a look in another thread reads absent_to first
 * (acquire), so it sees the absent_from stored with it (a wrapped
 * sequence starts a new run). */
static void note_absent(coll_sched_t *s)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(s->comm);
    int base = s->tag & ~((1 << COLL_TAG_KIND_BITS) - 1);
    if (s->absent >= 2) { /* (it sent, to one rank: coll_sched_set_sent_only) */
        __atomic_store_n(&cs->sent_only,
                         (uint64_t)(unsigned)s->tag << 32 | (unsigned)(s->absent - 2),
                         __ATOMIC_RELAXED);
    } else {
        if (base - cs->absent_to != 1 << COLL_TAG_KIND_BITS)
            __atomic_store_n(&cs->absent_from, base, __ATOMIC_RELAXED);
        __atomic_store_n(&cs->absent_kind, s->tag & ((1 << COLL_TAG_KIND_BITS) - 1),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&cs->absent_to, base, __ATOMIC_RELEASE);
    }
    if (__atomic_load_n(&absent_comm, __ATOMIC_RELAXED) != s->comm) {
        adi_lock();
        __atomic_store_n(&absent_comm, s->comm, __ATOMIC_RELAXED);
        adi_unlock();
    }
}

int coll_comm_was_absent(mpi_comm_t *c, int base, int *kind)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(c);
    int to, from;
    if (cs == NULL || (to = __atomic_load_n(&cs->absent_to, __ATOMIC_ACQUIRE)) < 0)
        return 0;
    from = __atomic_load_n(&cs->absent_from, __ATOMIC_RELAXED);
    *kind = base == to ? __atomic_load_n(&cs->absent_kind, __ATOMIC_RELAXED) : -1;
    return base >= from && base <= to;
}

int coll_comm_sent_elsewhere(mpi_comm_t *c, int base, int from, int *kind)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(c);
    uint64_t rec = cs != NULL ? __atomic_load_n(&cs->sent_only, __ATOMIC_RELAXED) : UINT64_MAX;
    int tag = (int)(rec >> 32);

    if (rec == UINT64_MAX || (tag & ~((1 << COLL_TAG_KIND_BITS) - 1)) != base ||
        (int)(uint32_t)rec == from)
        return 0;
    *kind = tag & ((1 << COLL_TAG_KIND_BITS) - 1);
    return 1;
}

mpi_comm_t *coll_absent_hold(mpi_comm_t *c)
{
    mpi_comm_t *a;
    if (__atomic_load_n(&absent_comm, __ATOMIC_RELAXED) == NULL)
        return NULL;
    adi_lock();
    a = absent_comm;
    if (a == c || (a != NULL && !coll_host.comm_hold(a)))
        a = NULL;
    adi_unlock();
    return a;
}

void coll_absent_drop(mpi_comm_t *a)
{
    coll_host.comm_drop(a);
}

canal_status_t coll_sched_wait(coll_sched_t *s)
{
    if (!coll_sched_done(s)) {
        canal_status_t st = coll_watch_wait(s->comm, s->tag, done_pred, s, &sched_hooks);
        if (st < 0) {
            sched_abandon(s, NULL, st);
            if (s->abandoned)
                return st;
        }
    }
    if (s->absent)
        note_absent(s);
    coll_watch_drain(s->comm, s->tag);
    if (s->err < 0)
        coll_watch_failed(s->comm, s->tag, s->err);
    /* The message names the lost process, not whatever a channel said last
     * (a shm detection of some peer, on this thread, in the meantime). */
    if ((s->err == CANAL_ERR_PEER || s->err == CANAL_ERR_PEER_PENDING) && s->err_peer >= 0)
        common_err_set(s->err,
                       s->err_peer < adi_job_size()
                           ? "rank %d of MPI_COMM_WORLD failed (the process died or its "
                             "connection was lost) before the collective could complete"
                           : "a process of another job (peer %d) failed before the collective "
                             "could complete",
                       s->err_peer);
    else if (s->err == CANAL_ERR_REMOTE && s->err_peer >= 0)
        common_err_set(s->err,
                       "rank %d of MPI_COMM_WORLD dropped the message it had announced (its "
                       "collective was abandoned and the bytes could not be kept)",
                       s->err_peer);
    return s->err;
}

canal_status_t coll_sched_error(const coll_sched_t *s)
{
    return s->err;
}

/* ---------------------------------------------------------------- replay of blocking calls */
/* The arrays besides the cache key that a v collective's schedule is
 * recorded from, as up to four parts of bytes (the ones significant at
 * this rank of an intracommunicator: alltoallv's send arrays are not with
 * MPI_IN_PLACE, gatherv's and scatterv's arrays at the root only). Returns
 * the number of parts. */
static int key_parts(const coll_args_t *a, const void *part[4], size_t len[4])
{
    size_t p = (size_t)coll_size(a->comm), nc = p * sizeof(MPI_Count), na = p * sizeof(MPI_Aint);
    int n = 0;
    switch (a->kind) {
    case COLL_ALLTOALLV:
        if (a->sendbuf != MPI_IN_PLACE) {
            part[n] = a->sendcounts, len[n++] = nc;
            part[n] = a->sdispls, len[n++] = na;
        }
        /* fall through */
    case COLL_ALLGATHERV:
        part[n] = a->recvcounts, len[n++] = nc;
        part[n] = a->rdispls, len[n++] = na;
        break;
    case COLL_REDUCE_SCATTER:
        part[n] = a->recvcounts, len[n++] = nc;
        break;
    case COLL_GATHERV: /* (the arrays are significant at the root only) */
        if (coll_rank(a->comm) == a->root) {
            part[n] = a->recvcounts, len[n++] = nc;
            part[n] = a->rdispls, len[n++] = na;
        }
        break;
    case COLL_SCATTERV:
        if (coll_rank(a->comm) == a->root) {
            part[n] = a->sendcounts, len[n++] = nc;
            part[n] = a->sdispls, len[n++] = na;
        }
        break;
    default:
        break;
    }
    return n;
}

/* Does s's copy of the key arrays hold a's? */
static int key_arrays_match(const coll_sched_t *s, const coll_args_t *a)
{
    const void *part[4];
    size_t len[4], off = 0;
    int n = key_parts(a, part, len);
    for (int i = 0; i < n; i++) {
        if (off + len[i] > s->key_arrays_len || memcmp(s->key_arrays + off, part[i], len[i]) != 0)
            return 0;
        off += len[i];
    }
    return off == s->key_arrays_len;
}

/* Keep a copy of a's key arrays in s (0: no memory). */
static int key_arrays_copy(coll_sched_t *s, const coll_args_t *a)
{
    const void *part[4];
    size_t len[4], total = 0;
    int n = key_parts(a, part, len);
    char *k;
    for (int i = 0; i < n; i++)
        total += len[i];
    s->key_arrays = NULL;
    s->key_arrays_len = 0;
    if (total == 0)
        return 1;
    if ((k = coll_tmp(s, total)) == NULL)
        return 0;
    s->key_arrays = k;
    s->key_arrays_len = total;
    for (int i = 0; i < n; i++) {
        memcpy(k, part[i], len[i]);
        k += len[i];
    }
    return 1;
}

/* Collectives whose schedule the cache can tell apart: arguments that fit
 * in a cache key, or (intracommunicators) a key and the v collectives'
 * count and displacement arrays, compared entry by entry. A v
 * collective's schedule costs as much to record as to run at small sizes
 * (MPI_Reduce_scatter of 16 B on 4 ranks: 8.9k instructions per call, of
 * which recording and freeing 2.9k), and programs repeat them alike. */
static int cacheable(const coll_args_t *a)
{
    switch (a->kind) {
    case COLL_ALLGATHERV:
    case COLL_ALLTOALLV:
    case COLL_REDUCE_SCATTER:
    case COLL_GATHERV:
    case COLL_SCATTERV:
        return !coll_is_inter(a->comm);
    case COLL_BARRIER:
    case COLL_BCAST:
    case COLL_GATHER:
    case COLL_SCATTER:
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_REDUCE_SCATTER_BLOCK:
    case COLL_SCAN:
    case COLL_EXSCAN:
        return 1;
    default:
        return 0;
    }
}

static void key_of(const coll_args_t *a, cache_key_t *k)
{
    memset(k, 0, sizeof *k); /* padding too: keys are compared with memcmp */
    k->kind = a->kind;
    k->sendbuf = a->sendbuf;
    k->sendcount = a->sendcount;
    k->sendtype = a->sendtype;
    k->sdt = a->sdt;
    k->recvbuf = a->recvbuf;
    k->recvcount = a->recvcount;
    k->recvtype = a->recvtype;
    k->rdt = a->rdt;
    k->op = a->op;
    k->root = a->root;
    k->commutative = a->commutative;
}

coll_sched_t *coll_sched_replay(mpi_comm_t *c, const coll_args_t *a)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(c);
    cache_key_t k;
    coll_sched_t *s = NULL;

    if (cs == NULL || !cacheable(a))
        return NULL;
    key_of(a, &k);
    adi_lock();
    for (int i = 0; i < CACHE_WAYS; i++) {
        if (cs->cache[i] != NULL && memcmp(&cs->cache[i]->key, &k, sizeof k) == 0 &&
            key_arrays_match(cs->cache[i], a)) {
            s = cs->cache[i];
            cs->cache[i] = NULL; /* ours while it runs */
            s->cache_slot = i;
            s->tag = next_tag(cs, tag_kind(s->tag));
            break;
        }
    }
    adi_unlock();
    return s;
}

void coll_sched_keep(mpi_comm_t *c, const coll_args_t *a, coll_sched_t *s)
{
    coll_comm_t *cs = *coll_host.comm_coll_slot(c);
    coll_sched_t *victim = NULL;
    int slot = -1;

    if (cs == NULL || !cacheable(a) || s->rec_err != CANAL_OK || s->tmp_bytes > CACHE_TMP_MAX ||
        s->abandoned) {
        coll_sched_free(s);
        return;
    }
    if (s->cache_slot < 0) { /* (a replayed schedule has its key already) */
        key_of(a, &s->key);
        if (!key_arrays_copy(s, a)) {
            coll_sched_free(s);
            return;
        }
    }
    adi_lock();
    if (s->cache_slot >= 0 && cs->cache[s->cache_slot] == NULL)
        slot = s->cache_slot;
    for (int i = 0; i < CACHE_WAYS && slot < 0; i++)
        if (cs->cache[i] == NULL)
            slot = i;
    if (slot < 0) {
        slot = cs->cache_next;
        cs->cache_next = (cs->cache_next + 1) % CACHE_WAYS;
        victim = cs->cache[slot];
    }
    cs->cache[slot] = s;
    s->cache_slot = -1;
    adi_unlock();
    if (victim != NULL)
        sched_destroy(victim);
}
