! The mpi module of Canal's Fortran library: mpif.h's constants, special
! variables and EXTERNAL declarations in a module, for programs that say
! "use mpi". Procedures are called without explicit interfaces, as with
! mpif.h (MPI 4.0 section 19.1.3 allows an mpi module without them).
       MODULE MPI
       IMPLICIT NONE
       INCLUDE 'mpif.h'
       END MODULE MPI
