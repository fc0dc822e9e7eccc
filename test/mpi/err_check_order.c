/*
 * Two bad arguments a call, MPI_ERRORS_RETURN: the class returned is the
 * one MPICH 4.0.2 returns, so that a program built against MPICH and run on
 * Canal sees the same error (doc/conformance.md, "The order of argument
 * checks against MPICH 4.0.2"). MPICH validates the handles of a call
 * (communicator, group, op) first, then the parameters in order: a
 * datatype before the out-pointers after it, a buffer with its count and
 * datatype before the rank and the tag, an input status before the
 * datatype, the op of a reduction before its count and datatype, the root
 * of a collective first. The same program built with mpicc.mpich and run
 * with mpiexec.mpich prints "No Errors" too (that is how the expected
 * classes were taken).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "err_class_expect.h"

int main(int argc, char **argv)
{
    int rank, size, a[4] = {0}, b[4] = {0};
    MPI_Group world;
    MPI_Request req;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* datatypes: the handle before the out-pointers */
    expect("MPI_Type_size(MPI_DATATYPE_NULL, NULL)", MPI_Type_size(MPI_DATATYPE_NULL, NULL),
           MPI_ERR_TYPE);
    expect("MPI_Type_get_extent(MPI_DATATYPE_NULL, NULL, NULL)",
           MPI_Type_get_extent(MPI_DATATYPE_NULL, NULL, NULL), MPI_ERR_TYPE);
    expect("MPI_Type_get_true_extent(MPI_DATATYPE_NULL, NULL, NULL)",
           MPI_Type_get_true_extent(MPI_DATATYPE_NULL, NULL, NULL), MPI_ERR_TYPE);
    expect("MPI_Type_get_name(MPI_DATATYPE_NULL, NULL, NULL)",
           MPI_Type_get_name(MPI_DATATYPE_NULL, NULL, NULL), MPI_ERR_TYPE);
    expect("MPI_Type_dup(MPI_DATATYPE_NULL, NULL)", MPI_Type_dup(MPI_DATATYPE_NULL, NULL),
           MPI_ERR_TYPE);
    expect("MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 1, NULL)",
           MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 1, NULL), MPI_ERR_TYPE);
    expect("MPI_Type_contiguous(1, MPI_DATATYPE_NULL, NULL)",
           MPI_Type_contiguous(1, MPI_DATATYPE_NULL, NULL), MPI_ERR_TYPE);
    expect("MPI_Type_contiguous(-1, MPI_DATATYPE_NULL, NULL)",
           MPI_Type_contiguous(-1, MPI_DATATYPE_NULL, NULL), MPI_ERR_COUNT);
    /* groups: before the counts and the out-pointers */
    expect("MPI_Group_size(MPI_GROUP_NULL, NULL)", MPI_Group_size(MPI_GROUP_NULL, NULL),
           MPI_ERR_GROUP);
    expect("MPI_Group_rank(MPI_GROUP_NULL, NULL)", MPI_Group_rank(MPI_GROUP_NULL, NULL),
           MPI_ERR_GROUP);
    expect("MPI_Group_incl(MPI_GROUP_NULL, -1, NULL, NULL)",
           MPI_Group_incl(MPI_GROUP_NULL, -1, NULL, NULL), MPI_ERR_GROUP);
    expect("MPI_Group_compare(MPI_GROUP_NULL, world, NULL)",
           MPI_Group_compare(MPI_GROUP_NULL, world, NULL), MPI_ERR_GROUP);
    expect("MPI_Group_translate_ranks(world, -1, NULL, MPI_GROUP_NULL, NULL)",
           MPI_Group_translate_ranks(world, -1, NULL, MPI_GROUP_NULL, NULL), MPI_ERR_GROUP);
    expect("MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, NULL)",
           MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, NULL), MPI_ERR_GROUP);
    expect("MPI_Comm_create(MPI_COMM_NULL, MPI_GROUP_NULL, NULL)",
           MPI_Comm_create(MPI_COMM_NULL, MPI_GROUP_NULL, NULL), MPI_ERR_COMM);
    /* ops: before the out-pointers, and before a reduction's count and datatype */
    expect("MPI_Op_commutative(MPI_OP_NULL, NULL)", MPI_Op_commutative(MPI_OP_NULL, NULL),
           MPI_ERR_OP);
    expect("MPI_Allreduce(count=-1, MPI_OP_NULL)",
           MPI_Allreduce(a, b, -1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("MPI_Allreduce(MPI_DATATYPE_NULL, MPI_OP_NULL)",
           MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("MPI_Reduce(MPI_DATATYPE_NULL, MPI_OP_NULL, root=0)",
           MPI_Reduce(a, b, 1, MPI_DATATYPE_NULL, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
    expect("MPI_Reduce(MPI_OP_NULL, root=size)",
           MPI_Reduce(a, b, 1, MPI_INT, MPI_OP_NULL, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("MPI_Reduce_local(MPI_DATATYPE_NULL, MPI_OP_NULL)",
           MPI_Reduce_local(a, b, 1, MPI_DATATYPE_NULL, MPI_OP_NULL), MPI_ERR_OP);
    /* a buffer with its count and datatype, before the rank and the tag */
    expect("MPI_Send(NULL, 1, MPI_INT, dest=size)",
           MPI_Send(NULL, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    expect("MPI_Isend(NULL, 1, MPI_INT, dest=size, tag=-1)",
           MPI_Isend(NULL, 1, MPI_INT, size, -1, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    expect("MPI_Recv(NULL, 1, MPI_INT, source=size)",
           MPI_Recv(NULL, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    expect("MPI_Send(count=-1, dest=size)", MPI_Send(a, -1, MPI_INT, size, 0, MPI_COMM_WORLD),
           MPI_ERR_COUNT);
    expect("MPI_Send(MPI_DATATYPE_NULL, tag=-1)",
           MPI_Send(a, 1, MPI_DATATYPE_NULL, 0, -1, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("MPI_Send(dest=size, tag=-1)", MPI_Send(a, 1, MPI_INT, size, -1, MPI_COMM_WORLD),
           MPI_ERR_RANK);
    expect("MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_NULL)",
           MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    /* an input status before the datatype */
    expect("MPI_Get_count(NULL, MPI_DATATYPE_NULL, NULL)",
           MPI_Get_count(NULL, MPI_DATATYPE_NULL, NULL), MPI_ERR_ARG);
    /* the communicator first, the root of a collective before its buffer */
    expect("MPI_Bcast(root=-1, MPI_COMM_NULL)", MPI_Bcast(a, 1, MPI_INT, -1, MPI_COMM_NULL),
           MPI_ERR_COMM);
    expect("MPI_Bcast(NULL, 1, MPI_INT, root=size)",
           MPI_Bcast(NULL, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    expect("MPI_Comm_split(MPI_COMM_NULL, 0, 0, NULL)", MPI_Comm_split(MPI_COMM_NULL, 0, 0, NULL),
           MPI_ERR_COMM);
    expect("MPI_Pack_size(-1, MPI_DATATYPE_NULL, comm, NULL)",
           MPI_Pack_size(-1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, NULL), MPI_ERR_COUNT);

    MPI_Group_free(&world);
    if (errs == 0 && rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
