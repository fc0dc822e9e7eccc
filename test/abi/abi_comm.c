/*
 * Communicators through the standard ABI: MPI_Comm_split with MPI_UNDEFINED,
 * MPI_Comm_dup with attributes (copy and delete callbacks that must receive
 * standard handles; MPI_COMM_DUP_FN), MPI_TAG_UB, comparisons, groups
 * (MPI_PROC_NULL and MPI_UNDEFINED in MPI_Group_translate_ranks), topologies,
 * and error handlers: MPI_ERRORS_RETURN and a user handler that receives the
 * communicator and a code whose class is the standard's.
 */
#include <mpi.h>
#include <string.h>

#include "abi_util.h"

static MPI_Comm copy_from, delete_on;
static int copies, deletes, handler_calls, handler_class;
static MPI_Comm handler_comm;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval;
    (void)extra;
    copy_from = comm;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval;
    (void)val;
    (void)extra;
    delete_on = comm;
    deletes++;
    return MPI_SUCCESS;
}

static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    int rank, size, result, keyval, flag, *tag_ub, cls, len;
    MPI_Comm half, dup, none, dup2;
    static int value = 42;
    char msg[MPI_MAX_ERROR_STRING];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_compare(MPI_COMM_WORLD, half, &result);
    CHECK(size == 1 ? result == MPI_CONGRUENT : result == MPI_UNEQUAL);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
    CHECK(rank == 0 ? none != MPI_COMM_NULL : none == MPI_COMM_NULL);
    if (none != MPI_COMM_NULL)
        MPI_Comm_free(&none);

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && *tag_ub >= 32767);

    MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, NULL);
    MPI_Comm_set_attr(half, keyval, &value);
    MPI_Comm_dup(half, &dup);
    CHECK(copies == 1 && copy_from == half);
    MPI_Comm_compare(half, dup, &result);
    CHECK(result == MPI_CONGRUENT);
    {
        int *got;
        MPI_Comm_get_attr(dup, keyval, &got, &flag);
        CHECK(flag && got == &value);
    }
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL);
    CHECK(deletes == 1);
    MPI_Comm_free_keyval(&keyval);
    CHECK(keyval == MPI_KEYVAL_INVALID);

    /* MPI_COMM_DUP_FN copies the value */
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
    {
        int *got;
        MPI_Comm_get_attr(dup2, keyval, &got, &flag);
        CHECK(flag && got == &value);
    }
    MPI_Comm_free(&dup2);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_free_keyval(&keyval);

    /* groups */
    {
        MPI_Group world, hg;
        int r1[3] = {0, MPI_PROC_NULL, size - 1}, r2[3];
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Comm_group(half, &hg);
        MPI_Group_translate_ranks(world, 3, r1, hg, r2);
        CHECK(r2[1] == MPI_PROC_NULL);
        CHECK(rank % 2 == 0 ? r2[0] != MPI_UNDEFINED : r2[0] == MPI_UNDEFINED);
        MPI_Group_compare(world, world, &result);
        CHECK(result == MPI_IDENT);
        MPI_Group_free(&hg);
        MPI_Group_free(&world);
        CHECK(world == MPI_GROUP_NULL);
    }

    /* topologies */
    {
        int dims[1] = {size}, periods[1] = {0}, status, src, dst;
        MPI_Comm cart;
        MPI_Topo_test(MPI_COMM_WORLD, &status);
        CHECK(status == MPI_UNDEFINED);
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
        MPI_Topo_test(cart, &status);
        CHECK(status == MPI_CART);
        MPI_Cart_shift(cart, 0, 1, &src, &dst);
        CHECK(rank == 0 ? src == MPI_PROC_NULL : src == rank - 1);
        CHECK(rank == size - 1 ? dst == MPI_PROC_NULL : dst == rank + 1);
        MPI_Comm_free(&cart);
    }

    /* errors: MPI_ERRORS_RETURN, then a handler of the user's */
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    {
        int err = MPI_Send(&value, 1, MPI_INT, 1000, 0, half);
        CHECK(err != MPI_SUCCESS);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_RANK);
        MPI_Error_string(err, msg, &len);
        CHECK(len > 0 && strstr(msg, "MPI_Send") != NULL);
        err = MPI_Send(&value, 1, MPI_INT, 0, -5, half);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_TAG);
    }
    {
        MPI_Errhandler eh, got;
        MPI_Comm_create_errhandler(handler, &eh);
        MPI_Comm_set_errhandler(half, eh);
        MPI_Comm_get_errhandler(half, &got);
        CHECK(got == eh);
        MPI_Errhandler_free(&got);
        int err = MPI_Send(&value, -1, MPI_INT, 0, 0, half);
        CHECK(handler_calls == 1);
        CHECK(handler_comm == half);
        CHECK(handler_class == MPI_ERR_COUNT);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_COUNT);
        /* the user passes the code on to the handler: it runs again */
        MPI_Comm_call_errhandler(half, err);
        CHECK(handler_calls == 2 && handler_class == MPI_ERR_COUNT);
        MPI_Comm_call_errhandler(half, MPI_ERR_OTHER);
        CHECK(handler_calls == 3 && handler_class == MPI_ERR_OTHER);
        MPI_Errhandler_free(&eh);
        CHECK(eh == MPI_ERRHANDLER_NULL);
    }
    MPI_Comm_free(&half);
    return abi_finish();
}
