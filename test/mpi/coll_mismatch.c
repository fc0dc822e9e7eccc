/*
 * The checking mode (CANAL_COLL_CHECK=1, set here before MPI_Init): calls
 * whose arguments disagree across ranks -- different collectives, roots,
 * operations, counts or datatype sizes -- fail on every rank with an error
 * instead of hanging, and collectives that agree still work. With other
 * MPI libraries the variable means nothing and the test only runs the
 * agreeing calls. Needs 2 or more ranks to mismatch anything.
 */
#include "mtest.h"

static int canal;

static void expect_fail(int rc, int want, const char *what)
{
    int cls = MPI_SUCCESS;
    if (!canal)
        return;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
    if (rc != MPI_SUCCESS && mtest_rank == 0 && getenv("COLL_MISMATCH_VERBOSE")) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        printf("%s -> %s\n", what, msg);
    }
}

int main(int argc, char **argv)
{
    int buf[16], out[16], *big;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    setenv("CANAL_COLL_CHECK", "1", 1);
    mtest_init(&argc, &argv);
    MPI_Get_library_version(version, &len);
    canal = strstr(version, "Canal") != NULL || strstr(version, "canal") != NULL;
    big = calloc(260 + 16 * (size_t)mtest_size, sizeof(int));
    for (int i = 0; i < 16; i++)
        buf[i] = mtest_rank + i;

    if (mtest_size > 1 && canal) {
        expect_fail(MPI_Bcast(buf, 4, MPI_INT, mtest_rank == 1 ? 1 : 0, MPI_COMM_WORLD), MPI_ERR_ARG,
                    "bcast root mismatch");
        expect_fail(MPI_Bcast(buf, mtest_rank == 1 ? 3 : 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                    "bcast count mismatch");
        expect_fail(MPI_Allreduce(buf, out, mtest_rank == 0 ? 3 : 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                    MPI_ERR_TYPE, "allreduce count mismatch");
        expect_fail(
            MPI_Allreduce(buf, out, 4, mtest_rank == 0 ? MPI_INT : MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
            MPI_ERR_TYPE, "allreduce datatype mismatch");
        expect_fail(
            MPI_Allreduce(buf, out, 4, MPI_INT, mtest_rank == 0 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD),
            MPI_ERR_OP, "allreduce op mismatch");
        if (mtest_rank == 0)
            expect_fail(MPI_Reduce(buf, out, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_ARG,
                        "reduce against allreduce");
        else
            expect_fail(MPI_Allreduce(buf, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG,
                        "allreduce against reduce");
        expect_fail(MPI_Gather(buf, mtest_rank == mtest_size - 1 ? 2 : 1, MPI_INT, big, 1, MPI_INT, 0,
                               MPI_COMM_WORLD),
                    MPI_ERR_TYPE, "gather count mismatch");
        expect_fail(MPI_Alltoall(big, 1, mtest_rank == 1 ? MPI_DOUBLE : MPI_INT, out, 1, MPI_INT,
                                 MPI_COMM_WORLD),
                    MPI_ERR_TYPE, "alltoall type size mismatch");
        /* byte counts on both sides of the node's shared block's 512-byte
         * limit (rank 0: 512, the others 516), after enough agreeing calls
         * for the block to exist: without the check rank 0 would wait in
         * the block and the others for rank 0's messages (doc/design.md) */
        for (int i = 0; i < 4; i++)
            OK(MPI_Allreduce(buf, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        expect_fail(MPI_Allreduce(big, big + 130, mtest_rank == 0 ? 128 : 129, MPI_INT, MPI_SUM,
                                  MPI_COMM_WORLD),
                    MPI_ERR_TYPE, "allreduce across the shared block's limit");
    }
    /* agreeing calls work, checked or not */
    OK(MPI_Allreduce(buf, out, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 16; i++)
        CHECK(out[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * i, "allreduce [%d]", i);
    for (int root = 0; root < mtest_size; root++) {
        for (int i = 0; i < 16; i++)
            buf[i] = mtest_rank == root ? root + i : -1;
        OK(MPI_Bcast(buf, 16, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < 16; i++)
            CHECK(buf[i] == root + i, "bcast root %d [%d]", root, i);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(big);
    return mtest_finish();
}
