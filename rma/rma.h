/*
 * What mpi/ sees of rma/, the one-sided communication layer (MPI 4.0
 * chapter 12). The generated entry points of mpi/api/12-rma.api call the
 * mpi_*_impl functions of rma/ (declared in the generated mpi/api_impl.h,
 * so that each definition is checked against the table); the rest of mpi/
 * uses only what this header declares: the window as an error object (the
 * `win` kind of the table, mpi/check.c) and the attribute hooks of MPICH's
 * language libraries (mpi/mpich_lang.c). The window itself stays opaque
 * outside rma/ (rma/rma_impl.h).
 */
#ifndef CANAL_RMA_RMA_H
#define CANAL_RMA_RMA_H

#include "mpiimpl.h"

struct rma_win;

/* The live window behind h, else MPI_ERR_WIN raised through
 * MPI_COMM_WORLD's handler. */
int rma_win_check(MPI_Win h, const char *fn, struct rma_win **out);
/* Raise errclass through the window's error handler, with a message. */
int rma_err(struct rma_win *w, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* MPI_Win_set_attr / MPI_Win_get_attr with the kind of the caller's value
 * (MPICH's MPII_Win_set_attr/get_attr: C's pointer, Fortran's integers);
 * a predefined keyval given in C's or Fortran's form. Errors are raised
 * through the window's handler. */
int rma_win_attr_set_kind(struct rma_win *w, int keyval, void *value, mpi_attr_kind_t kind,
                          const char *fn);
int rma_win_attr_get_kind(struct rma_win *w, int keyval, void *attribute_val, int *flag,
                          mpi_attr_kind_t kind, const char *fn);

#endif
