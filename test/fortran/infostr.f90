! Info strings in Fortran, as MPICH's f77/info/infotest2f and infogetstrf
! expect: MPI_INFO_GET of a missing key leaves the value as it was;
! MPI_INFO_GET_STRING counts BUFLEN in characters without C's NUL (in and
! out), leaves the value alone when BUFLEN is 0 and truncates to BUFLEN
! otherwise. With mpif.h-style calls (use mpi) and with mpi_f08.
program infostr
    use mpi
    implicit none
    integer :: info, ierr, errs, total, rank, bufl
    logical :: flag
    character(len=20) :: val

    errs = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, 'sort', '123456', ierr)
    val = 'canary'
    call MPI_Info_get(info, 'nokey', 20, val, flag, ierr)
    if (flag .or. val /= 'canary') call bad('MPI_Info_get of a missing key changed the value')
    call MPI_Info_get(info, 'sort', 20, val, flag, ierr)
    if (.not. flag .or. val /= '123456') call bad('MPI_Info_get')
    bufl = 0
    val = 'canary'
    call MPI_Info_get_string(info, 'sort', bufl, val, flag, ierr)
    if (.not. flag .or. bufl /= 6 .or. val /= 'canary') call bad('MPI_Info_get_string, buflen 0')
    bufl = 2
    call MPI_Info_get_string(info, 'sort', bufl, val, flag, ierr)
    if (.not. flag .or. bufl /= 6 .or. val /= '12') call bad('MPI_Info_get_string, buflen 2')
    bufl = 20
    val = 'canary'
    call MPI_Info_get_string(info, 'nokey', bufl, val, flag, ierr)
    if (flag .or. val /= 'canary') call bad('MPI_Info_get_string of a missing key')
    call f08_part(info, errs)
    call MPI_Info_free(info, ierr)
    call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    call MPI_Finalize(ierr)
contains
    subroutine bad(what)
        character(len=*), intent(in) :: what
        errs = errs + 1
        print '(2a)', 'wrong: ', what
    end subroutine
end program

subroutine f08_part(finfo, errs)
    use mpi_f08
    implicit none
    integer, intent(in) :: finfo
    integer, intent(inout) :: errs
    type(MPI_Info) :: info
    integer :: bufl
    logical :: flag
    character(len=20) :: val
    info%MPI_VAL = finfo
    bufl = 3
    val = 'canary'
    call MPI_Info_get_string(info, 'sort', bufl, val, flag)
    if (.not. flag .or. bufl /= 6 .or. val /= '123') then
        errs = errs + 1
        print '(a,i0,2a)', 'wrong: mpi_f08 MPI_Info_get_string: ', bufl, ' ', val
    end if
    val = 'canary'
    call MPI_Info_get(info, 'nokey', 20, val, flag)
    if (flag .or. val /= 'canary') then
        errs = errs + 1
        print '(a)', 'wrong: mpi_f08 MPI_Info_get of a missing key changed the value'
    end if
end subroutine
