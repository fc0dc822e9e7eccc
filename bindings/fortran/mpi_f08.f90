! The mpi_f08 modules of Canal's Fortran library (MPI 4.0 section 19.2), with
! the module names and module procedure names of MPICH 4.0.2: a program
! compiled against MPICH's mpi_f08 calls procedures and uses variables of
! these modules by their symbols (__mpi_f08_types_MOD_mpi_comm_eq ...), so
! libmpifort defines the same ones and works in place of libmpichfort.
!
! mpi_c_interface_types  the kinds of the C types and the C MPI_Status.
! mpi_c_interface_glue   Fortran <-> C string conversions.
! mpi_f08_types          the handle types (one integer, MPI_VAL, equal to the
!                        C handle as in MPICH), TYPE(MPI_Status) with the
!                        layout of the C MPI_Status, its conversions, the
!                        comparison operators, the handle f2c/c2f functions
!                        and MPI_Sizeof (mpi_f08_handles*.f90, generated).
! mpi_f08_compile_constants  the named constants (mpi_f08_constants.h,
!                        printed from mpi.h at build time).
! mpi_f08_link_constants MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE
!                        (libmpi's MPIR_F08_* objects, as in MPICH) and the
!                        other special arrays, recognized by address.
! mpi_f08_callbacks      the procedure interfaces and the predefined
!                        callbacks (MPI_COMM_DUP_FN ...).
! pmpi_f08, mpi_f08      the generic interfaces (generated from the API table
!                        by gen_f08.py: MPI_X -> MPI_X_f08 / MPI_X_f08ts and
!                        their _large forms; PMPI_X -> PMPIR_X_f08..., the
!                        same procedures under a second name).
module mpi_c_interface_types
    use, intrinsic :: iso_c_binding
    implicit none

    integer, parameter :: c_Fint = kind(0)
    integer, parameter :: c_Aint = c_intptr_t
    integer, parameter :: c_Count = c_long_long
    integer, parameter :: c_Offset = c_long_long
    integer, parameter :: c_Datatype = c_int
    integer, parameter :: c_Comm = c_int
    integer, parameter :: c_Group = c_int
    integer, parameter :: c_Win = c_int
    integer, parameter :: c_Op = c_int
    integer, parameter :: c_Info = c_int
    integer, parameter :: c_Errhandler = c_int
    integer, parameter :: c_Request = c_int
    integer, parameter :: c_Message = c_int
    integer, parameter :: c_Session = c_int
    integer, parameter :: c_File = c_intptr_t

    type, bind(C) :: c_Status
        integer(c_int) :: count_lo
        integer(c_int) :: count_hi_and_cancelled
        integer(c_int) :: MPI_SOURCE
        integer(c_int) :: MPI_TAG
        integer(c_int) :: MPI_ERROR
    end type c_Status
end module mpi_c_interface_types

module mpi_c_interface_glue
    use, intrinsic :: iso_c_binding, only : c_char, c_null_char
    implicit none
    private :: c_char, c_null_char
contains
    ! fstring without its leading and trailing blanks, NUL-terminated.
    subroutine MPIR_Fortran_string_f2c(fstring, cstring)
        character(len=*), intent(in) :: fstring
        character(kind=c_char), intent(out) :: cstring(:)
        integer :: first, last, k
        first = verify(fstring, ' ')
        last = len_trim(fstring)
        k = 0
        if (first > 0) then
            do k = 1, last - first + 1
                cstring(k) = fstring(first + k - 1:first + k - 1)
            end do
            k = last - first + 1
        end if
        cstring(k + 1) = c_null_char
    end subroutine MPIR_Fortran_string_f2c

    ! The NUL-terminated cstring in fstring, padded with blanks.
    subroutine MPIR_Fortran_string_c2f(cstring, fstring)
        character(kind=c_char), intent(in) :: cstring(:)
        character(len=*), intent(out) :: fstring
        integer :: k
        fstring = ' '
        k = 1
        do while (k <= size(cstring) .and. k <= len(fstring))
            if (cstring(k) == c_null_char) exit
            fstring(k:k) = cstring(k)
            k = k + 1
        end do
    end subroutine MPIR_Fortran_string_c2f
end module mpi_c_interface_glue

module mpi_f08_types
    use, intrinsic :: iso_c_binding, only : c_int
    use :: mpi_c_interface_types, only : c_Count, c_Status
    implicit none
    private :: c_int, c_Count, c_Status

    type, bind(C) :: MPI_Comm
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Datatype
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Group
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Request
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Op
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Info
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Errhandler
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Win
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_File
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Message
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Session
        integer :: MPI_VAL
    end type
    type, bind(C) :: MPI_Status
        integer :: count_lo
        integer :: count_hi_and_cancelled
        integer :: MPI_SOURCE
        integer :: MPI_TAG
        integer :: MPI_ERROR
    end type

    integer, parameter :: MPI_SOURCE = 3
    integer, parameter :: MPI_TAG = 4
    integer, parameter :: MPI_ERROR = 5
    integer, parameter :: MPI_STATUS_SIZE = 5

    ! MPI_File handles are not C ints: libmpi converts them.
    interface
        function MPI_File_f2c(x) bind(C, name="MPI_File_f2c") result(res)
            use :: mpi_c_interface_types, only : c_File
            integer, value :: x
            integer(c_File) :: res
        end function
        function MPI_File_c2f(x) bind(C, name="MPI_File_c2f") result(res)
            use :: mpi_c_interface_types, only : c_File
            integer(c_File), value :: x
            integer :: res
        end function
    end interface

    interface assignment(=)
        module procedure MPI_Status_f08_assign_c
        module procedure MPI_Status_c_assign_f08
    end interface
    private :: MPI_Status_f08_assign_c, MPI_Status_c_assign_f08

    include 'mpi_f08_handles.f90'

contains

    elemental subroutine MPI_Status_f08_assign_c(status_f08, status_c)
        type(c_Status), intent(in) :: status_c
        type(MPI_Status), intent(out) :: status_f08
        status_f08%count_lo = status_c%count_lo
        status_f08%count_hi_and_cancelled = status_c%count_hi_and_cancelled
        status_f08%MPI_SOURCE = status_c%MPI_SOURCE
        status_f08%MPI_TAG = status_c%MPI_TAG
        status_f08%MPI_ERROR = status_c%MPI_ERROR
    end subroutine
    elemental subroutine MPI_Status_c_assign_f08(status_c, status_f08)
        type(MPI_Status), intent(in) :: status_f08
        type(c_Status), intent(out) :: status_c
        status_c%count_lo = status_f08%count_lo
        status_c%count_hi_and_cancelled = status_f08%count_hi_and_cancelled
        status_c%MPI_SOURCE = status_f08%MPI_SOURCE
        status_c%MPI_TAG = status_f08%MPI_TAG
        status_c%MPI_ERROR = status_f08%MPI_ERROR
    end subroutine

    subroutine MPI_Status_f082f(f08_status, f_status, ierror)
        type(MPI_Status), intent(in) :: f08_status
        integer, intent(out) :: f_status(MPI_STATUS_SIZE)
        integer, optional, intent(out) :: ierror
        f_status(1) = f08_status%count_lo
        f_status(2) = f08_status%count_hi_and_cancelled
        f_status(MPI_SOURCE) = f08_status%MPI_SOURCE
        f_status(MPI_TAG) = f08_status%MPI_TAG
        f_status(MPI_ERROR) = f08_status%MPI_ERROR
        if (present(ierror)) ierror = 0
    end subroutine
    subroutine MPI_Status_f2f08(f_status, f08_status, ierror)
        integer, intent(in) :: f_status(MPI_STATUS_SIZE)
        type(MPI_Status), intent(out) :: f08_status
        integer, optional, intent(out) :: ierror
        f08_status%count_lo = f_status(1)
        f08_status%count_hi_and_cancelled = f_status(2)
        f08_status%MPI_SOURCE = f_status(MPI_SOURCE)
        f08_status%MPI_TAG = f_status(MPI_TAG)
        f08_status%MPI_ERROR = f_status(MPI_ERROR)
        if (present(ierror)) ierror = 0
    end subroutine

    ! The C functions of MPI 4.0 19.3.5 (MPICH defines them in Fortran too).
    function MPI_Status_f082c(status_f08, status_c) bind(C, name="MPI_Status_f082c") result(res)
        type(MPI_Status), intent(in) :: status_f08
        type(c_Status), intent(out) :: status_c
        integer(c_int) :: res
        status_c = status_f08
        res = 0
    end function
    function PMPI_Status_f082c(status_f08, status_c) bind(C, name="PMPI_Status_f082c") result(res)
        type(MPI_Status), intent(in) :: status_f08
        type(c_Status), intent(out) :: status_c
        integer(c_int) :: res
        status_c = status_f08
        res = 0
    end function
    function MPI_Status_c2f08(status_c, status_f08) bind(C, name="MPI_Status_c2f08") result(res)
        type(c_Status), intent(in) :: status_c
        type(MPI_Status), intent(out) :: status_f08
        integer(c_int) :: res
        status_f08 = status_c
        res = 0
    end function
    function PMPI_Status_c2f08(status_c, status_f08) bind(C, name="PMPI_Status_c2f08") result(res)
        type(c_Status), intent(in) :: status_c
        type(MPI_Status), intent(out) :: status_f08
        integer(c_int) :: res
        status_f08 = status_c
        res = 0
    end function

    include 'mpi_f08_handles_procs.f90'
end module mpi_f08_types

module mpi_f08_compile_constants
    use :: mpi_f08_types
    implicit none
    include 'mpi_f08_constants.h'
end module mpi_f08_compile_constants

module mpi_f08_link_constants
    use, intrinsic :: iso_c_binding, only : c_int
    use :: mpi_f08_types, only : MPI_Status
    implicit none
    private :: c_int, MPI_Status

    type(MPI_Status), bind(C, name="MPIR_F08_MPI_STATUS_IGNORE_OBJ"), target :: MPI_STATUS_IGNORE
    type(MPI_Status), dimension(1), bind(C, name="MPIR_F08_MPI_STATUSES_IGNORE_OBJ"), target :: &
        MPI_STATUSES_IGNORE
    integer(c_int), bind(C, name="MPIR_F08_MPI_IN_PLACE"), target :: MPI_IN_PLACE
    integer(c_int), bind(C, name="MPIR_F08_MPI_BOTTOM"), target :: MPI_BOTTOM
    ! f08ts.h compares the addresses of these module variables.
    character(len=1), dimension(1), target :: MPI_ARGV_NULL
    character(len=1), dimension(1, 1), target :: MPI_ARGVS_NULL
    integer, dimension(1), target :: MPI_ERRCODES_IGNORE
    integer, dimension(1), target :: MPI_UNWEIGHTED
    integer, dimension(1), target :: MPI_WEIGHTS_EMPTY
end module mpi_f08_link_constants

module mpi_f08_callbacks
    use :: mpi_f08_types
    use :: mpi_f08_compile_constants, only : MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND, &
        MPI_SUCCESS
    implicit none
    private
    public :: MPI_User_function, MPI_User_function_c, MPI_Comm_copy_attr_function, &
        MPI_Comm_delete_attr_function, MPI_Win_copy_attr_function, MPI_Win_delete_attr_function, &
        MPI_Type_copy_attr_function, MPI_Type_delete_attr_function, &
        MPI_Comm_errhandler_function, MPI_Win_errhandler_function, &
        MPI_Session_errhandler_function, MPI_File_errhandler_function, &
        MPI_Grequest_query_function, MPI_Grequest_free_function, MPI_Grequest_cancel_function, &
        MPI_Datarep_extent_function, MPI_Datarep_conversion_function, &
        MPI_Datarep_conversion_function_c
    public :: MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, MPI_TYPE_DUP_FN, &
        MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, MPI_WIN_DUP_FN, MPI_WIN_NULL_COPY_FN, &
        MPI_WIN_NULL_DELETE_FN, MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL_C

    include 'mpi_f08_callbacks.f90'
end module mpi_f08_callbacks

! The profiling interface (MPI 4.0 15.2.7): PMPI_X, specifics PMPIR_X_f08...
module pmpi_f08
    use :: mpi_f08_types
    use :: mpi_f08_compile_constants
    use :: mpi_f08_link_constants
    use :: mpi_f08_callbacks
    implicit none

    include 'pmpi_f08_interfaces.f90'
    include 'pmpi_f08_special.f90'
end module pmpi_f08

module mpi_f08
    use :: mpi_f08_types
    use :: mpi_f08_compile_constants
    use :: mpi_f08_link_constants
    use :: mpi_f08_callbacks
    use :: pmpi_f08 ! as MPICH's: PMPI_X is also in mpi_f08
    implicit none

    include 'mpi_f08_interfaces.f90'
    include 'mpi_f08_special.f90'
end module mpi_f08
