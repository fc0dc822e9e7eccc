! The procedures of mpi_f08 (and, renamed by gen_f08.py, pmpi_f08) whose
! interfaces gen_f08.py does not generate: base addresses, MPI_Init, MPI_Wtime
! and other irregular ones (the callbacks' and attributes' interfaces are
! generated: INTERFACE_ONLY of gen_f08.py). Included by mpi_f08.f90 in
! modules mpi_f08 and pmpi_f08; the procedures are in f08_special.c.
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
    interface MPI_Wtime
        function MPI_Wtime_f08() result(res)
            implicit none
            double precision :: res
        end function
    end interface MPI_Wtime
    interface MPI_Wtick
        function MPI_Wtick_f08() result(res)
            implicit none
            double precision :: res
        end function
    end interface MPI_Wtick
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

    interface MPI_Win_allocate
        subroutine MPI_Win_allocate_f08_large(size, disp_unit, info, comm, baseptr, win, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Info, MPI_Comm, MPI_Win, MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: size, disp_unit
            type(MPI_Info), intent(in) :: info
            type(MPI_Comm), intent(in) :: comm
            type(c_ptr), intent(out) :: baseptr
            type(MPI_Win), intent(out) :: win
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Win_allocate
    interface MPI_Win_allocate_shared
        subroutine MPI_Win_allocate_shared_f08(size, disp_unit, info, comm, baseptr, win, ierror)
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
        subroutine MPI_Win_allocate_shared_f08_large(size, disp_unit, info, comm, baseptr, win, &
                ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Info, MPI_Comm, MPI_Win, MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: size, disp_unit
            type(MPI_Info), intent(in) :: info
            type(MPI_Comm), intent(in) :: comm
            type(c_ptr), intent(out) :: baseptr
            type(MPI_Win), intent(out) :: win
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Win_allocate_shared
    interface MPI_Win_shared_query
        subroutine MPI_Win_shared_query_f08(win, rank, size, disp_unit, baseptr, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Win, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Win), intent(in) :: win
            integer, intent(in) :: rank
            integer(kind=MPI_ADDRESS_KIND), intent(out) :: size
            integer, intent(out) :: disp_unit
            type(c_ptr), intent(out) :: baseptr
            integer, optional, intent(out) :: ierror
        end subroutine
        subroutine MPI_Win_shared_query_f08_large(win, rank, size, disp_unit, baseptr, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_Win, MPI_ADDRESS_KIND
            implicit none
            type(MPI_Win), intent(in) :: win
            integer, intent(in) :: rank
            integer(kind=MPI_ADDRESS_KIND), intent(out) :: size, disp_unit
            type(c_ptr), intent(out) :: baseptr
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Win_shared_query
    interface MPI_Buffer_detach
        subroutine MPI_Buffer_detach_f08(buffer_addr, size, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            implicit none
            type(c_ptr), intent(out) :: buffer_addr
            integer, intent(out) :: size
            integer, optional, intent(out) :: ierror
        end subroutine
        subroutine MPI_Buffer_detach_f08_large(buffer_addr, size, ierror)
            use, intrinsic :: iso_c_binding, only : c_ptr
            import :: MPI_COUNT_KIND
            implicit none
            type(c_ptr), intent(out) :: buffer_addr
            integer(kind=MPI_COUNT_KIND), intent(out) :: size
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Buffer_detach
    interface MPI_Aint_add
        function MPI_Aint_add_f08(base, disp) result(res)
            import :: MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: base, disp
            integer(kind=MPI_ADDRESS_KIND) :: res
        end function
    end interface MPI_Aint_add
    interface MPI_Aint_diff
        function MPI_Aint_diff_f08(addr1, addr2) result(res)
            import :: MPI_ADDRESS_KIND
            implicit none
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: addr1, addr2
            integer(kind=MPI_ADDRESS_KIND) :: res
        end function
    end interface MPI_Aint_diff
    interface MPI_Pcontrol
        subroutine MPI_Pcontrol_f08(level)
            implicit none
            integer, intent(in) :: level
        end subroutine
    end interface MPI_Pcontrol
    interface MPI_F_sync_reg
        subroutine MPI_F_sync_reg_f08ts(buf)
            implicit none
            type(*), dimension(..), asynchronous :: buf
        end subroutine
    end interface MPI_F_sync_reg
    interface MPI_Info_create_env
        subroutine MPI_Info_create_env_f08(info, ierror)
            import :: MPI_Info
            implicit none
            type(MPI_Info), intent(out) :: info
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Info_create_env
    interface MPI_Delete_error_class
        subroutine MPI_Delete_error_class_f08(errorclass, ierror)
            implicit none
            integer, intent(in) :: errorclass
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Delete_error_class
    interface MPI_Delete_error_code
        subroutine MPI_Delete_error_code_f08(errorcode, ierror)
            implicit none
            integer, intent(in) :: errorcode
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Delete_error_code
    interface MPI_Delete_error_string
        subroutine MPI_Delete_error_string_f08(errorcode, ierror)
            implicit none
            integer, intent(in) :: errorcode
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Delete_error_string
    interface MPIX_Comm_agree
        subroutine MPIX_Comm_agree_f08(comm, flag, ierror)
            import :: MPI_Comm
            implicit none
            type(MPI_Comm), intent(in) :: comm
            integer, intent(inout) :: flag
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPIX_Comm_agree
    interface MPI_Comm_spawn
        subroutine MPI_Comm_spawn_f08(command, argv, maxprocs, info, root, comm, intercomm, &
                array_of_errcodes, ierror)
            import :: MPI_Info, MPI_Comm
            implicit none
            character(len=*), intent(in) :: command, argv(*)
            integer, intent(in) :: maxprocs, root
            type(MPI_Info), intent(in) :: info
            type(MPI_Comm), intent(in) :: comm
            type(MPI_Comm), intent(out) :: intercomm
            integer :: array_of_errcodes(*)
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Comm_spawn
    interface MPI_Comm_spawn_multiple
        subroutine MPI_Comm_spawn_multiple_f08(count, array_of_commands, array_of_argv, &
                array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes, ierror)
            import :: MPI_Info, MPI_Comm
            implicit none
            integer, intent(in) :: count, root
            character(len=*), intent(in) :: array_of_commands(*), array_of_argv(count, *)
            integer, intent(in) :: array_of_maxprocs(*)
            type(MPI_Info), intent(in) :: array_of_info(*)
            type(MPI_Comm), intent(in) :: comm
            type(MPI_Comm), intent(out) :: intercomm
            integer :: array_of_errcodes(*)
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Comm_spawn_multiple
    interface MPI_Register_datarep
        subroutine MPI_Register_datarep_f08(datarep, read_conversion_fn, write_conversion_fn, &
                dtype_file_extent_fn, extra_state, ierror)
            import :: MPI_ADDRESS_KIND, MPI_Datarep_conversion_function, MPI_Datarep_extent_function
            implicit none
            character(len=*), intent(in) :: datarep
            procedure(MPI_Datarep_conversion_function) :: read_conversion_fn, write_conversion_fn
            procedure(MPI_Datarep_extent_function) :: dtype_file_extent_fn
            integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Register_datarep
    interface MPI_Info_get_string
        subroutine MPI_Info_get_string_f08(info, key, buflen, value, flag, ierror)
            import :: MPI_Info
            implicit none
            type(MPI_Info), intent(in) :: info
            character(len=*), intent(in) :: key
            integer, intent(inout) :: buflen
            character(len=*), intent(out) :: value
            logical, intent(out) :: flag
            integer, optional, intent(out) :: ierror
        end subroutine
    end interface MPI_Info_get_string
