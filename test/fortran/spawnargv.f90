! MPI_Comm_spawn from mpi_f08 with an argument list: each CHARACTER element
! loses its trailing blanks but keeps its leading ones (" Ss" arrives as
! " Ss", as with MPICH's mpi_f08: f08/spawn/spawnargvf90; its mpif.h and
! use mpi drop them: f77/spawn/spawnargvf), the list ends at the first blank
! element. The children check their arguments and report to the parent.
program spawnargv
    use mpi_f08
    implicit none
    type(MPI_Comm) :: parent, intercomm
    integer :: ierr, rank, errs, i, n, total, cerrs
    integer :: errcodes(1)
    character(len=10) :: inargv(4)
    character(len=80) :: arg
    character(len=10), parameter :: want(3) = [character(len=10) :: 'a', 'd e', ' Ss']

    errs = 0
    call MPI_Init(ierr)
    call MPI_Comm_get_parent(parent, ierr)
    if (parent == MPI_COMM_NULL) then
        inargv = [character(len=10) :: 'a', 'd e', ' Ss', ' ']
        call get_command_argument(0, arg)
        call MPI_Comm_spawn(arg, inargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, intercomm, &
            errcodes, ierr)
        call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
        if (rank == 0) then
            call MPI_Recv(cerrs, 1, MPI_INTEGER, 0, 1, intercomm, MPI_STATUS_IGNORE, ierr)
            errs = errs + cerrs
        end if
        call MPI_Comm_disconnect(intercomm, ierr)
        call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    else
        n = command_argument_count()
        if (n /= 3) then
            errs = errs + 1
            print '(a,i0)', 'child: argument count ', n
        end if
        do i = 1, min(n, 3)
            call get_command_argument(i, arg)
            if (arg /= want(i)) then
                errs = errs + 1
                print '(a,i0,3a)', 'child: argument ', i, ' is "', trim(arg), '"'
            end if
        end do
        call MPI_Send(errs, 1, MPI_INTEGER, 0, 1, parent, ierr)
        call MPI_Comm_disconnect(parent, ierr)
    end if
    call MPI_Finalize(ierr)
end program
