/*
 * Ports and the name service: MPI_Open_port/MPI_Close_port, publish, lookup
 * and unpublish of a name, the errors for a name published twice and for
 * unknown names and ports, and MPI_Comm_get_parent (Canal jobs are never
 * spawned: MPI_COMM_NULL).
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    char port[MPI_MAX_PORT_NAME], port2[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    char service[64];
    MPI_Comm parent = MPI_COMM_WORLD;
    int rank, err;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    err = MPI_Comm_get_parent(&parent);
    CHECK(err == MPI_SUCCESS && parent == MPI_COMM_NULL, "get_parent err=%d", err);

    err = MPI_Open_port(MPI_INFO_NULL, port);
    CHECK(err == MPI_SUCCESS, "open_port err=%d", err);
    err = MPI_Open_port(MPI_INFO_NULL, port2);
    CHECK(err == MPI_SUCCESS && strcmp(port, port2) != 0, "two ports '%s' '%s'", port, port2);

    /* every rank publishes its own name, then everybody looks up a neighbour's */
    snprintf(service, sizeof service, "canal-dyn-test-%d", rank);
    err = MPI_Publish_name(service, MPI_INFO_NULL, port);
    CHECK(err == MPI_SUCCESS, "publish err=%d", err);
    MPI_Barrier(MPI_COMM_WORLD);
    err = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    CHECK(err == MPI_SUCCESS && strcmp(found, port) == 0, "lookup own: err=%d '%s'", err, found);
    /* a name that is taken: the caller's argument, not a failed process manager */
    err = MPI_Publish_name(service, MPI_INFO_NULL, port2);
    CHECK(mtest_error_class(err) == MPI_ERR_SERVICE, "publish twice: class %d",
          mtest_error_class(err));
    {
        int size, other;
        char other_service[64];
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        other = (rank + 1) % size;
        snprintf(other_service, sizeof other_service, "canal-dyn-test-%d", other);
        err = MPI_Lookup_name(other_service, MPI_INFO_NULL, found);
        CHECK(err == MPI_SUCCESS && strncmp(found, "canal-port:", 11) == 0,
              "lookup of rank %d: err=%d '%s'", other, err, found);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    err = MPI_Unpublish_name(service, MPI_INFO_NULL, port);
    CHECK(err == MPI_SUCCESS, "unpublish err=%d", err);
    MPI_Barrier(MPI_COMM_WORLD);

    err = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    CHECK(mtest_error_class(err) == MPI_ERR_NAME, "lookup of an unpublished name: class %d",
          mtest_error_class(err));
    err = MPI_Unpublish_name(service, MPI_INFO_NULL, port);
    CHECK(mtest_error_class(err) == MPI_ERR_SERVICE, "unpublish twice: class %d",
          mtest_error_class(err));
    err = MPI_Lookup_name(NULL, MPI_INFO_NULL, found);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "lookup NULL: class %d", mtest_error_class(err));

    err = MPI_Close_port(port);
    CHECK(err == MPI_SUCCESS, "close_port err=%d", err);
    err = MPI_Close_port(port);
    CHECK(mtest_error_class(err) == MPI_ERR_PORT, "close twice: class %d", mtest_error_class(err));
    err = MPI_Close_port("no-such-port");
    CHECK(mtest_error_class(err) == MPI_ERR_PORT, "close garbage: class %d",
          mtest_error_class(err));
    err = MPI_Close_port(port2);
    CHECK(err == MPI_SUCCESS, "close_port 2 err=%d", err);
    return mtest_finish();
}
