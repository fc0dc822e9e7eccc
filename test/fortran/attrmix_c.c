/*
 * The C half of attrmix.f90: attributes set in one language and read in the
 * other, with MPICH's rule (MPI 4.0 section 19.3.7): C reads an attribute
 * that Fortran set with MPI_COMM_SET_ATTR (INTEGER(KIND=MPI_ADDRESS_KIND))
 * or MPI_ATTR_PUT (INTEGER) through a pointer to the stored integer, and
 * Fortran reads an attribute that C set as the address the pointer holds.
 * Each function adds the problems it finds to *errs.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

void attrmix_c_read_aint_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *errs);
void attrmix_c_read_int_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Fint *expected, MPI_Fint *errs);
void attrmix_c_read_type_(MPI_Fint *ftype, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *errs);
void attrmix_c_read_win_(MPI_Fint *fwin, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *errs);
void attrmix_c_set_ptr_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Aint *address, MPI_Fint *errs);

static int target = 42; /* what the C-set attribute points to */

/* What C read (flag, and the integer the attribute pointer points to, NULL
 * for none) against what Fortran set. */
static void check(const char *what, int flag, long got_valid, long got, long expected,
                  MPI_Fint *errs)
{
    if (!flag || !got_valid || got != expected) {
        printf("C: %s: flag %d, value %ld, expected %ld\n", what, flag, got_valid ? got : -1L,
               expected);
        (*errs)++;
    }
}

void attrmix_c_read_aint_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *errs)
{
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*fcomm), *keyval, &val, &flag);
    check("comm attribute set from Fortran", flag, val != NULL, val ? (long)*val : 0,
          (long)*expected, errs);
}

void attrmix_c_read_int_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Fint *expected, MPI_Fint *errs)
{
    MPI_Fint *val = NULL;
    int flag = 0;
    MPI_Attr_get(MPI_Comm_f2c(*fcomm), *keyval, &val, &flag);
    check("MPI_ATTR_PUT value", flag, val != NULL, val ? (long)*val : 0, (long)*expected, errs);
}

void attrmix_c_read_type_(MPI_Fint *ftype, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *errs)
{
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Type_get_attr(MPI_Type_f2c(*ftype), *keyval, &val, &flag);
    check("type attribute set from Fortran", flag, val != NULL, val ? (long)*val : 0,
          (long)*expected, errs);
}

void attrmix_c_read_win_(MPI_Fint *fwin, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *errs)
{
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Win_get_attr(MPI_Win_f2c(*fwin), *keyval, &val, &flag);
    check("window attribute set from Fortran", flag, val != NULL, val ? (long)*val : 0,
          (long)*expected, errs);
}

/* Sets a pointer from C; *address is what Fortran must read. */
void attrmix_c_set_ptr_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Aint *address, MPI_Fint *errs)
{
    if (MPI_Comm_set_attr(MPI_Comm_f2c(*fcomm), *keyval, &target) != MPI_SUCCESS)
        (*errs)++;
    *address = (MPI_Aint)(intptr_t)&target;
}
