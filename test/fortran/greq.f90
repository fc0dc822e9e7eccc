! A generalized request from Fortran: MPI_Grequest_start with Fortran
! query/free/cancel procedures, MPI_Grequest_complete, MPI_Wait filling a
! status from the query procedure, and the free procedure called once.
module greq_state
  integer :: nquery = 0, nfree = 0
end module

subroutine query_fn(extra, status, ierr)
  use mpi
  use greq_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  nquery = nquery + 1
  call MPI_Status_set_elements(status, MPI_INTEGER, int(extra), ierr)
  call MPI_Status_set_cancelled(status, .false., ierr)
  status(MPI_SOURCE) = MPI_UNDEFINED
  status(MPI_TAG) = 77
  ierr = MPI_SUCCESS
end subroutine

subroutine free_fn(extra, ierr)
  use mpi
  use greq_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  nfree = nfree + 1
  extra = extra - 1 ! MPICH passes the program's variable (MPICH's f77/pt2pt/greqf checks it)
  ierr = MPI_SUCCESS
end subroutine

subroutine cancel_fn(extra, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
end subroutine

program greq
  use mpi
  use greq_state
  implicit none
  external query_fn, free_fn, cancel_fn
  integer :: ierr, req, status(MPI_STATUS_SIZE), count, errs, rank
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 5
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Test(req, flag, status, ierr)
  if (flag) then
     errs = errs + 1
     print *, 'complete before MPI_Grequest_complete'
  end if
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  if (count /= 5 .or. status(MPI_TAG) /= 77 .or. nquery < 1 .or. nfree /= 1 .or. req /= MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'greq', count, status(MPI_TAG), nquery, nfree, req
  end if
  if (extra /= 4) then
     errs = errs + 1
     print *, 'the free function did not update EXTRA_STATE: ', extra
  end if
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
end program
