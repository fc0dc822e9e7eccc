/*
 * Neighbourhood collectives on a non-periodic 1-D Cartesian topology
 * (MPI_PROC_NULL at the ends), a periodic 2-D one, and a distributed graph
 * (each rank: sources r-1, r+2; destinations the reverse; then one of 20
 * edges each way, r-1-j and r+1+j), checked
 * exactly: neighbor_allgather(v), neighbor_alltoall(v, w), in blocking,
 * nonblocking and persistent forms. Run with any number of ranks.
 */
#include "mtest.h"

static int val(int from, int to, int i)
{
    return from * 10000 + to * 100 + i;
}

/* Expected data from each source, whatever the topology: the value the
 * source computes for its destination slot that points at us. */
static void check_topology(MPI_Comm comm, const char *name)
{
    enum { N = 3 };
    int indeg, outdeg, weighted, status;
    int *src, *dst, *sb, *rb, *cnt, *dsp;
    MPI_Request rq;

    OK(MPI_Topo_test(comm, &status));
    if (status == MPI_CART) {
        int nd;
        OK(MPI_Cartdim_get(comm, &nd));
        indeg = outdeg = 2 * nd;
        src = malloc(sizeof(int) * (size_t)indeg);
        dst = malloc(sizeof(int) * (size_t)outdeg);
        for (int d = 0; d < nd; d++) {
            OK(MPI_Cart_shift(comm, d, 1, &src[2 * d], &src[2 * d + 1]));
            dst[2 * d] = src[2 * d];
            dst[2 * d + 1] = src[2 * d + 1];
        }
    } else {
        OK(MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted));
        src = malloc(sizeof(int) * (size_t)(indeg + 1));
        dst = malloc(sizeof(int) * (size_t)(outdeg + 1));
        OK(MPI_Dist_graph_neighbors(comm, indeg, src, MPI_UNWEIGHTED, outdeg, dst, MPI_UNWEIGHTED));
    }
    sb = malloc(sizeof(int) * N * (size_t)(outdeg + 1));
    rb = malloc(sizeof(int) * N * (size_t)(indeg + 1));
    cnt = malloc(sizeof(int) * (size_t)(indeg + outdeg + 1));
    dsp = malloc(sizeof(int) * (size_t)(indeg + outdeg + 1));

    /* allgather: everyone sends the same block */
    for (int form = 0; form < 3; form++) {
        for (int i = 0; i < N; i++)
            sb[i] = val(mtest_rank, 0, i);
        for (int i = 0; i < N * indeg; i++)
            rb[i] = -1;
        if (form == 0) {
            OK(MPI_Neighbor_allgather(sb, N, MPI_INT, rb, N, MPI_INT, comm));
        } else if (form == 1) {
            OK(MPI_Ineighbor_allgather(sb, N, MPI_INT, rb, N, MPI_INT, comm, &rq));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Neighbor_allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, comm, MPI_INFO_NULL,
                                           &rq));
            OK(MPI_Start(&rq));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            OK(MPI_Request_free(&rq));
        }
        for (int k = 0; k < indeg; k++)
            for (int i = 0; i < N; i++)
                CHECK(rb[k * N + i] == (src[k] == MPI_PROC_NULL ? -1 : val(src[k], 0, i)),
                      "%s neighbor_allgather form %d from slot %d [%d]=%d", name, form, k, i,
                      rb[k * N + i]);
    }
    /* allgatherv: reversed slots */
    for (int k = 0; k < indeg; k++) {
        cnt[k] = N;
        dsp[k] = (indeg - 1 - k) * N;
    }
    for (int i = 0; i < N * indeg; i++)
        rb[i] = -1;
    OK(MPI_Neighbor_allgatherv(sb, N, MPI_INT, rb, cnt, dsp, MPI_INT, comm));
    for (int k = 0; k < indeg; k++)
        for (int i = 0; i < N; i++)
            CHECK(rb[dsp[k] + i] == (src[k] == MPI_PROC_NULL ? -1 : val(src[k], 0, i)),
                  "%s neighbor_allgatherv slot %d", name, k);

    /* alltoall: slot k of the send buffer goes to dst[k]; it is tagged with
     * the destination slot index so that duplicates (periodic dimensions
     * of size 1 or 2) are told apart by position */
    for (int k = 0; k < outdeg; k++)
        for (int i = 0; i < N; i++)
            sb[k * N + i] = val(mtest_rank, k, i);
    for (int i = 0; i < N * indeg; i++)
        rb[i] = -1;
    OK(MPI_Neighbor_alltoall(sb, N, MPI_INT, rb, N, MPI_INT, comm));
    for (int k = 0; k < indeg; k++) {
        if (src[k] == MPI_PROC_NULL) {
            CHECK(rb[k * N] == -1, "%s neighbor_alltoall PROC_NULL slot %d written", name, k);
            continue;
        }
        /* the sender's slot pointing at us: for Cartesian, the opposite
         * direction of the same dimension; for our graph, computed below */
        CHECK(rb[k * N] / 10000 == src[k], "%s neighbor_alltoall slot %d from %d: got %d", name, k,
              src[k], rb[k * N]);
        if (status == MPI_CART)
            CHECK(rb[k * N] % 10000 / 100 == (k ^ 1) || src[k] == mtest_rank,
                  "%s neighbor_alltoall slot %d: sender's slot %d", name, k,
                  rb[k * N] % 10000 / 100);
    }
    /* alltoallv and alltoallw with the same data */
    for (int k = 0; k < outdeg; k++) {
        cnt[k] = N;
        dsp[k] = k * N;
    }
    {
        int *rc = cnt + outdeg, *rd = dsp + outdeg;
        MPI_Aint *sbd = malloc(sizeof(MPI_Aint) * (size_t)(outdeg + 1));
        MPI_Aint *rbd = malloc(sizeof(MPI_Aint) * (size_t)(indeg + 1));
        MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)(outdeg + 1));
        MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)(indeg + 1));
        int *rb2 = malloc(sizeof(int) * N * (size_t)(indeg + 1));
        for (int k = 0; k < indeg; k++) {
            rc[k] = N;
            rd[k] = k * N;
            rbd[k] = (MPI_Aint)(sizeof(int) * (size_t)(k * N));
            rt[k] = MPI_INT;
        }
        for (int k = 0; k < outdeg; k++) {
            sbd[k] = (MPI_Aint)(sizeof(int) * (size_t)(k * N));
            st[k] = MPI_INT;
        }
        for (int i = 0; i < N * indeg; i++)
            rb2[i] = -1;
        OK(MPI_Neighbor_alltoallv(sb, cnt, dsp, MPI_INT, rb2, rc, rd, MPI_INT, comm));
        for (int i = 0; i < N * indeg; i++)
            CHECK(rb2[i] == rb[i], "%s neighbor_alltoallv differs at %d", name, i);
        for (int i = 0; i < N * indeg; i++)
            rb2[i] = -1;
        OK(MPI_Ineighbor_alltoallw(sb, cnt, sbd, st, rb2, rc, rbd, rt, comm, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int i = 0; i < N * indeg; i++)
            CHECK(rb2[i] == rb[i], "%s neighbor_alltoallw differs at %d", name, i);
        free(sbd);
        free(rbd);
        free(st);
        free(rt);
        free(rb2);
    }
    free(src);
    free(dst);
    free(sb);
    free(rb);
    free(cnt);
    free(dsp);
}

int main(int argc, char **argv)
{
    MPI_Comm line, torus, graph;
    int dims[2] = {0, 0}, periods[2] = {1, 1}, np = 0;
    mtest_init(&argc, &argv);

    if (mtest_unsupported(MPI_Cart_create(MPI_COMM_WORLD, 1, &mtest_size, &np, 0, &line))) {
        mtest_skipped("neighbourhood collectives (MPI_Cart_create)");
        return mtest_finish();
    }
    MPI_Comm_set_errhandler(line, MPI_ERRORS_RETURN);
    check_topology(line, "line");
    MPI_Comm_free(&line);

    OK(MPI_Dims_create(mtest_size, 2, dims));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &torus));
    MPI_Comm_set_errhandler(torus, MPI_ERRORS_RETURN);
    check_topology(torus, "torus");
    MPI_Comm_free(&torus);

    {
        int src[2] = {(mtest_rank + mtest_size - 1) % mtest_size, (mtest_rank + 2) % mtest_size};
        int dst[2] = {(mtest_rank + 1) % mtest_size, (mtest_rank + mtest_size - 2) % mtest_size};
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph));
        MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
        check_topology(graph, "graph");
        MPI_Comm_free(&graph);
    }
    {
        /* 20 edges each way (every rank many times over): more counts than
         * the front widens into its own small arrays (mpi/coll.c,
         * WIDE_SMALL), so they are malloc'd */
        enum { DEG = 20 };
        int src[DEG], dst[DEG];
        for (int j = 0; j < DEG; j++) {
            src[j] = ((mtest_rank - 1 - j) % mtest_size + mtest_size) % mtest_size;
            dst[j] = (mtest_rank + 1 + j) % mtest_size;
        }
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, DEG, src, MPI_UNWEIGHTED, DEG, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph));
        MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
        check_topology(graph, "graph of 20 edges");
        MPI_Comm_free(&graph);
    }
    return mtest_finish();
}
