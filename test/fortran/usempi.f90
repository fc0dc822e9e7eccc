! "use mpi" beyond mpif.h: MPI_SIZEOF, and the TYPE(MPI_Comm)-style handle
! types with .EQ./.NE. (module MPI_CONSTANTS, as MPICH's).
program usempi
    use mpi
    implicit none
    integer :: rank, ierr, sz, errs, total
    double precision :: d(3)
    integer(kind=8) :: i8
    logical :: l
    type(MPI_Comm) :: a, b

    errs = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Sizeof(d, sz, ierr)
    if (sz /= 8 .or. ierr /= 0) errs = errs + 1
    call MPI_Sizeof(i8, sz, ierr)
    if (sz /= 8) errs = errs + 1
    call MPI_Sizeof(l, sz, ierr)
    if (sz /= 4) errs = errs + 1
    a%MPI_VAL = MPI_COMM_WORLD
    b%MPI_VAL = MPI_COMM_SELF
    if (a .eq. b .or. .not. (a .ne. b)) errs = errs + 1
    b = a
    if (.not. (a == b)) errs = errs + 1
    ! MPI_Aint_add/diff return INTEGER(KIND=MPI_ADDRESS_KIND) (the module declares them,
    ! as MPICH's; MPICH's f90/rma/aintf90 relies on it)
    if (MPI_Aint_add(40_MPI_ADDRESS_KIND, 2_MPI_ADDRESS_KIND) /= 42) errs = errs + 1
    if (MPI_Aint_diff(40_MPI_ADDRESS_KIND, 2_MPI_ADDRESS_KIND) /= 38) errs = errs + 1
    if (errs /= 0) print '(a,i0,a,i0)', 'rank ', rank, ': errors ', errs
    call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    call MPI_Finalize(ierr)
end program
