/* Cartesian topologies: MPI_Dims_create (balanced, fixed entries, errors),
 * MPI_Cart_create (periodic and not, fewer ranks than the communicator,
 * zero dimensions), get/rank/coords/shift/sub/map, MPI_Topo_test, dup
 * keeping the topology, halo exchange over the shifts, and error classes
 * (grid larger than the communicator, coordinates out of range, no
 * topology). Point to point only. */
#include "mtest.h"

static int rank, size;

static void dims_case(int n, int nd, const int *in, const int *expect)
{
    int d[8];
    memcpy(d, in, sizeof(int) * nd);
    MPI_Dims_create(n, nd, d);
    for (int i = 0; i < nd; i++)
        CHECK(d[i] == expect[i], "Dims_create(%d, %d): dims[%d]=%d expected %d", n, nd, i, d[i],
              expect[i]);
}

int main(int argc, char **argv)
{
    MPI_Comm cart, sub, dup;
    int dims[3], periods[3], coords[3], r, s, src, dst, status, err, nd;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    {
        static const int z2[] = {0, 0}, z3[] = {0, 0, 0}, f3[] = {0, 3, 0};
        static const int e6[] = {3, 2}, e7[] = {7, 1}, e12[] = {3, 2, 2}, e16[] = {4, 2, 2},
                         e24[] = {4, 3, 2}, e36[] = {6, 6}, e1[] = {1, 1, 1}, e30[] = {5, 3, 2},
                         e18f[] = {3, 3, 2}, e1024[] = {32, 32}, e5040[] = {21, 16, 15},
                         e7344[] = {17, 9, 8, 6}, e3168[] = {18, 16, 11}, z4[] = {0, 0, 0, 0};
        dims_case(6, 2, z2, e6);
        dims_case(7, 2, z2, e7);
        dims_case(12, 3, z3, e12);
        dims_case(16, 3, z3, e16);
        dims_case(24, 3, z3, e24);
        dims_case(36, 2, z2, e36);
        dims_case(1, 3, z3, e1);
        dims_case(30, 3, z3, e30);
        dims_case(18, 3, f3, e18f);
        dims_case(1024, 2, z2, e1024);
        /* equal spreads: as in MPICH, the larger smallest factors win */
        dims_case(5040, 3, z3, e5040);
        dims_case(7344, 4, z4, e7344);
        dims_case(3168, 3, z3, e3168);
        int d[2] = {0, 5};
        err = MPI_Dims_create(12, 2, d);
        CHECK(mtest_error_class(err) == MPI_ERR_DIMS, "12 with a fixed 5: class %d",
              mtest_error_class(err));
        d[0] = -1;
        err = MPI_Dims_create(12, 2, d);
        CHECK(mtest_error_class(err) == MPI_ERR_DIMS, "negative dims: class %d",
              mtest_error_class(err));
        err = MPI_Dims_create(12, -1, d);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "negative ndims: class %d",
              mtest_error_class(err));
    }

    /* a 2-D torus over every rank */
    dims[0] = dims[1] = 0;
    MPI_Dims_create(size, 2, dims);
    periods[0] = 1;
    periods[1] = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Topo_test(cart, &status);
    CHECK(status == MPI_CART, "topo_test %d", status);
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    CHECK(status == MPI_UNDEFINED, "world topo_test %d", status);
    MPI_Cartdim_get(cart, &nd);
    CHECK(nd == 2, "cartdim %d", nd);
    MPI_Comm_rank(cart, &r);
    MPI_Cart_get(cart, 2, dims, periods, coords);
    CHECK(coords[0] == r / dims[1] && coords[1] == r % dims[1], "coords (%d,%d) of rank %d",
          coords[0], coords[1], r);
    CHECK(periods[0] == 1 && periods[1] == 0, "periods");
    MPI_Cart_rank(cart, coords, &s);
    CHECK(s == r, "cart_rank %d", s);
    for (int q = 0; q < size; q++) {
        int c2[2], back;
        MPI_Cart_coords(cart, q, 2, c2);
        MPI_Cart_rank(cart, c2, &back);
        CHECK(back == q, "coords/rank round trip of %d", q);
    }
    /* periodic wrap in Cart_rank */
    {
        int c2[2] = {coords[0] - dims[0], coords[1]};
        MPI_Cart_rank(cart, c2, &s);
        CHECK(s == r, "wrapped cart_rank %d", s);
        c2[0] = coords[0];
        c2[1] = dims[1];
        err = MPI_Cart_rank(cart, c2, &s);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "off a non-periodic edge: class %d",
              mtest_error_class(err));
    }
    /* shifts and a halo exchange in both dimensions */
    for (int d = 0; d < 2; d++) {
        int got[2] = {-9, -9};
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        if (d == 0) {
            CHECK(src == ((coords[0] + dims[0] - 1) % dims[0]) * dims[1] + coords[1], "src");
        } else {
            CHECK(src == (coords[1] > 0 ? r - 1 : MPI_PROC_NULL), "non-periodic src %d", src);
            CHECK(dst == (coords[1] < dims[1] - 1 ? r + 1 : MPI_PROC_NULL), "dst %d", dst);
        }
        MPI_Sendrecv(&r, 1, MPI_INT, dst, d, &got[0], 1, MPI_INT, src, d, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&r, 1, MPI_INT, src, 10 + d, &got[1], 1, MPI_INT, dst, 10 + d, cart,
                     MPI_STATUS_IGNORE);
        CHECK(src == MPI_PROC_NULL || got[0] == src, "halo from src %d got %d", src, got[0]);
        CHECK(dst == MPI_PROC_NULL || got[1] == dst, "halo from dst %d got %d", dst, got[1]);
    }
    err = MPI_Cart_shift(cart, 2, 1, &src, &dst);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "direction out of range: class %d",
          mtest_error_class(err));

    /* dup keeps the topology */
    MPI_Comm_dup(cart, &dup);
    MPI_Topo_test(dup, &status);
    CHECK(status == MPI_CART, "dup lost the topology");
    MPI_Cart_shift(dup, 0, 1, &s, &dst);
    MPI_Cart_shift(cart, 0, 1, &src, &r);
    CHECK(s == src && dst == r, "dup shifts differ");
    MPI_Comm_free(&dup);

    /* rows and columns */
    {
        int remain[2] = {0, 1}, sdims, sper, scoord;
        MPI_Cart_sub(cart, remain, &sub);
        MPI_Comm_size(sub, &s);
        CHECK(s == dims[1], "row size %d", s);
        MPI_Cart_get(sub, 1, &sdims, &sper, &scoord);
        CHECK(sdims == dims[1] && sper == 0 && scoord == coords[1], "row topology");
        MPI_Comm_free(&sub);
        remain[0] = remain[1] = 0;
        MPI_Cart_sub(cart, remain, &sub);
        MPI_Comm_size(sub, &s);
        MPI_Cartdim_get(sub, &nd);
        CHECK(s == 1 && nd == 0, "0-d sub: size %d ndims %d", s, nd);
        MPI_Comm_free(&sub);
    }
    MPI_Comm_free(&cart);

    /* fewer ranks than the communicator: the rest get MPI_COMM_NULL */
    dims[0] = size > 1 ? size - 1 : 1;
    periods[0] = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    if (rank < dims[0]) {
        MPI_Comm_size(cart, &s);
        CHECK(s == dims[0], "size %d", s);
        MPI_Comm_free(&cart);
    } else {
        CHECK(cart == MPI_COMM_NULL, "extra rank got a Cartesian communicator");
    }
    /* zero dimensions: rank 0 only */
    MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart);
    if (rank == 0) {
        MPI_Comm_size(cart, &s);
        CHECK(s == 1, "0-d size %d", s);
        MPI_Comm_free(&cart);
    } else {
        CHECK(cart == MPI_COMM_NULL, "0-d on rank %d", rank);
    }
    /* map */
    dims[0] = size;
    MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &s);
    CHECK(s == rank, "cart_map %d", s);

    /* errors */
    dims[0] = size + 1;
    err = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "grid too large: class %d",
          mtest_error_class(err));
    err = MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &s);
    CHECK(mtest_error_class(err) == MPI_ERR_DIMS, "map too large: class %d",
          mtest_error_class(err));
    dims[0] = 0;
    err = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    CHECK(mtest_error_class(err) == MPI_ERR_DIMS, "zero dim: class %d", mtest_error_class(err));
    err = MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, coords);
    CHECK(mtest_error_class(err) == MPI_ERR_TOPOLOGY, "no topology: class %d",
          mtest_error_class(err));
    err = MPI_Cart_create(MPI_COMM_NULL, 1, dims, periods, 0, &cart);
    CHECK(mtest_error_class(err) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d",
          mtest_error_class(err));
    return mtest_finish();
}
