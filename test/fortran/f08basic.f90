! use mpi_f08 as users write it: handles as derived types compared with ==,
! optional ierror, TYPE(MPI_Status) components, MPI_IN_PLACE, a strided
! array section sent and received (the binding describes it to MPI), a
! nonblocking exchange with MPI_Waitall and MPI_STATUSES_IGNORE, a user
! reduction with TYPE(C_PTR), VALUE vectors, strings, and an error returned
! in ierror under MPI_ERRORS_RETURN.
module f08_ops
contains
    subroutine imax_abs(invec, inoutvec, len, datatype)
        use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
        use mpi_f08
        type(c_ptr), value :: invec, inoutvec
        integer :: len
        type(MPI_Datatype) :: datatype
        integer, pointer :: a(:), b(:)
        call c_f_pointer(invec, a, [len])
        call c_f_pointer(inoutvec, b, [len])
        b = max(abs(a), abs(b))
    end subroutine
end module

program f08basic
    use mpi_f08
    use f08_ops
    implicit none
    type(MPI_Comm) :: dup
    type(MPI_Status) :: st
    type(MPI_Request) :: reqs(2)
    type(MPI_Op) :: op
    integer :: rank, size, errs, ierr, i, left, right, n
    integer :: v(4), s(10), r(10), w(3)
    character(len=MPI_MAX_OBJECT_NAME) :: name
    errs = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    if (dup == MPI_COMM_WORLD .or. dup == MPI_COMM_NULL) then
        errs = errs + 1
        print *, 'dup compares equal to world or null'
    end if
    call MPI_Comm_set_name(dup, 'dup of world')
    call MPI_Comm_get_name(dup, name, n)
    if (name /= 'dup of world' .or. n /= 12) then
        errs = errs + 1
        print *, 'name ', trim(name), n
    end if
    v = rank
    call MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, dup)
    if (any(v /= size * (size - 1) / 2)) then
        errs = errs + 1
        print *, 'allreduce in place', v
    end if
    ! every other element of s goes to every other element of r
    right = mod(rank + 1, size)
    left = mod(rank - 1 + size, size)
    s = [(rank * 100 + i, i = 1, 10)]
    r = -1
    call MPI_Sendrecv(s(1:10:2), 5, MPI_INTEGER, right, 7, r(2:10:2), 5, MPI_INTEGER, left, 7, &
                      dup, st)
    do i = 1, 5
        if (r(2 * i) /= left * 100 + 2 * i - 1 .or. r(2 * i - 1) /= -1) then
            errs = errs + 1
            print *, 'section', i, r
            exit
        end if
    end do
    if (st%MPI_SOURCE /= left .or. st%MPI_TAG /= 7) then
        errs = errs + 1
        print *, 'status', st%MPI_SOURCE, st%MPI_TAG
    end if
    call MPI_Get_count(st, MPI_INTEGER, n)
    if (n /= 5) then
        errs = errs + 1
        print *, 'count', n
    end if
    call MPI_Irecv(w, 3, MPI_INTEGER, left, 9, dup, reqs(1))
    call MPI_Isend(s(8:10), 3, MPI_INTEGER, right, 9, dup, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    if (any(w /= [left * 100 + 8, left * 100 + 9, left * 100 + 10]) .or. &
        reqs(1) /= MPI_REQUEST_NULL) then
        errs = errs + 1
        print *, 'nonblocking', w
    end if
    call MPI_Op_create(imax_abs, .true., op)
    w = [-rank, rank, -2 * rank]
    call MPI_Allreduce(w, v(1:3), 3, MPI_INTEGER, op, dup)
    if (any(v(1:3) /= [size - 1, size - 1, 2 * (size - 1)])) then
        errs = errs + 1
        print *, 'user op', v(1:3)
    end if
    call MPI_Op_free(op)
    call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
    call MPI_Send(v, 1, MPI_INTEGER, size + 1, 0, dup, ierr)
    call MPI_Error_class(ierr, n)
    if (n /= MPI_ERR_RANK) then
        errs = errs + 1
        print *, 'bad rank gave class', n
    end if
    call MPI_Comm_free(dup)
    if (dup /= MPI_COMM_NULL) then
        errs = errs + 1
        print *, 'freed comm is not MPI_COMM_NULL'
    end if
    if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
    call MPI_Finalize()
end program
