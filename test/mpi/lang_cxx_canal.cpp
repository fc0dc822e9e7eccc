// A C++ program built with Canal's own mpicxx: Canal's mpi.h from C++
// (extern "C", <cstdint>), the C API called with C++ types: std::vector
// buffers, a user operation written as a lambda, an error handler,
// MPI_CXX_BOOL and MPI_CXX_DOUBLE_COMPLEX in reductions.
#include <mpi.h>
#include <complex>
#include <cstdio>
#include <vector>

static int errs = 0;
static int handler_calls = 0;

static void check(bool ok, const char *what)
{
    if (!ok) {
        errs++;
        std::printf("FAILED: %s\n", what);
    }
}

static void on_error(MPI_Comm *, int *code, ...)
{
    int cls;
    MPI_Error_class(*code, &cls);
    if (cls == MPI_ERR_RANK)
        handler_calls++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    std::vector<double> v(8, rank + 1.0), sum(8, 0.0);
    MPI_Allreduce(v.data(), sum.data(), (int)v.size(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check(sum[7] == size * (size + 1) / 2.0, "Allreduce of a std::vector");

    MPI_Op maxabs;
    MPI_Op_create(
        [](void *in, void *inout, int *len, MPI_Datatype *) {
            const int *a = static_cast<const int *>(in);
            int *b = static_cast<int *>(inout);
            for (int i = 0; i < *len; i++)
                b[i] = (a[i] < 0 ? -a[i] : a[i]) > (b[i] < 0 ? -b[i] : b[i]) ? a[i] : b[i];
        },
        1, &maxabs);
    int mine = rank % 2 ? -rank : rank, got = 0;
    MPI_Allreduce(&mine, &got, 1, MPI_INT, maxabs, MPI_COMM_WORLD);
    check(got == ((size - 1) % 2 ? -(size - 1) : size - 1), "a lambda as the user operation");
    MPI_Op_free(&maxabs);

    bool t = rank >= 0, all = false;
    MPI_Allreduce(&t, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
    check(all, "MPI_CXX_BOOL with MPI_LAND");
    std::complex<double> z(rank, 1.0), zs;
    MPI_Allreduce(&z, &zs, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    check(zs.imag() == size, "MPI_CXX_DOUBLE_COMPLEX with MPI_SUM");

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, comm);
    check(rc != MPI_SUCCESS && handler_calls == 1, "a lambda as the error handler");
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);

    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return 0;
}
