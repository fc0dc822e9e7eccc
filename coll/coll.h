/*
 * Collectives: the schedule engine, the algorithms and their selection.
 *
 * An algorithm walks a topology iterator (coll/topo.h) and records, for each
 * round, the step action: sends, receives, and local copies or reductions,
 * separated by fences ("wait until everything posted since the last fence is
 * complete"). The recording is a schedule (coll_sched_t). One engine runs
 * every schedule: it posts the device's nonblocking sends and receives up to
 * the next fence, and the completion callback of the last request of a step
 * (run by adi/ progress, device lock held) posts the next step. So:
 *   - a blocking collective records, starts and waits;
 *   - a nonblocking one records, starts and returns a request that the
 *     engine completes when the walk ends;
 *   - a persistent one records once at init and starts the same schedule at
 *     every MPI_Start;
 *   - a blocking one with the same arguments as a recent one replays that
 *     one's schedule (a per-communicator cache), so that loops of identical
 *     calls record nothing.
 * Each send and receive action keeps its device request across runs, and
 * finished schedules are pooled: the steady state allocates nothing.
 *
 * Messages of collectives travel on the communicator's collective context
 * (context + 1) with a tag drawn from a per-communicator sequence, so that
 * several nonblocking collectives can be in flight on one communicator.
 *
 * Callers: mpi/coll.c (the MPI front) only. coll/ calls adi/ and datatype/
 * and sees the MPI layer only through coll_host (below), which mpi/ fills
 * at initialization: no file of coll/ includes a header of mpi/ other than
 * the public mpi.h.
 */
#ifndef CANAL_COLL_COLL_H
#define CANAL_COLL_COLL_H

#include <stdio.h>

#include "mpi.h"
#include "adi/adi.h"
#include "coll/topo.h"
#include "common/log.h"
#include "common/status.h"
#include "datatype/dt.h"

/* ---------------------------------------------------------------- the host
 * What coll/ needs from the layer above, and nothing more. A communicator
 * is the caller's object (mpi/'s struct mpi_comm), opaque here: coll/ reads
 * its group sizes, rank, context and job ranks, and keeps its own state in
 * one slot of it, through these functions. The reduction operations and
 * datatype handles are the caller's too. mpi/ fills the table once, with
 * coll_host_set(), before the first collective.
 */
typedef struct mpi_comm mpi_comm_t;
typedef struct {
    int (*comm_rank)(const mpi_comm_t *c);       /* in the local group */
    int (*comm_size)(const mpi_comm_t *c);       /* of the local group */
    int (*comm_peer_size)(const mpi_comm_t *c);  /* of the group ranks address */
    int (*comm_is_inter)(const mpi_comm_t *c);
    int (*comm_context)(const mpi_comm_t *c);    /* point to point; coll/ uses + 1 */
    int (*comm_peer_job_rank)(const mpi_comm_t *c, int r);
    /* the job rank of each rank of the group ranks address, in one table
     * (NULL: the same numbers), for a loop over every rank */
    const int *(*comm_job_ranks)(const mpi_comm_t *c);
    mpi_comm_t *(*comm_local)(const mpi_comm_t *c); /* an intercomm's local intracomm */
    void **(*comm_coll_slot)(mpi_comm_t *c);     /* where coll/ keeps its state */
    mpi_comm_t *(*comm_world)(void);
    /* A reference that keeps c from being destroyed: 0 (none taken) when
     * its last one is already gone (its free is under way); comm_drop
     * gives it back (and destroys c if it was the last). */
    int (*comm_hold)(mpi_comm_t *c);
    void (*comm_drop)(mpi_comm_t *c);
    /* The job's node map: the node of each job rank (NULL if unknown). */
    const int *(*job_nodes)(int *nnodes_out);
    dt_type_t *(*dt_get)(MPI_Datatype h);        /* NULL if not a valid type */
    int (*op_valid)(MPI_Op op);
    int (*op_is_commutative)(MPI_Op op);
    dt_op_t (*op_builtin)(MPI_Op op);            /* DT_OP_N for a user operation */
    int (*op_apply)(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt);
    void (*op_retain)(MPI_Op op);
    void (*op_release)(MPI_Op op);
} coll_host_t;

void coll_host_set(const coll_host_t *h);
extern coll_host_t coll_host; /* (coll/op.c) */

static inline int coll_rank(const mpi_comm_t *c) { return coll_host.comm_rank(c); }
static inline int coll_size(const mpi_comm_t *c) { return coll_host.comm_size(c); }
static inline int coll_peer_size(const mpi_comm_t *c) { return coll_host.comm_peer_size(c); }
static inline int coll_is_inter(const mpi_comm_t *c) { return coll_host.comm_is_inter(c); }
static inline int coll_context(const mpi_comm_t *c) { return coll_host.comm_context(c); }
static inline mpi_comm_t *coll_local(const mpi_comm_t *c) { return coll_host.comm_local(c); }
static inline dt_type_t *coll_dt_get(MPI_Datatype h) { return coll_host.dt_get(h); }

/* ---------------------------------------------------------------- arguments */
typedef enum {
    COLL_BARRIER,
    COLL_BCAST,
    COLL_GATHER,
    COLL_GATHERV,
    COLL_SCATTER,
    COLL_SCATTERV,
    COLL_ALLGATHER,
    COLL_ALLGATHERV,
    COLL_ALLTOALL,
    COLL_ALLTOALLV,
    COLL_ALLTOALLW,
    COLL_REDUCE,
    COLL_ALLREDUCE,
    COLL_REDUCE_SCATTER,
    COLL_REDUCE_SCATTER_BLOCK,
    COLL_SCAN,
    COLL_EXSCAN,
    COLL_NEIGHBOR_ALLGATHER,
    COLL_NEIGHBOR_ALLGATHERV,
    COLL_NEIGHBOR_ALLTOALL,
    COLL_NEIGHBOR_ALLTOALLV,
    COLL_NEIGHBOR_ALLTOALLW,
    COLL_NKINDS
} coll_kind_t;

/* "MPI_Bcast" ... for messages. */
const char *coll_kind_name(coll_kind_t k);

/*
 * The arguments of any collective, checked by the front. Conventions:
 * - bcast: the buffer is recvbuf/recvcount/recvtype;
 * - reduce, allreduce, scan, exscan: sendbuf, recvbuf, count = recvcount,
 *   datatype = recvtype; reduce_scatter_block: recvcount per rank;
 * - counts and displacements are MPI_Count/MPI_Aint whatever the MPI
 *   function took (the front widens int arrays); displacements are in
 *   extents of the datatype, except for the w variants (bytes);
 * - sendbuf may be MPI_IN_PLACE where the standard allows it;
 * - dt pointers are the engine types behind the handles (NULL when the
 *   argument is not significant at this rank);
 * - intercommunicators: root is MPI_ROOT, MPI_PROC_NULL or a remote rank.
 */
typedef struct {
    coll_kind_t kind;
    mpi_comm_t *comm;
    const void *sendbuf;
    MPI_Count sendcount;
    const MPI_Count *sendcounts;
    const MPI_Aint *sdispls;
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    dt_type_t *sdt;
    void *recvbuf;
    MPI_Count recvcount;
    const MPI_Count *recvcounts;
    const MPI_Aint *rdispls;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
    dt_type_t *rdt;
    MPI_Op op;
    int commutative;
    int root;
    /* neighbourhood collectives: the topology's neighbours, in order */
    int indegree, outdegree;
    const int *sources, *destinations;
    int cartesian; /* the topology is Cartesian (see coll/neighbor.c) */
} coll_args_t;

/* ---------------------------------------------------------------- schedules */
typedef struct coll_sched coll_sched_t;

/* A new, empty schedule on communicator c with the next tag of c's
 * collective sequence, taken for a call of `kind`. */
canal_status_t coll_sched_create(mpi_comm_t *c, coll_kind_t kind, coll_sched_t **out);
/* Free a schedule that is not running (or mark a running persistent one to
 * be freed when it completes). */
void coll_sched_free(coll_sched_t *s);

/*
 * Recording. These never fail on the spot: a failure (out of memory) is
 * remembered and reported by coll_sched_status(), so algorithms read as
 * plain sequences of steps. Peers are ranks of c (for an intercommunicator,
 * ranks of the remote group). Buffers must stay valid until the schedule
 * has completed (user buffers, or coll_tmp memory owned by the schedule).
 * A datatype used by an action is retained until the schedule is freed.
 */
void coll_send(coll_sched_t *s, mpi_comm_t *c, int peer, const void *buf, size_t count,
               dt_type_t *dt);
void coll_recv(coll_sched_t *s, mpi_comm_t *c, int peer, void *buf, size_t count, dt_type_t *dt);
/* Wait for every send and receive recorded since the previous fence. */
void coll_fence(coll_sched_t *s);
/* Copy (src, scount, sdt) into (dst, dcount, ddt) as packed bytes (the
 * shorter of the two decides). */
void coll_copy(coll_sched_t *s, const void *src, size_t scount, dt_type_t *sdt, void *dst,
               size_t dcount, dt_type_t *ddt);
/* inout = in op inout, count elements laid out as dt (handle dth). */
void coll_reduce(coll_sched_t *s, const void *in, void *inout, size_t count, dt_type_t *dt,
                 MPI_Datatype dth, MPI_Op op);
/* Memory owned by the schedule (zeroed). */
void *coll_tmp(coll_sched_t *s, size_t bytes);
/* Memory for count elements laid out as dt: returns the buffer pointer to
 * use with (count, dt) (true_lb is accounted for). */
void *coll_tmp_typed(coll_sched_t *s, size_t count, dt_type_t *dt);
/* Hand a type built for this schedule (one reference) to the schedule. */
dt_type_t *coll_keep_type(coll_sched_t *s, canal_status_t st, dt_type_t *t);
/* The first recording error, or CANAL_OK. */
canal_status_t coll_sched_status(const coll_sched_t *s);
int coll_sched_tag(const coll_sched_t *s);

/*
 * Running. start() posts the first step; req (may be NULL) is completed
 * with the schedule's error in status.error when the walk ends. A schedule
 * started with a request and not kept (persistent == 0) frees itself at the
 * end. Call with nothing else running on s.
 */
canal_status_t coll_sched_start(coll_sched_t *s, adi_request_t *req, int persistent);
/* MPI_Start of a persistent collective's schedule s: coll_sched_start(s,
 * req, 1), or the error of s's communicator being out of step (a mismatch
 * on the node's block: every later collective on it fails, restarts of
 * persistent ones made before too). */
canal_status_t coll_sched_restart(coll_sched_t *s, adi_request_t *req);
int coll_sched_done(const coll_sched_t *s);
/* Progress until s is done; returns the error of the run (CANAL_OK). */
canal_status_t coll_sched_wait(coll_sched_t *s);
/* MPI_Wait of a nonblocking or persistent collective's request r (the one
 * coll_sched_start got; ADI_REQ_COLL) that is not done yet: wait as a
 * blocking collective does (coll/watch.c), and when the ranks called
 * different collectives there, abandon the schedule and complete r with
 * the mismatch, which it returns (this thread's error detail names both
 * calls). Returns when r is done (CANAL_OK: r's own outcome), or at once
 * on an intercommunicator or a request of no running schedule (the caller
 * waits). */
canal_status_t coll_request_wait(adi_request_t *r);
/* A wait for several requests (MPI_Waitany, MPI_Waitsome), which must
 * return when any completes, watches its collectives' requests a step at
 * a time: it waits coll_watch_step(prev) microseconds (prev 0: the first;
 * adi_wait_until_for), then looks once for each collective request r not
 * done (coll_request_look, `step` the last wait's): when the ranks called
 * different collectives, r's schedule is abandoned and r completes with
 * the mismatch, which is returned (this thread's error detail names both
 * calls). CANAL_OK otherwise (also on an intercommunicator). */
long long coll_watch_step(long long prev);
canal_status_t coll_request_look(adi_request_t *r, long long step);
/* A test (MPI_Test, Testall, Testany, Testsome) found collective request
 * r not done; the MPI layer says so only at every 64th such test of a
 * thread, so a loop of tests is watched as a wait is: once its schedule
 * has been tested for coll_watch_step(0), at the same doubling intervals,
 * a look as coll_request_look's (the mismatch returned and r completed
 * with it, or CANAL_OK). */
canal_status_t coll_request_tested(adi_request_t *r);
/* Error of the last run (with common_err_detail set when it happened). */
canal_status_t coll_sched_error(const coll_sched_t *s);
/* Free the schedules kept for reuse (MPI_Finalize). */
void coll_sched_pool_drain(void);
/* A blocking collective with the same arguments as a recent one on c (same
 * kind, buffers, counts, types, op, root) replays that one's schedule with
 * a fresh tag: replay() returns it (or NULL), keep() stores a schedule
 * that has run for later (or frees it). The v/w variants are not cached. */
coll_sched_t *coll_sched_replay(mpi_comm_t *c, const coll_args_t *a);
void coll_sched_keep(mpi_comm_t *c, const coll_args_t *a, coll_sched_t *s);

/* ---------------------------------------------------------------- algorithms */
typedef canal_status_t (*coll_record_fn)(coll_sched_t *s, const coll_args_t *a);

typedef struct {
    const char *name; /* as CANAL_COLL_<KIND>=name selects it */
    coll_kind_t kind;
    coll_record_fn record;
    /* NULL or: 0 if the algorithm cannot serve these arguments (e.g. a
     * non-commutative op for Rabenseifner); the selection then falls back. */
    int (*usable)(const coll_args_t *a);
    /* NULL or: run a blocking call of these arguments without a schedule,
     * sending exactly the messages the recorded schedule would send;
     * direct_usable (NULL: always) says whether it can. */
    canal_status_t (*direct)(const coll_args_t *a);
    int (*direct_usable)(const coll_args_t *a);
} coll_algo_t;

/* Record the collective described by a into s, with the algorithm the
 * selection table (or a CANAL_COLL_* variable) picks. */
canal_status_t coll_record(coll_sched_t *s, const coll_args_t *a);
/* A blocking collective inside coll/ (the shared block's setup, the
 * checking mode's exchange): a fresh schedule of a->comm, recorded by
 * record (coll_record, or one algorithm's), run to completion and freed;
 * the recording's or the run's error. */
canal_status_t coll_sched_run(const coll_args_t *a, coll_record_fn record);
/* A blocking call: if the chosen algorithm runs these arguments without a
 * schedule (two ranks: barrier, small allreduce; coll/pair.c), run it,
 * set *ran and return its error; else *ran = 0. */
canal_status_t coll_run_direct(const coll_args_t *a, int *ran);
/* The same for MPI_Barrier on c (an intracommunicator whose arguments the
 * caller has checked), without building the arguments first. */
canal_status_t coll_barrier_direct(mpi_comm_t *c, int *ran);
/* The same for a blocking MPI_Bcast on c (an intracommunicator of 2 ranks
 * or more) whose arguments the caller has checked: count > 0 elements of dt
 * (predefined) at buf from root. Runs the node's shared block (coll/shm.c)
 * when it takes the call and no algorithm is forced, with no coll_args_t of
 * the caller's and no table; else *ran = 0. */
canal_status_t coll_bcast_direct(mpi_comm_t *c, void *buf, size_t count, dt_type_t *dt, int root,
                                 int *ran);
/* The same for a blocking gather(v) or scatter(v) (kind) at a non-root of
 * intracommunicator c whose own side the caller has checked: its block
 * (buf, n, dt; dt predefined, n > 0; bytes: n times dt's size) sent to or
 * received from root. Once
 * the selection's answer for kind is remembered on c (coll/select.c), a
 * call with a small block takes one look at c's state and runs
 * coll/pair.c's linear leaf (no coll_args_t, no table). */
canal_status_t coll_leaf_direct(mpi_comm_t *c, coll_kind_t kind, const void *buf, size_t n,
                                dt_type_t *dt, size_t bytes, int root, int *ran);
/* The most ranks of a communicator whose linear gather(v) and scatter(v)
 * run without a schedule (coll/pair.c), the root's included: the front
 * widens a root's int counts for coll_root_direct into arrays this long. */
enum { COLL_DIRECT_MAX_RANKS = 64 };
/* The root's side of a blocking gather(v) or scatter(v) for
 * coll_root_direct: its blocks in buf of dt (predefined, of nonzero size;
 * v: counts[i] elements at displs[i] extents, else `each` elements at
 * block i), `most` the largest block's count, and its own block (mine, n,
 * mdt; mdt NULL where mine is MPI_IN_PLACE) copied into (gather) or out of
 * (scatter) them. */
typedef struct {
    void *buf;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    size_t each, most;
    dt_type_t *dt;
    void *mine;
    size_t n;
    dt_type_t *mdt;
} coll_root_t;
/* The same for the root of a blocking gather(v) or scatter(v) (kind) of
 * intracommunicator c whose arguments the caller has checked (something
 * moves): once the selection's answer for kind is remembered on c and says
 * the linear algorithm runs directly there (coll_choice_t.leaf), blocks
 * of up to COLL_PAIR_MAX bytes take one look at c's state and run
 * coll/pair.c's linear root (no coll_args_t, no table). */
canal_status_t coll_root_direct(mpi_comm_t *c, coll_kind_t kind, const coll_root_t *r, int *ran);
/* The name of the algorithm coll_record would use. */
const char *coll_algo_chosen(const coll_args_t *a);
/*
 * Whether the call described by a moves no data at any rank, so that it
 * may return at once (MPI lets a collective synchronize or not). Decided
 * from this rank's arguments alone, by the standard's matching rules: on
 * an intracommunicator the type signature this rank passes for the data
 * equals every other rank's (bcast, reduce, allreduce, scan, exscan,
 * reduce_scatter(_block): same counts everywhere; gather, scatter,
 * allgather(v), alltoall: every block's send signature equals its receive
 * signature, and a rank's own blocks are empty only if all are), so an
 * empty one here is empty everywhere and every rank takes the same path.
 * Not for the barrier (synchronizing is its purpose), the v/w forms whose
 * per-rank counts may differ (gatherv, scatterv, alltoallv/w), the
 * neighbourhood collectives, or intercommunicators (a group's receive
 * signature constrains the other group's sends only).
 */
int coll_moves_nothing(const coll_args_t *a);
/* A blocking or nonblocking gatherv or scatterv on an intracommunicator in
 * which this rank sends and receives nothing (a non-root's own block
 * empty; the root's own block and every other rank's empty): step the
 * communicator's call sequence as the call's schedule would, and answer 1
 * (the caller returns at once). The other ranks may still move data in
 * the call: their linear schedules exchange nothing with this rank, and
 * the next call's tag is the same at every rank. 0 otherwise (also when
 * the communicator is out of step: the schedule's creation says so). */
int coll_skip_empty_part(const coll_args_t *a);
/* The same step for a call the front found empty at this rank before
 * building its arguments (mpi/coll.c: an empty gatherv or scatterv part):
 * 1 when taken, 0 when c is out of step (the general path says so). */
int coll_skip_call(mpi_comm_t *c, coll_kind_t kind);
/* Write the selection table and the forced algorithms (CANAL_SUMMARY). */
void coll_select_describe(FILE *f);

/* The checking mode (CANAL_COLL_CHECK, coll/check.c): is it on, and do all
 * ranks' calls of the collective described by a agree? Collective over
 * a->comm; an error (same on every rank) names the disagreeing ranks. */
int coll_check_enabled(void);
canal_status_t coll_check_call(const coll_args_t *a);
/* In the checking mode, the part of a rank whose arguments failed mpi/'s
 * checks (mpi_class: the class it returns): it still contributes a record,
 * marked as failed, so that the other ranks fail too instead of waiting. */
canal_status_t coll_check_failed_call(mpi_comm_t *c, coll_kind_t kind, int root, int mpi_class);

/* Per-communicator state (tag sequence, node layout), created on first
 * use. The communicator's owner calls coll_comm_release when it frees a
 * communicator. */
typedef struct coll_comm coll_comm_t;
coll_comm_t *coll_comm_state(mpi_comm_t *c);
void coll_comm_release(mpi_comm_t *c);

/* Node layout of c for node-aware algorithms: the node of each rank (from
 * PMI, or CANAL_COLL_FAKE_NODES), or NULL when c is on one node. */
const int *coll_comm_nodes(mpi_comm_t *c, int *nnodes_out);
/* Whether all of c is on this node, of this job, and the node's ranks
 * outnumber its CPUs (adi_oversubscribed): the selection table's
 * "oversub" condition, the same on every rank of c. */
int coll_comm_oversubscribed(mpi_comm_t *c);

/* Reductions: a predefined operation runs the datatype engine's kernel
 * on dt directly (dth is then not read: an algorithm may reduce in units
 * of dt's basic type, which has no handle at hand); a user operation is
 * called through the host (coll_host) with dth. Returns an MPI error class. */
int coll_op_apply(MPI_Op op, const void *in, void *inout, size_t count, MPI_Datatype dth,
                  dt_type_t *dt);
int coll_op_is_commutative(MPI_Op op);
/* A schedule holds a reference on the user operations it applies, so that
 * MPI_Op_free during a nonblocking or persistent collective is safe. */
void coll_op_retain(MPI_Op op);
void coll_op_release(MPI_Op op);
int coll_op_valid(MPI_Op op);
/* MPI_ERR_OP (and a message in buf) if op cannot reduce datatype dt. */
int coll_op_check(MPI_Op op, dt_type_t *dt, char *buf, size_t len);

/* Byte offset of block i when blocks are `count` elements of dt. */
static inline ptrdiff_t coll_blk(ptrdiff_t i, size_t count, const dt_type_t *dt)
{
    return i * (ptrdiff_t)count * dt_extent(dt);
}

#endif
