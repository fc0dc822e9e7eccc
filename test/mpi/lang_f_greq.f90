! Generalized requests from Fortran with MPICH's own Fortran library (built
! with mpif90.mpich) on Canal: the query, free and cancel functions are
! Fortran subroutines (MPI_Grequest_start marks the request through
! MPII_Grequest_set_lang_f77) and get their extra_state and arguments by
! reference: MPI_Wait returns the status the query function filled in,
! MPI_Test before completion does not call it, MPI_Cancel calls the cancel
! function with complete = .false. / .true., free runs once per request.
module lang_greq_fn
  use mpi
  implicit none
  integer :: nquery = 0, nfree = 0, ncancel = 0
  logical :: last_complete = .true.
  integer(kind=MPI_ADDRESS_KIND) :: seen_extra = 0
contains
  subroutine query_fn(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    nquery = nquery + 1
    seen_extra = extra
    status(MPI_SOURCE) = 3
    status(MPI_TAG) = 77
    call MPI_Status_set_elements(status, MPI_INTEGER, 5, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    ierr = MPI_SUCCESS
  end subroutine
  subroutine free_fn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    nfree = nfree + 1
    seen_extra = extra
    ierr = MPI_SUCCESS
  end subroutine
  subroutine cancel_fn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ncancel = ncancel + 1
    last_complete = complete
    seen_extra = extra
    ierr = MPI_SUCCESS
  end subroutine
end module

program lang_f_greq
  use mpi
  use lang_greq_fn
  implicit none
  integer :: ierr, rank, req, req2, count, errs, all_errs
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  extra = 4242
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_Test(req, flag, status, ierr)
  if (flag .or. nquery /= 0) then
    errs = errs + 1
    print *, 'MPI_Test before completion: ', flag, nquery
  end if
  call MPI_Cancel(req, ierr)
  if (ncancel /= 1 .or. last_complete .or. seen_extra /= 4242) then
    errs = errs + 1
    print *, 'cancel: ', ncancel, last_complete, seen_extra
  end if
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  if (ierr /= MPI_SUCCESS .or. nquery /= 1 .or. nfree /= 1 .or. status(MPI_SOURCE) /= 3 &
      .or. status(MPI_TAG) /= 77 .or. count /= 5 .or. req /= MPI_REQUEST_NULL) then
    errs = errs + 1
    print *, 'wait: ', nquery, nfree, status(MPI_SOURCE), status(MPI_TAG), count
  end if

  ! cancel after completion; free by MPI_Request_free before completion
  extra = 5
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Cancel(req, ierr)
  if (ncancel /= 2 .or. .not. last_complete .or. seen_extra /= 5) then
    errs = errs + 1
    print *, 'cancel after completion: ', ncancel, last_complete, seen_extra
  end if
  call MPI_Test(req, flag, status, ierr)
  if (.not. flag .or. nfree /= 2 .or. req /= MPI_REQUEST_NULL) then
    errs = errs + 1
    print *, 'test after completion: ', flag, nfree
  end if
  ! MPI_Request_free before completion: free runs once (at
  ! MPI_Grequest_complete as the standard says; MPICH 4.0.2 runs it at once)
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  req2 = req
  call MPI_Request_free(req, ierr)
  call MPI_Grequest_complete(req2, ierr)
  if (nfree /= 3) then
    errs = errs + 1
    print *, 'MPI_Grequest_complete after MPI_Request_free: ', nfree
  end if

  call MPI_Reduce(errs, all_errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all_errs == 0) then
      print '(a)', ' No Errors'
    else
      print *, 'Found ', all_errs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program
