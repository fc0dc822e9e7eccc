/* MPI 5.0's new functions in libmpi.so.12 (MPICH's ABI): MPI_Abi_get_version
 * (-1.-1: this is not the standard ABI), MPI_Abi_get_info (before MPI_Init
 * too), the Fortran ABI info and booleans (fixed by libmpifort: setting the
 * same is accepted, anything else is MPI_ERR_ABI), and the integer handle
 * conversions, which give back the handle they were given. */
#include "mtest.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


static void info_is(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL];
    int len = sizeof v, flag = 0;
    MPI_Info_get_string(info, key, &len, v, &flag);
    CHECK(flag && strcmp(v, want) == 0, "info key %s is %s, expected %s", key, flag ? v : "absent",
          want);
}

static void abi_info(const char *phase)
{
    MPI_Info info = MPI_INFO_NULL;
    int major = 0, minor = 0;
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == -1 && minor == -1,
          "%s: MPI_Abi_get_version gave %d.%d", phase, major, minor);
    CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL,
          "%s: MPI_Abi_get_info failed", phase);
    if (info != MPI_INFO_NULL) {
        info_is(info, "mpi_aint_size", sizeof(MPI_Aint) == 8 ? "8" : "4");
        info_is(info, "mpi_count_size", "8");
        info_is(info, "mpi_offset_size", "8");
        MPI_Info_free(&info);
    }
    EXPECT_CLASS(MPI_Abi_get_version(NULL, &minor), MPI_ERR_ARG, "MPI_Abi_get_version(NULL, ..)");
    EXPECT_CLASS(MPI_Abi_get_info(NULL), MPI_ERR_ARG, "MPI_Abi_get_info(NULL)");
}

static void fortran_abi(void)
{
    MPI_Info info = MPI_INFO_NULL, mine;
    int32_t t = -5, f = -5, bad = 2;
    int is_set = 0;

    CHECK(MPI_Abi_get_fortran_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL,
          "MPI_Abi_get_fortran_info failed");
    info_is(info, "mpi_logical_size", "4");
    info_is(info, "mpi_integer_size", "4");
    info_is(info, "mpi_double_precision_size", "8");
    info_is(info, "mpi_integer8_supported", "true");
    info_is(info, "mpi_logical1_supported", "false");
    /* giving back what it says is accepted; a different size is not */
    CHECK(MPI_Abi_set_fortran_info(info) == MPI_SUCCESS, "MPI_Abi_set_fortran_info(its own info)");
    MPI_Info_create(&mine);
    MPI_Info_set(mine, "mpi_integer_size", "8");
    MPI_Info_set(mine, "unrelated_key", "x");
    EXPECT_CLASS(MPI_Abi_set_fortran_info(mine), MPI_ERR_ABI,
                 "MPI_Abi_set_fortran_info(INTEGER*8)");
    MPI_Info_free(&mine);
    MPI_Info_free(&info);
    EXPECT_CLASS(MPI_Abi_set_fortran_info(MPI_INFO_NULL), MPI_ERR_INFO,
                 "MPI_Abi_set_fortran_info(MPI_INFO_NULL)");
    EXPECT_CLASS(MPI_Abi_get_fortran_info(NULL), MPI_ERR_ARG, "MPI_Abi_get_fortran_info(NULL)");

    CHECK(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set) == MPI_SUCCESS && is_set && t == 1 &&
              f == 0,
          "MPI_Abi_get_fortran_booleans: set %d true %d false %d", is_set, t, f);
    CHECK(MPI_Abi_set_fortran_booleans(4, &t, &f) == MPI_SUCCESS,
          "MPI_Abi_set_fortran_booleans with the same values");
    EXPECT_CLASS(MPI_Abi_set_fortran_booleans(4, &bad, &f), MPI_ERR_ABI,
                 "MPI_Abi_set_fortran_booleans(.TRUE. = 2)");
    EXPECT_CLASS(MPI_Abi_get_fortran_booleans(1, &t, &f, &is_set), MPI_ERR_ABI,
                 "MPI_Abi_get_fortran_booleans(logical_size 1)");
    EXPECT_CLASS(MPI_Abi_get_fortran_booleans(4, NULL, &f, &is_set), MPI_ERR_ARG,
                 "MPI_Abi_get_fortran_booleans(.., NULL, ..)");
    EXPECT_CLASS(MPI_Abi_get_fortran_booleans(4, &t, &f, NULL), MPI_ERR_ARG,
                 "MPI_Abi_get_fortran_booleans(.., is_set NULL)");
}

static void int_handles(void)
{
    MPI_Comm dup;
    MPI_Group g;
    MPI_Info info;
    MPI_Op op = MPI_SUM;
    MPI_Datatype t;
    MPI_Request r;
    MPI_Win win;
    MPI_File fh;
    MPI_Errhandler eh = MPI_ERRORS_RETURN;
    MPI_Message msg = MPI_MESSAGE_NO_PROC;
    MPI_Session s;
    char path[64];
    int x = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_group(dup, &g);
    MPI_Info_create(&info);
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, dup, &r);
    MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);

    CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup, "comm round trip");
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == MPI_Comm_c2f(MPI_COMM_WORLD), "comm toint is c2f");
    CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_NULL)) == MPI_COMM_NULL, "MPI_COMM_NULL");
    CHECK(MPI_Group_fromint(MPI_Group_toint(g)) == g, "group round trip");
    CHECK(MPI_Info_fromint(MPI_Info_toint(info)) == info, "info round trip");
    CHECK(MPI_Op_fromint(MPI_Op_toint(op)) == op, "op round trip");
    CHECK(MPI_Type_fromint(MPI_Type_toint(t)) == t, "type round trip");
    CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE, "predefined type round trip");
    CHECK(MPI_Request_fromint(MPI_Request_toint(r)) == r, "request round trip");
    CHECK(MPI_Win_fromint(MPI_Win_toint(win)) == win, "win round trip");
    CHECK(MPI_Errhandler_fromint(MPI_Errhandler_toint(eh)) == eh, "errhandler round trip");
    CHECK(MPI_Message_fromint(MPI_Message_toint(msg)) == msg, "message round trip");
    CHECK(MPI_Session_fromint(MPI_Session_toint(s)) == s, "session round trip");

    snprintf(path, sizeof path, "/tmp/canal-mpi50-%d.dat", (int)getpid());
    CHECK(MPI_File_open(MPI_COMM_SELF, path,
                        MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "MPI_File_open %s", path);
    CHECK(MPI_File_toint(fh) != 0 && MPI_File_fromint(MPI_File_toint(fh)) == fh &&
              MPI_File_toint(fh) == MPI_File_c2f(fh),
          "file round trip");
    CHECK(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)) == MPI_FILE_NULL, "MPI_FILE_NULL");
    MPI_File_close(&fh);

    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Win_free(&win);
    MPI_Session_finalize(&s);
    MPI_Type_free(&t);
    MPI_Info_free(&info);
    MPI_Group_free(&g);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    int rank;
    abi_info("before MPI_Init");
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    abi_info("while MPI runs");
    fortran_abi();
    int_handles();
    MPI_Allreduce(MPI_IN_PLACE, &mtest_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && mtest_errors == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return mtest_errors != 0;
}
