! User keyvals with Fortran copy and delete procedures: MPI_Comm_dup calls
! the copy procedure (which doubles the value), MPI_Comm_free and
! MPI_Comm_delete_attr call the delete procedure; MPI_COMM_NULL_COPY_FN
! keeps an attribute from being copied; MPI_COMM_DUP_FN copies it as is.
module attr_counts
  integer :: ncopy = 0, ndelete = 0
end module

subroutine my_copy(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  use attr_counts
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  ncopy = ncopy + 1
  if (extra /= 42) then
     print *, 'copy: bad extra_state', extra
  end if
  valout = valin * 2
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine my_delete(comm, keyval, val, extra, ierr)
  use mpi
  use attr_counts
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  ndelete = ndelete + 1
  ierr = MPI_SUCCESS
end subroutine

program attrs
  use mpi
  use attr_counts
  implicit none
  external my_copy, my_delete
  integer :: ierr, kv, kvnull, kvdup, dup, errs, rank
  integer(kind=MPI_ADDRESS_KIND) :: extra, val, got
  logical :: flag
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 42
  call MPI_Comm_create_keyval(my_copy, my_delete, kv, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kvnull, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kvdup, extra, ierr)
  val = 1234567890123_MPI_ADDRESS_KIND
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kv, val, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kvnull, val, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kvdup, val + 1, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, kv, got, flag, ierr)
  if (.not. flag .or. got /= val) then
     errs = errs + 1
     print *, 'get_attr on world', flag, got
  end if
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  if (ncopy /= 1) then
     errs = errs + 1
     print *, 'copy called', ncopy, 'times'
  end if
  call MPI_Comm_get_attr(dup, kv, got, flag, ierr)
  if (.not. flag .or. got /= 2 * val) then
     errs = errs + 1
     print *, 'copied value', flag, got
  end if
  call MPI_Comm_get_attr(dup, kvnull, got, flag, ierr)
  if (flag) then
     errs = errs + 1
     print *, 'MPI_COMM_NULL_COPY_FN copied the attribute'
  end if
  call MPI_Comm_get_attr(dup, kvdup, got, flag, ierr)
  if (.not. flag .or. got /= val + 1) then
     errs = errs + 1
     print *, 'MPI_COMM_DUP_FN', flag, got
  end if
  call MPI_Comm_free(dup, ierr)
  if (ndelete /= 1) then
     errs = errs + 1
     print *, 'delete called', ndelete, 'times after free'
  end if
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv, ierr)
  if (ndelete /= 2) then
     errs = errs + 1
     print *, 'delete called', ndelete, 'times after delete_attr'
  end if
  call MPI_Comm_free_keyval(kv, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, got, flag, ierr)
  if (.not. flag .or. (got /= 0 .and. got /= 1)) then
     errs = errs + 1
     print *, 'MPI_WTIME_IS_GLOBAL', flag, got
  end if
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
end program
