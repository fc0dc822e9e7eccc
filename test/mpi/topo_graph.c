/* Graph and distributed graph topologies: MPI_Graph_create (a ring, fewer
 * nodes than ranks), graphdims/get/neighbors(_count)/map; distributed graphs
 * from adjacency lists and from edges given by any process (all by rank 0,
 * or each its own), weighted, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY; and the
 * error classes of bad graphs. Point to point only. */
#include "mtest.h"

static int rank, size;

/* Send my rank to every destination, receive from every source, check. */
static void exchange(MPI_Comm c, int indeg, const int *src, int outdeg, const int *dst,
                     const char *what)
{
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (indeg + outdeg + 1));
    int *got = malloc(sizeof(int) * (indeg + 1)), r;
    MPI_Comm_rank(c, &r);
    for (int i = 0; i < indeg; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, src[i], 3, c, &rq[i]);
    for (int i = 0; i < outdeg; i++)
        MPI_Isend(&r, 1, MPI_INT, dst[i], 3, c, &rq[indeg + i]);
    MPI_Waitall(indeg + outdeg, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < indeg; i++)
        CHECK(got[i] == src[i], "%s: from source %d got %d", what, src[i], got[i]);
    free(rq);
    free(got);
}

static void check_dist(MPI_Comm c, int weighted, const char *what)
{
    int in, out, w, srcs[2], sw[2], dsts[2], dw[2], prev = (rank + size - 1) % size,
                                                    next = (rank + 1) % size;
    MPI_Dist_graph_neighbors_count(c, &in, &out, &w);
    CHECK(in == 1 && out == 1 && w == weighted, "%s: degrees %d %d weighted %d", what, in, out, w);
    MPI_Dist_graph_neighbors(c, 2, srcs, sw, 2, dsts, dw);
    CHECK(srcs[0] == prev && dsts[0] == next, "%s: neighbours %d %d", what, srcs[0], dsts[0]);
    if (weighted)
        CHECK(sw[0] == 100 + prev && dw[0] == 100 + rank, "%s: weights %d %d", what, sw[0], dw[0]);
    exchange(c, 1, srcs, 1, dsts, what);
}

int main(int argc, char **argv)
{
    MPI_Comm g, d;
    int *index, *edges, nn, ne, cnt, nb[4], status, err, prev, next;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    prev = (rank + size - 1) % size;
    next = (rank + 1) % size;

    /* a ring: node i is joined to i-1 and i+1 */
    index = malloc(sizeof(int) * size);
    edges = malloc(sizeof(int) * 2 * size);
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
    MPI_Topo_test(g, &status);
    CHECK(status == MPI_GRAPH, "topo_test %d", status);
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK(nn == size && ne == 2 * size, "graphdims %d %d", nn, ne);
    MPI_Graph_neighbors_count(g, rank, &cnt);
    CHECK(cnt == 2, "neighbours count %d", cnt);
    MPI_Graph_neighbors(g, rank, 4, nb);
    CHECK(nb[0] == prev && nb[1] == next, "neighbours %d %d", nb[0], nb[1]);
    {
        int *i2 = malloc(sizeof(int) * size), *e2 = malloc(sizeof(int) * 2 * size);
        MPI_Graph_get(g, size, 2 * size, i2, e2);
        CHECK(memcmp(i2, index, sizeof(int) * size) == 0 &&
                  memcmp(e2, edges, sizeof(int) * 2 * size) == 0,
              "graph_get differs");
        free(i2);
        free(e2);
    }
    exchange(g, 2, nb, 2, nb, "graph");
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &cnt);
    CHECK(cnt == rank, "graph_map %d", cnt);
    err = MPI_Graph_neighbors(g, size, 4, nb);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "neighbours of a bad node: class %d",
          mtest_error_class(err));
    err = MPI_Cart_shift(g, 0, 1, &cnt, &ne);
    CHECK(mtest_error_class(err) == MPI_ERR_TOPOLOGY, "cart_shift on a graph: class %d",
          mtest_error_class(err));
    MPI_Comm_free(&g);

    /* one node: the other ranks are left out */
    {
        int i1 = 0;
        MPI_Graph_create(MPI_COMM_WORLD, 1, &i1, NULL, 0, &g);
        if (rank == 0) {
            MPI_Graph_neighbors_count(g, 0, &cnt);
            CHECK(cnt == 0, "isolated node has %d neighbours", cnt);
            MPI_Comm_free(&g);
        } else {
            CHECK(g == MPI_COMM_NULL, "rank %d is not a node", rank);
        }
    }
    /* errors */
    edges[0] = size;
    err = MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "edge out of range: class %d",
          mtest_error_class(err));
    edges[0] = prev;
    err = MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "too many nodes: class %d",
          mtest_error_class(err));

    /* distributed graph, adjacent form: ring forward, weighted */
    {
        int sw = 100 + prev, dw = 100 + rank;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &sw, 1, &next, &dw, MPI_INFO_NULL,
                                       0, &d);
        MPI_Topo_test(d, &status);
        CHECK(status == MPI_DIST_GRAPH, "topo_test %d", status);
        check_dist(d, 1, "adjacent weighted");
        MPI_Comm_free(&d);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &next,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d);
        check_dist(d, 0, "adjacent unweighted");
        MPI_Comm_free(&d);
        /* no edges at all */
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                       MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d);
        MPI_Dist_graph_neighbors_count(d, &cnt, &ne, &status);
        CHECK(cnt == 0 && ne == 0, "empty graph degrees %d %d", cnt, ne);
        MPI_Comm_free(&d);
        err = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &size, MPI_UNWEIGHTED, 0, NULL,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK, "source out of range: class %d",
              mtest_error_class(err));
    }

    /* general form: rank 0 gives every edge */
    if (rank == 0) {
        int *srcs = malloc(sizeof(int) * size), *deg = malloc(sizeof(int) * size),
            *dst = malloc(sizeof(int) * size), *w = malloc(sizeof(int) * size);
        for (int i = 0; i < size; i++) {
            srcs[i] = i;
            deg[i] = 1;
            dst[i] = (i + 1) % size;
            w[i] = 100 + i;
        }
        MPI_Dist_graph_create(MPI_COMM_WORLD, size, srcs, deg, dst, w, MPI_INFO_NULL, 0, &d);
        free(srcs);
        free(deg);
        free(dst);
        free(w);
    } else {
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                              0, &d);
    }
    check_dist(d, 1, "dist by rank 0");
    MPI_Comm_free(&d);
    /* general form: each rank gives its own outgoing edge, unweighted */
    {
        int one = 1;
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &next, MPI_UNWEIGHTED, MPI_INFO_NULL,
                              1, &d);
        check_dist(d, 0, "dist by each");
        MPI_Comm_free(&d);
        err = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &size, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &d);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK, "destination out of range: class %d",
              mtest_error_class(err));
    }
    free(index);
    free(edges);
    return mtest_finish();
}
