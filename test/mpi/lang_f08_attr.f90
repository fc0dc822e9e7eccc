! The Fortran 2008 binding (use mpi_f08) of MPICH's own Fortran library,
! built with mpif90.mpich, on Canal: it reaches the same MPII_* hooks with
! MPIR_ATTR_AINT. MPI_TAG_UB reads as a number; MPI_COMM_DUP_FN copies an
! attribute on MPI_Comm_dup; a Fortran delete function runs at MPI_Comm_free.
module lang_f08_cb
  use mpi_f08
  implicit none
  integer :: ndelete = 0
  integer(kind=MPI_ADDRESS_KIND) :: last_deleted = -1
contains
  subroutine del_fn(comm, keyval, val, extra, ierr)
    type(MPI_Comm) :: comm
    integer :: keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ndelete = ndelete + 1
    last_deleted = val
    ierr = MPI_SUCCESS
  end subroutine
end module

program lang_f08_attr
  use mpi_f08
  use lang_f08_cb
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: v, extra = 0
  logical :: flag
  type(MPI_Comm) :: c
  integer :: key, rank, errs = 0, all_errs

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, v, flag)
  if (.not. flag .or. v < 32767 .or. v >= 2_MPI_ADDRESS_KIND**31) then
    errs = errs + 1
    print *, 'MPI_TAG_UB: ', flag, v
  end if
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_fn, key, extra)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, 17_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, c)
  call MPI_Comm_get_attr(c, key, v, flag)
  if (.not. flag .or. v /= 17) then
    errs = errs + 1
    print *, 'copied attribute: ', flag, v
  end if
  call MPI_Comm_free(c)
  if (ndelete /= 1 .or. last_deleted /= 17) then
    errs = errs + 1
    print *, 'delete: ', ndelete, last_deleted
  end if
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key)
  call MPI_Comm_free_keyval(key)

  call MPI_Reduce(errs, all_errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    if (all_errs == 0) then
      print '(a)', ' No Errors'
    else
      print *, 'Found ', all_errs, ' errors'
    end if
  end if
  call MPI_Finalize()
end program
