! Error handlers from Fortran with MPICH's own Fortran library (built with
! mpif90.mpich) on Canal: a handler made by MPI_Comm_create_errhandler is
! called with the communicator and the code of the failed call (a send with
! the tag MPI_TAG_UB + 1, read as an integer through MPI_Comm_get_attr), the
! call returns that code; MPI_Comm_call_errhandler calls it too; with
! MPI_ERRORS_RETURN the error comes back in ierror and the handler is not
! called; MPI_Comm_get_errhandler / MPI_Errhandler_free.
module lang_errh_fn
  implicit none
  integer :: ncalls = 0, last_code = 0, last_comm = 0
contains
  subroutine my_handler(comm, code)
    integer :: comm, code
    ncalls = ncalls + 1
    last_comm = comm
    last_code = code
  end subroutine
end module

program lang_f_errh
  use mpi
  use lang_errh_fn
  implicit none
  integer :: ierr, rank, nprocs, comm, eh, eh2, cls, errs, all_errs, buf(1), tag
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  if (.not. flag .or. tag_ub < 32767 .or. tag_ub >= 2_MPI_ADDRESS_KIND**31 - 1) then
    print *, 'MPI_TAG_UB: ', flag, tag_ub
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  tag = int(tag_ub) + 1

  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_Comm_set_errhandler(comm, eh, ierr)

  ! the handler is called with the communicator and the code
  buf(1) = 1
  call MPI_Send(buf, 1, MPI_INTEGER, 0, tag, comm, ierr)
  call MPI_Error_class(last_code, cls, ierr)
  if (ncalls /= 1 .or. last_comm /= comm .or. cls /= MPI_ERR_TAG) then
    errs = errs + 1
    print *, 'handler: calls ', ncalls, ' comm ', last_comm, ' class ', cls
  end if
  call MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER, ierr)
  if (ncalls /= 2 .or. last_code /= MPI_ERR_OTHER) then
    errs = errs + 1
    print *, 'MPI_Comm_call_errhandler: calls ', ncalls, ' code ', last_code
  end if

  ! the handler stays on the communicator
  call MPI_Comm_get_errhandler(comm, eh2, ierr)
  if (eh2 /= eh) errs = errs + 1
  call MPI_Errhandler_free(eh2, ierr)

  ! MPI_ERRORS_RETURN: the code comes back, the handler is not called
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(buf, 1, MPI_INTEGER, nprocs, 0, comm, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (cls /= MPI_ERR_RANK .or. ncalls /= 2) then
    errs = errs + 1
    print *, 'MPI_ERRORS_RETURN: class ', cls, ' calls ', ncalls
  end if
  call MPI_Errhandler_free(eh, ierr)
  if (eh /= MPI_ERRHANDLER_NULL) errs = errs + 1

  call MPI_Comm_free(comm, ierr)
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
