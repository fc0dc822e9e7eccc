/* MPI_BOTTOM with absolute byte displacements and predefined datatypes on
 * the w forms (MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw,
 * MPI_Alltoallw_c): legal MPI (each block is at MPI_BOTTOM + its
 * displacement, the address of a real buffer), as mpi4py's
 * testNeighborAlltoallwBottom does it. The NULL-buffer check of the v and w
 * sides took MPI_BOTTOM for a missing buffer whatever the displacements and
 * raised MPI_ERR_BUFFER ("sendbuf is NULL with sendcounts[0]=1"); as in
 * MPICH, only a block whose displacement is 0 too lies at NULL. Such a
 * block is still MPI_ERR_BUFFER (checked last, on every rank). */
#include "mtest.h"

#define N 3

static MPI_Aint addr(const void *p)
{
    MPI_Aint a;
    MPI_Get_address(p, &a);
    return a;
}

static void fill(int *buf, int nblk, int v)
{
    for (int i = 0; i < nblk * N; i++)
        buf[i] = v;
}

static void expect(const int *buf, int nblk, const int *from, const char *what)
{
    for (int b = 0; b < nblk; b++)
        for (int j = 0; j < N; j++)
            CHECK(buf[b * N + j] == 1000 * from[b] + j, "%s: block %d element %d is %d", what, b,
                  j, buf[b * N + j]);
}

int main(int argc, char **argv)
{
    int n, me, src[2], *sbuf, *rbuf, *from;
    MPI_Count *cnt;
    MPI_Aint *sd, *rd;
    MPI_Datatype *types;
    MPI_Comm ring;
    MPI_Request req;

    mtest_init(&argc, &argv);
    n = mtest_size;
    me = mtest_rank;
    sbuf = malloc(sizeof *sbuf * N * (size_t)(n + 2));
    rbuf = malloc(sizeof *rbuf * N * (size_t)(n + 2));
    from = malloc(sizeof *from * (size_t)n);
    cnt = malloc(sizeof *cnt * (size_t)n);
    sd = malloc(sizeof *sd * (size_t)n);
    rd = malloc(sizeof *rd * (size_t)n);
    types = malloc(sizeof *types * (size_t)(n + 2)); /* the ring's 2 blocks at 1 rank */
    for (int i = 0; i < n + 2; i++)
        types[i] = MPI_INT;
    for (int i = 0; i < n; i++)
        cnt[i] = N;

    /* a ring: each rank receives from its left and right neighbours (1 rank:
     * itself twice) and sends its block to each of them */
    int left = (me + n - 1) % n, right = (me + 1) % n, nb[2] = {left, right};
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, MPI_UNWEIGHTED, 2, nb,
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring));
    /* a rank's block to its right neighbour says "from me", and to its left
     * too: rank r receives blocks of left and right in that order */
    src[0] = left;
    src[1] = right;
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < N; j++)
            sbuf[k * N + j] = 1000 * me + j;
        sd[k] = addr(sbuf + k * N);
        rd[k] = addr(rbuf + k * N);
    }
    int cnt_i[2] = {N, N};
    MPI_Aint sd_b[2], rd_b[2];
    for (int k = 0; k < 2; k++) {
        sd_b[k] = sd[k];
        rd_b[k] = rd[k];
    }
    fill(rbuf, 2, -1);
    OK(MPI_Neighbor_alltoallw(MPI_BOTTOM, cnt_i, sd_b, types, MPI_BOTTOM, cnt_i, rd_b, types,
                              ring));
    expect(rbuf, 2, src, "neighbor_alltoallw from MPI_BOTTOM");

    fill(rbuf, 2, -1);
    OK(MPI_Ineighbor_alltoallw(MPI_BOTTOM, cnt_i, sd_b, types, MPI_BOTTOM, cnt_i, rd_b, types,
                               ring, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect(rbuf, 2, src, "ineighbor_alltoallw from MPI_BOTTOM");

    /* every rank sends block i to rank i: rank r's block i holds i's data */
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < N; j++)
            sbuf[i * N + j] = 1000 * me + j;
        sd[i] = addr(sbuf + i * N);
        rd[i] = addr(rbuf + i * N);
        from[i] = i;
    }
    fill(rbuf, n, -1);
    OK(MPI_Alltoallw_c(MPI_BOTTOM, cnt, sd, types, MPI_BOTTOM, cnt, rd, types, MPI_COMM_WORLD));
    expect(rbuf, n, from, "alltoallw_c from MPI_BOTTOM");

    /* a block at MPI_BOTTOM + 0 is at NULL: still refused */
    rd_b[1] = 0;
    int rc = MPI_Neighbor_alltoallw(MPI_BOTTOM, cnt_i, sd_b, types, MPI_BOTTOM, cnt_i, rd_b,
                                    types, ring),
        cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "neighbor_alltoallw, a block at NULL: class %d, expected %d",
          cls, MPI_ERR_BUFFER);

    MPI_Comm_free(&ring);
    free(sbuf);
    free(rbuf);
    free(from);
    free(cnt);
    free(sd);
    free(rd);
    free(types);
    return mtest_finish();
}
