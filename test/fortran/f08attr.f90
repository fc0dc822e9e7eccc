! mpi_f08's keyval and attribute procedures of datatypes and windows, called
! as MPI 4.0 section 19.2 declares them: keyword arguments and no ierror
! (both need the explicit interfaces of the module), Fortran copy and delete
! procedures of the abstract interfaces, INTEGER(KIND=MPI_ADDRESS_KIND)
! values. MPI_Type_dup copies the attribute through the copy procedure.
module f08attr_procs
    use mpi_f08
    implicit none
    integer :: ncopy = 0, ndelete = 0
contains
    subroutine type_copy(oldtype, type_keyval, extra_state, attribute_val_in, &
            attribute_val_out, flag, ierror)
        type(MPI_Datatype) :: oldtype
        integer :: type_keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
        logical :: flag
        ncopy = ncopy + 1
        attribute_val_out = attribute_val_in + extra_state
        flag = .true.
        ierror = MPI_SUCCESS
    end subroutine type_copy

    subroutine type_delete(datatype, type_keyval, attribute_val, extra_state, ierror)
        type(MPI_Datatype) :: datatype
        integer :: type_keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
        ndelete = ndelete + 1
        ierror = MPI_SUCCESS
    end subroutine type_delete
end module f08attr_procs

program f08attr
    use mpi_f08
    use f08attr_procs
    implicit none
    type(MPI_Datatype) :: dup
    type(MPI_Win) :: win
    integer :: tkey, wkey, errs, rank, buf(4)
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag

    errs = 0
    call MPI_Init()
    call MPI_Type_create_keyval(type_copy_attr_fn=type_copy, type_delete_attr_fn=type_delete, &
        type_keyval=tkey, extra_state=10_MPI_ADDRESS_KIND)
    call MPI_Type_set_attr(datatype=MPI_INTEGER, type_keyval=tkey, attribute_val=100_MPI_ADDRESS_KIND)
    call MPI_Type_dup(MPI_INTEGER, dup)
    call MPI_Type_get_attr(datatype=dup, type_keyval=tkey, attribute_val=val, flag=flag)
    if (.not. flag .or. val /= 110 .or. ncopy /= 1) then
        print *, 'type attribute of the duplicate: ', flag, val, ' copies ', ncopy
        errs = errs + 1
    end if
    call MPI_Type_free(dup)
    call MPI_Type_delete_attr(MPI_INTEGER, tkey)
    if (ndelete /= 2) then
        print *, 'delete procedure called ', ndelete, ' times, not 2'
        errs = errs + 1
    end if
    call MPI_Type_free_keyval(tkey)

    call MPI_Win_create_keyval(win_copy_attr_fn=MPI_WIN_NULL_COPY_FN, &
        win_delete_attr_fn=MPI_WIN_NULL_DELETE_FN, win_keyval=wkey, extra_state=0_MPI_ADDRESS_KIND)
    call MPI_Win_create(buf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call MPI_Win_set_attr(win=win, win_keyval=wkey, attribute_val=-5_MPI_ADDRESS_KIND)
    call MPI_Win_get_attr(win=win, win_keyval=wkey, attribute_val=val, flag=flag)
    if (.not. flag .or. val /= -5) then
        print *, 'window attribute: ', flag, val
        errs = errs + 1
    end if
    call MPI_Win_free(win)
    call MPI_Win_free_keyval(wkey)

    call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (rank == 0) then
        if (errs == 0) then
            print *, 'No Errors'
        else
            print *, 'Found ', errs, ' errors'
        end if
    end if
    call MPI_Finalize()
end program f08attr
