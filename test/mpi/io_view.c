/*
 * Views: each rank writes its interleaved part of a file through a vector
 * filetype (and a 2-D subarray), collectively and independently, under
 * several collective-buffering hints (two-phase with 1 or 2 aggregators and
 * small buffers, so that many rounds run; or disabled); then every rank
 * reads the whole file and checks every byte, and reads its part back
 * through its view, collectively and independently. Also get_view,
 * get_byte_offset, etype offsets, and bad views.
 */
#include "io_util.h"

enum { BLK = 3, NBLK = 50 }; /* ints per block, blocks per rank */

static int expect_at(int i, int size) /* value of int i of the interleaved file */
{
    int blk = i / BLK, r = blk % size, k = blk / size;
    return r * 1000000 + k * BLK + i % BLK;
}

static void run(MPI_Info info, int coll_write, int coll_read, const char *name)
{
    int rank, size, err, *buf, *all, *back, n;
    MPI_File fh;
    MPI_Datatype ft, et2, ft2;
    MPI_Status st;
    MPI_Offset disp;
    char rep[MPI_MAX_DATAREP_STRING];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = malloc(sizeof(int) * BLK * NBLK);
    back = malloc(sizeof(int) * BLK * NBLK);
    all = malloc(sizeof(int) * BLK * NBLK * size);
    for (int k = 0; k < NBLK; k++)
        for (int j = 0; j < BLK; j++)
            buf[k * BLK + j] = rank * 1000000 + k * BLK + j;

    MPI_Type_vector(NBLK, BLK, BLK * size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    err = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    CHECK(err == MPI_SUCCESS, "open %s", name);
    err = MPI_File_set_view(fh, (MPI_Offset)rank * BLK * sizeof(int), MPI_INT, ft, "native", info);
    CHECK(err == MPI_SUCCESS, "set_view");
    MPI_File_get_view(fh, &disp, &et2, &ft2, rep);
    CHECK(disp == (MPI_Offset)rank * BLK * (MPI_Offset)sizeof(int) && et2 == MPI_INT && strcmp(rep, "native") == 0,
          "get_view disp %lld rep %s", (long long)disp, rep);
    {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(ft2, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_DUP || comb == MPI_COMBINER_VECTOR, "filetype combiner %d", comb);
        MPI_Type_free(&ft2);
    }
    /* in two halves, so that the file pointer carries over */
    if (coll_write) {
        MPI_File_write_all(fh, buf, BLK * NBLK / 2, MPI_INT, &st);
        MPI_File_write_all(fh, buf + BLK * NBLK / 2, BLK * NBLK - BLK * NBLK / 2, MPI_INT, &st);
    } else {
        MPI_File_write(fh, buf, BLK * NBLK / 2, MPI_INT, &st);
        MPI_File_write(fh, buf + BLK * NBLK / 2, BLK * NBLK - BLK * NBLK / 2, MPI_INT, &st);
    }
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == BLK * NBLK - BLK * NBLK / 2, "write count %d", n);
    {
        MPI_Offset pos, byte;
        MPI_File_get_position(fh, &pos);
        CHECK(pos == BLK * NBLK, "position %lld", (long long)pos);
        MPI_File_get_byte_offset(fh, BLK + 1, &byte);
        CHECK(byte == (MPI_Offset)(rank * BLK + BLK * size + 1) * 4, "byte offset %lld", (long long)byte);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    /* everyone reads the whole file through a byte view */
    memset(back, 0, sizeof(int) * BLK * NBLK);
    if (coll_read)
        MPI_File_read_at_all(fh, 0, back, BLK * NBLK, MPI_INT, &st);
    else
        MPI_File_read_at(fh, 0, back, BLK * NBLK, MPI_INT, &st);
    for (int i = 0; i < BLK * NBLK; i++)
        CHECK(back[i] == buf[i], "%s: read back through the view int %d = %d", name, i, back[i]);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    memset(all, 0xff, sizeof(int) * BLK * NBLK * size);
    if (coll_read)
        MPI_File_read_all(fh, all, BLK * NBLK * size, MPI_INT, &st);
    else
        MPI_File_read(fh, all, BLK * NBLK * size, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == BLK * NBLK * size, "read count %d", n);
    for (int i = 0; i < BLK * NBLK * size; i++)
        if (all[i] != expect_at(i, size)) {
            CHECK(all[i] == expect_at(i, size), "%s: int %d is %d, expected %d", name, i, all[i],
                  expect_at(i, size));
            break;
        }
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Type_free(&ft);
    free(buf);
    free(back);
    free(all);
}

/* A 2-D array of N x N doubles, block-distributed by rows and columns over
 * a px x py grid, written collectively through subarray filetypes. */
static void subarray(MPI_Info info)
{
    enum { N = 24 };
    int rank, size, dims[2] = {0, 0}, coords[2], sizes[2] = {N, N}, sub[2], starts[2];
    MPI_Datatype ft;
    MPI_File fh;
    double *loc, *whole;
    const char *name = io_path("sub.dat");

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    coords[0] = rank / dims[1];
    coords[1] = rank % dims[1];
    for (int d = 0; d < 2; d++) {
        int q = N / dims[d], r = N % dims[d];
        sub[d] = q + (coords[d] < r);
        starts[d] = coords[d] * q + (coords[d] < r ? coords[d] : r);
    }
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    loc = malloc(sizeof(double) * sub[0] * sub[1]);
    whole = malloc(sizeof(double) * N * N);
    for (int i = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            loc[i * sub[1] + j] = (starts[0] + i) * 1000 + starts[1] + j;
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, loc, sub[0] * sub[1], MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, whole, N * N, MPI_DOUBLE, MPI_STATUS_IGNORE);
    for (int i = 0; i < N * N; i++)
        if (whole[i] != (i / N) * 1000 + i % N) {
            CHECK(0, "subarray: element %d is %g", i, whole[i]);
            break;
        }
    /* and back through the view, independently */
    memset(loc, 0, sizeof(double) * sub[0] * sub[1]);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_read(fh, loc, sub[0] * sub[1], MPI_DOUBLE, MPI_STATUS_IGNORE);
    for (int i = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            CHECK(loc[i * sub[1] + j] == (starts[0] + i) * 1000 + starts[1] + j, "subarray read (%d,%d)", i, j);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Type_free(&ft);
    free(loc);
    free(whole);
}

static void bad_views(void)
{
    MPI_File fh;
    MPI_Datatype bad, vec;
    int rank, err, bl[2] = {1, 1};
    MPI_Aint dis[2] = {8, 0};
    const char *name = io_path("bad.dat");

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    err = MPI_File_set_view(fh, -4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "negative disp gave class %d", mtest_error_class(err));
    err = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep gave class %d",
          mtest_error_class(err));
    MPI_Type_create_hindexed(2, bl, dis, MPI_INT, &bad);
    MPI_Type_commit(&bad);
    err = MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL);
    /* MPICH's class for filetypes a file cannot follow (its io/tst_fileview) */
    CHECK(mtest_error_class(err) == MPI_ERR_IO, "non-monotonic filetype gave class %d", mtest_error_class(err));
    err = MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "etype larger than filetype gave class %d", mtest_error_class(err));
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    err = MPI_File_set_view(fh, 0, MPI_INT, vec, "native", MPI_INFO_NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "uncommitted filetype gave class %d", mtest_error_class(err));
    MPI_Type_commit(&vec);
    MPI_File_set_view(fh, 4, MPI_INT, vec, "native", MPI_INFO_NULL);
    /* a double is two etypes here: writing 1 short (2 bytes) is not a whole etype */
    err = MPI_File_write_at(fh, 0, "ab", 1, MPI_SHORT, MPI_STATUS_IGNORE);
    CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "partial etype gave class %d", mtest_error_class(err));
    MPI_Type_free(&bad);
    MPI_Type_free(&vec);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Info info;

    MPI_Init(&argc, &argv);
    io_dir_make();

    run(MPI_INFO_NULL, 1, 1, io_path("v_default.dat"));
    run(MPI_INFO_NULL, 0, 0, io_path("v_indep.dat"));
    run(MPI_INFO_NULL, 1, 0, io_path("v_cw_ir.dat"));
    run(MPI_INFO_NULL, 0, 1, io_path("v_iw_cr.dat"));
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "cb_buffer_size", "100");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    run(info, 1, 1, io_path("v_1aggr.dat"));
    MPI_Info_set(info, "cb_nodes", "3");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    run(info, 1, 1, io_path("v_3aggr.dat"));
    subarray(info);
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    run(info, 1, 1, io_path("v_nocb.dat"));
    subarray(info);
    subarray(MPI_INFO_NULL);
    MPI_Info_free(&info);
    bad_views();

    io_dir_remove();
    return mtest_finish();
}
