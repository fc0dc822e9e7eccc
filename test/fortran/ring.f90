! Ring exchange with MPI_Sendrecv and a status, MPI_TAG_UB through
! MPI_Comm_get_attr (an INTEGER(KIND=MPI_ADDRESS_KIND) value), the
! processor name (a string out), MPI_Allreduce and MPI_STATUS_IGNORE.
program ring
  use mpi
  implicit none
  integer :: ierr, rank, size, left, right, val, recvd, status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: tagub
  logical :: flag
  character(len=MPI_MAX_PROCESSOR_NAME) :: name
  integer :: namelen, sum
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank - 1 + size, size)
  val = rank * 10
  call MPI_Sendrecv(val, 1, MPI_INTEGER, right, 7, recvd, 1, MPI_INTEGER, left, 7, &
                    MPI_COMM_WORLD, status, ierr)
  if (recvd /= left * 10 .or. status(MPI_SOURCE) /= left .or. status(MPI_TAG) /= 7) then
     print *, 'bad ring', rank, recvd, status
     call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  if (.not. flag .or. tagub < 32767) then
     print *, 'bad tag_ub', flag, tagub
     call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call MPI_Get_processor_name(name, namelen, ierr)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (sum /= size * (size - 1) / 2) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  call MPI_Recv(val, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
end program
