/*
 * MPI-IO odds and ends: hints echoed by get_info (set at open, with
 * set_info and set_view), atomic mode (concurrent overlapping writes are
 * never mixed), the external32 representation (file bytes checked against
 * hand-computed big-endian contents, and read back), MPI_Register_datarep
 * with conversion functions, get_type_extent, error handlers on files and
 * on MPI_FILE_NULL, MPI_File_call_errhandler, MPI_File_c2f/f2c.
 */
#include "io_util.h"

#include <stdint.h>

static int handler_calls, handler_class;
static void my_handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void info_expect(MPI_Info info, const char *key, const char *val)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && strcmp(v, val) == 0, "hint %s: %s (expected %s)", key, flag ? v : "missing", val);
}

/* a user representation: ints stored as 8-byte big-endian */
static int ext_fn(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    if (dt != MPI_INT)
        return MPI_ERR_TYPE;
    *extent = 8;
    return MPI_SUCCESS;
}
static int wr_fn(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos, void *extra)
{
    (void)dt;
    (void)extra;
    for (int i = 0; i < count; i++) {
        int64_t v = ((int *)userbuf)[pos + i];
        for (int k = 0; k < 8; k++)
            ((unsigned char *)filebuf)[i * 8 + k] = (unsigned char)((uint64_t)v >> (56 - 8 * k));
    }
    return MPI_SUCCESS;
}
static int rd_fn(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos, void *extra)
{
    (void)dt;
    (void)extra;
    for (int i = 0; i < count; i++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++)
            v = (v << 8) | ((unsigned char *)filebuf)[i * 8 + k];
        ((int *)userbuf)[pos + i] = (int)(int64_t)v;
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, err, flag;
    MPI_File fh, fh2;
    MPI_Info info, used;
    MPI_Status st;
    MPI_Errhandler eh, got;
    const char *name;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    name = io_path("misc.dat");

    /* hints */
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "striping_factor", "4");
    MPI_Info_set(info, "striping_unit", "65536");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "no_such_hint_xyz", "1");
    err = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    CHECK(err == MPI_SUCCESS, "open with hints");
    MPI_File_get_info(fh, &used);
    info_expect(used, "cb_buffer_size", "1048576");
    info_expect(used, "cb_nodes", "1");
    info_expect(used, "striping_factor", "4");
    info_expect(used, "striping_unit", "65536");
    info_expect(used, "romio_cb_write", "enable");
    info_expect(used, "romio_cb_read", "automatic");
    {
        char v[16];
        MPI_Info_get(used, "no_such_hint_xyz", 15, v, &flag);
        CHECK(!flag, "an unknown hint was reported");
    }
    MPI_Info_free(&used);
    MPI_Info_set(info, "cb_buffer_size", "2097152");
    MPI_File_set_info(fh, info);
    MPI_File_get_info(fh, &used);
    info_expect(used, "cb_buffer_size", "2097152");
    MPI_Info_free(&used);
    MPI_Info_free(&info);

    /* atomicity: every rank writes its own value over the same 4 KiB, many
     * times; in atomic mode each read sees one writer's value throughout */
    MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 1, "atomicity %d", flag);
    {
        enum { M = 1024 };
        static int w[M], r[M];
        for (int it = 0; it < 20; it++) {
            for (int i = 0; i < M; i++)
                w[i] = rank + it * 100;
            MPI_File_write_at(fh, 0, w, M, MPI_INT, &st);
            MPI_File_read_at(fh, 0, r, M, MPI_INT, &st);
            for (int i = 1; i < M; i++)
                if (r[i] != r[0]) {
                    CHECK(r[i] == r[0], "atomic read mixes %d and %d", r[0], r[i]);
                    break;
                }
        }
    }
    MPI_File_set_atomicity(fh, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_set_size(fh, 0);

    /* external32: ints, doubles and shorts written by rank 0 */
    {
        int iv[2] = {0x01020304, -2};
        double dv = 1.5; /* 0x3FF8000000000000 */
        short sv = 0x0a0b;
        unsigned char expect[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0x0a, 0x0b};
        unsigned char raw[sizeof expect];
        MPI_Aint ext;
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
        MPI_File_get_type_extent(fh, MPI_LONG, &ext);
        CHECK(ext == 4, "external32 extent of MPI_LONG %ld", (long)ext);
        if (rank == 0) {
            MPI_File_write_at(fh, 0, iv, 2, MPI_INT, &st);
            MPI_File_write_at(fh, 8, &dv, 1, MPI_DOUBLE, &st);
            MPI_File_write_at(fh, 16, &sv, 1, MPI_SHORT, &st);
        }
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        MPI_File_read_at(fh, 0, raw, sizeof raw, MPI_BYTE, &st);
        for (size_t i = 0; i < sizeof raw; i++)
            CHECK(raw[i] == expect[i], "external32 byte %zu is %#x, expected %#x", i, raw[i], expect[i]);
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
        {
            int ib[2] = {0, 0};
            double db = 0;
            short sb = 0;
            long lv = 0;
            int n;
            MPI_File_read_at(fh, 0, ib, 2, MPI_INT, &st);
            MPI_File_read_at(fh, 8, &db, 1, MPI_DOUBLE, &st);
            MPI_File_read_at(fh, 16, &sb, 1, MPI_SHORT, &st);
            MPI_File_read_at(fh, 0, &lv, 1, MPI_LONG, &st); /* a 4-byte long in external32 */
            MPI_Get_count(&st, MPI_LONG, &n);
            CHECK(ib[0] == iv[0] && ib[1] == iv[1] && db == dv && sb == sv && lv == 0x01020304 && n == 1,
                  "external32 round trip %#x %d %g %#x %#lx count %d", ib[0], ib[1], db, sb, lv, n);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* a user data representation */
    err = MPI_Register_datarep("canal-be64", rd_fn, wr_fn, ext_fn, NULL);
    CHECK(err == MPI_SUCCESS, "register_datarep");
    err = MPI_Register_datarep("canal-be64", rd_fn, wr_fn, ext_fn, NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_DUP_DATAREP, "duplicate datarep gave class %d", mtest_error_class(err));
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "canal-be64", MPI_INFO_NULL);
    {
        int v[3] = {rank, -rank - 1, 7}, back[3] = {0, 0, 0};
        MPI_Aint ext;
        MPI_File_get_type_extent(fh, MPI_INT, &ext);
        CHECK(ext == 8, "user datarep extent %ld", (long)ext);
        MPI_File_write_at_all(fh, (MPI_Offset)rank * 3, v, 3, MPI_INT, &st);
        MPI_File_read_at_all(fh, (MPI_Offset)rank * 3, back, 3, MPI_INT, &st);
        CHECK(back[0] == v[0] && back[1] == v[1] && back[2] == v[2], "user datarep round trip %d %d %d",
              back[0], back[1], back[2]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            unsigned char raw[8];
            MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
            MPI_File_read_at(fh, 8, raw, 8, MPI_BYTE, &st);
            for (int k = 0; k < 8; k++)
                CHECK(raw[k] == 0xff, "be64(-1) byte %d = %#x", k, raw[k]);
        } else {
            MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        }
    }

    /* error handlers */
    MPI_File_get_errhandler(fh, &got);
    CHECK(got == MPI_ERRORS_RETURN, "default file handler %#x", (unsigned)got);
    MPI_File_create_errhandler(my_handler, &eh);
    MPI_File_set_errhandler(fh, eh);
    err = MPI_File_read_at(fh, -5, &flag, 1, MPI_INT, &st);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_ARG, "handler calls %d class %d", handler_calls,
          handler_class);
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler: calls %d class %d",
          handler_calls, handler_class);
    /* the handler of MPI_FILE_NULL serves open failures and new files */
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    err = MPI_File_open(MPI_COMM_WORLD, io_path("missing.dat"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh2);
    CHECK(handler_calls == 3 && handler_class == MPI_ERR_NO_SUCH_FILE, "open failure: calls %d class %d",
          handler_calls, handler_class);
    MPI_File_open(MPI_COMM_WORLD, io_path("new.dat"), MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh2);
    MPI_File_get_errhandler(fh2, &got);
    CHECK(got == eh, "new file did not inherit MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    {
        MPI_Fint f = MPI_File_c2f(fh2);
        CHECK(MPI_File_f2c(f) == fh2, "c2f/f2c");
    }
    MPI_File_close(&fh2);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_File_close(&fh);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL);
    io_dir_remove();
    return mtest_finish();
}
