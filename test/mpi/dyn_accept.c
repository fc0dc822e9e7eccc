/*
 * MPI_Comm_accept/MPI_Comm_connect inside one job: the world splits into a
 * server half and a client half; rank 0 opens a port and publishes it, the
 * servers accept and the clients connect. The intercommunicator is checked
 * (sizes, point to point both ways, a collective), then disconnected. Done
 * twice, the second time with the port name passed by message instead of
 * the name service, then the errors: a port of another job, a garbage name,
 * a closed port.
 */
#include "mtest.h"

static void exercise(MPI_Comm inter, int is_server, int nserver, int nclient)
{
    int flag = 0, lsize, rsize, rank, v, sum = 0;

    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(lsize == (is_server ? nserver : nclient), "local size %d", lsize);
    CHECK(rsize == (is_server ? nclient : nserver), "remote size %d", rsize);
    MPI_Comm_rank(inter, &rank);
    /* rank 0 of each side swaps a value with rank 0 of the other */
    if (rank == 0) {
        int mine = is_server ? 1000 : 2000;
        MPI_Sendrecv(&mine, 1, MPI_INT, 0, 7, &v, 1, MPI_INT, 0, 7, inter, MPI_STATUS_IGNORE);
        CHECK(v == (is_server ? 2000 : 1000), "got %d", v);
    }
    /* every process adds its local rank + 1; each side gets the other's sum */
    v = rank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    int other = is_server ? nclient : nserver;
    CHECK(sum == other * (other + 1) / 2, "allreduce %d", sum);
}

int main(int argc, char **argv)
{
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm half, inter;
    int rank, size, is_server, nserver, nclient, err;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("needs 2 processes\n");
        MPI_Finalize();
        return 1;
    }
    nserver = (size + 1) / 2;
    nclient = size - nserver;
    is_server = rank < nserver;
    MPI_Comm_split(MPI_COMM_WORLD, is_server, rank, &half);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);

    /* 1: through the name service */
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        err = MPI_Publish_name("canal-dyn-accept", MPI_INFO_NULL, port);
        CHECK(err == MPI_SUCCESS, "publish err=%d", err);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (is_server) {
        err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    } else {
        char found[MPI_MAX_PORT_NAME] = "";
        if (rank == nserver) {
            err = MPI_Lookup_name("canal-dyn-accept", MPI_INFO_NULL, found);
            CHECK(err == MPI_SUCCESS, "lookup err=%d", err);
        }
        err = MPI_Comm_connect(found, MPI_INFO_NULL, 0, half, &inter);
    }
    CHECK(err == MPI_SUCCESS, "accept/connect 1 err=%d", err);
    if (err == MPI_SUCCESS) {
        exercise(inter, is_server, nserver, nclient);
        err = MPI_Comm_disconnect(&inter);
        CHECK(err == MPI_SUCCESS && inter == MPI_COMM_NULL, "disconnect err=%d", err);
    }
    if (rank == 0) {
        MPI_Unpublish_name("canal-dyn-accept", MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }

    /* 2: the port opened by the last server, the client root is the last
     * client, the name passed by message */
    {
        int sroot = nserver - 1, croot = nclient - 1;
        if (rank == sroot) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, nserver + croot, 5, MPI_COMM_WORLD);
        }
        if (rank == nserver + croot)
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, sroot, 5, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (is_server)
            err = MPI_Comm_accept(port, MPI_INFO_NULL, sroot, half, &inter);
        else
            err = MPI_Comm_connect(port, MPI_INFO_NULL, croot, half, &inter);
        CHECK(err == MPI_SUCCESS, "accept/connect 2 err=%d", err);
        if (err == MPI_SUCCESS) {
            exercise(inter, is_server, nserver, nclient);
            MPI_Comm_disconnect(&inter);
        }
        if (rank == sroot) {
            err = MPI_Close_port(port);
            CHECK(err == MPI_SUCCESS, "close err=%d", err);
        }
    }

    /* 3: errors, raised on every member of the connecting group */
    if (!is_server) {
        int cls;
        err = MPI_Comm_connect("canal-port:some-other-job:0:0", MPI_INFO_NULL, 0, half, &inter);
        cls = mtest_error_class(err);
        CHECK(cls == MPI_ERR_PORT, "other job: class %d", cls);
        if (rank == nserver && cls == MPI_ERR_PORT) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(err, msg, &len);
            CHECK(strstr(msg, "not a port name of Canal") != NULL, "message '%s'", msg);
        }
        err = MPI_Comm_connect("garbage", MPI_INFO_NULL, 0, half, &inter);
        CHECK(mtest_error_class(err) == MPI_ERR_PORT, "garbage: class %d",
              mtest_error_class(err));
    } else {
        int cls;
        err = MPI_Comm_accept("garbage", MPI_INFO_NULL, 0, half, &inter);
        cls = mtest_error_class(err);
        CHECK(cls == MPI_ERR_PORT, "accept on garbage: class %d", cls);
        /* a port of this job but not opened by the root */
        err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
        cls = mtest_error_class(err);
        CHECK(nserver == 1 || cls == MPI_ERR_PORT, "accept on a closed port: class %d", cls);
    }
    MPI_Comm_free(&half);
    return mtest_finish();
}
