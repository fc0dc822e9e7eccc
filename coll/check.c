/*
 * The optional checking mode (CANAL_COLL_CHECK=1): before a collective
 * runs, every rank contributes a short record of how it called it (which
 * collective, root, operation, element count and datatype size of a
 * reduction, bytes it sends to and expects from each peer), the records are
 * allgathered, and every rank checks them against each other. Mismatched
 * calls -- a different collective, root or operation, counts or datatypes
 * whose sizes do not pair up -- then fail on every rank with a message that
 * names the disagreeing ranks, instead of hanging or corrupting memory.
 * All ranks see the same records and reach the same verdict, so all of them
 * skip the collective. Costs one extra allgather per call: a debugging aid.
 *
 * What is compared: the collective and root everywhere; op, count, element
 * size and basic type of reductions; bytes per peer of bcast, gather,
 * scatter, allgather and alltoall (sizes only: the standard asks for equal
 * type signatures, which this approximates). The v and w variants and the
 * neighbourhood collectives are checked for the collective and root only.
 * A rank whose own arguments are erroneous (an error only it can see: the
 * root's receive buffers, say) still contributes its record, marked with
 * the error class it returns, and every other rank then fails with
 * MPI_ERR_OTHER naming it: no rank waits for a rank that gave up.
 * Called by mpi/coll.c; uses the schedule engine for its allgather.
 */
#include "coll/coll_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cvar.h"

typedef struct {
    int32_t kind, root, op, basic;
    int32_t argerr, pad; /* the MPI error class of a rank whose arguments failed */
    int64_t count, esize;
    int64_t sends, expects; /* bytes per peer, -1: not significant here */
} sig_t;

int coll_check_enabled(void)
{
    static int known, on; /* (threads may read the variable at once: atomics) */
    if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&on, common_cvar_bool("COLL_CHECK"), __ATOMIC_RELAXED);
        __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&on, __ATOMIC_RELAXED);
}

static int64_t bytes(MPI_Count count, dt_type_t *dt)
{
    return dt != NULL ? (int64_t)count * (int64_t)dt_size(dt) : -1;
}

static void sig_of(const coll_args_t *a, sig_t *g)
{
    mpi_comm_t *c = a->comm;
    int is_root = coll_rank(c) == a->root, in_place = a->sendbuf == MPI_IN_PLACE;

    memset(g, 0, sizeof *g);
    g->kind = (int32_t)a->kind;
    g->root = a->root;
    g->sends = g->expects = -1;
    switch (a->kind) {
    case COLL_BCAST:
        g->sends = g->expects = bytes(a->recvcount, a->rdt);
        break;
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_SCAN:
    case COLL_EXSCAN:
    case COLL_REDUCE_SCATTER_BLOCK:
        g->op = (int32_t)a->op;
        g->count = a->recvcount;
        g->esize = a->rdt != NULL ? (int64_t)dt_size(a->rdt) : 0;
        g->basic = a->rdt != NULL ? (int32_t)dt_basic_type(a->rdt) : -1;
        break;
    case COLL_REDUCE_SCATTER:
        g->op = (int32_t)a->op;
        g->esize = a->rdt != NULL ? (int64_t)dt_size(a->rdt) : 0;
        g->basic = a->rdt != NULL ? (int32_t)dt_basic_type(a->rdt) : -1;
        break;
    case COLL_GATHER:
        if (!(is_root && in_place))
            g->sends = bytes(a->sendcount, a->sdt);
        if (is_root)
            g->expects = bytes(a->recvcount, a->rdt);
        break;
    case COLL_SCATTER:
        if (is_root)
            g->sends = bytes(a->sendcount, a->sdt);
        if (!(is_root && a->recvbuf == MPI_IN_PLACE))
            g->expects = bytes(a->recvcount, a->rdt);
        break;
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
        if (!in_place)
            g->sends = bytes(a->sendcount, a->sdt);
        g->expects = bytes(a->recvcount, a->rdt);
        break;
    default:
        break;
    }
}

static int rooted(coll_kind_t k)
{
    return k == COLL_BCAST || k == COLL_REDUCE || k == COLL_GATHER || k == COLL_GATHERV ||
           k == COLL_SCATTER || k == COLL_SCATTERV;
}

/* The verdict from everyone's records (identical on every rank). */
static canal_status_t judge(const coll_args_t *a, const sig_t *all, int p)
{
    const sig_t *z = &all[0];

    for (int r = 0; r < p; r++)
        if (all[r].argerr != 0)
            return common_err_set(CANAL_ERR_MISMATCH,
                                  "rank %d called %s with erroneous arguments (error class %d "
                                  "there), so the collective did not run",
                                  r, coll_kind_name((coll_kind_t)all[r].kind), all[r].argerr);
    for (int r = 1; r < p; r++) {
        const sig_t *g = &all[r];
        if (g->kind != z->kind)
            return common_err_set(
                CANAL_ERR_ARG, "collective mismatch: rank 0 called %s, rank %d called %s",
                coll_kind_name((coll_kind_t)z->kind), r, coll_kind_name((coll_kind_t)g->kind));
        if (rooted(a->kind) && g->root != z->root)
            return common_err_set(CANAL_ERR_ARG,
                                  "root mismatch: rank 0 passed root=%d, "
                                  "rank %d passed root=%d",
                                  z->root, r, g->root);
        if (g->op != z->op)
            return common_err_set(CANAL_ERR_OP,
                                  "operation mismatch: rank 0 passed op=%#x, "
                                  "rank %d passed op=%#x",
                                  (unsigned)z->op, r, (unsigned)g->op);
        if (g->count != z->count || g->esize != z->esize || g->basic != z->basic)
            return common_err_set(CANAL_ERR_TYPE,
                                  "rank 0 passed %lld elements of %lld bytes, rank %d passed "
                                  "%lld elements of %lld bytes%s",
                                  (long long)z->count, (long long)z->esize, r, (long long)g->count,
                                  (long long)g->esize,
                                  g->basic != z->basic ? " (of another basic type)" : "");
    }
    switch (a->kind) {
    case COLL_BCAST:
        for (int r = 0; r < p; r++)
            if (all[r].expects != all[a->root].sends)
                return common_err_set(CANAL_ERR_TYPE,
                                      "the root (rank %d) sends %lld bytes, rank %d expects "
                                      "%lld",
                                      a->root, (long long)all[a->root].sends, r,
                                      (long long)all[r].expects);
        break;
    case COLL_GATHER:
        for (int r = 0; r < p; r++)
            if (all[r].sends >= 0 && all[a->root].expects >= 0 &&
                all[r].sends != all[a->root].expects)
                return common_err_set(CANAL_ERR_TYPE,
                                      "the root (rank %d) expects %lld bytes per rank, rank "
                                      "%d sends %lld",
                                      a->root, (long long)all[a->root].expects, r,
                                      (long long)all[r].sends);
        break;
    case COLL_SCATTER:
        for (int r = 0; r < p; r++)
            if (all[r].expects >= 0 && all[a->root].sends >= 0 &&
                all[r].expects != all[a->root].sends)
                return common_err_set(CANAL_ERR_TYPE,
                                      "the root (rank %d) sends %lld bytes per rank, rank %d "
                                      "expects %lld",
                                      a->root, (long long)all[a->root].sends, r,
                                      (long long)all[r].expects);
        break;
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
        for (int r = 0; r < p; r++) {
            for (int q = 0; q < p; q++) {
                if (all[r].sends >= 0 && all[q].expects >= 0 && all[r].sends != all[q].expects)
                    return common_err_set(CANAL_ERR_TYPE,
                                          "rank %d sends %lld bytes per rank, rank %d "
                                          "expects %lld",
                                          r, (long long)all[r].sends, q, (long long)all[q].expects);
            }
        }
        break;
    default:
        break;
    }
    return CANAL_OK;
}

/* Allgather the records into all (coll_size(c) entries). */
static canal_status_t exchange(mpi_comm_t *c, sig_t *mine, sig_t *all)
{
    coll_args_t ga;

    memset(&ga, 0, sizeof ga);
    ga.kind = COLL_ALLGATHER;
    ga.comm = c;
    ga.sendbuf = mine;
    ga.sendcount = sizeof *mine;
    ga.sdt = coll_byte();
    ga.recvbuf = all;
    ga.recvcount = sizeof *mine;
    ga.rdt = coll_byte();
    return coll_sched_run(&ga, coll_allgather_recdbl.record);
}

static int checked(mpi_comm_t *c, coll_kind_t kind)
{
    return !coll_is_inter(c) && kind < COLL_NEIGHBOR_ALLGATHER && coll_size(c) >= 2;
}

canal_status_t coll_check_call(const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    sig_t mine, *all;
    canal_status_t st;

    if (!checked(c, a->kind))
        return CANAL_OK;
    all = malloc(sizeof(sig_t) * (size_t)coll_size(c));
    if (all == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory to check a collective call");
    sig_of(a, &mine);
    st = exchange(c, &mine, all);
    if (st >= 0)
        st = judge(a, all, coll_size(c));
    free(all);
    return st;
}

canal_status_t coll_check_failed_call(mpi_comm_t *c, coll_kind_t kind, int root, int mpi_class)
{
    sig_t mine, *all;
    canal_status_t st;

    if (!checked(c, kind))
        return CANAL_OK;
    all = malloc(sizeof(sig_t) * (size_t)coll_size(c));
    if (all == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory to check a collective call");
    memset(&mine, 0, sizeof mine);
    mine.kind = (int32_t)kind;
    mine.root = root;
    mine.sends = mine.expects = -1;
    mine.argerr = mpi_class != 0 ? mpi_class : -1;
    st = exchange(c, &mine, all);
    free(all);
    return st;
}
