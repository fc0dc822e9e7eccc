/*
 * abi_data.c -- the data objects that the MPICH ABI makes part of libmpi, and
 * MPIR_Dup_fn.
 *
 * mpi.h names these objects (MPI_UNWEIGHTED, MPI_F_STATUS_IGNORE, the Fortran
 * 2008 sentinels ...) as addresses or variables that live in the library, so
 * a program compiled against MPICH links to them by name and expects their
 * sizes. Nothing here is read or written after start-up except by the
 * functions that compare an argument with one of these addresses.
 */
#include <stddef.h>

#include "mpi.h"

/*
 * Sentinels for the weights arguments of the distributed graph constructors.
 * They only need distinct addresses that no user array can have.
 */
static int unweighted_sentinel;
static int weights_empty_sentinel;
int *const MPI_UNWEIGHTED = &unweighted_sentinel;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_sentinel;

/*
 * MPI_F_STATUS(ES)_IGNORE point at arrays owned by the library so that
 * MPI_Status_f2c and friends can recognise them; a Fortran binding layered on
 * top may still point them at its own objects.
 */
static MPI_Fint f_status_ignore[MPI_F_STATUS_SIZE];
static MPI_Fint f_statuses_ignore[MPI_F_STATUS_SIZE];
MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;

/* The Fortran 2008 binding's objects, compared by address only. */
MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

/*
 * MPI_T_PVAR_ALL_HANDLES: a handle value that no real performance-variable
 * handle can take. The tool interface owns the structure; only the address
 * of this placeholder matters.
 */
static char pvar_all_handles_sentinel;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES =
    (struct MPIR_T_pvar_handle_s *)&pvar_all_handles_sentinel;

/*
 * The predefined "duplicate" copy callback: the new object gets the same
 * attribute value (a void * stored by value) and the attribute is kept.
 */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    if (attribute_val_out == NULL || flag == NULL)
        return MPI_ERR_ARG;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}
