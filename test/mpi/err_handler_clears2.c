/*
 * A user's error handler that clears the code (sets it to MPI_SUCCESS), on
 * MPI_COMM_WORLD and MPI_COMM_SELF, and calls whose bad argument is found
 * inside the implementation rather than by the generated entry checks:
 * groups, topologies, communicator constructors, attributes on types, info
 * objects, communicators passed by handle (MPI_Comm_free, _compare,
 * _disconnect), sessions, names and ports, error classes. Each call must run the
 * handler once with MPICH's class, return what the handler left
 * (MPI_SUCCESS) and stop there. Before the implementations followed the
 * convention of a cleared raise (MPI_CANAL_HANDLED, doc/design.md) they went
 * on with the rejected argument: MPI_Group_size(MPI_GROUP_NULL),
 * MPI_Cartdim_get on a communicator without a topology and
 * MPI_Type_get_attr(MPI_DATATYPE_NULL) died with SIGSEGV, MPI_Group_incl
 * with a rank out of range freed an uninitialized pointer. Afterwards every
 * communicator still carries traffic and the objects still work.
 */
#include "mtest.h"

#include "err_clear_expect.h"

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    MPI_Group world_group, ng = MPI_GROUP_NULL;
    MPI_Comm nc = MPI_COMM_NULL;
    MPI_Info info;
    int rank, size, n = -7, flag = 0, got = -1, peer, keyval, one[1], two[2];
    int ranges[1][3], dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    char value[16];
    void *attr = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    eh = clear_install();
    MPI_Errhandler_free(&eh);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);

    /* groups (MPICH raises these on MPI_COMM_WORLD's handler) */
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_COMM_WORLD, MPI_ERR_GROUP);
    CHECK(n == -7, "MPI_Group_size(MPI_GROUP_NULL) wrote %d", n);
    EXPECT(MPI_Group_rank(MPI_GROUP_NULL, &n), MPI_COMM_WORLD, MPI_ERR_GROUP);
    one[0] = size;
    EXPECT(MPI_Group_incl(world_group, 1, one, &ng), MPI_COMM_WORLD, MPI_ERR_RANK);
    EXPECT(MPI_Group_excl(world_group, 1, one, &ng), MPI_COMM_WORLD, MPI_ERR_RANK);
    ranges[0][0] = 0;
    ranges[0][1] = size - 1;
    ranges[0][2] = 0; /* a stride of 0 */
    EXPECT(MPI_Group_range_incl(world_group, 1, ranges, &ng), MPI_COMM_WORLD, MPI_ERR_ARG);
    EXPECT(MPI_Group_range_excl(world_group, 1, ranges, &ng), MPI_COMM_WORLD, MPI_ERR_ARG);
    one[0] = 0;
    EXPECT(MPI_Group_translate_ranks(MPI_GROUP_NULL, 1, one, world_group, two), MPI_COMM_WORLD,
           MPI_ERR_GROUP);
    EXPECT(MPI_Group_union(world_group, MPI_GROUP_NULL, &ng), MPI_COMM_WORLD, MPI_ERR_GROUP);
    EXPECT(MPI_Group_compare(MPI_GROUP_NULL, world_group, &n), MPI_COMM_WORLD, MPI_ERR_GROUP);
    CHECK(ng == MPI_GROUP_NULL, "a refused group call set newgroup to %#x", (unsigned)ng);

    /* topologies: MPI_COMM_SELF and MPI_COMM_WORLD have none */
    EXPECT(MPI_Cartdim_get(MPI_COMM_SELF, &n), MPI_COMM_SELF, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_get(MPI_COMM_SELF, 2, dims, periods, coords), MPI_COMM_SELF,
           MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_rank(MPI_COMM_SELF, coords, &n), MPI_COMM_SELF, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_coords(MPI_COMM_SELF, 0, 2, coords), MPI_COMM_SELF, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &n, &got), MPI_COMM_WORLD, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_sub(MPI_COMM_WORLD, periods, &nc), MPI_COMM_WORLD, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Graphdims_get(MPI_COMM_SELF, &n, &got), MPI_COMM_SELF, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Graph_neighbors_count(MPI_COMM_SELF, 0, &n), MPI_COMM_SELF, MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Dist_graph_neighbors_count(MPI_COMM_SELF, &n, &got, &flag), MPI_COMM_SELF,
           MPI_ERR_TOPOLOGY);
    dims[0] = 0;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &nc), MPI_COMM_WORLD,
           MPI_ERR_DIMS);
    CHECK(nc == MPI_COMM_NULL, "a refused MPI_Cart_create made %#x", (unsigned)nc);

    /* communicator constructors and queries (collective: every rank is refused) */
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &nc), MPI_COMM_WORLD, MPI_ERR_GROUP);
    EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &nc), MPI_COMM_WORLD,
           MPI_ERR_GROUP);
    CHECK(nc == MPI_COMM_NULL, "a refused communicator constructor made %#x", (unsigned)nc);
    EXPECT(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_COMM_WORLD, MPI_ERR_COMM);
    EXPECT(MPI_Comm_remote_group(MPI_COMM_SELF, &ng), MPI_COMM_SELF, MPI_ERR_COMM);
    CHECK(ng == MPI_GROUP_NULL, "a refused MPI_Comm_remote_group made %#x", (unsigned)ng);

    /* an int form's out-parameter stays as it was (the entry point wrote the
     * large-count result, 0, although the handler had been called) */
    n = -7;
    EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &n), MPI_COMM_WORLD, MPI_ERR_TYPE);
    CHECK(n == -7, "a refused MPI_Type_size wrote size=%d", n);

    /* attributes on a type that is not one */
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval, NULL);
    EXPECT(MPI_Type_get_attr(MPI_DATATYPE_NULL, keyval, &attr, &flag), MPI_COMM_WORLD,
           MPI_ERR_TYPE);
    EXPECT(MPI_Type_set_attr(MPI_DATATYPE_NULL, keyval, &attr), MPI_COMM_WORLD, MPI_ERR_TYPE);
    EXPECT(MPI_Type_delete_attr(MPI_DATATYPE_NULL, keyval), MPI_COMM_WORLD, MPI_ERR_TYPE);
    MPI_Type_free_keyval(&keyval);

    /* info objects that are not ones */
    EXPECT(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_COMM_WORLD, MPI_ERR_INFO);
    EXPECT(MPI_Info_get_valuelen(MPI_INFO_NULL, "key", &n, &flag), MPI_COMM_WORLD, MPI_ERR_INFO);
    EXPECT(MPI_Info_set(MPI_INFO_NULL, "key", "value"), MPI_COMM_WORLD, MPI_ERR_INFO);
    MPI_Info_create(&info);
    EXPECT(MPI_Info_get_nthkey(info, 3, value), MPI_COMM_WORLD, MPI_ERR_ARG);
    MPI_Info_set(info, "key", "value");
    MPI_Info_get(info, "key", (int)sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "value") == 0, "the info lost its key");
    MPI_Info_free(&info);

    /* communicators given by handle to the implementation */
    nc = MPI_COMM_NULL;
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &n), MPI_COMM_WORLD, MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&nc), MPI_COMM_WORLD, MPI_ERR_COMM);
    EXPECT(MPI_Comm_get_name(MPI_COMM_NULL, value, &n), MPI_COMM_WORLD, MPI_ERR_COMM);
    EXPECT(MPI_Comm_disconnect(&nc), MPI_COMM_WORLD, MPI_ERR_COMM);

    /* sessions, names and ports (MPI_Comm_connect went on to connect) */
    EXPECT(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n), MPI_COMM_WORLD,
           MPI_ERR_SESSION);
    EXPECT(MPI_Unpublish_name(NULL, MPI_INFO_NULL, value), MPI_COMM_WORLD, MPI_ERR_ARG);
    EXPECT(MPI_Comm_connect("no-such-port", MPI_INFO_NULL, size, MPI_COMM_WORLD, &nc),
           MPI_COMM_WORLD, MPI_ERR_ROOT);
    CHECK(nc == MPI_COMM_NULL, "a refused MPI_Comm_connect made %#x", (unsigned)nc);

    /* error classes and codes */
    EXPECT(MPI_Add_error_code(12345, &n), MPI_COMM_WORLD, MPI_ERR_ARG);

    /* everything still works: a group, a Cartesian communicator, a ring */
    one[0] = size - 1;
    OK(MPI_Group_incl(world_group, 1, one, &ng));
    OK(MPI_Group_size(ng, &n));
    CHECK(n == 1, "group of one has size %d", n);
    OK(MPI_Group_free(&ng));
    dims[0] = size;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &nc));
    OK(MPI_Cartdim_get(nc, &n));
    CHECK(n == 1, "cartdim %d", n);
    peer = (rank + 1) % size;
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, peer, 7, &got, 1, MPI_INT, (rank + size - 1) % size, 7, nc,
                    MPI_STATUS_IGNORE));
    CHECK(got == (rank + size - 1) % size, "ring: got %d from %d", got, (rank + size - 1) % size);
    OK(MPI_Comm_free(&nc));
    OK(MPI_Group_free(&world_group));
    got = -1;
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 8, &got, 1, MPI_INT, 0, 8, MPI_COMM_SELF,
                    MPI_STATUS_IGNORE));
    CHECK(got == rank, "self: got %d", got);
    CHECK(ncalls > 0, "the handler never ran");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mtest_rank = rank;
    mtest_size = size;
    return mtest_finish();
}
