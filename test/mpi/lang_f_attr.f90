! Attribute caching from Fortran with MPICH's own Fortran library
! (libmpichfort.so.12, built with mpif90.mpich) running on Canal: the
! predefined attributes come back as integer values (MPI_TAG_UB is a number,
! not an address), user keyvals with Fortran copy and delete functions are
! called through the library's proxy with the right values and extra state
! (MPI_Comm_dup copies, MPI_Comm_free / delete / overwrite delete),
! MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN, MPI-1 MPI_Keyval_create with
! MPI_Attr_put/get, and datatype and window attributes.
module lang_attr_cb
  use mpi
  implicit none
  integer :: ncopy = 0, ndelete = 0, errs = 0
  integer(kind=MPI_ADDRESS_KIND) :: last_deleted = -1, seen_extra = -1
contains
  subroutine comm_copy(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    ncopy = ncopy + 1
    seen_extra = extra
    val_out = val_in + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine comm_delete(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ndelete = ndelete + 1
    last_deleted = val
    seen_extra = extra
    ierr = MPI_SUCCESS
  end subroutine
  subroutine type_copy(oldtype, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldtype, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    ncopy = ncopy + 1
    val_out = val_in * 2
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine type_delete(dtype, keyval, val, extra, ierr)
    integer :: dtype, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ndelete = ndelete + 1
    last_deleted = val
    ierr = MPI_SUCCESS
  end subroutine
  subroutine win_delete(win, keyval, val, extra, ierr)
    integer :: win, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ndelete = ndelete + 1
    last_deleted = val
    ierr = MPI_SUCCESS
  end subroutine
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      errs = errs + 1
      print *, 'FAILED: ', what
    end if
  end subroutine
end module

program lang_f_attr
  use mpi
  use lang_attr_cb
  implicit none
  integer :: ierr, rank, nprocs, comm1, comm2, comm3, key, key_null, key_dup, key1
  integer :: tkey, ctype, ttype, wkey, win, ival, all_errs
  integer(kind=MPI_ADDRESS_KIND) :: v, extra, wsize
  logical :: flag
  integer :: buf(10)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! predefined attributes: values, both kinds
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, v, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag, 'MPI_TAG_UB is set')
  call check(v >= 32767 .and. v < 2_MPI_ADDRESS_KIND**31, 'MPI_TAG_UB is a tag, not an address')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  call check(flag .and. ival == v, 'MPI_Attr_get(MPI_TAG_UB) agrees')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, v, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. (v == 0 .or. v == 1), 'MPI_WTIME_IS_GLOBAL is 0 or 1')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, v, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. (.not. flag .or. v >= nprocs), 'MPI_UNIVERSE_SIZE >= size')

  ! a user keyval with Fortran callbacks
  extra = 100
  call MPI_Comm_create_keyval(comm_copy, comm_delete, key, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_create_keyval')
  call MPI_Comm_dup(MPI_COMM_WORLD, comm1, ierr)
  v = 42
  call MPI_Comm_set_attr(comm1, key, v, ierr)
  v = 0
  call MPI_Comm_get_attr(comm1, key, v, flag, ierr)
  call check(flag .and. v == 42, 'get returns the value set')
  call MPI_Comm_dup(comm1, comm2, ierr)
  call check(ncopy == 1 .and. seen_extra == 100, 'dup called the Fortran copy function with extra_state')
  call MPI_Comm_get_attr(comm2, key, v, flag, ierr)
  call check(flag .and. v == 43, 'the copy has the value the copy function made')
  call MPI_Comm_free(comm2, ierr)
  call check(ndelete == 1 .and. last_deleted == 43, 'free called the delete function with the copy')
  v = 7
  call MPI_Comm_set_attr(comm1, key, v, ierr)
  call check(ndelete == 2 .and. last_deleted == 42, 'overwriting deletes the old value')
  call MPI_Comm_delete_attr(comm1, key, ierr)
  call check(ndelete == 3 .and. last_deleted == 7, 'MPI_Comm_delete_attr calls delete')
  call MPI_Comm_get_attr(comm1, key, v, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. flag, 'a deleted attribute is gone')

  ! predefined copy functions
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key_null, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key_dup, extra, ierr)
  v = 11
  call MPI_Comm_set_attr(comm1, key_null, v, ierr)
  v = 12
  call MPI_Comm_set_attr(comm1, key_dup, v, ierr)
  call MPI_Comm_dup(comm1, comm3, ierr)
  call MPI_Comm_get_attr(comm3, key_null, v, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_COMM_NULL_COPY_FN does not copy')
  call MPI_Comm_get_attr(comm3, key_dup, v, flag, ierr)
  call check(flag .and. v == 12, 'MPI_COMM_DUP_FN copies the value')
  call MPI_Comm_free(comm3, ierr)

  ! MPI-1: MPI_Keyval_create, MPI_Attr_put/get with INTEGER values
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_Attr_put(comm1, key1, 1234, ierr)
  call MPI_Attr_get(comm1, key1, ival, flag, ierr)
  call check(flag .and. ival == 1234, 'MPI_Attr_get returns the INTEGER put')
  call MPI_Comm_dup(comm1, comm3, ierr)
  call MPI_Attr_get(comm3, key1, ival, flag, ierr)
  call check(flag .and. ival == 1234, 'MPI_DUP_FN copies an MPI_Attr_put value')
  call MPI_Comm_free(comm3, ierr)
  call MPI_Keyval_free(key1, ierr)

  ! datatype attributes
  ncopy = 0
  ndelete = 0
  call MPI_Type_create_keyval(type_copy, type_delete, tkey, extra, ierr)
  call MPI_Type_contiguous(3, MPI_INTEGER, ctype, ierr)
  v = 21
  call MPI_Type_set_attr(ctype, tkey, v, ierr)
  call MPI_Type_dup(ctype, ttype, ierr)
  call MPI_Type_get_attr(ttype, tkey, v, flag, ierr)
  call check(ncopy == 1 .and. flag .and. v == 42, 'MPI_Type_dup called the Fortran copy function')
  call MPI_Type_free(ttype, ierr)
  call check(ndelete == 1 .and. last_deleted == 42, 'MPI_Type_free called the Fortran delete function')
  call MPI_Type_free(ctype, ierr)
  call check(ndelete == 2 .and. last_deleted == 21, 'the original''s attribute is deleted too')
  call MPI_Type_free_keyval(tkey, ierr)

  ! window attributes: predefined values and a user keyval
  wsize = 10 * 4
  call MPI_Win_create(buf, wsize, 4, MPI_INFO_NULL, comm1, win, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, v, flag, ierr)
  call check(flag .and. v == 40, 'MPI_WIN_SIZE is the size')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, v, flag, ierr)
  call check(flag .and. v == 4, 'MPI_WIN_DISP_UNIT is the unit')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, v, flag, ierr)
  call check(flag .and. v == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, v, flag, ierr)
  call check(flag .and. (v == MPI_WIN_UNIFIED .or. v == MPI_WIN_SEPARATE), 'MPI_WIN_MODEL')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, v, flag, ierr)
  call check(flag .and. v /= 0, 'MPI_WIN_BASE is an address')
  ndelete = 0
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, wkey, extra, ierr)
  v = 99
  call MPI_Win_set_attr(win, wkey, v, ierr)
  call MPI_Win_get_attr(win, wkey, v, flag, ierr)
  call check(flag .and. v == 99, 'window attribute')
  call MPI_Win_free(win, ierr)
  call check(ndelete == 1 .and. last_deleted == 99, 'MPI_Win_free called the Fortran delete function')
  call MPI_Win_free_keyval(wkey, ierr)

  call MPI_Comm_free(comm1, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_free_keyval(key_null, ierr)
  call MPI_Comm_free_keyval(key_dup, ierr)

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
