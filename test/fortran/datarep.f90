! MPI_Register_datarep with Fortran conversion procedures (mpi_f08): a
! representation "plusone" stores each INTEGER as its value + 1. Written
! through the view, the file holds value + 1 (read back natively); read
! through the view, the values come back. Each rank its own part of the file.
module plusone_conv
    use mpi_f08
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    implicit none
    integer :: reads = 0, writes = 0
contains
    subroutine read_fn(userbuf, datatype, count, filebuf, position, extra_state, ierror)
        type(c_ptr), value :: userbuf, filebuf
        type(MPI_Datatype) :: datatype
        integer :: count, ierror
        integer(kind=MPI_OFFSET_KIND) :: position
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer, pointer :: u(:), f(:)
        call c_f_pointer(userbuf, u, [position + count])
        call c_f_pointer(filebuf, f, [count])
        u(position + 1:position + count) = f(1:count) - int(extra_state)
        reads = reads + 1
        ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
    end subroutine
    subroutine write_fn(userbuf, datatype, count, filebuf, position, extra_state, ierror)
        type(c_ptr), value :: userbuf, filebuf
        type(MPI_Datatype) :: datatype
        integer :: count, ierror
        integer(kind=MPI_OFFSET_KIND) :: position
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer, pointer :: u(:), f(:)
        call c_f_pointer(userbuf, u, [position + count])
        call c_f_pointer(filebuf, f, [count])
        f(1:count) = u(position + 1:position + count) + int(extra_state)
        writes = writes + 1
        ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
    end subroutine
    subroutine extent_fn(datatype, extent, extra_state, ierror)
        type(MPI_Datatype) :: datatype
        integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
        integer :: ierror
        integer(kind=MPI_ADDRESS_KIND) :: lb
        call MPI_Type_get_extent(datatype, lb, extent, ierror)
        if (extra_state /= 1) ierror = MPI_ERR_ARG
    end subroutine
end module

program datarep
    use mpi_f08
    use plusone_conv
    implicit none
    type(MPI_File) :: fh
    integer :: rank, nprocs, errs, total, ierr, i
    integer :: v(8), back(8), raw(8)
    integer(kind=MPI_OFFSET_KIND) :: disp
    character(len=256) :: fname

    errs = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    call MPI_Register_datarep('plusone', read_fn, write_fn, extent_fn, 1_MPI_ADDRESS_KIND, ierr)
    if (ierr /= MPI_SUCCESS) call bad('MPI_Register_datarep')
    call get_environment_variable('TMPDIR', fname)
    if (len_trim(fname) == 0) fname = '/tmp'
    fname = trim(fname) // '/canal_f08_datarep.dat'
    call MPI_File_open(MPI_COMM_WORLD, fname, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh)
    disp = rank * 8 * 4
    v = [(10 * rank + i, i = 1, 8)]
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'plusone', MPI_INFO_NULL)
    call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, v, 8, MPI_INTEGER, MPI_STATUS_IGNORE)
    call MPI_File_sync(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    back = 0
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, 8, MPI_INTEGER, MPI_STATUS_IGNORE)
    if (any(back /= v)) call bad('read through the view')
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, 8, MPI_INTEGER, MPI_STATUS_IGNORE)
    if (any(raw /= v + 1)) call bad('file contents')
    if (reads == 0 .or. writes == 0) call bad('conversion procedures not called')
    call MPI_File_close(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL)
    call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    call MPI_Finalize()
contains
    subroutine bad(what)
        character(len=*), intent(in) :: what
        errs = errs + 1
        print '(a,i0,2a)', 'rank ', rank, ': wrong: ', what
    end subroutine
end program
