/*
 * dyn_connect_timeout: MPI_Comm_connect to a port that is open but where
 * nobody accepts gives up with MPI_ERR_PORT, as in MPICH
 * (errors/spawn/connect_timeout): after CANAL_CONNECT_TIMEOUT /
 * MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT seconds (the testlist sets a few), or
 * after the call's info key "timeout"; a "timeout" that is no number of
 * seconds is MPI_ERR_INFO. Rank 0 owns the port; the other ranks connect
 * as one group. Afterwards rank 0 accepts for real: the connects that gave
 * up still sit in the port's queue and must not be taken for this one, so
 * the next connect meets the accept and the two groups talk.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, err;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm group, inter;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2) {
        fprintf(stderr, "dyn_connect_timeout needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &group);
    MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
    if (rank == 0)
        MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);

    if (rank != 0) {
        /* the default timeout (from the environment) */
        inter = MPI_COMM_NULL;
        err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, group, &inter);
        CHECK(mtest_error_class(err) == MPI_ERR_PORT,
              "connect without accept: class %d, expected MPI_ERR_PORT", mtest_error_class(err));
        if (err != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(err, msg, &len);
            CHECK(strstr(msg, "MPI_Comm_connect") != NULL, "message names no call: %s", msg);
        }
        /* the call's own timeout */
        MPI_Info_create(&info);
        MPI_Info_set(info, "timeout", "2");
        err = MPI_Comm_connect(port, info, 0, group, &inter);
        CHECK(mtest_error_class(err) == MPI_ERR_PORT,
              "connect with timeout=2: class %d, expected MPI_ERR_PORT", mtest_error_class(err));
        MPI_Info_set(info, "timeout", "soon");
        err = MPI_Comm_connect(port, info, 0, group, &inter);
        CHECK(mtest_error_class(err) == MPI_ERR_INFO,
              "connect with timeout=soon: class %d, expected MPI_ERR_INFO", mtest_error_class(err));
        MPI_Info_free(&info);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* now the port accepts: the abandoned connects are not taken for this one */
    if (rank == 0) {
        int v = 0;
        err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, group, &inter);
        CHECK(err == MPI_SUCCESS, "accept failed: class %d", mtest_error_class(err));
        if (err == MPI_SUCCESS) {
            int rsize;
            MPI_Comm_remote_size(inter, &rsize);
            CHECK(rsize == size - 1, "remote size %d, expected %d", rsize, size - 1);
            MPI_Recv(&v, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
            CHECK(v == 4242, "received %d from the connected group", v);
            MPI_Comm_disconnect(&inter);
        }
        MPI_Close_port(port);
    } else {
        MPI_Info_create(&info);
        MPI_Info_set(info, "timeout", "600");
        err = MPI_Comm_connect(port, info, 0, group, &inter);
        MPI_Info_free(&info);
        CHECK(err == MPI_SUCCESS, "connect to an accepting port failed: class %d",
              mtest_error_class(err));
        if (err == MPI_SUCCESS) {
            int grank, v = 4242;
            MPI_Comm_rank(group, &grank);
            if (grank == 0)
                MPI_Send(&v, 1, MPI_INT, 0, 5, inter);
            MPI_Comm_disconnect(&inter);
        }
    }
    MPI_Comm_free(&group);
    return mtest_finish();
}
