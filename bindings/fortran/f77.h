/*
 * What the Fortran 77 bindings of libmpifort share (bindings/fortran/): the
 * conversions between Fortran and C arguments that MPICH's Fortran ABI
 * defines, and the common blocks of mpif.h whose addresses stand for
 * MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE,
 * MPI_ARGV(S)_NULL, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. The library uses
 * only the public C API of libmpi (mpi.h), as a separate Fortran library
 * over any MPICH-ABI libmpi would.
 */
#ifndef CANAL_F77_H
#define CANAL_F77_H

#include <stddef.h>

#include "mpi.h"

/* The Fortran names are the library's ABI; everything else is hidden. */
#define CANAL_F77_API __attribute__((visibility("default")))
/* Another name for a binding: a weak alias, as MPICH exports them. */
#define CANAL_F77_ALIAS(alias, target)                                                          \
    __asm__(".weak " #alias "\n\t.type " #alias ", @function\n\t.set " #alias ", " #target)

/* mpif.h's common blocks (gfortran names: lower case + "_"). The program's
 * copy and the library's are one symbol at run time. */
typedef struct {
    MPI_Fint bottom, in_place;
    MPI_Fint status_ignore[sizeof(MPI_Status) / sizeof(MPI_Fint)];
} canal_f77_priv1_t;
typedef struct {
    MPI_Fint statuses_ignore[sizeof(MPI_Status) / sizeof(MPI_Fint)];
    MPI_Fint errcodes_ignore[1];
} canal_f77_priv2_t;
typedef struct {
    char argvs_null[1], argv_null[1];
} canal_f77_privc_t;
extern canal_f77_priv1_t mpipriv1_;
extern canal_f77_priv2_t mpipriv2_;
extern canal_f77_privc_t mpiprivc_;
extern MPI_Fint mpifcmb5_; /* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_; /* MPI_WEIGHTS_EMPTY */

static inline void *canal_f77_buf(void *p)
{
    if (p == (void *)&mpipriv1_.bottom)
        return MPI_BOTTOM;
    if (p == (void *)&mpipriv1_.in_place)
        return MPI_IN_PLACE;
    return p;
}
static inline MPI_Status *canal_f77_status(MPI_Fint *p)
{
    return p == mpipriv1_.status_ignore ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)p;
}
static inline MPI_Status *canal_f77_statuses(MPI_Fint *p)
{
    return p == mpipriv2_.statuses_ignore ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)p;
}
static inline int *canal_f77_errcodes(MPI_Fint *p)
{
    return p == mpipriv2_.errcodes_ignore ? MPI_ERRCODES_IGNORE : p;
}
static inline int *canal_f77_weights(MPI_Fint *p)
{
    if (p == &mpifcmb5_)
        return MPI_UNWEIGHTED;
    if (p == &mpifcmb9_)
        return MPI_WEIGHTS_EMPTY;
    return p;
}

/* A Fortran string in: trailing blanks dropped, NUL-terminated copy
 * (malloc'ed; NULL when out of memory). */
char *canal_f77_str_in(const char *s, size_t len);
/* Room for a C string out of len characters at most (malloc'ed). */
char *canal_f77_str_buf(size_t len);
/* Copy a C string into a Fortran one, blank-padded (truncated to len). */
void canal_f77_str_out(char *f, size_t len, const char *c);
/* Raise MPI_ERR_NO_MEM on MPI_COMM_WORLD for a binding that ran out of memory. */
int canal_f77_no_mem(const char *fn);

/* MPI_COMM_SPAWN(_MULTIPLE) of f77_special.c; keep_leading: the arguments
 * keep their leading blanks (mpi_f08's convention in MPICH). */
void canal_f77_comm_spawn(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                          MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                          MPI_Fint *ierror, size_t command_len, size_t argv_len, int keep_leading);
void canal_f77_comm_spawn_multiple(MPI_Fint *count, char *commands, char *argvs,
                                   MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                                   MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                                   MPI_Fint *ierror, size_t commands_len, size_t argvs_len,
                                   int keep_leading);

#endif
