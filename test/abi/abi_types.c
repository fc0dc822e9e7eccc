/*
 * abi_types.c -- the standard ABI's datatypes that MPICH 4.0.2's ABI lacks
 * (MPICH 4.2 has them): MPI_LOGICAL1/2/4/8/16, MPI_REAL2, MPI_COMPLEX4 are
 * real datatypes: their sizes and names, the logical reductions on every
 * LOGICALk, sums and maxima of REAL2 and sums and products of COMPLEX4 across
 * the ranks, and a clear error for an operation a type does not allow.
 */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "abi_util.h"

static void check_size_name(MPI_Datatype t, int size, const char *name)
{
    int sz = -1, len = 0;
    char got[MPI_MAX_OBJECT_NAME];
    CHECK(MPI_Type_size(t, &sz) == MPI_SUCCESS && sz == size);
    CHECK(MPI_Type_get_name(t, got, &len) == MPI_SUCCESS && strcmp(got, name) == 0);
}

/* LAND, LOR, LXOR over 2 elements of a k-byte logical: element 0 is true on
 * every rank, element 1 only on rank 0 */
#define CHECK_LOGICAL(T, dt)                                                                    \
    do {                                                                                        \
        T in[2] = {(T)3, (T)(rank == 0 ? 5 : 0)}, out[2];                                       \
        CHECK(MPI_Allreduce(in, out, 2, dt, MPI_LAND, MPI_COMM_WORLD) == MPI_SUCCESS);          \
        CHECK(out[0] != 0 && (out[1] != 0) == (size == 1));                                      \
        CHECK(MPI_Allreduce(in, out, 2, dt, MPI_LOR, MPI_COMM_WORLD) == MPI_SUCCESS);           \
        CHECK(out[0] != 0 && out[1] != 0);                                                       \
        CHECK(MPI_Allreduce(in, out, 2, dt, MPI_LXOR, MPI_COMM_WORLD) == MPI_SUCCESS);          \
        CHECK((out[0] != 0) == (size % 2 == 1) && out[1] != 0);                                  \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, err, cls;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    check_size_name(MPI_LOGICAL1, 1, "MPI_LOGICAL1");
    check_size_name(MPI_LOGICAL2, 2, "MPI_LOGICAL2");
    check_size_name(MPI_LOGICAL4, 4, "MPI_LOGICAL4");
    check_size_name(MPI_LOGICAL8, 8, "MPI_LOGICAL8");
    check_size_name(MPI_LOGICAL16, 16, "MPI_LOGICAL16");
    check_size_name(MPI_REAL2, 2, "MPI_REAL2");
    check_size_name(MPI_COMPLEX4, 4, "MPI_COMPLEX4");

    CHECK_LOGICAL(int8_t, MPI_LOGICAL1);
    CHECK_LOGICAL(int16_t, MPI_LOGICAL2);
    CHECK_LOGICAL(int32_t, MPI_LOGICAL4);
    CHECK_LOGICAL(int64_t, MPI_LOGICAL8);
    CHECK_LOGICAL(__int128, MPI_LOGICAL16);

#ifdef __FLT16_MAX__
    {
        _Float16 in = (_Float16)(rank + 1), out = 0;
        CHECK(MPI_Allreduce(&in, &out, 1, MPI_REAL2, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK((float)out == (float)(size * (size + 1) / 2));
        CHECK(MPI_Allreduce(&in, &out, 1, MPI_REAL2, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK((float)out == (float)size);
    }
    {
        /* (rank + 1) + 2i summed; (1 + i)^size multiplied */
        _Float16 in[2] = {(_Float16)(rank + 1), (_Float16)2}, out[2] = {0, 0}, re = 1, im = 0;
        CHECK(MPI_Allreduce(in, out, 1, MPI_COMPLEX4, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK((float)out[0] == (float)(size * (size + 1) / 2) && (float)out[1] == (float)(2 * size));
        in[0] = 1, in[1] = 1;
        CHECK(MPI_Allreduce(in, out, 1, MPI_COMPLEX4, MPI_PROD, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < size; i++) {
            _Float16 r = re - im, m = re + im;
            re = r, im = m;
        }
        CHECK((float)out[0] == (float)re && (float)out[1] == (float)im);
    }
#endif

    /* an operation the type does not allow: MPI_ERR_OP, nothing reduced */
    {
        int8_t in = 1, out = 7;
        err = MPI_Allreduce(&in, &out, 1, MPI_LOGICAL1, MPI_SUM, MPI_COMM_WORLD);
        MPI_Error_class(err, &cls);
        CHECK(err != MPI_SUCCESS && cls == MPI_ERR_OP);
    }
    return abi_finish();
}
