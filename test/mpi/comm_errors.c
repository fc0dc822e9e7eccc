/* Bad input to the communicator functions, with MPI_ERRORS_RETURN: invalid,
 * null and freed communicators, predefined communicators that cannot be
 * freed, bad colours, groups that are not subsets, intercommunicator calls
 * on intracommunicators, bad leaders and tags, bad info; every case checks
 * the MPICH error class (and one the message), and a new communicator
 * inherits its parent's error handler. */
#include "mtest.h"

static int handler_calls;
static void count_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
}

#define EXPECT_CLASS(call, cls)                                                                    \
    do {                                                                                           \
        int e_ = (call);                                                                           \
        CHECK(mtest_error_class(e_) == (cls), "%s: class %d, expected %d (%s)", #call,             \
              mtest_error_class(e_), (cls), #cls);                                                 \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Comm c, half, dup, inter = MPI_COMM_NULL;
    MPI_Group world, g;
    MPI_Errhandler eh;
    char msg[MPI_MAX_ERROR_STRING];
    int rank, size, err, len, x;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_dup((MPI_Comm)0x44abcdef, &c), MPI_ERR_COMM);
    err = MPI_Comm_dup(MPI_COMM_NULL, &c);
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "MPI_Comm_dup") != NULL && strstr(msg, "comm") != NULL, "message \"%s\"",
          msg);
    EXPECT_CLASS(MPI_Comm_free(&(MPI_Comm){MPI_COMM_WORLD}), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_free(&(MPI_Comm){MPI_COMM_SELF}), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_free(&(MPI_Comm){MPI_COMM_NULL}), MPI_ERR_COMM);

    /* freed communicators are invalid; the error handler is inherited */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_errhandler(dup, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "dup did not inherit MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    c = dup;
    MPI_Comm_free(&dup);
    EXPECT_CLASS(MPI_Comm_size(c, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_free(&c), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, c), MPI_ERR_COMM);

    /* a user handler is inherited and called */
    MPI_Comm_create_errhandler(count_handler, &eh);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Errhandler_free(&eh);
    MPI_Comm_split(dup, 0, 0, &c);
    MPI_Send(&x, 1, MPI_INT, size, 0, c); /* bad rank: the handler runs */
    CHECK(handler_calls == 1, "inherited handler called %d times", handler_calls);
    MPI_Comm_free(&c);
    MPI_Comm_free(&dup);

    /* split */
    EXPECT_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG);

    /* create: groups that are not subsets of the communicator */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    if (size > 1)
        EXPECT_CLASS(MPI_Comm_create(half, world, &c), MPI_ERR_GROUP);
    EXPECT_CLASS(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, world, -1, &c), MPI_ERR_TAG);
    if (size > 1)
        EXPECT_CLASS(MPI_Comm_create_group(half, world, 0, &c), MPI_ERR_GROUP);

    /* intercommunicator-only calls on an intracommunicator */
    EXPECT_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &x), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Intercomm_create(half, -1, MPI_COMM_WORLD, 0, 0, &c), MPI_ERR_RANK);
    /* a bad remote leader is seen by the leaders only; their groups fail too */
    EXPECT_CLASS(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, size, 0, &c),
                 rank < 2 ? MPI_ERR_RANK : MPI_ERR_OTHER);
    if (size > 1) {
        /* the intracommunicator-only calls on an intercommunicator */
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 1, &inter);
        EXPECT_CLASS(MPI_Comm_create_group(inter, world, 0, &c), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c),
                     MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Cart_create(inter, 0, NULL, NULL, 0, &c), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, size, 0, inter), MPI_ERR_RANK);
        MPI_Comm_free(&inter);
    }

    /* names and info */
    EXPECT_CLASS(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL), MPI_ERR_INFO);
    EXPECT_CLASS(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)0x1c00abcd, &c), MPI_ERR_INFO);
    {
        char longname[300];
        memset(longname, 'n', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        MPI_Comm_set_name(half, longname); /* truncated, as MPICH does */
        MPI_Comm_get_name(half, msg, &len);
        CHECK(len == MPI_MAX_OBJECT_NAME - 1, "long name kept %d chars", len);
    }
    EXPECT_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &c, NULL), MPI_ERR_ARG);

    MPI_Comm_free(&half);
    MPI_Group_free(&world);
    return mtest_finish();
}
