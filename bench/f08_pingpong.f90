! Ping-pong latency between ranks 0 and 1 from Fortran (use mpi_f08), the
! twin of bench/latency.c: same sizes (0 B, then powers of two to -m), the
! same iterations per size, batches and median, and the same output
! ("size median_us min_us max_us"), so bench/compare_fortran.sh can put the
! two side by side. The buffers are contiguous CHARACTER arrays: the
! binding must hand their address to MPI without a copy.
!
! Usage: mpiexec -n 2 ./f08_pingpong [-m max_bytes] [-i iteration_scale] [-b batches]
program f08_pingpong
    use mpi_f08
    implicit none
    integer, parameter :: small_limit = 8192
    integer(kind=8) :: max_size, sz, iters, per_batch, warm, n, i
    real(kind=8) :: scale, t0
    real(kind=8), allocatable :: batch(:)
    character(len=1), allocatable :: sbuf(:), rbuf(:)
    integer :: batches, rank, nprocs, peer, b, errors, k
    character(len=64) :: arg, val

    max_size = 4194304
    scale = 1d0
    batches = 5
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    k = 1
    do while (k < command_argument_count())
        call get_command_argument(k, arg)
        call get_command_argument(k + 1, val)
        select case (arg)
        case ('-m')
            read (val, *) max_size
        case ('-i')
            read (val, *) scale
        case ('-b')
            read (val, *) batches
        end select
        k = k + 2
    end do
    if (nprocs < 2 .or. max_size < 0 .or. batches < 1) then
        if (rank == 0) print '(a)', 'usage: mpiexec -n 2 f08_pingpong [-m max_bytes] [-i scale] [-b batches]'
        call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
    allocate(sbuf(max(max_size, 1_8)), rbuf(max(max_size, 1_8)), batch(batches))
    sbuf = merge('a', 'b', rank == 0)
    rbuf = ' '
    if (rank == 0) then
        print '(a)', '# latency (one way, us) from Fortran (mpi_f08)'
        print '(a,i0,a,i0,a,g0)', '# ranks ', nprocs, ', batches ', batches, ', iteration scale ', scale
    end if
    errors = 0
    peer = 1 - rank
    sz = 0
    do
        iters = merge(10000_8, 10000_8 * small_limit / max(sz, 1_8), sz <= small_limit)
        iters = max(iters, 100_8)
        iters = max(int(iters * scale, 8), 10_8)
        per_batch = max(iters / batches, 1_8)
        warm = max(iters / 10, 1_8)
        if (rank < 2) then
            do b = 0, batches
                n = merge(warm, per_batch, b == 0)
                t0 = MPI_Wtime()
                do i = 1, n
                    if (rank == 0) then
                        call MPI_Send(sbuf, int(sz), MPI_CHARACTER, peer, 1, MPI_COMM_WORLD)
                        call MPI_Recv(rbuf, int(sz), MPI_CHARACTER, peer, 1, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE)
                    else
                        call MPI_Recv(rbuf, int(sz), MPI_CHARACTER, peer, 1, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE)
                        call MPI_Send(sbuf, int(sz), MPI_CHARACTER, peer, 1, MPI_COMM_WORLD)
                    end if
                end do
                if (b > 0) batch(b) = (MPI_Wtime() - t0) / n / 2 * 1d6
            end do
            if (sz > 0) then
                if (rbuf(1) /= merge('b', 'a', rank == 0) .or. rbuf(sz) /= rbuf(1)) then
                    print '(a,i0,a,i0)', 'f08_pingpong: rank ', rank, ': wrong data at size ', sz
                    errors = errors + 1
                end if
            end if
            if (rank == 0) then
                call sort(batch)
                print '(i0,t14,3f13.3)', sz, batch(batches / 2 + 1), batch(1), batch(batches)
            end if
        end if
        if (sz >= max_size) exit
        sz = merge(1_8, min(sz * 2, max_size), sz == 0)
    end do
    call MPI_Finalize()
    if (errors /= 0) error stop 1
contains
    subroutine sort(a)
        real(kind=8), intent(inout) :: a(:)
        integer :: p, q
        real(kind=8) :: t
        do p = 2, size(a)
            t = a(p)
            q = p - 1
            do while (q >= 1)
                if (a(q) <= t) exit
                a(q + 1) = a(q)
                q = q - 1
            end do
            a(q + 1) = t
        end do
    end subroutine
end program
