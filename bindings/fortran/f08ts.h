/*
 * What the C side of the mpi_f08 bindings shares (bindings/fortran/): the
 * special values of mpi_f08 (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE
 * are libmpi's MPIR_F08_* objects, as in MPICH; the others are module
 * variables of mpi_f08_link_constants) and the conversion of an ISO_Fortran_binding descriptor
 * into an address, a count and a datatype.
 */
#ifndef CANAL_F08TS_H
#define CANAL_F08TS_H

#include <ISO_Fortran_binding.h>

#include "bindings/fortran/f77.h"

/* The arrays of module mpi_f08_link_constants (mpi_f08.f90), by the
 * symbols gfortran gives them (MPICH's module has the same). */
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_errcodes_ignore[1];
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_unweighted[1];
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_weights_empty[1];
extern char __mpi_f08_link_constants_MOD_mpi_argv_null[1];
extern char __mpi_f08_link_constants_MOD_mpi_argvs_null[1];

static inline MPI_Status *canal_f08_status(MPI_Fint *p)
{
    return (void *)p == (void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ ? MPI_STATUS_IGNORE
                                                                 : (MPI_Status *)(void *)p;
}
static inline MPI_Status *canal_f08_statuses(MPI_Fint *p)
{
    return (void *)p == (void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ ? MPI_STATUSES_IGNORE
                                                                  : (MPI_Status *)(void *)p;
}
static inline int *canal_f08_errcodes(MPI_Fint *p)
{
    return p == __mpi_f08_link_constants_MOD_mpi_errcodes_ignore ? MPI_ERRCODES_IGNORE : p;
}
static inline int *canal_f08_weights(MPI_Fint *p)
{
    if (p == __mpi_f08_link_constants_MOD_mpi_unweighted)
        return MPI_UNWEIGHTED;
    if (p == __mpi_f08_link_constants_MOD_mpi_weights_empty)
        return MPI_WEIGHTS_EMPTY;
    return p;
}

/* A temporary copy of a non-contiguous section (mem NULL if none). */
typedef struct {
    void *mem;
    int copy_out;
} canal_f08_tmp_t;
/* may_copy: whether the call may work on a contiguous copy of a section
 * (blocking calls only; MPI 4.0 19.1.12: a nonblocking or persistent call,
 * or one that keeps the buffer, must see the user's memory). */
enum { CANAL_F08_NO_COPY, CANAL_F08_COPY_IN, CANAL_F08_COPY_INOUT };

/* The address to give the C function for the buffer described by d.
 * MPI_BOTTOM and MPI_IN_PLACE become theirs. A contiguous array is its base
 * address (no copy). A non-contiguous one (an array section): when its
 * count and datatype are given and the datatype is predefined with the size
 * of the array's elements, *type becomes a new committed datatype that picks
 * the first *count elements of the section and *count becomes 1 (works for
 * every call); otherwise, when may_copy allows it, the address of a
 * contiguous copy of the section (tmp->mem; copied back by
 * canal_f08_buf_done for COPY_INOUT); otherwise *rc is set to an error
 * (MPI_ERR_UNSUPPORTED_OPERATION with a message) and NULL returned. Does
 * nothing when *rc is already an error. */
void *canal_f08_buf(CFI_cdesc_t *d, MPI_Count *count, MPI_Datatype *type, int may_copy,
                    canal_f08_tmp_t *tmp, int *rc);
/* Free the datatype canal_f08_buf made (type != user's), copy a temporary
 * back and free it. */
void canal_f08_buf_done(CFI_cdesc_t *d, MPI_Datatype type, MPI_Datatype user, canal_f08_tmp_t *tmp);

#endif
