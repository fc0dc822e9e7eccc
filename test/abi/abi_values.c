/*
 * abi_values.c -- values the standard ABI's binding converts beyond handles,
 * ranks and tags:
 *  - MPI_Type_get_contents(_c) of a subarray or darray gives the order, the
 *    distributions and MPI_DISTRIBUTE_DFLT_DARG as the standard's constants;
 *    a darg is a block size, never a constant (cyclic(17) and cyclic(18),
 *    17 and 18 being MPI_DISTRIBUTE_BLOCK and _CYCLIC, still own the
 *    elements of cyclic(17) and cyclic(18));
 *  - the conversion and extent functions of a user data representation
 *    (MPI_Register_datarep) receive the datatype handle of the standard;
 *  - the error codes of a failed MPI_Comm_spawn and MPI_Comm_spawn_multiple
 *    are the standard's (class MPI_ERR_SPAWN), and the intercommunicator
 *    the failed call set is MPI_COMM_NULL (not the caller's old value);
 *  - MPI_Get_version answers the header's MPI_VERSION and MPI_SUBVERSION;
 *  - MPI_Comm_idup's new communicator, which exists only once the request
 *    completes, is a usable handle then;
 *  - the MPI_HOST and MPI_IO attributes are ranks or the standard's
 *    MPI_PROC_NULL / MPI_ANY_SOURCE.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi_util.h"

enum { GSIZE = 100 };

/* elements of a cyclic(darg) distribution of GSIZE over nprocs that rank owns */
static int cyclic_share(int darg, int nprocs, int rank)
{
    int n = 0;
    for (int i = 0; i < GSIZE; i++)
        if ((i / darg) % nprocs == rank)
            n++;
    return n;
}

static void check_darray(int size, int rank, int distrib, int darg, int order)
{
    int gsizes[1] = {GSIZE}, distribs[1] = {distrib}, dargs[1] = {darg}, psizes[1] = {size};
    int ni, na, nd, comb, ints[16], tsize;
    MPI_Aint addrs[1];
    MPI_Datatype t, types[1];

    CHECK(MPI_Type_create_darray(size, rank, 1, gsizes, distribs, dargs, psizes, order, MPI_INT,
                                 &t) == MPI_SUCCESS);
    MPI_Type_size(t, &tsize);
    if (distrib == MPI_DISTRIBUTE_CYCLIC && darg != MPI_DISTRIBUTE_DFLT_DARG)
        CHECK(tsize == (int)sizeof(int) * cyclic_share(darg, size, rank));
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 8 && na == 0 && nd == 1);
    CHECK(MPI_Type_get_contents(t, 16, 1, 1, ints, addrs, types) == MPI_SUCCESS);
    CHECK(ints[0] == size && ints[1] == rank && ints[2] == 1 && ints[3] == GSIZE);
    CHECK(ints[4] == distrib);
    CHECK(ints[5] == darg);
    CHECK(ints[6] == size);
    CHECK(ints[7] == order);
    CHECK(types[0] == MPI_INT);
    MPI_Type_free(&t);
}

static void check_subarray(int order)
{
    int sizes[2] = {10, 20}, subsizes[2] = {5, 6}, starts[2] = {1, 2};
    int ni, na, nd, comb, ints[16];
    MPI_Count sizes_c[2] = {10, 20}, subsizes_c[2] = {5, 6}, starts_c[2] = {1, 2};
    MPI_Count cni, cna, cnc, cnd, counts[8];
    MPI_Aint addrs[1];
    MPI_Datatype t, types[1];

    CHECK(MPI_Type_create_subarray(2, sizes, subsizes, starts, order, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8);
    CHECK(MPI_Type_get_contents(t, 16, 1, 1, ints, addrs, types) == MPI_SUCCESS);
    CHECK(ints[0] == 2 && ints[1] == 10 && ints[3] == 5 && ints[5] == 1);
    CHECK(ints[7] == order);
    MPI_Type_free(&t);

    CHECK(MPI_Type_create_subarray_c(2, sizes_c, subsizes_c, starts_c, order, MPI_INT, &t) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_SUBARRAY && cni == 2 && cnc == 6);
    CHECK(MPI_Type_get_contents_c(t, 16, 1, 8, 1, ints, addrs, counts, types) == MPI_SUCCESS);
    CHECK(ints[0] == 2 && ints[1] == order && counts[0] == 10);
    MPI_Type_free(&t);
}

/* ---- a data representation that stores ints as they are */
static int datarep_calls, datarep_bad_type;

static int rep_extent(MPI_Datatype dt, MPI_Aint *extent, void *state)
{
    (void)state;
    datarep_calls++;
    if (dt != MPI_INT)
        datarep_bad_type++;
    *extent = sizeof(int);
    return MPI_SUCCESS;
}

static int rep_convert(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                       MPI_Offset position, void *state)
{
    int write = *(int *)state;
    datarep_calls++;
    if (dt != MPI_INT)
        datarep_bad_type++;
    if (write)
        memcpy((int *)filebuf, (int *)userbuf + position, sizeof(int) * (size_t)count);
    else
        memcpy((int *)userbuf + position, filebuf, sizeof(int) * (size_t)count);
    return MPI_SUCCESS;
}

static int rep_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                    void *state)
{
    int w = 0;
    (void)state;
    return rep_convert(userbuf, dt, count, filebuf, position, &w);
}

static int rep_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                     void *state)
{
    int w = 1;
    (void)state;
    return rep_convert(userbuf, dt, count, filebuf, position, &w);
}

static void check_datarep(int rank)
{
    char path[256];
    int out[4] = {1, 2, 3, 4}, in[4] = {0};
    MPI_File fh;

    snprintf(path, sizeof path, "/tmp/canal_abi_datarep.%ld.%d", (long)getpid(), rank);
    CHECK(MPI_Register_datarep("canal_abi_test", rep_read, rep_write, rep_extent, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "canal_abi_test", MPI_INFO_NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_File_write_at(fh, 0, out, 4, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_read_at(fh, 0, in, 4, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK(datarep_calls > 0);
    CHECK(datarep_bad_type == 0);
    MPI_File_close(&fh);
}

static void check_spawn(void)
{
    char *cmds[2] = {"/nonexistent/canal-abi-a", "/nonexistent/canal-abi-b"};
    int maxprocs[2] = {1, 2}, codes[3] = {-1, -1, -1}, err, cls;
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm inter = MPI_COMM_WORLD;

    err = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD,
                                  &inter, codes);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    for (int i = 0; i < 3; i++) {
        MPI_Error_class(codes[i], &cls);
        CHECK(cls == MPI_ERR_SPAWN);
    }
    codes[0] = codes[1] = -1;
    inter = MPI_COMM_SELF;
    err = MPI_Comm_spawn(cmds[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    for (int i = 0; i < 2; i++) {
        MPI_Error_class(codes[i], &cls);
        CHECK(cls == MPI_ERR_SPAWN);
    }
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    {
        /* the version the header says (MPI 5.0 in the standard's; MPICH's ABI 4.0) */
        int v = -1, sv = -1;
        CHECK(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == MPI_VERSION && sv == MPI_SUBVERSION);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    check_subarray(MPI_ORDER_C);
    check_subarray(MPI_ORDER_FORTRAN);
    check_darray(size, rank, MPI_DISTRIBUTE_CYCLIC, 17, MPI_ORDER_C);
    check_darray(size, rank, MPI_DISTRIBUTE_CYCLIC, 18, MPI_ORDER_FORTRAN);
    check_darray(size, rank, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, MPI_ORDER_C);
    if (size == 1) /* a distribution NONE needs one process in its dimension */
        check_darray(size, rank, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG, MPI_ORDER_FORTRAN);
    check_datarep(rank);
    {
        /* a single-completion call leaves the status's MPI_ERROR as it was */
        int a = rank, b = -1;
        MPI_Status st;
        MPI_Message msg;
        st.MPI_ERROR = MPI_ERR_DIMS;
        CHECK(MPI_Sendrecv(&a, 1, MPI_INT, rank, 5, &b, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS);
        CHECK(b == rank && st.MPI_ERROR == MPI_ERR_DIMS && st.MPI_TAG == 5);
        CHECK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
        CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_ERROR == MPI_ERR_DIMS);
    }
    {
        MPI_Comm dup = MPI_COMM_NULL;
        MPI_Request r;
        int n = -1, flag = 0, *v = NULL;
        CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Comm_size(dup, &n) == MPI_SUCCESS && n == size);
        CHECK(MPI_Barrier(dup) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL);
        CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag) == MPI_SUCCESS && flag);
        CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
        CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag) == MPI_SUCCESS && flag);
        CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
    }
    check_spawn();
    return abi_finish();
}
