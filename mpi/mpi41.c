/*
 * Functions MPI 4.1 adds that belong to no other file of mpi/: the status
 * field accessors (MPI_Status_get/set_source, _tag, _error), the pair type
 * for MPI_MINLOC/MPI_MAXLOC (MPI_Type_get_value_index) and the hardware
 * description (MPI_Get_hw_resource_info). Their entry points are generated
 * from mpi/api/mpi41.api; the buffered-send buffers are in mpi/pt2pt.c, the
 * multi-request status queries in mpi/request.c, MPI_Remove_error_* shares
 * MPIX_Delete_error_*'s implementation (mpi/errors.c).
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"
#include "comm_impl.h"

/* ---------------------------------------------------------------- status fields */
/* These may be called at any time (anytime entries, as in MPICH): a bad
 * status pointer is an MPI_ERR_ARG returned through mpi_check_ptr_anytime's
 * rules (no handler outside MPI_Init..MPI_Finalize). */
static int status_ptr(const MPI_Status *status, const char *fn)
{
    if (status == MPI_STATUS_IGNORE)
        return mpi_state == MPI_STATE_INITIALIZED
                   ? mpi_err_raise(NULL, MPI_ERR_ARG, fn, "status is MPI_STATUS_IGNORE")
                   : mpi_err_code_new(MPI_ERR_ARG, fn, "status is MPI_STATUS_IGNORE");
    return mpi_check_ptr_anytime(status, fn, "status");
}

int mpi_status_get_source_impl(const MPI_Status *status, int *source, const char *fn)
{
    int err = status_ptr(status, fn);
    if (err == MPI_SUCCESS)
        *source = status->MPI_SOURCE;
    return err;
}

int mpi_status_get_tag_impl(const MPI_Status *status, int *tag, const char *fn)
{
    int err = status_ptr(status, fn);
    if (err == MPI_SUCCESS)
        *tag = status->MPI_TAG;
    return err;
}

int mpi_status_get_error_impl(const MPI_Status *status, int *error, const char *fn)
{
    int err = status_ptr(status, fn);
    if (err == MPI_SUCCESS)
        *error = status->MPI_ERROR;
    return err;
}

/* The setters store any value, as MPICH does: a status made for a
 * generalized request (or a tool) may carry what the program wants. */
int mpi_status_set_source_impl(MPI_Status *status, int source, const char *fn)
{
    int err = status_ptr(status, fn);
    if (err == MPI_SUCCESS)
        status->MPI_SOURCE = source;
    return err;
}

int mpi_status_set_tag_impl(MPI_Status *status, int tag, const char *fn)
{
    int err = status_ptr(status, fn);
    if (err == MPI_SUCCESS)
        status->MPI_TAG = tag;
    return err;
}

int mpi_status_set_error_impl(MPI_Status *status, int error, const char *fn)
{
    int err = status_ptr(status, fn);
    if (err == MPI_SUCCESS)
        status->MPI_ERROR = error;
    return err;
}

/* ---------------------------------------------------------------- MPI_Type_get_value_index */
/* MPI 4.1 section 6.9.4: the predefined (value, index) pair types of MPI_MINLOC and
 * MPI_MAXLOC. Both types were checked by the entry point (valid, committed);
 * a pair with no predefined type gives MPI_DATATYPE_NULL, not an error. */
static const struct {
    MPI_Datatype value, index, pair;
} value_index_pairs[] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
    {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    {MPI_REAL, MPI_REAL, MPI_2REAL},
    {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
};

int mpi_type_get_value_index_impl(MPI_Datatype value_type, MPI_Datatype index_type,
                                  MPI_Datatype *pair_type, const char *fn)
{
    (void)fn;
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof value_index_pairs / sizeof value_index_pairs[0]; i++)
        if (value_index_pairs[i].value == value_type && value_index_pairs[i].index == index_type &&
            value_index_pairs[i].pair != MPI_DATATYPE_NULL) {
            *pair_type = value_index_pairs[i].pair;
            break;
        }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI_Get_hw_resource_info */
/* One key per hardware level Canal knows (the names MPI_COMM_TYPE_HW_GUIDED
 * accepts as "mpi_hw_resource_type": mpi_shared_memory, Package, NUMANode,
 * L3Cache, L2Cache, L1Cache, Core, PU), "true" when the calling process
 * runs within one resource of that level at the moment of the call (its
 * CPU affinity, read from sysfs), "false" otherwise. */
int mpi_get_hw_resource_info_impl(MPI_Info *hw_info, const char *fn)
{
    MPI_Info info = MPI_INFO_NULL;
    const char *name = NULL;
    int err = mpi_info_create_impl(&info, fn), in_one;

    for (int i = 0; err == MPI_SUCCESS && (in_one = mpi_comm_hw_level(i, &name)) >= 0; i++)
        err = mpi_info_set_impl(info, name, in_one ? "true" : "false", fn);
    if (err != MPI_SUCCESS) {
        if (info != MPI_INFO_NULL)
            mpi_info_free_impl(&info, fn);
        return err;
    }
    *hw_info = info;
    return MPI_SUCCESS;
}
