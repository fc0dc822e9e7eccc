/*
 * dt_fixed_fortran.c -- MPICH 4.2's MPI_LOGICAL1/2/4/8/16, MPI_REAL2 and
 * MPI_COMPLEX4 in libmpi.so.12, where they are additional handles with
 * MPICH's values: the same user program as the standard ABI's test
 * (test/abi/abi_types.c: sizes, names, reductions, MPI_ERR_OP), built here
 * with mpicc against the MPICH-ABI header.
 */
#include "../abi/abi_types.c"
