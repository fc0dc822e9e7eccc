! The mpi_f08 modules of Canal's Fortran library (MPI 4.0 section 19.2).
!
! mpi_f08_types: the handle types (one integer, MPI_VAL, equal to the C
! handle as in MPICH), TYPE(MPI_Status) with the layout of the C MPI_Status,
! the named constants (mpi_f08_constants.h, printed from mpi.h at build
! time), and the special variables MPI_BOTTOM, MPI_IN_PLACE,
! MPI_STATUS(ES)_IGNORE (libmpi's MPIR_F08_* objects, as in MPICH),
! MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY.
! mpi_f08: the generic interfaces (mpi_f08_interfaces.f90, generated from
! the API table by gen_f08.py; the procedures are MPICH's MPI_X_f08,
! MPI_X_f08ts and their _large forms), the ones written here, and the
! comparison operators of the handle types.
module mpi_f08_types
    use, intrinsic :: iso_c_binding, only : c_int, c_ptr, c_double
    implicit none
    private :: c_int, c_ptr, c_double

    type, bind(C) :: MPI_Comm
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Datatype
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Group
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Request
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Op
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Info
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Errhandler
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Win
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_File
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Message
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Session
        integer(c_int) :: MPI_VAL
    end type
    type, bind(C) :: MPI_Status
        integer(c_int) :: count_lo
        integer(c_int) :: count_hi_and_cancelled
        integer(c_int) :: MPI_SOURCE
        integer(c_int) :: MPI_TAG
        integer(c_int) :: MPI_ERROR
    end type

    include 'mpi_f08_constants.h'

    integer(c_int), bind(C, name="MPIR_F08_MPI_BOTTOM"), target :: MPI_BOTTOM
    integer(c_int), bind(C, name="MPIR_F08_MPI_IN_PLACE"), target :: MPI_IN_PLACE
    type(MPI_Status), bind(C, name="MPIR_F08_MPI_STATUS_IGNORE_OBJ"), target :: MPI_STATUS_IGNORE
    type(MPI_Status), bind(C, name="MPIR_F08_MPI_STATUSES_IGNORE_OBJ"), target :: &
        MPI_STATUSES_IGNORE(1)
    integer(c_int), bind(C, name="canal_f08_errcodes_ignore"), target :: MPI_ERRCODES_IGNORE(1)
    integer(c_int), bind(C, name="canal_f08_unweighted"), target :: MPI_UNWEIGHTED(1)
    integer(c_int), bind(C, name="canal_f08_weights_empty"), target :: MPI_WEIGHTS_EMPTY(1)
end module mpi_f08_types

module mpi_f08
    use :: mpi_f08_types
    implicit none

    include 'mpi_f08_interfaces.f90'

    ! Written by hand (f08_special.c): procedure and address arguments.
    interface MPI_Init
        subroutine MPI_Init_f08(ierror)
            implicit none
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Init
    interface MPI_Init_thread
        subroutine MPI_Init_thread_f08(required, provided, ierror)
            implicit none
            integer, intent(in) :: required
            integer, intent(out) :: provided
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Init_thread
    interface
        function MPI_Wtime() bind(C, name="MPI_Wtime")
            use, intrinsic :: iso_c_binding, only : c_double
            implicit none
            real(c_double) :: MPI_Wtime
        end function
        function MPI_Wtick() bind(C, name="MPI_Wtick")
            use, intrinsic :: iso_c_binding, only : c_double
            implicit none
            real(c_double) :: MPI_Wtick
        end function
    end interface
    abstract interface
        subroutine MPI_User_function(invec, inoutvec, len, datatype)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Datatype
            implicit none
            type(c_ptr), value :: invec, inoutvec
            integer :: len
            type(MPI_Datatype) :: datatype
        end subroutine
        subroutine MPI_Comm_errhandler_function(comm, error_code)
            import :: MPI_Comm
            implicit none
            type(MPI_Comm) :: comm
            integer :: error_code
        end subroutine
        subroutine MPI_Win_errhandler_function(win, error_code)
            import :: MPI_Win
            implicit none
            type(MPI_Win) :: win
            integer :: error_code
        end subroutine
        subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
                attribute_val_in, attribute_val_out, flag, ierror)
            import :: MPI_Comm, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Comm) :: oldcomm
            integer :: comm_keyval, ierror
            integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
            logical :: flag
        end subroutine
        subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, &
                ierror)
            import :: MPI_Comm, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Comm) :: comm
            integer :: comm_keyval, ierror
            integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
        end subroutine
        subroutine MPI_Grequest_query_function(extra_state, status, ierror)
            import :: MPI_Status, MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND) :: extra_state
            type(MPI_Status) :: status
            integer :: ierror
        end subroutine
        subroutine MPI_Grequest_free_function(extra_state, ierror)
            import :: MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND) :: extra_state
            integer :: ierror
        end subroutine
        subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
            import :: MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND) :: extra_state
            logical :: complete
            integer :: ierror
        end subroutine
    end interface
    interface MPI_Op_create
        subroutine MPI_Op_create_f08(user_fn, commute, op, ierror)
            import :: MPI_Op, MPI_User_function
            implicit none
            procedure(MPI_User_function) :: user_fn
            logical, intent(in) :: commute
            type(MPI_Op), intent(out) :: op
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Op_create
    interface MPI_Comm_create_errhandler
        subroutine MPI_Comm_create_errhandler_f08(comm_errhandler_fn, errhandler, ierror)
            import :: MPI_Errhandler, MPI_Comm_errhandler_function
            implicit none
            procedure(MPI_Comm_errhandler_function) :: comm_errhandler_fn
            type(MPI_Errhandler), intent(out) :: errhandler
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Comm_create_errhandler
    interface MPI_Win_create_errhandler
        subroutine MPI_Win_create_errhandler_f08(win_errhandler_fn, errhandler, ierror)
            import :: MPI_Errhandler, MPI_Win_errhandler_function
            implicit none
            procedure(MPI_Win_errhandler_function) :: win_errhandler_fn
            type(MPI_Errhandler), intent(out) :: errhandler
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Win_create_errhandler
    interface MPI_Comm_create_keyval
        subroutine MPI_Comm_create_keyval_f08(comm_copy_attr_fn, comm_delete_attr_fn, &
                comm_keyval, extra_state, ierror)
            import :: MPI_ADDRESS_KIND, MPI_Comm_copy_attr_function, MPI_Comm_delete_attr_function
            implicit none
            procedure(MPI_Comm_copy_attr_function) :: comm_copy_attr_fn
            procedure(MPI_Comm_delete_attr_function) :: comm_delete_attr_fn
            integer, intent(out) :: comm_keyval
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Comm_create_keyval
    interface MPI_Comm_set_attr
        subroutine MPI_Comm_set_attr_f08(comm, comm_keyval, attribute_val, ierror)
            import :: MPI_Comm, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Comm), intent(in) :: comm
            integer, intent(in) :: comm_keyval
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: attribute_val
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Comm_set_attr
    interface MPI_Comm_get_attr
        subroutine MPI_Comm_get_attr_f08(comm, comm_keyval, attribute_val, flag, ierror)
            import :: MPI_Comm, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Comm), intent(in) :: comm
            integer, intent(in) :: comm_keyval
            integer(kind=MPI_ADDRESS_KIND), intent(out) :: attribute_val
            logical, intent(out) :: flag
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Comm_get_attr
    interface MPI_Win_get_attr
        subroutine MPI_Win_get_attr_f08(win, win_keyval, attribute_val, flag, ierror)
            import :: MPI_Win, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Win), intent(in) :: win
            integer, intent(in) :: win_keyval
            integer(kind=MPI_ADDRESS_KIND), intent(out) :: attribute_val
            logical, intent(out) :: flag
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Win_get_attr
    interface MPI_Grequest_start
        subroutine MPI_Grequest_start_f08(query_fn, free_fn, cancel_fn, extra_state, request, &
                ierror)
            import :: MPI_Request, MPI_ADDRESS_KIND, MPI_Grequest_query_function, &
                MPI_Grequest_free_function, MPI_Grequest_cancel_function
            implicit none
            procedure(MPI_Grequest_query_function) :: query_fn
            procedure(MPI_Grequest_free_function) :: free_fn
            procedure(MPI_Grequest_cancel_function) :: cancel_fn
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
            type(MPI_Request), intent(out) :: request
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Grequest_start
    interface MPI_Alloc_mem
        subroutine MPI_Alloc_mem_f08(size, info, baseptr, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Info, MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: size
            type(MPI_Info), intent(in) :: info
            type(c_ptr), intent(out) :: baseptr
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Alloc_mem
    interface MPI_Win_allocate
        subroutine MPI_Win_allocate_f08(size, disp_unit, info, comm, baseptr, win, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Info, MPI_Comm, MPI_Win, MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: size
            integer, intent(in) :: disp_unit
            type(MPI_Info), intent(in) :: info
            type(MPI_Comm), intent(in) :: comm
            type(c_ptr), intent(out) :: baseptr
            type(MPI_Win), intent(out) :: win
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Win_allocate

    interface operator(==)
        module procedure canal_comm_eq, canal_datatype_eq, canal_group_eq, canal_request_eq, &
            canal_op_eq, canal_info_eq, canal_errhandler_eq, canal_win_eq, canal_file_eq, &
            canal_message_eq, canal_session_eq
    end interface
    interface operator(/=)
        module procedure canal_comm_ne, canal_datatype_ne, canal_group_ne, canal_request_ne, &
            canal_op_ne, canal_info_ne, canal_errhandler_ne, canal_win_ne, canal_file_ne, &
            canal_message_ne, canal_session_ne
    end interface
    private :: canal_comm_eq, canal_datatype_eq, canal_group_eq, canal_request_eq, &
        canal_op_eq, canal_info_eq, canal_errhandler_eq, canal_win_eq, canal_file_eq, &
        canal_message_eq, canal_session_eq, canal_comm_ne, canal_datatype_ne, canal_group_ne, &
        canal_request_ne, canal_op_ne, canal_info_ne, canal_errhandler_ne, canal_win_ne, &
        canal_file_ne, canal_message_ne, canal_session_ne

contains

    include 'mpi_f08_operators.f90'

end module mpi_f08
