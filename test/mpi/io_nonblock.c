/*
 * Nonblocking data access (iwrite_at, iread_at, iwrite, iread, the _all
 * forms, iwrite_shared/iread_shared) and split collectives (_begin/_end,
 * at explicit offsets, with the individual pointer and ordered), with
 * MPI_Wait/Waitall/Test and the counts of their statuses; large-count _c
 * variants.
 */
#include "io_util.h"

enum { N = 100 };

int main(int argc, char **argv)
{
    int rank, size, err, a[N], b[N], n, flag;
    MPI_File fh;
    MPI_Request req[4];
    MPI_Status st, sts[4];
    MPI_Count cnt;
    const char *name;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    name = io_path("nb.dat");
    for (int i = 0; i < N; i++)
        a[i] = rank * N + i;

    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    err = MPI_File_iwrite_at(fh, (MPI_Offset)rank * N, a, N / 2, MPI_INT, &req[0]);
    CHECK(err == MPI_SUCCESS, "iwrite_at");
    err = MPI_File_iwrite_at(fh, (MPI_Offset)rank * N + N / 2, a + N / 2, N - N / 2, MPI_INT, &req[1]);
    MPI_Waitall(2, req, sts);
    MPI_Get_count(&sts[1], MPI_INT, &n);
    CHECK(n == N - N / 2, "iwrite_at count %d", n);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(b, 0, sizeof b);
    MPI_File_iread_at(fh, (MPI_Offset)((rank + 1) % size) * N, b, N, MPI_INT, &req[0]);
    flag = 0;
    while (!flag)
        MPI_Test(&req[0], &flag, &st);
    CHECK(req[0] == MPI_REQUEST_NULL, "request not freed by Test");
    for (int i = 0; i < N; i++)
        CHECK(b[i] == ((rank + 1) % size) * N + i, "iread_at int %d = %d", i, b[i]);

    /* individual pointer, collective nonblocking */
    MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET);
    for (int i = 0; i < N; i++)
        a[i] = -(rank * N + i);
    MPI_File_iwrite_all(fh, a, N, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET);
    memset(b, 0, sizeof b);
    MPI_File_iread_all(fh, b, N, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N, "iread_all count %d", n);
    for (int i = 0; i < N; i++)
        CHECK(b[i] == a[i], "iread_all int %d = %d", i, b[i]);
    MPI_File_iread_at_all(fh, 0, b, 1, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    CHECK(b[0] == 0, "iread_at_all %d", b[0]);
    MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * N, a, 1, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    /* shared pointer */
    MPI_File_seek_shared(fh, (MPI_Offset)size * N, MPI_SEEK_SET);
    MPI_File_iwrite_shared(fh, a, 3, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek_shared(fh, (MPI_Offset)size * N, MPI_SEEK_SET);
    MPI_File_iread_shared(fh, b, 3, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 3 && b[1] == b[0] - 1, "iread_shared count %d values %d %d", n, b[0], b[1]);

    /* split collectives */
    for (int i = 0; i < N; i++)
        a[i] = rank * 7 + i;
    err = MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * N, a, N, MPI_INT);
    CHECK(err == MPI_SUCCESS, "write_at_all_begin");
    err = MPI_File_write_at_all_begin(fh, 0, a, N, MPI_INT);
    CHECK(err != MPI_SUCCESS, "a second split collective was accepted");
    err = MPI_File_write_at_all_end(fh, a, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(err == MPI_SUCCESS && n == N, "write_at_all_end count %d", n);
    err = MPI_File_read_all_end(fh, b, &st);
    CHECK(err != MPI_SUCCESS, "an end without a begin was accepted");
    MPI_File_read_at_all_begin(fh, (MPI_Offset)rank * N, b, N, MPI_INT);
    MPI_File_read_at_all_end(fh, b, &st);
    for (int i = 0; i < N; i++)
        CHECK(b[i] == a[i], "split read int %d = %d", i, b[i]);
    MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET);
    MPI_File_read_all_begin(fh, b, N, MPI_INT);
    MPI_File_read_all_end(fh, b, &st);
    CHECK(b[N - 1] == a[N - 1], "read_all split");
    MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET);
    MPI_File_write_all_begin(fh, a, N, MPI_INT);
    MPI_File_write_all_end(fh, a, &st);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_write_ordered_begin(fh, a, 2, MPI_INT);
    MPI_File_write_ordered_end(fh, a, &st);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_read_ordered_begin(fh, b, 2, MPI_INT);
    MPI_File_read_ordered_end(fh, b, &st);
    CHECK(b[0] == a[0] && b[1] == a[1], "ordered split %d %d", b[0], b[1]);

    /* large-count variants */
    err = MPI_File_write_at_c(fh, (MPI_Offset)rank * N, a, (MPI_Count)N, MPI_INT, &st);
    MPI_Get_count_c(&st, MPI_INT, &cnt);
    CHECK(err == MPI_SUCCESS && cnt == N, "write_at_c count %lld", (long long)cnt);
    err = MPI_File_read_at_all_c(fh, (MPI_Offset)rank * N, b, (MPI_Count)N, MPI_INT, &st);
    CHECK(err == MPI_SUCCESS && b[5] == a[5], "read_at_all_c");
    err = MPI_File_iread_c(fh, b, 0, MPI_INT, &req[0]);
    MPI_Wait(&req[0], &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(err == MPI_SUCCESS && n == 0, "iread_c of 0");

    MPI_File_close(&fh);
    io_dir_remove();
    return mtest_finish();
}
