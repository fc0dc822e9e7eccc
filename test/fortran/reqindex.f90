! Request indices count from 1 in Fortran: MPI_Waitany, MPI_Testany,
! MPI_Waitsome, MPI_Testsome return 1-based positions (MPI_UNDEFINED when no
! request is active), with mpif.h/use mpi and with mpi_f08 (as in MPICH's
! f77/pt2pt/prsendf, which loops until Waitsome reports index 2).
program reqindex
    use mpi
    implicit none
    integer :: rank, ierr, errs, total, reqs(3), idx, outcount, indices(3), i
    integer :: buf(3), sbuf
    integer :: statuses(MPI_STATUS_SIZE, 3)
    logical :: flag

    errs = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    sbuf = 7
    ! reqs(2) is a receive from self; reqs(1), reqs(3) are null
    reqs = MPI_REQUEST_NULL
    call MPI_Irecv(buf(2), 1, MPI_INTEGER, rank, 5, MPI_COMM_SELF, reqs(2), ierr)
    call MPI_Send(sbuf, 1, MPI_INTEGER, 0, 5, MPI_COMM_SELF, ierr)
    call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
    if (idx /= 2) call bad('MPI_Waitany index', idx)
    call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
    if (idx /= MPI_UNDEFINED) call bad('MPI_Waitany with no active request', idx)

    call MPI_Irecv(buf(3), 1, MPI_INTEGER, rank, 6, MPI_COMM_SELF, reqs(3), ierr)
    call MPI_Send(sbuf, 1, MPI_INTEGER, 0, 6, MPI_COMM_SELF, ierr)
    flag = .false.
    do while (.not. flag)
        call MPI_Testany(3, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    end do
    if (idx /= 3) call bad('MPI_Testany index', idx)

    call MPI_Irecv(buf(1), 1, MPI_INTEGER, rank, 7, MPI_COMM_SELF, reqs(1), ierr)
    call MPI_Send(sbuf, 1, MPI_INTEGER, 0, 7, MPI_COMM_SELF, ierr)
    call MPI_Waitsome(3, reqs, outcount, indices, statuses, ierr)
    if (outcount /= 1 .or. indices(1) /= 1) call bad('MPI_Waitsome index', indices(1))
    call MPI_Irecv(buf(2), 1, MPI_INTEGER, rank, 8, MPI_COMM_SELF, reqs(2), ierr)
    call MPI_Send(sbuf, 1, MPI_INTEGER, 0, 8, MPI_COMM_SELF, ierr)
    outcount = 0
    do i = 1, 1000000
        call MPI_Testsome(3, reqs, outcount, indices, statuses, ierr)
        if (outcount /= 0) exit
    end do
    if (outcount /= 1 .or. indices(1) /= 2) call bad('MPI_Testsome index', indices(1))
    call MPI_Testsome(3, reqs, outcount, indices, statuses, ierr)
    if (outcount /= MPI_UNDEFINED) call bad('MPI_Testsome with no active request', outcount)

    call f08_indices(errs)
    call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    call MPI_Finalize(ierr)
contains
    subroutine bad(what, v)
        character(len=*), intent(in) :: what
        integer, intent(in) :: v
        errs = errs + 1
        print '(3a,i0)', 'wrong: ', what, ': ', v
    end subroutine
end program

subroutine f08_indices(errs)
    use mpi_f08
    implicit none
    integer, intent(inout) :: errs
    type(MPI_Request) :: reqs(2)
    integer :: idx, outcount, indices(2), rank, v, s
    s = 1
    call PMPI_Comm_rank(MPI_COMM_SELF, rank) ! PMPI_X comes with mpi_f08 too (as in MPICH)
    reqs = MPI_REQUEST_NULL
    call MPI_Irecv(v, 1, MPI_INTEGER, rank, 9, MPI_COMM_SELF, reqs(2))
    call MPI_Send(s, 1, MPI_INTEGER, rank, 9, MPI_COMM_SELF)
    call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE)
    if (idx /= 2) then
        errs = errs + 1
        print '(a,i0)', 'wrong: mpi_f08 MPI_Waitany index: ', idx
    end if
    call MPI_Irecv(v, 1, MPI_INTEGER, rank, 10, MPI_COMM_SELF, reqs(1))
    call MPI_Send(s, 1, MPI_INTEGER, rank, 10, MPI_COMM_SELF)
    call MPI_Waitsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE)
    if (outcount /= 1 .or. indices(1) /= 1) then
        errs = errs + 1
        print '(a,i0)', 'wrong: mpi_f08 MPI_Waitsome index: ', indices(1)
    end if
end subroutine
