/*
 * Process topologies (MPI 4.0 chapter 8): Cartesian, graph and distributed
 * graph communicators, their queries, MPI_Dims_create, and the neighbour
 * lists the neighbourhood collectives of coll/ walk (mpi_topo_neighbors).
 *
 * A topology is a small structure hung on the communicator (c->topo),
 * copied by MPI_Comm_dup and freed with the communicator. `reorder` is
 * accepted and ignored: rank r of the old communicator is rank r of the new
 * one, which the standard allows. Cartesian and graph constructors keep the
 * first N ranks (MPI_COMM_NULL for the others); the distributed graph
 * constructors keep every rank, and MPI_Dist_graph_create moves each edge to
 * its two ends with one all-to-all over the device.
 *
 * Neighbour order (what mpi_topo_neighbors returns): Cartesian, for each
 * dimension the source then the destination of MPI_Cart_shift(d, 1), with
 * MPI_PROC_NULL where a non-periodic edge ends; graph, the edges of the rank
 * in the order given; distributed graph, the sources and destinations in the
 * order of MPI_Dist_graph_neighbors.
 */
#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int kind;  /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int ndims; /* Cartesian */
    int *dims, *periods, *coords;
    int nnodes; /* graph: nedges = index[nnodes - 1] */
    int *index, *edges;
    int rank;                          /* graph: this process's node */
    int indegree, outdegree, weighted; /* distributed graph */
    int *sources, *sweights, *dests, *dweights;
    int *nbrs; /* Cartesian: 2 * ndims neighbours */
} topo_t;

static int *ints_dup(const int *a, int n)
{
    int *b = calloc((size_t)(n > 0 ? n : 1), sizeof *b);
    if (b != NULL && n > 0 && a != NULL)
        memcpy(b, a, sizeof *b * (size_t)n);
    return b;
}

void mpi_topo_free(void *p)
{
    topo_t *t = p;
    if (t == NULL)
        return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sweights);
    free(t->dests);
    free(t->dweights);
    free(t->nbrs);
    free(t);
}

void *mpi_topo_dup(const void *p)
{
    const topo_t *t = p;
    topo_t *n = malloc(sizeof *n);
    int nedges = t->kind == MPI_GRAPH && t->nnodes > 0 ? t->index[t->nnodes - 1] : 0;

    if (n == NULL)
        return NULL;
    *n = *t;
    n->dims = ints_dup(t->dims, t->ndims);
    n->periods = ints_dup(t->periods, t->ndims);
    n->coords = ints_dup(t->coords, t->ndims);
    n->nbrs = ints_dup(t->nbrs, 2 * t->ndims);
    n->index = ints_dup(t->index, t->nnodes);
    n->edges = ints_dup(t->edges, nedges);
    n->sources = ints_dup(t->sources, t->indegree);
    n->sweights = ints_dup(t->sweights, t->indegree);
    n->dests = ints_dup(t->dests, t->outdegree);
    n->dweights = ints_dup(t->dweights, t->outdegree);
    if (!n->dims || !n->periods || !n->coords || !n->nbrs || !n->index || !n->edges ||
        !n->sources || !n->sweights || !n->dests || !n->dweights) {
        mpi_topo_free(n);
        return NULL;
    }
    return n;
}

/* An empty topology of `kind` with every array allocated (possibly 1 int). */
static topo_t *topo_new(int kind, int ndims, int nnodes, int nedges, int indeg, int outdeg)
{
    topo_t *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->kind = kind;
    t->ndims = ndims;
    t->nnodes = nnodes;
    t->indegree = indeg;
    t->outdegree = outdeg;
    t->dims = ints_dup(NULL, ndims);
    t->periods = ints_dup(NULL, ndims);
    t->coords = ints_dup(NULL, ndims);
    t->nbrs = ints_dup(NULL, 2 * ndims);
    t->index = ints_dup(NULL, nnodes);
    t->edges = ints_dup(NULL, nedges);
    t->sources = ints_dup(NULL, indeg);
    t->sweights = ints_dup(NULL, indeg);
    t->dests = ints_dup(NULL, outdeg);
    t->dweights = ints_dup(NULL, outdeg);
    if (!t->dims || !t->periods || !t->coords || !t->nbrs || !t->index || !t->edges ||
        !t->sources || !t->sweights || !t->dests || !t->dweights) {
        mpi_topo_free(t);
        return NULL;
    }
    return t;
}

/* ---------------------------------------------------------------- Cartesian arithmetic */
static void cart_coords_of(const topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* Rank of coords, wrapping periodic dimensions; -1 if off a non-periodic edge. */
static int cart_rank_of(const topo_t *t, const int *coords)
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i];
        if (t->periods[i]) {
            c %= t->dims[i];
            if (c < 0)
                c += t->dims[i];
        } else if (c < 0 || c >= t->dims[i]) {
            return -1;
        }
        rank = rank * t->dims[i] + c;
    }
    return rank;
}

static void cart_shift(const topo_t *t, int dir, int disp, int *src, int *dst)
{
    int c[t->ndims > 0 ? t->ndims : 1], r;

    memcpy(c, t->coords, sizeof *c * (size_t)t->ndims);
    c[dir] = t->coords[dir] - disp;
    r = cart_rank_of(t, c);
    *src = r < 0 ? MPI_PROC_NULL : r;
    c[dir] = t->coords[dir] + disp;
    r = cart_rank_of(t, c);
    *dst = r < 0 ? MPI_PROC_NULL : r;
}

static void cart_finish(topo_t *t, int rank)
{
    cart_coords_of(t, rank, t->coords);
    for (int d = 0; d < t->ndims; d++)
        cart_shift(t, d, 1, &t->nbrs[2 * d], &t->nbrs[2 * d + 1]);
}

/* ---------------------------------------------------------------- lookups */
int mpi_topo_neighbors(mpi_comm_t *c, int *indegree, const int **sources, int *outdegree,
                       const int **destinations)
{
    topo_t *t = c->topo;
    if (t == NULL)
        return MPI_ERR_TOPOLOGY;
    switch (t->kind) {
    case MPI_CART:
        *indegree = *outdegree = 2 * t->ndims;
        *sources = *destinations = t->nbrs;
        return MPI_SUCCESS;
    case MPI_GRAPH: {
        int lo = t->rank > 0 ? t->index[t->rank - 1] : 0;
        *indegree = *outdegree = t->index[t->rank] - lo;
        *sources = *destinations = t->edges + lo;
        return MPI_SUCCESS;
    }
    default:
        *indegree = t->indegree;
        *outdegree = t->outdegree;
        *sources = t->sources;
        *destinations = t->dests;
        return MPI_SUCCESS;
    }
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART:
        return "a Cartesian";
    case MPI_GRAPH:
        return "a graph";
    case MPI_DIST_GRAPH:
        return "a distributed graph";
    default:
        return "no";
    }
}

/* comm, valid and with a topology of `kind`. */
static int get_topo(mpi_comm_t *c, int kind, const char *fn, topo_t **t_out)
{
    topo_t *t = c->topo;
    if (t == NULL || t->kind != kind)
        return mpi_err_fail(c, MPI_ERR_TOPOLOGY, fn, "comm=%#x has %s topology, not %s one",
                            (unsigned)c->handle, t ? kind_name(t->kind) : "no", kind_name(kind));
    *t_out = t;
    return MPI_SUCCESS;
}

static int check_intra_comm(mpi_comm_t *c, const char *fn)
{
    if (c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn,
                            "comm=%#x is an intercommunicator; topologies need an "
                            "intracommunicator",
                            (unsigned)c->handle);
    return MPI_SUCCESS;
}

/* The first n ranks of parent as a new communicator (collective over parent);
 * *out is NULL at the other ranks. */
static int comm_first_n(mpi_comm_t *p, int n, mpi_comm_t **out, const char *fn)
{
    mpi_dom_t d;
    mpi_group_t *g = NULL;
    int ctx, err;
    canal_status_t st;

    mpi_dom_of_comm(p, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0)
        return mpi_err_fail_status(p, st, fn);
    *out = NULL;
    if (p->rank >= n) {
        mpi_comm_context_free(ctx);
        return MPI_SUCCESS;
    }
    g = p->local_job_ranks != NULL ? mpi_group_new_list(p->local_job_ranks, n)
                                   : mpi_group_new_stride(0, 1, n);
    if (g == NULL) {
        mpi_comm_context_free(ctx);
        return mpi_err_fail(p, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    err = mpi_comm_new_intra(p, ctx, g, out);
    mpi_group_release(g);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        return mpi_err_fail(p, err, fn, "out of memory for the new communicator");
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- Cartesian */
static int check_dims(mpi_comm_t *c, int ndims, const int dims[], const int periods[],
                      const char *fn, long long *prod_out)
{
    long long prod = 1;
    if (ndims < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "ndims=%d is negative", ndims);
    if (ndims > 0 && (dims == NULL || periods == NULL))
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL with ndims=%d",
                            dims == NULL ? "dims" : "periods", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpi_err_fail(c, MPI_ERR_DIMS, fn, "dims[%d]=%d is not positive", i, dims[i]);
        prod *= dims[i];
        if (prod > c->size)
            break;
    }
    *prod_out = prod;
    return MPI_SUCCESS;
}

int mpi_cart_create_impl(mpi_comm_t *c, int ndims, const int dims[], const int periods[],
                         int reorder, MPI_Comm *comm_cart, const char *fn)
{
    mpi_comm_t *n = NULL;
    topo_t *t = NULL;
    long long prod;
    int err;

    /* on any error the output is MPI_COMM_NULL, as in MPICH (errors/topo/cartsmall) */
    if (comm_cart != NULL)
        *comm_cart = MPI_COMM_NULL;
    if ((err = check_intra_comm(c, fn)) || (err = check_dims(c, ndims, dims, periods, fn, &prod)))
        return err;
    if (prod > c->size)
        return mpi_err_fail(c, MPI_ERR_ARG, fn,
                            "the grid of dims has %lld processes, more than comm_old (size %d)",
                            prod, c->size);
    if ((err = comm_first_n(c, (int)prod, &n, fn)))
        return err;
    if (n == NULL) {
        *comm_cart = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((t = topo_new(MPI_CART, ndims, 0, 0, 0, 0)) == NULL) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    cart_finish(t, n->rank);
    n->topo = t;
    *comm_cart = n->handle;
    return MPI_SUCCESS;
}

int mpi_cart_sub_impl(mpi_comm_t *c, const int remain_dims[], MPI_Comm *newcomm, const char *fn)
{
    mpi_comm_t *n = NULL;
    topo_t *t = NULL, *nt = NULL;
    int err, color = 0, key = 0, k = 0;

    if ((err = get_topo(c, MPI_CART, fn, &t)))
        return err;
    if (remain_dims == NULL && t->ndims > 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "remain_dims is NULL");
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + t->coords[i];
            k++;
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    if ((err = mpi_comm_split_intra(c, color, key, &n, fn)))
        return err;
    if ((nt = topo_new(MPI_CART, k, 0, 0, 0, 0)) == NULL) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    k = 0;
    for (int i = 0; i < t->ndims; i++)
        if (remain_dims[i]) {
            nt->dims[k] = t->dims[i];
            nt->periods[k] = t->periods[i];
            k++;
        }
    cart_finish(nt, n->rank);
    n->topo = nt;
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int mpi_cartdim_get_impl(mpi_comm_t *c, int *ndims, const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_CART, fn, &t)))
        return err;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

int mpi_cart_get_impl(mpi_comm_t *c, int maxdims, int dims[], int periods[], int coords[],
                      const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_CART, fn, &t)))
        return err;
    if (maxdims < t->ndims)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "maxdims=%d is less than ndims=%d", maxdims,
                            t->ndims);
    if (t->ndims > 0 && (dims == NULL || periods == NULL || coords == NULL))
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL",
                            dims == NULL      ? "dims"
                            : periods == NULL ? "periods"
                                               : "coords");
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int mpi_cart_rank_impl(mpi_comm_t *c, const int coords[], int *rank, const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_CART, fn, &t)))
        return err;
    if (coords == NULL && t->ndims > 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "coords is NULL");
    for (int i = 0; i < t->ndims; i++)
        if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i]))
            return mpi_err_fail(c, MPI_ERR_ARG, fn,
                                "coords[%d]=%d is not in [0, %d) and dimension %d is not "
                                 "periodic",
                                 i, coords[i], t->dims[i], i);
    *rank = cart_rank_of(t, coords);
    return MPI_SUCCESS;
}

int mpi_cart_coords_impl(mpi_comm_t *c, int rank, int maxdims, int coords[], const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_CART, fn, &t)))
        return err;
    if (rank < 0 || rank >= c->size)
        return mpi_err_fail(c, MPI_ERR_RANK, fn, "rank=%d is not in [0, %d)", rank, c->size);
    if (maxdims < t->ndims)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "maxdims=%d is less than ndims=%d", maxdims,
                            t->ndims);
    if (coords == NULL && t->ndims > 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "coords is NULL");
    cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int mpi_cart_shift_impl(mpi_comm_t *c, int direction, int disp, int *rank_source, int *rank_dest,
                        const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_CART, fn, &t)))
        return err;
    if (direction < 0 || direction >= t->ndims)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "direction=%d is not in [0, %d) (ndims)",
                             direction, t->ndims);
    cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int mpi_cart_map_impl(mpi_comm_t *c, int ndims, const int dims[], const int periods[], int *newrank,
                      const char *fn)
{
    long long prod;
    int err;
    if ((err = check_intra_comm(c, fn)) || (err = check_dims(c, ndims, dims, periods, fn, &prod)))
        return err;
    if (prod > c->size)
        return mpi_err_fail(c, MPI_ERR_DIMS, fn, "the grid has more processes than comm (size %d)",
                            c->size);
    *newrank = c->rank < prod ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* Balanced factorisation: d[0] >= d[1] >= ... with product n, chosen as
 * MPICH chooses (its test topo/dims5 lists the expected answers): the
 * smallest spread (largest minus smallest); among equal spreads the
 * smallest factor as large as possible, then the next smallest, and so on
 * (5040 in 3-D is 21 x 16 x 15, 7344 in 4-D is 17 x 9 x 8 x 6). The search
 * walks the divisors of n in decreasing order and stops a branch as soon
 * as it cannot reach the best spread found. */
typedef struct {
    int k, ndiv;
    int *div; /* divisors of n, decreasing */
    int cur[32], best[32];
    int best_spread, found;
} dims_search_t;

/* Is cur better than best: compare from the smallest factor up. */
static int dims_better(const dims_search_t *s)
{
    for (int j = s->k - 1; j >= 0; j--)
        if (s->cur[j] != s->best[j])
            return s->cur[j] > s->best[j];
    return 0;
}

static void dims_dfs(dims_search_t *s, int i, long long rest, int maxd)
{
    if (i == s->k - 1) {
        if (rest > maxd)
            return;
        int spread;
        s->cur[i] = (int)rest;
        spread = s->cur[0] - s->cur[i];
        if (!s->found || spread < s->best_spread ||
            (spread == s->best_spread && dims_better(s))) {
            memcpy(s->best, s->cur, sizeof s->cur[0] * (size_t)s->k);
            s->best_spread = spread;
            s->found = 1;
        }
        return;
    }
    for (int j = 0; j < s->ndiv; j++) {
        long long d = s->div[j], p = 1;
        if (d > maxd || rest % d != 0)
            continue;
        /* d is the largest of the k - i factors left: d^(k-i) >= rest */
        for (int m = i; m < s->k && p < rest; m++)
            p *= d;
        if (p < rest)
            break;
        /* the smallest factor will be <= d: the spread is at least cur[0] - d */
        if (s->found && i > 0 && s->cur[0] - d > s->best_spread)
            break;
        s->cur[i] = (int)d;
        dims_dfs(s, i + 1, rest / d, (int)d);
    }
}

static int dims_divisors(int n, int **out)
{
    int cap = 64, nd = 0, *d = malloc(sizeof *d * (size_t)cap), *hi = NULL, nh = 0;

    hi = malloc(sizeof *hi * (size_t)cap);
    if (d == NULL || hi == NULL)
        goto out_fail;
    for (long long q = 1; q * q <= n; q++) {
        if (n % q != 0)
            continue;
        if (nd + 1 >= cap || nh + 1 >= cap) {
            int *nd2, *nh2;
            cap *= 2;
            nd2 = realloc(d, sizeof *d * (size_t)cap);
            if (nd2 != NULL)
                d = nd2;
            nh2 = realloc(hi, sizeof *hi * (size_t)cap);
            if (nh2 != NULL)
                hi = nh2;
            if (nd2 == NULL || nh2 == NULL)
                goto out_fail;
        }
        d[nd++] = (int)q; /* small ones, increasing */
        if (q * q != n)
            hi[nh++] = (int)(n / q); /* large ones, decreasing */
    }
    /* decreasing: hi as is, then the small ones reversed */
    {
        int *all = malloc(sizeof *all * (size_t)(nd + nh));
        if (all == NULL)
            goto out_fail;
        for (int i = 0; i < nh; i++)
            all[i] = hi[i];
        for (int i = 0; i < nd; i++)
            all[nh + i] = d[nd - 1 - i];
        free(d);
        free(hi);
        *out = all;
        return nd + nh;
    }
out_fail:
    free(d);
    free(hi);
    return -1;
}

int mpi_dims_create_impl(int nnodes, int ndims, int dims[], const char *fn)
{
    dims_search_t *s;
    long long fixed = 1;
    int nfree = 0, k = 0;

    if (nnodes <= 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "nnodes=%d is not positive", nnodes);
    if (ndims < 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "ndims=%d is negative", ndims);
    if (ndims > 0 && dims == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "dims is NULL with ndims=%d", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpi_err_fail(NULL, MPI_ERR_DIMS, fn, "dims[%d]=%d is negative", i, dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            fixed = (long long)nnodes + 1;
    }
    if (nnodes % fixed != 0)
        return mpi_err_fail(NULL, MPI_ERR_DIMS, fn,
                            "nnodes=%d is not a multiple of %lld, the product of the nonzero dims",
                            nnodes, fixed);
    if (nfree == 0) {
        if (fixed != nnodes)
            return mpi_err_fail(NULL, MPI_ERR_DIMS, fn,
                                "the product of dims is %lld, not nnodes=%d", fixed, nnodes);
        return MPI_SUCCESS;
    }
    s = calloc(1, sizeof *s);
    if (s == NULL || (s->ndiv = dims_divisors((int)(nnodes / fixed), &s->div)) < 0) {
        free(s);
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    /* More than 31 free dimensions: all beyond the 31st are 1 (2^31 > INT_MAX). */
    s->k = nfree < 31 ? nfree : 31;
    dims_dfs(s, 0, nnodes / fixed, (int)(nnodes / fixed));
    for (int i = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = k < s->k ? s->best[k++] : 1;
    free(s->div);
    free(s);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- graph */
static int check_graph(mpi_comm_t *c, int nnodes, const int index[], const int edges[],
                       const char *fn)
{
    if (nnodes < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "nnodes=%d is negative", nnodes);
    if (nnodes > c->size)
        return mpi_err_fail(c, MPI_ERR_ARG, fn,
                            "nnodes=%d is larger than the size of the communicator (%d)", nnodes,
                            c->size);
    if (nnodes > 0 && index == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return mpi_err_fail(c, MPI_ERR_ARG, fn,
                                "index[%d]=%d is smaller than the previous entry (%d)", i,
                                index[i], i > 0 ? index[i - 1] : 0);
    if (nnodes > 0 && index[nnodes - 1] > 0 && edges == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "edges is NULL");
    for (int j = 0; nnodes > 0 && j < index[nnodes - 1]; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return mpi_err_fail(c, MPI_ERR_ARG, fn, "edges[%d]=%d is not a node in [0, %d)", j,
                                 edges[j], nnodes);
    return MPI_SUCCESS;
}

int mpi_graph_create_impl(mpi_comm_t *c, int nnodes, const int index[], const int edges[],
                          int reorder, MPI_Comm *comm_graph, const char *fn)
{
    mpi_comm_t *n = NULL;
    topo_t *t = NULL;
    int err, nedges;

    if ((err = check_intra_comm(c, fn)) || (err = check_graph(c, nnodes, index, edges, fn)))
        return err;
    if ((err = comm_first_n(c, nnodes, &n, fn)))
        return err;
    if (n == NULL) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    nedges = index[nnodes - 1];
    if ((t = topo_new(MPI_GRAPH, 0, nnodes, nedges, 0, 0)) == NULL) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    memcpy(t->index, index, sizeof *index * (size_t)nnodes);
    if (nedges > 0) /* edges may be NULL when there are none */
        memcpy(t->edges, edges, sizeof *edges * (size_t)nedges);
    t->rank = n->rank;
    n->topo = t;
    *comm_graph = n->handle;
    return MPI_SUCCESS;
}

int mpi_graph_map_impl(mpi_comm_t *c, int nnodes, const int index[], const int edges[],
                       int *newrank, const char *fn)
{
    int err;
    if ((err = check_intra_comm(c, fn)) || (err = check_graph(c, nnodes, index, edges, fn)))
        return err;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int mpi_graphdims_get_impl(mpi_comm_t *c, int *nnodes, int *nedges, const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_GRAPH, fn, &t)))
        return err;
    *nnodes = t->nnodes;
    *nedges = t->index[t->nnodes - 1];
    return MPI_SUCCESS;
}

int mpi_graph_get_impl(mpi_comm_t *c, int maxindex, int maxedges, int index[], int edges[],
                       const char *fn)
{
    topo_t *t = NULL;
    int err, nedges;
    if ((err = get_topo(c, MPI_GRAPH, fn, &t)))
        return err;
    nedges = t->index[t->nnodes - 1];
    if (maxindex < 0 || maxedges < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s=%d is negative",
                            maxindex < 0 ? "maxindex" : "maxedges",
                            maxindex < 0 ? maxindex : maxedges);
    if ((maxindex > 0 && index == NULL) || (maxedges > 0 && edges == NULL))
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL", index == NULL ? "index" : "edges");
    memcpy(index, t->index, sizeof *index * (size_t)(maxindex < t->nnodes ? maxindex : t->nnodes));
    memcpy(edges, t->edges, sizeof *edges * (size_t)(maxedges < nedges ? maxedges : nedges));
    return MPI_SUCCESS;
}

static int graph_check_rank(mpi_comm_t *c, topo_t *t, int rank, const char *fn)
{
    if (rank < 0 || rank >= t->nnodes)
        return mpi_err_fail(c, MPI_ERR_RANK, fn, "rank=%d is not a node in [0, %d)", rank,
                             t->nnodes);
    return MPI_SUCCESS;
}

int mpi_graph_neighbors_count_impl(mpi_comm_t *c, int rank, int *nneighbors, const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_GRAPH, fn, &t)) || (err = graph_check_rank(c, t, rank, fn)))
        return err;
    *nneighbors = t->index[rank] - (rank > 0 ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int mpi_graph_neighbors_impl(mpi_comm_t *c, int rank, int maxneighbors, int neighbors[],
                             const char *fn)
{
    topo_t *t = NULL;
    int err, lo, n;
    if ((err = get_topo(c, MPI_GRAPH, fn, &t)) || (err = graph_check_rank(c, t, rank, fn)))
        return err;
    lo = rank > 0 ? t->index[rank - 1] : 0;
    n = t->index[rank] - lo;
    if (maxneighbors < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "maxneighbors=%d is negative", maxneighbors);
    if (maxneighbors > 0 && neighbors == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "neighbors is NULL");
    memcpy(neighbors, t->edges + lo,
           sizeof *neighbors * (size_t)(maxneighbors < n ? maxneighbors : n));
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- distributed graph */
static int weights_given(const int *w)
{
    return w != MPI_UNWEIGHTED;
}

static int check_adjacent(mpi_comm_t *c, int deg, const int *ranks, const int *weights,
                          const char *what, const char *fn)
{
    if (deg < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%sdegree=%d is negative", what, deg);
    if (deg > 0 && ranks == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "the %s rank array is NULL", what);
    if (deg > 0 && (weights == NULL || weights == MPI_WEIGHTS_EMPTY))
        return mpi_err_fail(c, MPI_ERR_ARG, fn,
                            "the %s weights are %s with %sdegree=%d (use MPI_UNWEIGHTED or an "
                            "array)",
                            what, weights == NULL ? "NULL" : "MPI_WEIGHTS_EMPTY", what, deg);
    for (int i = 0; i < deg; i++)
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return mpi_err_fail(c, MPI_ERR_RANK, fn, "%s rank %d (entry %d) is not in [0, %d)",
                                 what, ranks[i], i, c->size);
    return MPI_SUCCESS;
}

static int check_info_arg(mpi_comm_t *c, MPI_Info info, const char *fn)
{
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    return MPI_SUCCESS;
}

/* A copy of c (same group, new context) for a distributed graph. */
static int comm_for_dist(mpi_comm_t *c, mpi_comm_t **out, const char *fn)
{
    return comm_first_n(c, c->size, out, fn);
}

int mpi_dist_graph_create_adjacent_impl(mpi_comm_t *c, int indegree, const int sources[],
                                        const int sourceweights[], int outdegree,
                                        const int destinations[], const int destweights[],
                                        MPI_Info info, int reorder, MPI_Comm *comm_dist_graph,
                                        const char *fn)
{
    mpi_comm_t *n = NULL;
    topo_t *t = NULL;
    int err;

    if ((err = check_intra_comm(c, fn)) ||
        (err = check_adjacent(c, indegree, sources, sourceweights, "in", fn)) ||
        (err = check_adjacent(c, outdegree, destinations, destweights, "out", fn)) ||
        (err = check_info_arg(c, info, fn)))
        return err;
    if ((err = comm_for_dist(c, &n, fn)))
        return err;
    if ((t = topo_new(MPI_DIST_GRAPH, 0, 0, 0, indegree, outdegree)) == NULL) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    t->weighted = weights_given(sourceweights) && weights_given(destweights);
    for (int i = 0; i < indegree; i++) {
        t->sources[i] = sources[i];
        t->sweights[i] = t->weighted ? sourceweights[i] : 1;
    }
    for (int i = 0; i < outdegree; i++) {
        t->dests[i] = destinations[i];
        t->dweights[i] = t->weighted ? destweights[i] : 1;
    }
    n->topo = t;
    *comm_dist_graph = n->handle;
    return MPI_SUCCESS;
}

/* One edge as it travels to one of its ends: `dir` 0 means "you are the
 * source, add other as a destination", 1 "you are the destination". */
typedef struct {
    int dir, other, weight;
} edge_msg_t;

int mpi_dist_graph_create_impl(mpi_comm_t *c, int n, const int sources[], const int degrees[],
                               const int destinations[], const int weights[], MPI_Info info,
                               int reorder, MPI_Comm *comm_dist_graph, const char *fn)
{
    mpi_comm_t *nc = NULL;
    topo_t *t = NULL;
    mpi_dom_t d;
    size_t *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL, *fill = NULL;
    int *cnt_s = NULL, *cnt_r = NULL;
    edge_msg_t *sbuf = NULL, *rbuf = NULL;
    long long nedges = 0;
    int err, weighted, size, k, indeg = 0, outdeg = 0;
    canal_status_t st;

    if ((err = check_intra_comm(c, fn)) || (err = check_info_arg(c, info, fn)))
        return err;
    if (n < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "n=%d is negative", n);
    if (n > 0 && (sources == NULL || degrees == NULL))
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL with n=%d",
                            sources == NULL ? "sources" : "degrees", n);
    size = c->size;
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= size)
            return mpi_err_fail(c, MPI_ERR_RANK, fn, "sources[%d]=%d is not in [0, %d)", i,
                                 sources[i], size);
        if (degrees[i] < 0)
            return mpi_err_fail(c, MPI_ERR_ARG, fn, "degrees[%d]=%d is negative", i, degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > 0x3fffffff)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%lld edges is too many", nedges);
    if (nedges > 0 && destinations == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "destinations is NULL");
    if (nedges > 0 && (weights == NULL || weights == MPI_WEIGHTS_EMPTY))
        return mpi_err_fail(c, MPI_ERR_ARG, fn,
                            "weights is %s with edges to describe (use MPI_UNWEIGHTED or an "
                            "array)",
                            weights == NULL ? "NULL" : "MPI_WEIGHTS_EMPTY");
    for (long long j = 0; j < nedges; j++)
        if (destinations[j] < 0 || destinations[j] >= size)
            return mpi_err_fail(c, MPI_ERR_RANK, fn, "destinations[%lld]=%d is not in [0, %d)", j,
                                 destinations[j], size);
    weighted = weights_given(weights);

    /* Count, per process, the edge ends it must learn about. */
    cnt_s = calloc((size_t)size, sizeof *cnt_s);
    cnt_r = calloc((size_t)size, sizeof *cnt_r);
    sc = calloc((size_t)size, sizeof *sc);
    sd = calloc((size_t)size, sizeof *sd);
    rc = calloc((size_t)size, sizeof *rc);
    rd = calloc((size_t)size, sizeof *rd);
    fill = calloc((size_t)size, sizeof *fill);
    sbuf = malloc(sizeof *sbuf * (size_t)(2 * nedges + 1));
    if (!cnt_s || !cnt_r || !sc || !sd || !rc || !rd || !fill || !sbuf) {
        err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
        goto out_free;
    }
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            cnt_s[sources[i]]++;
            cnt_s[destinations[k]]++;
        }
    for (int p = 0; p < size; p++) {
        sc[p] = rc[p] = sizeof(int);
        sd[p] = rd[p] = (size_t)p * sizeof(int);
    }
    mpi_dom_of_comm(c, MPI_TAG_TOPO, &d);
    if ((st = mpi_dom_alltoallv(&d, cnt_s, sc, sd, cnt_r, rc, rd)) < 0) {
        err = mpi_err_fail_status(c, st, fn);
        goto out_free;
    }
    /* Lay the outgoing ends out by target process, then exchange them. */
    {
        size_t off = 0, roff = 0, total_r = 0;
        for (int p = 0; p < size; p++) {
            sd[p] = off;
            sc[p] = (size_t)cnt_s[p] * sizeof(edge_msg_t);
            off += sc[p];
            rd[p] = roff;
            rc[p] = (size_t)cnt_r[p] * sizeof(edge_msg_t);
            roff += rc[p];
            total_r += (size_t)cnt_r[p];
        }
        rbuf = malloc(sizeof *rbuf * (total_r + 1));
        if (rbuf == NULL) {
            err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
            goto out_free;
        }
        k = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < degrees[i]; j++, k++) {
                int s = sources[i], t2 = destinations[k], w = weighted ? weights[k] : 1;
                edge_msg_t *e = (edge_msg_t *)((char *)sbuf + sd[s]) + fill[s]++;
                e->dir = 0;
                e->other = t2;
                e->weight = w;
                e = (edge_msg_t *)((char *)sbuf + sd[t2]) + fill[t2]++;
                e->dir = 1;
                e->other = s;
                e->weight = w;
            }
        if ((st = mpi_dom_alltoallv(&d, sbuf, sc, sd, rbuf, rc, rd)) < 0) {
            err = mpi_err_fail_status(c, st, fn);
            goto out_free;
        }
        for (size_t i = 0; i < total_r; i++) {
            if (rbuf[i].dir == 0)
                outdeg++;
            else
                indeg++;
        }
        if ((err = comm_for_dist(c, &nc, fn)))
            goto out_free;
        if ((t = topo_new(MPI_DIST_GRAPH, 0, 0, 0, indeg, outdeg)) == NULL) {
            err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
            goto out_free;
        }
        t->weighted = weighted;
        indeg = outdeg = 0;
        for (size_t i = 0; i < total_r; i++) {
            if (rbuf[i].dir == 0) {
                t->dests[outdeg] = rbuf[i].other;
                t->dweights[outdeg++] = rbuf[i].weight;
            } else {
                t->sources[indeg] = rbuf[i].other;
                t->sweights[indeg++] = rbuf[i].weight;
            }
        }
    }
    nc->topo = t;
    t = NULL;
    *comm_dist_graph = nc->handle;
    nc = NULL;
    err = MPI_SUCCESS;
out_free:
    if (nc != NULL)
        mpi_comm_destroy(nc);
    mpi_topo_free(t);
    free(cnt_s);
    free(cnt_r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(fill);
    free(sbuf);
    free(rbuf);
    return err;
}

int mpi_dist_graph_neighbors_count_impl(mpi_comm_t *c, int *indegree, int *outdegree, int *weighted,
                                        const char *fn)
{
    topo_t *t = NULL;
    int err;
    if ((err = get_topo(c, MPI_DIST_GRAPH, fn, &t)))
        return err;
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

int mpi_dist_graph_neighbors_impl(mpi_comm_t *c, int maxindegree, int sources[],
                                  int sourceweights[], int maxoutdegree, int destinations[],
                                  int destweights[], const char *fn)
{
    topo_t *t = NULL;
    int err, nin, nout;
    if ((err = get_topo(c, MPI_DIST_GRAPH, fn, &t)))
        return err;
    if (maxindegree < 0 || maxoutdegree < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is negative",
                            maxindegree < 0 ? "maxindegree" : "maxoutdegree");
    nin = maxindegree < t->indegree ? maxindegree : t->indegree;
    nout = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    if ((nin > 0 && sources == NULL) || (nout > 0 && destinations == NULL))
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL",
                            sources == NULL ? "sources" : "destinations");
    for (int i = 0; i < nin; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && weights_given(sourceweights) && sourceweights != NULL)
            sourceweights[i] = t->sweights[i];
    }
    for (int i = 0; i < nout; i++) {
        destinations[i] = t->dests[i];
        if (t->weighted && weights_given(destweights) && destweights != NULL)
            destweights[i] = t->dweights[i];
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- any topology */
int mpi_topo_test_impl(mpi_comm_t *c, int *status, const char *fn)
{
    (void)fn;
    *status = c->topo != NULL ? ((topo_t *)c->topo)->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
