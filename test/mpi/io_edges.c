/*
 * MPI-IO edge cases found by MPICH's test suite (io/rd_end, io/setview_zero,
 * io/i_hindexed): a collective read past the end of the file leaves the
 * caller's buffer beyond the data untouched and reports the short count; a
 * rank whose filetype holds no data takes part in collective writes with
 * count 0; a file opened MPI_MODE_WRONLY takes a collective write with
 * holes (which reads the gaps back).
 */
#include "io_util.h"

int main(int argc, char **argv)
{
    int rank, size, n;
    MPI_File fh;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();

    /* read_all past the end */
    {
        unsigned char buf[16];
        MPI_File_open(MPI_COMM_WORLD, io_path("end.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                      MPI_INFO_NULL, &fh);
        if (rank == 0) {
            for (int i = 0; i < 11; i++)
                buf[i] = (unsigned char)i;
            MPI_File_write(fh, buf, 11, MPI_BYTE, &st);
        }
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        memset(buf, 99, sizeof buf);
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        MPI_File_read_all(fh, buf, 16, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == 11, "read_all past the end: count %d, want 11", n);
        for (int i = 0; i < 16; i++)
            CHECK(buf[i] == (i < 11 ? i : 99), "buf[%d] = %d after the short read", i, buf[i]);
        MPI_File_close(&fh);
    }

    /* a rank with an empty filetype; data interleaved by the others */
    {
        int disp[2] = {rank, rank + size}, vals[2] = {rank * 10, rank * 10 + 1}, mine = rank ? 2 : 0;
        int total = 0, back[64];
        MPI_Datatype idx, ft;
        MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Type_create_indexed_block(mine, 1, disp, MPI_INT, &idx);
        MPI_Type_create_resized(idx, 0, (MPI_Aint)(2 * size) * (MPI_Aint)sizeof(int), &ft);
        MPI_Type_commit(&ft);
        MPI_File_open(MPI_COMM_WORLD, io_path("zero.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                      MPI_INFO_NULL, &fh);
        CHECK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS,
              "set_view with %d ints", mine);
        CHECK(MPI_File_write_all(fh, vals, mine, MPI_INT, &st) == MPI_SUCCESS, "write_all");
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
        if (rank == 0 && size > 1) {
            MPI_File_read_at(fh, 0, back, 2 * size, MPI_INT, &st);
            for (int r = 1; r < size; r++)
                CHECK(back[r] == r * 10 && back[r + size] == r * 10 + 1,
                      "rank %d's ints read back as %d, %d", r, back[r], back[r + size]);
        }
        MPI_File_close(&fh);
        MPI_Type_free(&ft);
        MPI_Type_free(&idx);
        (void)total;
    }

    /* write-only file, collective write with holes: every rank writes 2 of
     * every 4 bytes of its block */
    {
        char data[8];
        MPI_Datatype vec, ft;
        MPI_Type_vector(4, 2, 4, MPI_BYTE, &vec);
        MPI_Type_create_resized(vec, 0, 16, &ft);
        MPI_Type_commit(&ft);
        for (int i = 0; i < 8; i++)
            data[i] = (char)('a' + rank);
        MPI_File_open(MPI_COMM_WORLD, io_path("wo.dat"), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                      MPI_INFO_NULL, &fh);
        MPI_File_set_view(fh, (MPI_Offset)rank * 16, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "romio_cb_write", "enable");
            MPI_File_set_info(fh, info);
            MPI_Info_free(&info);
        }
        n = MPI_File_write_all(fh, data, 8, MPI_BYTE, &st);
        CHECK(n == MPI_SUCCESS, "write_all with holes on a write-only file failed");
        MPI_File_close(&fh);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(io_path("end.dat"), MPI_INFO_NULL);
        MPI_File_delete(io_path("zero.dat"), MPI_INFO_NULL);
        MPI_File_delete(io_path("wo.dat"), MPI_INFO_NULL);
    }
    io_dir_remove();
    return mtest_finish();
}
