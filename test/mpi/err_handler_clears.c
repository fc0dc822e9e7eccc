/*
 * A user's error handler that records the error and clears it (sets the
 * code to MPI_SUCCESS), as error-tolerant programs and language bindings
 * do: every call whose arguments are wrong must run the handler once,
 * return what the handler left (MPI_SUCCESS), and stop there. It went on
 * with the rejected argument: MPI_Comm_size(MPI_COMM_WORLD, NULL) died
 * with SIGSEGV, a send to a rank beyond the communicator went on into the
 * device. These are the argument checks of the generated entry points
 * (mpi/api/gen.py), on a communicator and a window; afterwards the
 * communicator still carries traffic. Also steps inside mpi/type.c's
 * implementations that raise (MPI_CANAL_HANDLED, mapped back by the
 * datatype chapters' entry points).
 */
#include "mtest.h"

static int ncalls, last_class;

static void comm_clear(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    ncalls++;
    MPI_Error_class(*code, &last_class);
    *code = MPI_SUCCESS;
}

static void win_clear(MPI_Win *win, int *code, ...)
{
    (void)win;
    ncalls++;
    MPI_Error_class(*code, &last_class);
    *code = MPI_SUCCESS;
}

/* the call returned rc: the handler must have run once with class want */
static void expect(const char *what, int rc, int before, int want)
{
    CHECK(rc == MPI_SUCCESS, "%s: returned %d, want the handler's MPI_SUCCESS", what, rc);
    CHECK(ncalls == before + 1, "%s: handler ran %d times, want 1", what, ncalls - before);
    CHECK(last_class == want, "%s: error class %d, want %d", what, last_class, want);
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh, weh;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Win win;
    int buf[4] = {0}, rc, before, rank, size, peer, got = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_create_errhandler(comm_clear, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Errhandler_free(&eh);

    before = ncalls;
    rc = MPI_Comm_size(MPI_COMM_WORLD, NULL);
    expect("MPI_Comm_size(size=NULL)", rc, before, MPI_ERR_ARG);
    before = ncalls;
    rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    expect("MPI_Comm_rank(rank=NULL)", rc, before, MPI_ERR_ARG);
    before = ncalls;
    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    expect("MPI_Send(dest=size)", rc, before, MPI_ERR_RANK);
    before = ncalls;
    rc = MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    expect("MPI_Send(count=-1)", rc, before, MPI_ERR_COUNT);
    before = ncalls;
    rc = MPI_Recv(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &st);
    expect("MPI_Recv(tag=-5)", rc, before, MPI_ERR_TAG);
    before = ncalls;
    rc = MPI_Isend(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req);
    expect("MPI_Isend(datatype=MPI_DATATYPE_NULL)", rc, before, MPI_ERR_TYPE);
    before = ncalls;
    rc = MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    expect("MPI_Irecv(request=NULL)", rc, before, MPI_ERR_ARG);
    before = ncalls;
    rc = MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD);
    expect("MPI_Bcast(root=size)", rc, before, MPI_ERR_ROOT);
    before = ncalls;
    rc = MPI_Allreduce(buf, buf + 1, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("MPI_Allreduce(count=-3)", rc, before, MPI_ERR_COUNT);

    /* steps inside mpi/type.c's implementations that raise (they went on:
     * MPI_Type_size of MPI_DATATYPE_NULL died with SIGSEGV) */
    before = ncalls;
    rc = MPI_Type_size(MPI_DATATYPE_NULL, &got);
    expect("MPI_Type_size(MPI_DATATYPE_NULL)", rc, before, MPI_ERR_TYPE);
    {
        MPI_Datatype nt = MPI_DATATYPE_NULL, types[2] = {MPI_INT, MPI_DATATYPE_NULL};
        int lens[2] = {1, 1};
        MPI_Aint displs[2] = {0, 8};
        MPI_Count csize = -1;

        before = ncalls;
        rc = MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &nt);
        expect("MPI_Type_contiguous(oldtype=MPI_DATATYPE_NULL)", rc, before, MPI_ERR_TYPE);
        CHECK(nt == MPI_DATATYPE_NULL, "MPI_Type_contiguous: newtype %#x set", (unsigned)nt);
        before = ncalls;
        rc = MPI_Type_create_struct(2, lens, displs, types, &nt);
        expect("MPI_Type_create_struct(types[1]=MPI_DATATYPE_NULL)", rc, before, MPI_ERR_TYPE);
        CHECK(nt == MPI_DATATYPE_NULL, "MPI_Type_create_struct: newtype %#x set", (unsigned)nt);
        before = ncalls;
        rc = MPI_Type_size_x(MPI_DATATYPE_NULL, &csize);
        expect("MPI_Type_size_x(MPI_DATATYPE_NULL)", rc, before, MPI_ERR_TYPE);
        before = ncalls;
        rc = MPI_Type_extent(MPI_DATATYPE_NULL, displs); /* (deprecated chapter) */
        expect("MPI_Type_extent(MPI_DATATYPE_NULL)", rc, before, MPI_ERR_TYPE);
    }

    /* a window with its own clearing handler */
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create_errhandler(win_clear, &weh);
    MPI_Win_set_errhandler(win, weh);
    MPI_Errhandler_free(&weh);
    before = ncalls;
    rc = MPI_Win_get_group(win, NULL);
    expect("MPI_Win_get_group(group=NULL)", rc, before, MPI_ERR_ARG);
    MPI_Win_free(&win);

    /* the communicator still works: a ring exchange */
    peer = (rank + 1) % size;
    buf[0] = rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    OK(MPI_Sendrecv(buf, 1, MPI_INT, peer, 7, &got, 1, MPI_INT, (rank + size - 1) % size, 7,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == (rank + size - 1) % size, "ring: got %d from %d", got, (rank + size - 1) % size);
    mtest_rank = rank;
    mtest_size = size;
    return mtest_finish();
}
