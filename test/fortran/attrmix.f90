! Attributes across languages (with attrmix_c.c): values that Fortran sets
! with MPI_COMM/TYPE/WIN_SET_ATTR and MPI_ATTR_PUT are read from C through a
! pointer to the integer (MPICH's rule, MPI 4.0 section 19.3.7), a pointer
! that C sets reads in Fortran as its address, Fortran copy and delete
! procedures get the integer itself, and a copy made by MPI_COMM_DUP reads
! right from both languages.
program attrmix
    use mpi
    implicit none
    integer :: ierr, errs, ckey, fkey, ikey, tkey, wkey, dup, win, buf(4)
    integer :: intval
    integer(kind=MPI_ADDRESS_KIND) :: val, expected, extra, address
    logical :: flag
    integer :: ncopy, ndelete
    common /attrmix_counts/ ncopy, ndelete
    external :: copy_plus2, delete_count

    errs = 0
    ncopy = 0
    ndelete = 0
    call MPI_Init(ierr)

    ! Fortran sets an address-kind integer; C reads it by address.
    extra = 7
    call MPI_Comm_create_keyval(copy_plus2, delete_count, fkey, extra, ierr)
    val = 5555
    call MPI_Comm_set_attr(MPI_COMM_WORLD, fkey, val, ierr)
    expected = 5555
    call attrmix_c_read_aint(MPI_COMM_WORLD, fkey, expected, errs)
    ! ... and Fortran still reads the integer itself.
    call MPI_Comm_get_attr(MPI_COMM_WORLD, fkey, val, flag, ierr)
    if (.not. flag .or. val /= 5555) then
        print *, 'Fortran: own comm attribute reads ', val
        errs = errs + 1
    end if

    ! The copy procedure gets 5555 and returns 5557: both languages see it.
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    if (ncopy /= 1) then
        print *, 'copy procedure called ', ncopy, ' times'
        errs = errs + 1
    end if
    expected = 5557
    call attrmix_c_read_aint(dup, fkey, expected, errs)
    call MPI_Comm_get_attr(dup, fkey, val, flag, ierr)
    if (.not. flag .or. val /= 5557) then
        print *, 'Fortran: copied attribute reads ', val
        errs = errs + 1
    end if
    call MPI_Comm_free(dup, ierr)
    if (ndelete /= 1) then
        print *, 'delete procedure called ', ndelete, ' times'
        errs = errs + 1
    end if

    ! MPI-1's MPI_ATTR_PUT: a default INTEGER, read from C as an int.
    call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, ikey, 0, ierr)
    call MPI_Attr_put(MPI_COMM_WORLD, ikey, 1234, ierr)
    call attrmix_c_read_int(MPI_COMM_WORLD, ikey, 1234, errs)
    call MPI_Attr_get(MPI_COMM_WORLD, ikey, intval, flag, ierr)
    if (.not. flag .or. intval /= 1234) then
        print *, 'Fortran: MPI_ATTR_GET reads ', intval
        errs = errs + 1
    end if

    ! A pointer set from C reads in Fortran as its address.
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, ckey, extra, ierr)
    call attrmix_c_set_ptr(MPI_COMM_WORLD, ckey, address, errs)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, ckey, val, flag, ierr)
    if (.not. flag .or. val /= address) then
        print *, 'Fortran: C pointer attribute reads ', val, ' not the address ', address
        errs = errs + 1
    end if

    ! Datatypes and windows follow the same rule.
    call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
    val = 31
    call MPI_Type_set_attr(MPI_INTEGER, tkey, val, ierr)
    expected = 31
    call attrmix_c_read_type(MPI_INTEGER, tkey, expected, errs)
    call MPI_Type_delete_attr(MPI_INTEGER, tkey, ierr)
    call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, extra, ierr)
    call MPI_Win_create(buf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    val = -77
    call MPI_Win_set_attr(win, wkey, val, ierr)
    expected = -77
    call attrmix_c_read_win(win, wkey, expected, errs)
    call MPI_Win_free(win, ierr)

    call MPI_Comm_delete_attr(MPI_COMM_WORLD, fkey, ierr)
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, ikey, ierr)
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, ckey, ierr)
    call MPI_Comm_free_keyval(fkey, ierr)
    call MPI_Keyval_free(ikey, ierr)
    call MPI_Comm_free_keyval(ckey, ierr)
    call MPI_Type_free_keyval(tkey, ierr)
    call MPI_Win_free_keyval(wkey, ierr)

    call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, intval, ierr)
    if (intval == 0) then
        if (errs == 0) then
            print *, 'No Errors'
        else
            print *, 'Found ', errs, ' errors'
        end if
    end if
    call MPI_Finalize(ierr)
end program attrmix

subroutine copy_plus2(oldcomm, keyval, extra, valin, valout, flag, ierr)
    use mpi
    implicit none
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    integer :: ncopy, ndelete
    common /attrmix_counts/ ncopy, ndelete
    ncopy = ncopy + 1
    if (extra /= 7 .or. valin /= 5555) print *, 'copy: extra ', extra, ' valin ', valin
    valout = valin + 2
    flag = .true.
    ierr = MPI_SUCCESS
end subroutine copy_plus2

subroutine delete_count(comm, keyval, val, extra, ierr)
    use mpi
    implicit none
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    integer :: ncopy, ndelete
    common /attrmix_counts/ ncopy, ndelete
    ! called for the duplicate's attribute (5557) when it is freed
    if (val == 5557) ndelete = ndelete + 1
    ierr = MPI_SUCCESS
end subroutine delete_count
