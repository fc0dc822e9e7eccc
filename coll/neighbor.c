/*
 * Neighbourhood collectives (MPI_Neighbor_allgather(v), alltoall(v, w) and
 * their nonblocking and persistent forms) on Cartesian and graph
 * topologies: every rank receives from its sources and sends to its
 * destinations, in the order the topology defines (mpi/topo.c lists them;
 * the MPI front puts them in the arguments). One step: all receives and
 * sends posted at once. MPI_PROC_NULL neighbours are skipped.
 *
 * Matching relies on order: a process that is a neighbour twice sends its
 * messages in the order of its destinations, and they are received in the
 * order the receives were posted. On a Cartesian topology with a periodic
 * dimension of size 1 or 2, the neighbours in the negative and the positive
 * direction of that dimension are the same process; what it sent to its
 * negative neighbour (block 2d) belongs in the receiver's positive slot
 * (2d + 1) and vice versa, as if every exchange were an MPI_Sendrecv along
 * MPI_Cart_shift. So on Cartesian topologies the receives of each
 * dimension are posted positive slot first. Graph topologies have no
 * directions: their duplicate edges pair up in order.
 */
#include "coll/coll_impl.h"

typedef struct {
    const char *buf;
    size_t count;
    dt_type_t *dt;
} nblk_t;

static nblk_t nsend(const coll_args_t *a, int i)
{
    nblk_t b = {a->sendbuf, (size_t)a->sendcount, a->sdt};
    switch (a->kind) {
    case COLL_NEIGHBOR_ALLTOALL:
        b.buf += coll_blk(i, (size_t)a->sendcount, a->sdt);
        break;
    case COLL_NEIGHBOR_ALLTOALLV:
        b.buf += (ptrdiff_t)a->sdispls[i] * dt_extent(a->sdt);
        b.count = (size_t)a->sendcounts[i];
        break;
    case COLL_NEIGHBOR_ALLTOALLW:
        b.buf += a->sdispls[i];
        b.count = (size_t)a->sendcounts[i];
        b.dt = coll_dt_get(a->sendtypes[i]);
        break;
    default: /* allgather(v): the same buffer to everyone */
        break;
    }
    return b;
}

static nblk_t nrecv(const coll_args_t *a, int i)
{
    nblk_t b = {a->recvbuf, (size_t)a->recvcount, a->rdt};
    switch (a->kind) {
    case COLL_NEIGHBOR_ALLGATHER:
    case COLL_NEIGHBOR_ALLTOALL:
        b.buf += coll_blk(i, (size_t)a->recvcount, a->rdt);
        break;
    case COLL_NEIGHBOR_ALLGATHERV:
    case COLL_NEIGHBOR_ALLTOALLV:
        b.buf += (ptrdiff_t)a->rdispls[i] * dt_extent(a->rdt);
        b.count = (size_t)a->recvcounts[i];
        break;
    case COLL_NEIGHBOR_ALLTOALLW:
        b.buf += a->rdispls[i];
        b.count = (size_t)a->recvcounts[i];
        b.dt = coll_dt_get(a->recvtypes[i]);
        break;
    default:
        break;
    }
    return b;
}

static canal_status_t neighbor_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    for (int k = 0; k < a->indegree; k++) {
        int i = a->cartesian ? k ^ 1 : k;
        nblk_t b = nrecv(a, i);
        if (a->sources[i] != MPI_PROC_NULL && b.dt != NULL && b.count * dt_size(b.dt) > 0)
            coll_recv(s, c, a->sources[i], (void *)b.buf, b.count, b.dt);
    }
    for (int i = 0; i < a->outdegree; i++) {
        nblk_t b = nsend(a, i);
        if (a->destinations[i] != MPI_PROC_NULL && b.dt != NULL && b.count * dt_size(b.dt) > 0)
            coll_send(s, c, a->destinations[i], b.buf, b.count, b.dt);
    }
    return coll_sched_status(s);
}

const coll_algo_t coll_neighbor_allgather_linear = {"linear", COLL_NEIGHBOR_ALLGATHER,
                                                    neighbor_linear, NULL};
const coll_algo_t coll_neighbor_allgatherv_linear = {"linear", COLL_NEIGHBOR_ALLGATHERV,
                                                     neighbor_linear, NULL};
const coll_algo_t coll_neighbor_alltoall_linear = {"linear", COLL_NEIGHBOR_ALLTOALL,
                                                   neighbor_linear, NULL};
const coll_algo_t coll_neighbor_alltoallv_linear = {"linear", COLL_NEIGHBOR_ALLTOALLV,
                                                    neighbor_linear, NULL};
const coll_algo_t coll_neighbor_alltoallw_linear = {"linear", COLL_NEIGHBOR_ALLTOALLW,
                                                    neighbor_linear, NULL};
