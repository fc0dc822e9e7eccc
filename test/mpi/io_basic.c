/*
 * MPI-IO basics: access modes and their errors, explicit offsets,
 * individual file pointers (seek, get_position, get_byte_offset), sizes
 * (set_size, preallocate, get_size), delete and MPI_MODE_DELETE_ON_CLOSE,
 * get_amode, get_group, and the default error handler of files.
 */
#include "io_util.h"

#include <sys/stat.h>

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

int main(int argc, char **argv)
{
    int rank, size, err, amode, cmp;
    MPI_File fh;
    MPI_Status st;
    MPI_Offset off, sz;
    MPI_Group g, wg;
    int buf[16], got[16], n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    const char *f1 = io_path("basic.dat");

    /* amode errors: they are errors of MPI_FILE_NULL's handler (ERRORS_RETURN) */
    fh = MPI_FILE_NULL;
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_AMODE, "RDONLY|CREATE gave class %d", mtest_error_class(err));
    CHECK(fh == MPI_FILE_NULL, "fh set on failure");
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_AMODE, "RDONLY|EXCL gave class %d", mtest_error_class(err));
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_AMODE, "RDWR|WRONLY gave class %d", mtest_error_class(err));
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_AMODE, "no access mode gave class %d", mtest_error_class(err));
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_AMODE, "RDWR|SEQUENTIAL gave class %d", mtest_error_class(err));
    /* errors from the file system */
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_NO_SUCH_FILE, "missing file gave class %d", mtest_error_class(err));
    err = MPI_File_open(MPI_COMM_WORLD, io_path("nodir/x"), MPI_MODE_WRONLY | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_NO_SUCH_FILE, "missing dir gave class %d", mtest_error_class(err));
    if (geteuid() != 0) {
        err = MPI_File_open(MPI_COMM_WORLD, "/proc/version", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        CHECK(mtest_error_class(err) == MPI_ERR_ACCESS || mtest_error_class(err) == MPI_ERR_READ_ONLY,
              "write-open of /proc/version gave class %d", mtest_error_class(err));
    }
    {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        CHECK(strstr(msg, "MPI_File_open") != NULL, "message does not name the call: %s", msg);
    }
    err = MPI_File_delete(f1, MPI_INFO_NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_NO_SUCH_FILE, "delete of a missing file gave class %d",
          mtest_error_class(err));

    /* create, EXCL on an existing file */
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                        MPI_INFO_NULL, &fh);
    CHECK(err == MPI_SUCCESS, "create failed");
    MPI_File_get_amode(fh, &amode);
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL), "amode %#x", amode);
    MPI_File_get_group(fh, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "group compare %d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* explicit offsets: each rank writes 16 ints at rank*64 bytes */
    for (int i = 0; i < 16; i++)
        buf[i] = rank * 100 + i;
    err = MPI_File_write_at(fh, (MPI_Offset)rank * 64, buf, 16, MPI_INT, &st);
    CHECK(err == MPI_SUCCESS, "write_at");
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 16, "write_at count %d", n);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 64 * size, "size %lld", (long long)sz);
    for (int r = 0; r < size; r++) {
        memset(got, 0, sizeof got);
        err = MPI_File_read_at(fh, (MPI_Offset)r * 64, got, 16, MPI_INT, &st);
        CHECK(err == MPI_SUCCESS, "read_at");
        for (int i = 0; i < 16; i++)
            CHECK(got[i] == r * 100 + i, "rank %d int %d: %d", r, i, got[i]);
    }
    /* reading past the end returns what there is */
    err = MPI_File_read_at(fh, (MPI_Offset)size * 64 - 8, got, 16, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(err == MPI_SUCCESS && n == 2, "read at the end: err %d count %d", err, n);
    err = MPI_File_read_at(fh, -1, got, 1, MPI_INT, &st);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "negative offset gave class %d", mtest_error_class(err));

    /* individual pointers */
    MPI_File_seek(fh, (MPI_Offset)rank * 64 + 8, MPI_SEEK_SET);
    MPI_File_read(fh, got, 2, MPI_INT, &st);
    CHECK(got[0] == rank * 100 + 2 && got[1] == rank * 100 + 3, "read via pointer %d %d", got[0], got[1]);
    MPI_File_get_position(fh, &off);
    CHECK(off == rank * 64 + 16, "position %lld", (long long)off);
    MPI_File_seek(fh, -4, MPI_SEEK_CUR);
    MPI_File_get_position(fh, &off);
    CHECK(off == rank * 64 + 12, "position after SEEK_CUR %lld", (long long)off);
    MPI_File_seek(fh, -4, MPI_SEEK_END);
    MPI_File_get_position(fh, &off);
    CHECK(off == size * 64 - 4, "position after SEEK_END %lld", (long long)off);
    MPI_File_get_byte_offset(fh, 10, &off);
    CHECK(off == 10, "byte offset %lld", (long long)off);
    err = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "seek to -1 gave class %d", mtest_error_class(err));
    err = MPI_File_seek(fh, 0, 12345);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "bad whence gave class %d", mtest_error_class(err));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek(fh, (MPI_Offset)rank * 64, MPI_SEEK_SET);
    for (int i = 0; i < 16; i++)
        buf[i] = -(rank * 100 + i);
    MPI_File_write(fh, buf, 8, MPI_INT, &st);
    MPI_File_write(fh, buf + 8, 8, MPI_INT, &st);
    MPI_File_get_position(fh, &off);
    CHECK(off == rank * 64 + 64, "position after writes %lld", (long long)off);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_read_at(fh, (MPI_Offset)((rank + 1) % size) * 64, got, 16, MPI_INT, &st);
    for (int i = 0; i < 16; i++)
        CHECK(got[i] == -(((rank + 1) % size) * 100 + i), "after pointer writes: int %d = %d", i, got[i]);

    /* sizes */
    MPI_File_set_size(fh, 10);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 10, "size after set_size %lld", (long long)sz);
    MPI_File_preallocate(fh, 1000);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 1000, "size after preallocate %lld", (long long)sz);
    MPI_File_preallocate(fh, 100);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 1000, "preallocate shrank the file to %lld", (long long)sz);
    /* large offsets through MPI_Offset (a sparse file beyond 4 GiB) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Offset big = ((MPI_Offset)5 << 30) + 3;
        int v = 0x12345678, w = 0;
        err = MPI_File_write_at(fh, big, &v, 1, MPI_INT, &st);
        CHECK(err == MPI_SUCCESS, "write beyond 4 GiB");
        MPI_File_read_at(fh, big, &w, 1, MPI_INT, &st);
        CHECK(w == v, "read beyond 4 GiB %#x", w);
        MPI_File_get_size(fh, &sz);
        CHECK(sz == big + 4, "size of the sparse file %lld", (long long)sz);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_set_size(fh, 0);
    err = MPI_File_close(&fh);
    CHECK(err == MPI_SUCCESS && fh == MPI_FILE_NULL, "close");

    /* EXCL on an existing file */
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                        MPI_INFO_NULL, &fh);
    CHECK(mtest_error_class(err) == MPI_ERR_FILE_EXISTS, "EXCL on existing gave class %d", mtest_error_class(err));

    /* read-only and write-only handles */
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(err == MPI_SUCCESS, "open RDONLY");
    err = MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st);
    CHECK(mtest_error_class(err) == MPI_ERR_READ_ONLY, "write on RDONLY gave class %d", mtest_error_class(err));
    err = MPI_File_set_size(fh, 0);
    CHECK(mtest_error_class(err) == MPI_ERR_READ_ONLY, "set_size on RDONLY gave class %d", mtest_error_class(err));
    MPI_File_close(&fh);
    err = MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK(err == MPI_SUCCESS, "open WRONLY");
    err = MPI_File_read_at(fh, 0, buf, 1, MPI_INT, &st);
    CHECK(mtest_error_class(err) == MPI_ERR_ACCESS, "read on WRONLY gave class %d", mtest_error_class(err));
    MPI_File_close(&fh);

    /* APPEND: the pointers start at the end */
    if (rank == 0) {
        FILE *fp = fopen(f1, "w");
        fputs("0123456789", fp);
        fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_open(MPI_COMM_WORLD, f1, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh);
    MPI_File_get_position(fh, &off);
    CHECK(off == 10, "APPEND position %lld", (long long)off);
    MPI_File_get_position_shared(fh, &off);
    CHECK(off == 10, "APPEND shared position %lld", (long long)off);
    MPI_File_close(&fh);

    /* invalid handles */
    err = MPI_File_get_size(MPI_FILE_NULL, &sz);
    CHECK(mtest_error_class(err) == MPI_ERR_FILE, "MPI_FILE_NULL gave class %d", mtest_error_class(err));
    err = MPI_File_get_size(fh, &sz);
    CHECK(mtest_error_class(err) == MPI_ERR_FILE, "closed handle gave class %d", mtest_error_class(err));

    /* delete */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        err = MPI_File_delete(f1, MPI_INFO_NULL);
        CHECK(err == MPI_SUCCESS && !exists(f1), "delete");
    }
    /* DELETE_ON_CLOSE, UNIQUE_OPEN */
    const char *f2 = io_path("doc.dat");
    err = MPI_File_open(MPI_COMM_WORLD, f2,
                        MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN,
                        MPI_INFO_NULL, &fh);
    CHECK(err == MPI_SUCCESS, "open DELETE_ON_CLOSE");
    MPI_File_write_at(fh, rank, "x", 1, MPI_CHAR, &st);
    CHECK(exists(f2), "file missing before close");
    MPI_File_close(&fh);
    CHECK(!exists(f2), "DELETE_ON_CLOSE left the file");

    /* the file error handler of a single process (MPI_COMM_SELF) */
    err = MPI_File_open(MPI_COMM_SELF, io_path("self.dat"), MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                        MPI_INFO_NULL, &fh);
    CHECK(err == MPI_SUCCESS, "open on COMM_SELF");
    MPI_File_close(&fh);

    io_dir_remove();
    return mtest_finish();
}
