! The parts of mpi_f08 that live in its modules rather than in MPI calls:
! handle comparisons (also with an INTEGER handle), status conversions,
! MPI_Sizeof, MPI_Wtime, the predefined callbacks (MPI_COMM_DUP_FN), the
! special arrays (MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED), and the profiling
! names of module pmpi_f08. Built with Canal's mpifort and with MPICH's
! mpif90.mpich (whose modules call these procedures by their symbols).
program f08mod
    use mpi_f08
    use pmpi_f08, only : PMPI_Comm_rank, PMPI_Allreduce, PMPI_Wtime
    use, intrinsic :: iso_c_binding, only : c_ptr, c_associated
    implicit none
    type(MPI_Comm) :: dup, graph
    type(MPI_Request) :: req
    type(MPI_Status) :: st
    integer :: fst(MPI_STATUS_SIZE)
    integer :: rank, prank, size, errs, total, ierr, keyval, sz, i, flagint
    integer(kind=MPI_ADDRESS_KIND) :: val, got
    logical :: flag
    real(kind=8) :: d8(4)
    complex :: cx
    character(len=3) :: ch
    double precision :: t0, t1
    integer :: dests(1), degrees(1), srcs(1)
    integer :: vals(6), back(6)
    character(len=1), target :: packed(64)
    integer(kind=MPI_ADDRESS_KIND) :: pos, psize, a1, a2
    type(MPI_Info) :: env
    type(c_ptr) :: detached
    character(len=1), allocatable, target :: bsendbuf(:)

    errs = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    call PMPI_Comm_rank(MPI_COMM_WORLD, prank, ierr)
    if (prank /= rank .or. ierr /= MPI_SUCCESS) call bad('PMPI_Comm_rank')

    ! handle operators
    if (.not. (MPI_COMM_WORLD == MPI_COMM_WORLD)) call bad('comm ==')
    if (MPI_COMM_WORLD /= MPI_COMM_WORLD) call bad('comm /=')
    if (MPI_COMM_WORLD == MPI_COMM_SELF) call bad('world == self')
    if (.not. (MPI_COMM_WORLD == MPI_COMM_WORLD%MPI_VAL)) call bad('comm == integer')
    if (MPI_COMM_SELF%MPI_VAL /= MPI_COMM_SELF) call bad('integer /= comm')
    if (MPI_INTEGER /= MPI_INTEGER .or. MPI_SUM /= MPI_SUM) call bad('datatype/op /=')
    req = MPI_REQUEST_NULL
    if (req /= MPI_REQUEST_NULL) call bad('request /=')
    if (MPI_GROUP_EMPTY == MPI_GROUP_NULL .or. MPI_INFO_NULL /= MPI_INFO_NULL) call bad('group/info')
    if (MPI_WIN_NULL /= MPI_WIN_NULL .or. MPI_FILE_NULL /= MPI_FILE_NULL) call bad('win/file')
    if (MPI_MESSAGE_NULL /= MPI_MESSAGE_NULL .or. MPI_ERRORS_RETURN == MPI_ERRORS_ARE_FATAL) &
        call bad('message/errhandler')

    ! status conversions
    st%MPI_SOURCE = 3
    st%MPI_TAG = 44
    st%MPI_ERROR = MPI_ERR_TAG
    call MPI_Status_f082f(st, fst, ierr)
    if (fst(MPI_SOURCE) /= 3 .or. fst(MPI_TAG) /= 44 .or. fst(MPI_ERROR) /= MPI_ERR_TAG) &
        call bad('MPI_Status_f082f')
    fst(MPI_TAG) = 45
    call MPI_Status_f2f08(fst, st)
    if (st%MPI_TAG /= 45 .or. st%MPI_SOURCE /= 3) call bad('MPI_Status_f2f08')

    ! MPI_Sizeof
    call MPI_Sizeof(d8, sz, ierr)
    if (sz /= 8 .or. ierr /= 0) call bad('MPI_Sizeof real(8)')
    call MPI_Sizeof(cx, sz)
    if (sz /= 8) call bad('MPI_Sizeof complex')
    call MPI_Sizeof(ch, sz)
    if (sz /= 1) call bad('MPI_Sizeof character')
    call MPI_Sizeof(rank, sz)
    if (sz /= 4) call bad('MPI_Sizeof integer')

    ! MPI_Wtime through both modules
    t0 = MPI_Wtime()
    t1 = PMPI_Wtime()
    if (t1 < t0 .or. MPI_Wtick() <= 0d0) call bad('MPI_Wtime')

    ! MPI_COMM_DUP_FN (a module procedure) copies the attribute on dup
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND)
    val = 1234
    call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, val)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_get_attr(dup, keyval, got, flag)
    if (.not. flag .or. got /= 1234) call bad('MPI_COMM_DUP_FN')
    call MPI_Comm_free(dup)
    call MPI_Comm_free_keyval(keyval)

    ! MPI_UNWEIGHTED: a ring graph without weights
    dests(1) = mod(rank + 1, size)
    srcs(1) = rank
    degrees(1) = 1
    call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degrees, dests, MPI_UNWEIGHTED, &
        MPI_INFO_NULL, .false., graph)
    call MPI_Dist_graph_neighbors_count(graph, i, flagint, flag)
    if (i /= 1 .or. flagint /= 1 .or. flag) call bad('MPI_UNWEIGHTED')
    call MPI_Comm_free(graph)

    ! MPI_Pack_external / MPI_Unpack_external (a string beside choice buffers),
    ! unpacking into a strided section
    vals = [1, 2, 3, 4, 5, 6]
    call MPI_Pack_external_size('external32', 3, MPI_INTEGER, psize)
    if (psize /= 12) call bad('MPI_Pack_external_size')
    pos = 0
    call MPI_Pack_external('external32', vals(1:5:2), 3, MPI_INTEGER, packed, 64_MPI_ADDRESS_KIND, pos)
    if (pos /= 12 .or. ichar(packed(4)) /= 1 .or. ichar(packed(8)) /= 3) call bad('MPI_Pack_external')
    back = 0
    pos = 0
    call MPI_Unpack_external('external32', packed, 64_MPI_ADDRESS_KIND, pos, back(2:6:2), 3, MPI_INTEGER)
    if (any(back /= [0, 1, 0, 3, 0, 5])) call bad('MPI_Unpack_external')

    ! MPI_Aint_add/diff, MPI_Buffer_detach (TYPE(C_PTR)), MPI_Info_create_env, MPI_F_sync_reg
    a1 = MPI_Aint_add(1000_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND)
    a2 = MPI_Aint_diff(a1, 1000_MPI_ADDRESS_KIND)
    if (a1 /= 1024 .or. a2 /= 24) call bad('MPI_Aint_add/diff')
    allocate(bsendbuf(1000))
    call MPI_Buffer_attach(bsendbuf, 1000)
    call MPI_Buffer_detach(detached, i)
    ! (c_associated(detached, c_loc(bsendbuf)) crashes gfortran 12 with MPICH's modules)
    if (i /= 1000 .or. .not. c_associated(detached)) call bad('MPI_Buffer_detach')
    deallocate(bsendbuf)
    call MPI_Info_create_env(env, ierr)
    if (ierr /= MPI_SUCCESS .or. env == MPI_INFO_NULL) call bad('MPI_Info_create_env')
    call MPI_Info_free(env)
    call MPI_F_sync_reg(vals)
    call MPI_Pcontrol(1)

    call PMPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
    call MPI_Finalize()
contains
    subroutine bad(what)
        character(len=*), intent(in) :: what
        errs = errs + 1
        print '(a,i0,2a)', 'rank ', rank, ': wrong: ', what
    end subroutine
end program
