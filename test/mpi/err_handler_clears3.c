/*
 * A user's error handler that clears the code, on MPI_COMM_WORLD and
 * MPI_COMM_SELF, and collectives whose bad argument the implementation finds
 * (mpi/coll.c: the op, the datatype, the counts, the root, the arrays of a v
 * collective), plus the handles the entry points now check first (groups,
 * ops, datatypes that need not be committed). Each call must run the handler
 * once with MPICH's class, return the handler's MPI_SUCCESS and stop there:
 * before, mpi/coll.c's checks returned the cleared code as success and the
 * collective went on -- MPI_Allreduce with MPI_DATATYPE_NULL checked the op
 * against no datatype (SIGSEGV), with MPI_OP_NULL it ran the reduction.
 * Every rank passes the same bad argument, so no rank waits for another.
 * Afterwards the collectives still work.
 */
#include "mtest.h"

#include "err_clear_expect.h"

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    MPI_Group world_group;
    MPI_Comm nc = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype vec, t = MPI_DATATYPE_NULL;
    MPI_Aint lb = -5, ext = -5;
    MPI_Count csize = -5;
    int rank, size, n = -7, commute = -7, i;
    int a[8], b[8], counts[8], displs[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    eh = clear_install();
    MPI_Errhandler_free(&eh);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (i = 0; i < 8; i++) {
        a[i] = rank + i;
        b[i] = -1;
        counts[i] = 1;
        displs[i] = i;
    }

    /* collectives: mpi/coll.c's checks (b must stay untouched) */
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_COMM_WORLD,
           MPI_ERR_OP);
    CHECK(b[0] == -1, "MPI_Allreduce with MPI_OP_NULL wrote %d", b[0]);
    /* a predefined op is checked against the type first: MPI_ERR_OP (MPICH 4.0.2) */
    EXPECT(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_COMM_WORLD,
           MPI_ERR_OP);
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_COMM_WORLD,
           MPI_ERR_OP);
    CHECK(b[0] == -1, "MPI_Allreduce with MPI_REPLACE wrote %d", b[0]);
    EXPECT(MPI_Reduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD), MPI_COMM_WORLD,
           MPI_ERR_OP);
    EXPECT(MPI_Iallreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, &req),
           MPI_COMM_WORLD, MPI_ERR_OP);
    EXPECT(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_COMM_WORLD, MPI_ERR_TYPE);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_COMM_WORLD, MPI_ERR_ROOT);
    EXPECT(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_COMM_WORLD,
           MPI_ERR_COUNT);
    EXPECT(MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_COMM_WORLD,
           MPI_ERR_TYPE);
    EXPECT(MPI_Alltoallv(a, NULL, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_COMM_WORLD, MPI_ERR_ARG);
    n = a[0];
    EXPECT(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF), MPI_COMM_SELF, MPI_ERR_BUFFER);
    CHECK(a[0] == n, "MPI_Allreduce with aliased buffers wrote %d", a[0]);
    n = -7;
    b[0] = -1;
    EXPECT(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_OP_NULL), MPI_COMM_WORLD, MPI_ERR_OP);
    CHECK(b[0] == -1, "MPI_Reduce_local with MPI_OP_NULL wrote %d", b[0]);

    /* handles the entry points check (groups, ops, datatypes) */
    EXPECT(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_COMM_WORLD, MPI_ERR_OP);
    CHECK(commute == -7, "MPI_Op_commutative(MPI_OP_NULL) wrote %d", commute);
    EXPECT(MPI_Group_compare(MPI_GROUP_NULL, world_group, &n), MPI_COMM_WORLD, MPI_ERR_GROUP);
    CHECK(n == -7, "MPI_Group_compare(MPI_GROUP_NULL) wrote %d", n);
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &nc), MPI_COMM_WORLD, MPI_ERR_GROUP);
    CHECK(nc == MPI_COMM_NULL, "MPI_Comm_create(MPI_GROUP_NULL) made %#x", (unsigned)nc);
    EXPECT(MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext), MPI_COMM_WORLD, MPI_ERR_TYPE);
    CHECK(lb == -5 && ext == -5, "MPI_Type_get_extent(MPI_DATATYPE_NULL) wrote %ld %ld",
          (long)lb, (long)ext);
    EXPECT(MPI_Type_size_c(MPI_DATATYPE_NULL, &csize), MPI_COMM_WORLD, MPI_ERR_TYPE);
    CHECK(csize == -5, "MPI_Type_size_c(MPI_DATATYPE_NULL) wrote %lld", (long long)csize);
    EXPECT(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_COMM_WORLD, MPI_ERR_COUNT);
    EXPECT(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_COMM_WORLD, MPI_ERR_TYPE);
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_dup(MPI_DATATYPE_NULL) made %#x", (unsigned)t);

    /* everything still works */
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    OK(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[0] == size * (size - 1) / 2, "allreduce: %d", b[0]);
    OK(MPI_Bcast(b, 1, vec, 0, MPI_COMM_WORLD));
    OK(MPI_Type_free(&vec));
    OK(MPI_Comm_create(MPI_COMM_WORLD, world_group, &nc));
    OK(MPI_Barrier(nc));
    OK(MPI_Comm_free(&nc));
    OK(MPI_Group_free(&world_group));
    CHECK(ncalls > 0, "the handler never ran");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mtest_rank = rank;
    mtest_size = size;
    return mtest_finish();
}
