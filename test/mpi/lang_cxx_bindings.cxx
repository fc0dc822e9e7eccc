// The MPI-2 C++ bindings of MPICH's own C++ library (libmpichcxx.so.12,
// built with mpicxx.mpich) on Canal: a user operation made by
// MPI::Op::Init is called with C++'s signature (count by value, a
// const MPI::Datatype&) by Allreduce and Reduce_local; a C++ error handler
// (MPI::Comm::Create_errhandler) set on a communicator records the error
// and the failed call returns normally; MPI::ERRORS_THROW_EXCEPTIONS makes
// a failed call throw MPI::Exception with the error class; C++ keyvals
// (MPI::Comm::Create_keyval) copy on Dup and delete on Free.
#include <mpi.h>
#include <cstdio>

static int errs = 0;
static int handler_calls = 0, handler_class = 0;
static bool handler_was_intra = false;
static int copies = 0, deletes = 0;
static long deleted_value = 0;

static void check(bool ok, const char *what)
{
    if (!ok) {
        errs++;
        std::printf("FAILED: %s\n", what);
    }
}

static void my_prod(const void *in, void *inout, int len, const MPI::Datatype &dt)
{
    const long *a = static_cast<const long *>(in);
    long *b = static_cast<long *>(inout);
    if (dt != MPI::LONG)
        errs++;
    for (int i = 0; i < len; i++)
        b[i] = a[i] * b[i];
}

static void my_handler(MPI::Comm &comm, int *code, ...)
{
    handler_calls++;
    handler_class = MPI::Get_error_class(*code);
    handler_was_intra = dynamic_cast<MPI::Intracomm *>(&comm) != 0;
}

static int my_copy(const MPI::Comm &, int, void *extra, void *in, void *out, bool &flag)
{
    copies++;
    check(extra == &copies, "the copy function gets extra_state");
    *static_cast<long **>(out) = new long(*static_cast<long *>(in) + 1);
    flag = true;
    return MPI::SUCCESS;
}

static int my_delete(MPI::Comm &, int, void *val, void *)
{
    deletes++;
    deleted_value = *static_cast<long *>(val);
    delete static_cast<long *>(val);
    return MPI::SUCCESS;
}

int main(int argc, char **argv)
{
    MPI::Init(argc, argv);
    int rank = MPI::COMM_WORLD.Get_rank(), size = MPI::COMM_WORLD.Get_size();

    // user operation: the product of rank + 1 over all ranks
    MPI::Op prod;
    prod.Init(my_prod, true);
    long v[2] = {rank + 1L, 2}, r[2] = {0, 0}, fact = 1, pow2 = 1;
    MPI::COMM_WORLD.Allreduce(v, r, 2, MPI::LONG, prod);
    for (int i = 1; i <= size; i++) {
        fact *= i;
        pow2 *= 2;
    }
    check(r[0] == fact && r[1] == pow2, "Allreduce with a C++ MPI::Op");
    long a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    prod.Reduce_local(a, b, 3, MPI::LONG);
    check(b[0] == 4 && b[1] == 10 && b[2] == 18, "Reduce_local with a C++ MPI::Op");
    check(prod.Is_commutative(), "Is_commutative");
    prod.Free();

    // a C++ error handler: called, then the call returns
    MPI::Intracomm comm = MPI::COMM_WORLD.Dup();
    MPI::Errhandler eh = MPI::Comm::Create_errhandler(my_handler);
    comm.Set_errhandler(eh);
    int x = 0;
    comm.Send(&x, 1, MPI::INT, size, 0); // no such rank
    check(handler_calls == 1 && handler_class == MPI::ERR_RANK, "the C++ handler saw MPI::ERR_RANK");
    check(handler_was_intra, "the handler got an MPI::Intracomm");
    comm.Call_errhandler(MPI::ERR_OTHER);
    check(handler_calls == 2 && handler_class == MPI::ERR_OTHER, "Call_errhandler calls the C++ handler");
    eh.Free();

    // MPI::ERRORS_THROW_EXCEPTIONS
    comm.Set_errhandler(MPI::ERRORS_THROW_EXCEPTIONS);
    bool thrown = false;
    try {
        comm.Send(&x, 1, MPI::INT, size, 0);
    } catch (MPI::Exception &e) {
        thrown = true;
        check(e.Get_error_class() == MPI::ERR_RANK, "the exception has class MPI::ERR_RANK");
    }
    check(thrown, "MPI::ERRORS_THROW_EXCEPTIONS throws");
    check(handler_calls == 2, "the old handler is not called any more");

    // C++ keyvals
    int key = MPI::Comm::Create_keyval(my_copy, my_delete, &copies);
    comm.Set_attr(key, new long(41));
    MPI::Intracomm dup = comm.Dup();
    long *got = 0;
    bool found = dup.Get_attr(key, &got);
    check(copies == 1 && found && got != 0 && *got == 42, "Dup called the C++ copy function");
    dup.Free();
    check(deletes == 1 && deleted_value == 42, "Free called the C++ delete function");
    comm.Delete_attr(key);
    check(deletes == 2 && deleted_value == 41, "Delete_attr called the C++ delete function");
    MPI::Comm::Free_keyval(key);
    comm.Free();

    int all = 0;
    MPI::COMM_WORLD.Reduce(&errs, &all, 1, MPI::INT, MPI::SUM, 0);
    if (rank == 0) {
        if (all == 0)
            std::printf(" No Errors\n");
        else
            std::printf(" Found %d errors\n", all);
    }
    MPI::Finalize();
    return 0;
}
