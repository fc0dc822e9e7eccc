! A user reduction written in Fortran (MPI_Op_create with a SUBROUTINE and
! COMMUTE=.true.), MPI_IN_PLACE in MPI_Allreduce, and a Fortran error
! handler on MPI_COMM_WORLD that records the error class of a bad rank.
module counts
  integer :: nerr = 0, lastclass = -1
end module

subroutine absmax(invec, inoutvec, len, dtype)
  implicit none
  integer :: len, dtype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
     inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine

subroutine handler(comm, code)
  use mpi
  use counts
  implicit none
  integer :: comm, code, ierr
  nerr = nerr + 1
  call MPI_Error_class(code, lastclass, ierr)
end subroutine

program userop
  use mpi
  use counts
  implicit none
  external absmax, handler
  integer :: ierr, rank, size, op, eh, errs, i
  integer :: v(3), r(3)
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Op_create(absmax, .true., op, ierr)
  do i = 1, 3
     v(i) = (rank + i) * (-1) ** rank
  end do
  call MPI_Allreduce(v, r, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  do i = 1, 3
     if (r(i) /= size - 1 + i) then
        errs = errs + 1
        print *, 'allreduce', i, r(i)
     end if
  end do
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  if (any(v /= r)) then
     errs = errs + 1
     print *, 'in place', v
  end if
  call MPI_Op_free(op, ierr)
  call MPI_Comm_create_errhandler(handler, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
  call MPI_Send(v, 1, MPI_INTEGER, size + 5, 0, MPI_COMM_WORLD, ierr)
  if (ierr == MPI_SUCCESS .or. nerr /= 1 .or. lastclass /= MPI_ERR_RANK) then
     errs = errs + 1
     print *, 'handler', ierr, nerr, lastclass
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
end program
