! Non-contiguous array sections with derived datatypes in mpi_f08: a
! blocking call works on a contiguous copy of the section (copied back for
! receive buffers); a nonblocking call, which must see the user's memory
! until completion, gets MPI_ERR_UNSUPPORTED_OPERATION. Predefined types
! over sections (an hindexed datatype, no copy) are in f08basic.f90.
program sections
    use mpi_f08
    implicit none
    type(MPI_Datatype) :: pair
    type(MPI_Request) :: req
    integer :: rank, nprocs, errs, total, i, ierr, eclass, peer
    integer :: a(2, 6), b(2, 6), m(4, 4), want(2, 6)

    errs = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    call MPI_Type_contiguous(2, MPI_INTEGER, pair)
    call MPI_Type_commit(pair)

    ! Bcast of 3 pairs from every other column of a(2, 6): a(:, 1:5:2)
    a = -1
    if (rank == 0) a = reshape([(i, i = 1, 12)], [2, 6])
    call MPI_Bcast(a(:, 1:5:2), 3, pair, 0, MPI_COMM_WORLD)
    want = -1
    want(:, 1:5:2) = reshape([1, 2, 5, 6, 9, 10], [2, 3])
    if (rank == 0) want = reshape([(i, i = 1, 12)], [2, 6])
    if (any(a /= want)) call bad('MPI_Bcast of a section with a derived type')

    ! Sendrecv around a ring: send a row of m (stride 4), receive into a column section
    peer = mod(rank + 1, nprocs)
    m = reshape([(100 * rank + i, i = 1, 16)], [4, 4])
    b = 0
    call MPI_Sendrecv(m(1, :), 2, pair, peer, 7, b(1, 2:5), 2, pair, &
        mod(rank - 1 + nprocs, nprocs), 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    i = 100 * mod(rank - 1 + nprocs, nprocs)
    if (any(b(1, 2:5) /= [i + 1, i + 5, i + 9, i + 13]) .or. any(b(2, :) /= 0) .or. &
        b(1, 1) /= 0 .or. b(1, 6) /= 0) call bad('MPI_Sendrecv of sections with a derived type')

    ! Nonblocking: refused with a clear error, nothing sent
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    call MPI_Isend(a(:, 1:5:2), 3, pair, peer, 8, MPI_COMM_WORLD, req, ierr)
    call MPI_Error_class(ierr, eclass)
    if (eclass /= MPI_ERR_UNSUPPORTED_OPERATION) call bad('MPI_Isend of a section with a derived type')

    call MPI_Type_free(pair)
    call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    call MPI_Finalize()
contains
    subroutine bad(what)
        character(len=*), intent(in) :: what
        errs = errs + 1
        print '(a,i0,2a)', 'rank ', rank, ': wrong: ', what
    end subroutine
end program
