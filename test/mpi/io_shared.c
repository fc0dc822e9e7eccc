/*
 * Shared file pointers: write_shared from every rank (each record lands
 * once, none overlap), write_ordered/read_ordered (rank order), seek_shared
 * and get_position_shared, read_shared, and MPI_MODE_SEQUENTIAL (only the
 * shared pointer may be used).
 */
#include "io_util.h"

enum { REC = 5 };

int main(int argc, char **argv)
{
    int rank, size, err, rec[REC], *all, n;
    MPI_File fh;
    MPI_Status st;
    MPI_Offset pos;
    const char *name;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    name = io_path("shared.dat");
    all = malloc(sizeof(int) * REC * size * 4);

    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    /* three records per rank through the shared pointer */
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < REC; i++)
            rec[i] = (rank * 3 + k) * 10 + i;
        err = MPI_File_write_shared(fh, rec, REC, MPI_INT, &st);
        CHECK(err == MPI_SUCCESS, "write_shared");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 3 * REC * size, "shared position %lld", (long long)pos);
    MPI_File_read_at_all(fh, 0, all, 3 * REC * size, MPI_INT, &st);
    {
        int *seen = calloc(3 * size, sizeof(int));
        for (int j = 0; j < 3 * size; j++) {
            int id = all[j * REC] / 10;
            CHECK(id >= 0 && id < 3 * size, "record %d has id %d", j, id);
            if (id < 0 || id >= 3 * size)
                continue;
            seen[id]++;
            for (int i = 0; i < REC; i++)
                CHECK(all[j * REC + i] == id * 10 + i, "record %d torn", j);
        }
        for (int id = 0; id < 3 * size; id++)
            CHECK(seen[id] == 1, "record %d seen %d times", id, seen[id]);
        free(seen);
    }

    /* ordered: rank r writes r+1 ints after the records */
    {
        int mine[64];
        for (int i = 0; i <= rank; i++)
            mine[i] = 1000 + rank;
        err = MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st);
        CHECK(err == MPI_SUCCESS, "write_ordered");
        MPI_File_get_position_shared(fh, &pos);
        CHECK(pos == 3 * REC * size + size * (size + 1) / 2, "position after ordered %lld", (long long)pos);
        MPI_File_seek_shared(fh, 3 * REC * size, MPI_SEEK_SET);
        memset(mine, 0, sizeof mine);
        err = MPI_File_read_ordered(fh, mine, rank + 1, MPI_INT, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(err == MPI_SUCCESS && n == rank + 1, "read_ordered count %d", n);
        for (int i = 0; i <= rank; i++)
            CHECK(mine[i] == 1000 + rank, "ordered int %d = %d", i, mine[i]);
        /* the file holds 1000 once, 1001 twice, ... in rank order */
        MPI_File_read_at(fh, 3 * REC * size, all, size * (size + 1) / 2, MPI_INT, &st);
        for (int r = 0, k = 0; r < size; r++)
            for (int i = 0; i <= r; i++, k++)
                CHECK(all[k] == 1000 + r, "ordered layout at %d: %d", k, all[k]);
    }
    /* seek_shared relative to the end, read_shared */
    MPI_File_seek_shared(fh, -(MPI_Offset)size * (size + 1) / 2, MPI_SEEK_END);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 3 * REC * size, "seek_shared END %lld", (long long)pos);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_Barrier(MPI_COMM_WORLD);
    {
        int r[REC];
        err = MPI_File_read_shared(fh, r, REC, MPI_INT, &st);
        CHECK(err == MPI_SUCCESS && r[1] == r[0] + 1, "read_shared");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == REC * size, "after read_shared %lld", (long long)pos);
    MPI_File_close(&fh);

    /* sequential mode */
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    err = MPI_File_write_at(fh, 0, rec, 1, MPI_INT, &st);
    CHECK(mtest_error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "write_at in SEQUENTIAL gave class %d",
          mtest_error_class(err));
    err = MPI_File_seek(fh, 0, MPI_SEEK_SET);
    CHECK(mtest_error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "seek in SEQUENTIAL gave class %d",
          mtest_error_class(err));
    err = MPI_File_write_ordered(fh, rec, 1, MPI_INT, &st);
    CHECK(err == MPI_SUCCESS, "write_ordered in SEQUENTIAL");
    MPI_File_close(&fh);

    free(all);
    io_dir_remove();
    return mtest_finish();
}
