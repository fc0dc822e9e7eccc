! User reduction operations from Fortran with MPICH's own Fortran library
! (built with mpif90.mpich) on Canal: MPI_Op_create with a commutative and
! a non-commutative Fortran function, used by MPI_Allreduce, MPI_Reduce and
! MPI_Reduce_local, then MPI_Op_free. The testlist also runs it with
! LD_BIND_NOW=1, where every symbol the Fortran library imports must resolve
! at start.
module lang_op_fn
  implicit none
contains
  ! inout(i) = in(i) + inout(i)
  subroutine my_sum(invec, inoutvec, len, dtype)
    integer :: len, dtype
    integer :: invec(len), inoutvec(len)
    integer :: i
    do i = 1, len
      inoutvec(i) = invec(i) + inoutvec(i)
    end do
    if (dtype == 0) inoutvec(1) = -1   ! never: the handle is passed
  end subroutine
  ! non-commutative: the digits of in, then those of inout (in holds the
  ! lower ranks' values), so the ranks' order shows in the result
  subroutine my_digits(invec, inoutvec, len, dtype)
    integer :: len, dtype
    integer :: invec(len), inoutvec(len)
    integer :: i, p
    do i = 1, len
      p = 10
      do while (p <= inoutvec(i))
        p = p * 10
      end do
      inoutvec(i) = invec(i) * p + inoutvec(i)
    end do
    if (dtype == 0) inoutvec(1) = -1
  end subroutine
end module

program lang_f_op
  use mpi
  use lang_op_fn
  implicit none
  integer :: ierr, rank, nprocs, op_sum, op_dig, errs, all_errs, i
  logical :: commute
  integer :: sendbuf(4), recvbuf(4), expect, a(3), b(3)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  call MPI_Op_create(my_sum, .true., op_sum, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_Op_commutative(op_sum, commute, ierr)
  do i = 1, 4
    sendbuf(i) = rank * i
  end do
  call MPI_Allreduce(sendbuf, recvbuf, 4, MPI_INTEGER, op_sum, MPI_COMM_WORLD, ierr)
  do i = 1, 4
    expect = i * nprocs * (nprocs - 1) / 2
    if (recvbuf(i) /= expect) then
      errs = errs + 1
      print *, 'allreduce(', i, ') = ', recvbuf(i), ' expected ', expect
    end if
  end do

  ! non-commutative on ranks 0..n-1 with values 1..n: a number whose digits
  ! are 1..n in rank order (n <= 9): 1234 on 4 ranks
  call MPI_Op_create(my_digits, .false., op_dig, ierr)
  sendbuf(1) = rank + 1
  recvbuf(1) = 0
  call MPI_Reduce(sendbuf, recvbuf, 1, MPI_INTEGER, op_dig, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    expect = 0
    do i = 1, nprocs
      expect = expect * 10 + i
    end do
    if (recvbuf(1) /= expect) then
      errs = errs + 1
      print *, 'non-commutative reduce = ', recvbuf(1), ' expected ', expect
    end if
  end if

  a = (/ 1, 2, 3 /)
  b = (/ 10, 20, 30 /)
  call MPI_Reduce_local(a, b, 3, MPI_INTEGER, op_sum, ierr)
  if (ierr /= MPI_SUCCESS .or. b(1) /= 11 .or. b(2) /= 22 .or. b(3) /= 33) then
    errs = errs + 1
    print *, 'MPI_Reduce_local: ', b
  end if

  call MPI_Op_free(op_sum, ierr)
  call MPI_Op_free(op_dig, ierr)
  if (op_sum /= MPI_OP_NULL .or. .not. commute) errs = errs + 1

  sendbuf(1) = errs
  call MPI_Reduce(sendbuf, recvbuf, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  all_errs = recvbuf(1)
  if (rank == 0) then
    if (all_errs == 0) then
      print '(a)', ' No Errors'
    else
      print *, 'Found ', all_errs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program
