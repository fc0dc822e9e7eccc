! File error handlers written in Fortran: MPI_File_create_errhandler with a
! SUBROUTINE, set on a file; a read from a file opened write-only raises
! MPI_ERR_ACCESS and the handler gets the Fortran file handle and the code.
! A handler freed and replaced by a new one (the handle may be reused) must
! not call the old procedure.
module fh_state
  integer :: nfirst = 0, nsecond = 0, lastfile = -1, lastclass = -1
end module

subroutine first_handler(fh, code)
  use mpi
  use fh_state
  implicit none
  integer :: fh, code, ierr
  nfirst = nfirst + 1
  lastfile = fh
  call MPI_Error_class(code, lastclass, ierr)
end subroutine

subroutine second_handler(fh, code)
  use mpi
  use fh_state
  implicit none
  integer :: fh, code, ierr
  nsecond = nsecond + 1
  lastfile = fh
  call MPI_Error_class(code, lastclass, ierr)
end subroutine

program fileerrh
  use mpi
  use fh_state
  implicit none
  external first_handler, second_handler
  integer :: ierr, rank, fh, eh1, eh2, errs, buf(4)
  integer :: status(MPI_STATUS_SIZE)
  character(len=64) :: fname
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write(fname, '(a,i0)') '/tmp/canal_fileerrh_', rank
  call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_WRONLY + MPI_MODE_CREATE, &
                     MPI_INFO_NULL, fh, ierr)
  call MPI_File_create_errhandler(first_handler, eh1, ierr)
  call MPI_File_set_errhandler(fh, eh1, ierr)
  call MPI_File_read(fh, buf, 4, MPI_INTEGER, status, ierr)
  if (nfirst /= 1 .or. lastfile /= fh .or. lastclass /= MPI_ERR_ACCESS) then
     errs = errs + 1
     print *, 'first handler', nfirst, lastfile, fh, lastclass
  end if
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh1, ierr)
  call MPI_File_create_errhandler(second_handler, eh2, ierr)
  call MPI_File_set_errhandler(fh, eh2, ierr)
  call MPI_File_read(fh, buf, 4, MPI_INTEGER, status, ierr)
  if (nfirst /= 1 .or. nsecond /= 1 .or. lastclass /= MPI_ERR_ACCESS) then
     errs = errs + 1
     print *, 'second handler', nfirst, nsecond, lastclass
  end if
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh2, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
end program
