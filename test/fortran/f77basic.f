C     Fixed-form Fortran 77 with mpif.h: names (strings in and out with
C     blanks), an info object, nonblocking exchange with MPI_Waitall and
C     MPI_STATUSES_IGNORE, MPI_BOTTOM with MPI_Get_address, MPI_Wtime.
      PROGRAM F77BASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, SIZE, ERRS, RLEN, INFO, REQS(2), PEER
      INTEGER SBUF, RBUF, NKEYS, TYPE
      INTEGER(KIND=MPI_ADDRESS_KIND) ADDR
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*(MPI_MAX_INFO_VAL) VALUE
      LOGICAL FLAG
      DOUBLE PRECISION T
      ERRS = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      T = MPI_WTIME()
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'my world  ', IERR)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, RLEN, IERR)
      IF (NAME .NE. 'my world' .OR. RLEN .NE. 8) THEN
         ERRS = ERRS + 1
         PRINT *, 'name ', NAME, RLEN
      ENDIF
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, 'color', 'blue', IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      CALL MPI_INFO_GET(INFO, 'color', MPI_MAX_INFO_VAL, VALUE, FLAG,
     &                  IERR)
      IF (NKEYS .NE. 1 .OR. .NOT. FLAG .OR. VALUE .NE. 'blue') THEN
         ERRS = ERRS + 1
         PRINT *, 'info ', NKEYS, FLAG, VALUE
      ENDIF
      CALL MPI_INFO_FREE(INFO, IERR)
      PEER = MOD(RANK + 1, SIZE)
      SBUF = RANK
      CALL MPI_GET_ADDRESS(SBUF, ADDR, IERR)
      CALL MPI_TYPE_CREATE_HINDEXED(1, 1, ADDR, MPI_INTEGER, TYPE, IERR)
      CALL MPI_TYPE_COMMIT(TYPE, IERR)
      CALL MPI_IRECV(RBUF, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3,
     &               MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_ISEND(MPI_BOTTOM, 1, TYPE, PEER, 3, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
C     MPI_STATUSES_IGNORE is a variable of mpif.h: no status may land in it.
      IF (MPI_STATUSES_IGNORE(MPI_TAG, 1) .NE. 0) THEN
         ERRS = ERRS + 1
         PRINT *, 'a status was written into MPI_STATUSES_IGNORE'
      ENDIF
      IF (RBUF .NE. MOD(RANK - 1 + SIZE, SIZE)) THEN
         ERRS = ERRS + 1
         PRINT *, 'bottom ', RBUF
      ENDIF
      CALL MPI_TYPE_FREE(TYPE, IERR)
      IF (MPI_WTIME() .LT. T) ERRS = ERRS + 1
      IF (RANK .EQ. 0 .AND. ERRS .EQ. 0) PRINT '(A)', ' No Errors'
      CALL MPI_FINALIZE(IERR)
      END
