/*
 * The functions MPI 5.0 adds, in libmpi.so.12 (MPICH's ABI): the ABI
 * queries of chapter 20 (MPI_Abi_get_version, MPI_Abi_get_info, the
 * Fortran ABI info and booleans) and the integer handle conversions
 * (MPI_Comm_toint/fromint and the other pairs). Their entry points are
 * generated from mpi/api/mpi50.api.
 *
 * In libmpi.so.12, which is not the standard ABI, MPI_Abi_get_version
 * answers -1.-1 as MPICH does; in libmpi_abi.so.1 (mpi/abi/) it answers 1.0. Canal's Fortran library (libmpifort, built with
 * gfortran) fixes the Fortran ABI: INTEGER, REAL and LOGICAL of 4 bytes,
 * DOUBLE PRECISION of 8, .TRUE. = 1 and .FALSE. = 0 (bindings/fortran/f77.h);
 * MPI_Abi_set_fortran_* accept exactly that and answer MPI_ERR_ABI
 * otherwise. In MPICH's ABI a handle is an int already (MPI_File excepted),
 * so the integer form of a handle is its Fortran form, the handle itself.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- ABI queries */
int mpi_abi_get_version_impl(int *abi_major, int *abi_minor, const char *fn)
{
    (void)fn;
    /* libmpi.so.12 is MPICH's ABI, not the standard one (MPI 5.0 20.2): -1.-1;
     * the same code in libmpi_abi.so.1 answers the standard ABI's version */
    *abi_major = mpi_abi_standard ? 1 : -1;
    *abi_minor = mpi_abi_standard ? 0 : -1;
    return MPI_SUCCESS;
}

/* A new info object with `n` key/value pairs; on error none is left. */
static int info_with(MPI_Info *out, const char *const kv[][2], int n, const char *fn)
{
    MPI_Info info = MPI_INFO_NULL;
    int err = mpi_info_create_impl(&info, fn);

    for (int i = 0; err == MPI_SUCCESS && i < n; i++)
        err = mpi_info_set_impl(info, kv[i][0], kv[i][1], fn);
    if (err != MPI_SUCCESS) {
        if (info != MPI_INFO_NULL)
            mpi_info_free_impl(&info, fn);
        return err;
    }
    *out = info;
    return MPI_SUCCESS;
}

int mpi_abi_get_info_impl(MPI_Info *info, const char *fn)
{
    char a[8], c[8], o[8];
    snprintf(a, sizeof a, "%d", (int)sizeof(MPI_Aint));
    snprintf(c, sizeof c, "%d", (int)sizeof(MPI_Count));
    snprintf(o, sizeof o, "%d", (int)sizeof(MPI_Offset));
    const char *const kv[][2] = {
        {"mpi_aint_size", a}, {"mpi_count_size", c}, {"mpi_offset_size", o}};
    return info_with(info, kv, 3, fn);
}

/* The Fortran ABI of libmpifort: the sizes, then the optional types, each
 * "true" when this library has it (a type MPICH's header leaves as
 * MPI_DATATYPE_NULL, or one the datatype engine does not know, is "false";
 * MPI_LOGICAL1..16 are not in MPICH 4.0.2's ABI). */
enum { F_LOGICAL_SIZE = 4, F_TRUE = 1, F_FALSE = 0, N_FORTRAN_ABI = 23 };

static const char *const fortran_sizes[][2] = {
    {"mpi_logical_size", "4"},
    {"mpi_integer_size", "4"},
    {"mpi_real_size", "4"},
    {"mpi_double_precision_size", "8"},
};

static const struct {
    const char *key;
    MPI_Datatype type;
} fortran_optional[] = {
    {"mpi_logical1_supported", MPI_DATATYPE_NULL},
    {"mpi_logical2_supported", MPI_DATATYPE_NULL},
    {"mpi_logical4_supported", MPI_DATATYPE_NULL},
    {"mpi_logical8_supported", MPI_DATATYPE_NULL},
    {"mpi_logical16_supported", MPI_DATATYPE_NULL},
    {"mpi_integer1_supported", MPI_INTEGER1},
    {"mpi_integer2_supported", MPI_INTEGER2},
    {"mpi_integer4_supported", MPI_INTEGER4},
    {"mpi_integer8_supported", MPI_INTEGER8},
    {"mpi_integer16_supported", MPI_INTEGER16},
    {"mpi_real2_supported", MPI_DATATYPE_NULL},
    {"mpi_real4_supported", MPI_REAL4},
    {"mpi_real8_supported", MPI_REAL8},
    {"mpi_real16_supported", MPI_REAL16},
    {"mpi_complex4_supported", MPI_DATATYPE_NULL},
    {"mpi_complex8_supported", MPI_COMPLEX8},
    {"mpi_complex16_supported", MPI_COMPLEX16},
    {"mpi_complex32_supported", MPI_COMPLEX32},
    {"mpi_double_complex_supported", MPI_DOUBLE_COMPLEX},
};

_Static_assert(sizeof fortran_sizes / sizeof fortran_sizes[0] +
                       sizeof fortran_optional / sizeof fortran_optional[0] ==
                   N_FORTRAN_ABI,
               "N_FORTRAN_ABI counts the keys");

/* The key/value pairs of the Fortran ABI (N_FORTRAN_ABI of them). */
static void fortran_abi(const char *kv[N_FORTRAN_ABI][2])
{
    int n = 0;
    for (size_t i = 0; i < sizeof fortran_sizes / sizeof fortran_sizes[0]; i++, n++) {
        kv[n][0] = fortran_sizes[i][0];
        kv[n][1] = fortran_sizes[i][1];
    }
    for (size_t i = 0; i < sizeof fortran_optional / sizeof fortran_optional[0]; i++, n++) {
        MPI_Datatype t = fortran_optional[i].type;
        kv[n][0] = fortran_optional[i].key;
        kv[n][1] = t != MPI_DATATYPE_NULL && mpi_dt_get(t) != NULL ? "true" : "false";
    }
}

int mpi_abi_get_fortran_info_impl(MPI_Info *info, const char *fn)
{
    const char *kv[N_FORTRAN_ABI][2];
    fortran_abi(kv);
    return info_with(info, (const char *const(*)[2])kv, N_FORTRAN_ABI, fn);
}

/* Every key of `info` that describes the Fortran ABI must say what
 * libmpifort has; other keys are not about the ABI and are ignored. */
int mpi_abi_set_fortran_info_impl(MPI_Info info, const char *fn)
{
    const char *kv[N_FORTRAN_ABI][2];
    int err, nkeys = 0;

    if (info == MPI_INFO_NULL)
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info is MPI_INFO_NULL");
    if ((err = mpi_info_get_nkeys_impl(info, &nkeys, fn)) != MPI_SUCCESS)
        return err;
    fortran_abi(kv);
    for (int i = 0; i < N_FORTRAN_ABI; i++) {
        char value[MPI_MAX_INFO_VAL + 1];
        int len = (int)sizeof value, flag = 0;
        if ((err = mpi_info_get_string_impl(info, kv[i][0], &len, value, &flag, fn)))
            return err;
        if (flag && strcmp(value, kv[i][1]) != 0)
            return mpi_err_raise(NULL, MPI_ERR_ABI, fn,
                                 "info key %s=\"%s\" differs from this library's Fortran ABI "
                                 "(%s), which is fixed",
                                 kv[i][0], value, kv[i][1]);
    }
    return MPI_SUCCESS;
}

int mpi_abi_get_fortran_booleans_impl(int logical_size, void *logical_true, void *logical_false,
                                      int *is_set, const char *fn)
{
    if (logical_size != F_LOGICAL_SIZE)
        return mpi_err_raise(NULL, MPI_ERR_ABI, fn,
                             "logical_size=%d, but this library's Fortran LOGICAL has %d bytes",
                             logical_size, F_LOGICAL_SIZE);
    if (logical_true == NULL || logical_false == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             logical_true == NULL ? "logical_true" : "logical_false");
    *(int32_t *)logical_true = F_TRUE;
    *(int32_t *)logical_false = F_FALSE;
    *is_set = 1;
    return MPI_SUCCESS;
}

int mpi_abi_set_fortran_booleans_impl(int logical_size, void *logical_true, void *logical_false,
                                      const char *fn)
{
    if (logical_true == NULL || logical_false == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             logical_true == NULL ? "logical_true" : "logical_false");
    if (logical_size != F_LOGICAL_SIZE || *(int32_t *)logical_true != F_TRUE ||
        *(int32_t *)logical_false != F_FALSE)
        return mpi_err_raise(NULL, MPI_ERR_ABI, fn,
                             "this library's Fortran ABI is fixed: LOGICAL of %d bytes, "
                             ".TRUE. = %d, .FALSE. = %d (logical_size=%d was given)",
                             F_LOGICAL_SIZE, F_TRUE, F_FALSE, logical_size);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- integer handles */
/* No checks: like MPI_Comm_c2f, these convert whatever they are given. */
MPI_Comm mpi_comm_fromint_impl(int comm)
{
    return (MPI_Comm)comm;
}
int mpi_comm_toint_impl(MPI_Comm comm)
{
    return (int)comm;
}
MPI_Errhandler mpi_errhandler_fromint_impl(int errhandler)
{
    return (MPI_Errhandler)errhandler;
}
int mpi_errhandler_toint_impl(MPI_Errhandler errhandler)
{
    return (int)errhandler;
}
MPI_Group mpi_group_fromint_impl(int group)
{
    return (MPI_Group)group;
}
int mpi_group_toint_impl(MPI_Group group)
{
    return (int)group;
}
MPI_Info mpi_info_fromint_impl(int info)
{
    return (MPI_Info)info;
}
int mpi_info_toint_impl(MPI_Info info)
{
    return (int)info;
}
MPI_Message mpi_message_fromint_impl(int message)
{
    return (MPI_Message)message;
}
int mpi_message_toint_impl(MPI_Message message)
{
    return (int)message;
}
MPI_Op mpi_op_fromint_impl(int op)
{
    return (MPI_Op)op;
}
int mpi_op_toint_impl(MPI_Op op)
{
    return (int)op;
}
MPI_Request mpi_request_fromint_impl(int request)
{
    return (MPI_Request)request;
}
int mpi_request_toint_impl(MPI_Request request)
{
    return (int)request;
}
MPI_Session mpi_session_fromint_impl(int session)
{
    return (MPI_Session)session;
}
int mpi_session_toint_impl(MPI_Session session)
{
    return (int)session;
}
MPI_Datatype mpi_type_fromint_impl(int datatype)
{
    return (MPI_Datatype)datatype;
}
int mpi_type_toint_impl(MPI_Datatype datatype)
{
    return (int)datatype;
}
MPI_Win mpi_win_fromint_impl(int win)
{
    return (MPI_Win)win;
}
int mpi_win_toint_impl(MPI_Win win)
{
    return (int)win;
}

/* MPI_File is a pointer in MPICH's ABI: its integer form is its Fortran index. */
MPI_File mpi_file_fromint_impl(int file)
{
    return mpi_file_f2c_impl(file);
}
int mpi_file_toint_impl(MPI_File file)
{
    return mpi_file_c2f_impl(file);
}
