/*
 * Bad handles through the standard ABI get the call's error class and a
 * message, never a crash: a pointer that is no handle, NULL where a handle
 * is needed, the null handles, a handle of the wrong type, a request that is
 * no request. MPI_ERRORS_RETURN on MPI_COMM_WORLD so every call returns.
 */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "abi_util.h"

static int class_of(int err)
{
    int cls = -1;
    MPI_Error_class(err, &cls);
    return cls;
}

static int says(int err, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, msg, &len);
    if (strstr(msg, what) == NULL) {
        fprintf(stderr, "message \"%s\" does not name %s\n", msg, what);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int v = 1, err, size;
    static int not_a_handle[4];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    err = MPI_Comm_size((MPI_Comm)(void *)not_a_handle, &size);
    CHECK(class_of(err) == MPI_ERR_COMM);
    CHECK(says(err, "MPI_Comm_size"));
    err = MPI_Comm_size((MPI_Comm)0, &size);
    CHECK(class_of(err) == MPI_ERR_COMM);
    err = MPI_Comm_size(MPI_COMM_NULL, &size);
    CHECK(class_of(err) == MPI_ERR_COMM);
    err = MPI_Comm_size((MPI_Comm)(uintptr_t)0xdeadbeef, &size);
    CHECK(class_of(err) == MPI_ERR_COMM);
    /* a datatype where a communicator belongs */
    err = MPI_Comm_size((MPI_Comm)(void *)MPI_INT, &size);
    CHECK(class_of(err) == MPI_ERR_COMM);

    err = MPI_Send(&v, 1, (MPI_Datatype)(void *)not_a_handle, 0, 0, MPI_COMM_WORLD);
    CHECK(class_of(err) == MPI_ERR_TYPE);
    CHECK(says(err, "MPI_Send"));
    err = MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    CHECK(class_of(err) == MPI_ERR_TYPE);
    err = MPI_Send(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD);
    CHECK(class_of(err) == MPI_ERR_TAG);
    err = MPI_Send(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD);
    CHECK(class_of(err) == MPI_ERR_RANK);
    err = MPI_Send(&v, 1, MPI_INT, 0, 0, (MPI_Comm)0);
    CHECK(class_of(err) == MPI_ERR_COMM);

    err = MPI_Allreduce(&v, &size, 1, MPI_INT, (MPI_Op)(void *)not_a_handle, MPI_COMM_WORLD);
    CHECK(class_of(err) == MPI_ERR_OP);
    err = MPI_Allreduce(&v, &size, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    CHECK(class_of(err) == MPI_ERR_OP);

    req = (MPI_Request)(void *)not_a_handle;
    err = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(class_of(err) == MPI_ERR_REQUEST);
    {
        MPI_Request reqs[2] = {MPI_REQUEST_NULL, (MPI_Request)(uintptr_t)0x7ffff0000000};
        err = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        CHECK(err != MPI_SUCCESS);
    }
    {
        MPI_Group g = (MPI_Group)(void *)not_a_handle;
        err = MPI_Group_size(g, &size);
        CHECK(class_of(err) == MPI_ERR_GROUP);
    }
    {
        MPI_Info info;
        err = MPI_Info_set((MPI_Info)(void *)not_a_handle, "k", "v");
        CHECK(class_of(err) == MPI_ERR_INFO);
        err = MPI_Info_create(&info);
        CHECK(err == MPI_SUCCESS);
        MPI_Info_free(&info);
        CHECK(info == MPI_INFO_NULL);
    }
    err = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK(class_of(err) == MPI_ERR_ARG);
    return abi_finish();
}
