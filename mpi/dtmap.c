/*
 * The predefined datatype handles of the MPICH ABI and the lookup from any
 * datatype handle to the engine's type (datatype/dt.h). Builtin handles are
 * registered at MPI_Init; derived types created by mpi/type.c live in the
 * same handle table (the table stores the dt_type_t pointer).
 */
#include "mpiimpl.h"

typedef struct {
    MPI_Datatype handle;
    dt_builtin_t kind;
} dt_map_t;

static const dt_map_t builtin_map[] = {
    {MPI_CHAR, DT_CHAR},
    {MPI_SIGNED_CHAR, DT_SIGNED_CHAR},
    {MPI_UNSIGNED_CHAR, DT_UNSIGNED_CHAR},
    {MPI_BYTE, DT_BYTE},
    {MPI_WCHAR, DT_WCHAR},
    {MPI_SHORT, DT_SHORT},
    {MPI_UNSIGNED_SHORT, DT_UNSIGNED_SHORT},
    {MPI_INT, DT_INT},
    {MPI_UNSIGNED, DT_UNSIGNED},
    {MPI_LONG, DT_LONG},
    {MPI_UNSIGNED_LONG, DT_UNSIGNED_LONG},
    {MPI_FLOAT, DT_FLOAT},
    {MPI_DOUBLE, DT_DOUBLE},
    {MPI_LONG_DOUBLE, DT_LONG_DOUBLE},
    {MPI_LONG_LONG_INT, DT_LONG_LONG},
    {MPI_UNSIGNED_LONG_LONG, DT_UNSIGNED_LONG_LONG},
    {MPI_PACKED, DT_PACKED},
    {MPI_LB, DT_LB},
    {MPI_UB, DT_UB},
    {MPI_FLOAT_INT, DT_FLOAT_INT},
    {MPI_DOUBLE_INT, DT_DOUBLE_INT},
    {MPI_LONG_INT, DT_LONG_INT},
    {MPI_SHORT_INT, DT_SHORT_INT},
    {MPI_2INT, DT_2INT},
    {MPI_LONG_DOUBLE_INT, DT_LONG_DOUBLE_INT},
    {MPI_COMPLEX, DT_COMPLEX},
    {MPI_DOUBLE_COMPLEX, DT_DOUBLE_COMPLEX},
    {MPI_LOGICAL, DT_LOGICAL},
    {MPI_REAL, DT_REAL},
    {MPI_DOUBLE_PRECISION, DT_DOUBLE_PRECISION},
    {MPI_INTEGER, DT_INTEGER},
    {MPI_2INTEGER, DT_2INTEGER},
    {MPI_2REAL, DT_2REAL},
    {MPI_2DOUBLE_PRECISION, DT_2DOUBLE_PRECISION},
    {MPI_CHARACTER, DT_CHARACTER},
    {MPI_REAL4, DT_REAL4},
    {MPI_REAL8, DT_REAL8},
    {MPI_REAL16, DT_REAL16},
    {MPI_COMPLEX8, DT_COMPLEX8},
    {MPI_COMPLEX16, DT_COMPLEX16},
    {MPI_COMPLEX32, DT_COMPLEX32},
    {MPI_INTEGER1, DT_INTEGER1},
    {MPI_INTEGER2, DT_INTEGER2},
    {MPI_INTEGER4, DT_INTEGER4},
    {MPI_INTEGER8, DT_INTEGER8},
    {MPI_INT8_T, DT_INT8_T},
    {MPI_INT16_T, DT_INT16_T},
    {MPI_INT32_T, DT_INT32_T},
    {MPI_INT64_T, DT_INT64_T},
    {MPI_UINT8_T, DT_UINT8_T},
    {MPI_UINT16_T, DT_UINT16_T},
    {MPI_UINT32_T, DT_UINT32_T},
    {MPI_UINT64_T, DT_UINT64_T},
    {MPI_C_BOOL, DT_C_BOOL},
    {MPI_C_FLOAT_COMPLEX, DT_C_FLOAT_COMPLEX},
    {MPI_C_DOUBLE_COMPLEX, DT_C_DOUBLE_COMPLEX},
    {MPI_C_LONG_DOUBLE_COMPLEX, DT_C_LONG_DOUBLE_COMPLEX},
    {MPIX_C_FLOAT16, DT_C_FLOAT16},
    {MPI_LOGICAL1, DT_LOGICAL1},
    {MPI_LOGICAL2, DT_LOGICAL2},
    {MPI_LOGICAL4, DT_LOGICAL4},
    {MPI_LOGICAL8, DT_LOGICAL8},
    {MPI_LOGICAL16, DT_LOGICAL16},
    {MPI_REAL2, DT_REAL2},
    {MPI_COMPLEX4, DT_COMPLEX4},
    {MPI_AINT, DT_AINT},
    {MPI_OFFSET, DT_OFFSET},
    {MPI_COUNT, DT_COUNT},
    {MPI_CXX_BOOL, DT_CXX_BOOL},
    {MPI_CXX_FLOAT_COMPLEX, DT_CXX_FLOAT_COMPLEX},
    {MPI_CXX_DOUBLE_COMPLEX, DT_CXX_DOUBLE_COMPLEX},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, DT_CXX_LONG_DOUBLE_COMPLEX},
};

void mpi_dt_init(void)
{
    for (size_t i = 0; i < sizeof builtin_map / sizeof builtin_map[0]; i++) {
        MPI_Datatype h = builtin_map[i].handle;
        dt_type_t *t = dt_builtin(builtin_map[i].kind);
        if (h == MPI_DATATYPE_NULL || t == NULL)
            continue;
        if (mpi_handle_kind(h) == MPI_HKIND_DIRECT)
            mpi_handle_reserve(MPI_OBJ_DATATYPE, h, t);
        else
            mpi_handle_builtin(MPI_OBJ_DATATYPE, h, t);
    }
}

MPI_Datatype mpi_dt_builtin_handle(dt_builtin_t kind)
{
    for (size_t i = 0; i < sizeof builtin_map / sizeof builtin_map[0]; i++)
        if (builtin_map[i].kind == kind)
            return builtin_map[i].handle;
    return MPI_DATATYPE_NULL;
}

dt_type_t *mpi_dt_lookup(MPI_Datatype h) { return mpi_handle_get(MPI_OBJ_DATATYPE, h); }

MPI_Datatype mpi_dt_zero_count(MPI_Datatype h)
{
    dt_type_t *t;

    if (mpi_dt_is_predefined(h))
        return h;
    t = mpi_dt_get(h);
    return t != NULL && dt_is_committed(t) ? h : MPI_BYTE;
}

int mpi_check_dt(mpi_comm_t *comm, MPI_Datatype h, const char *fn, dt_type_t **dt_out)
{
    dt_type_t *t;

    if (h == MPI_DATATYPE_NULL)
        return mpi_err_fail(comm, MPI_ERR_TYPE, fn, "datatype is MPI_DATATYPE_NULL");
    t = mpi_dt_get(h);
    if (t == NULL)
        return mpi_err_fail(comm, MPI_ERR_TYPE, fn, "datatype=%#x is not a valid datatype",
                            (unsigned)h);
    if (!dt_is_committed(t))
        return mpi_err_fail(comm, MPI_ERR_TYPE, fn,
                            "datatype=%#x has not been committed (MPI_Type_commit)", (unsigned)h);
    *dt_out = t;
    return MPI_SUCCESS;
}
