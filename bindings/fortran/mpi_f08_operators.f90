! The comparison operators of the mpi_f08 handle types (included by mpi_f08.f90).
    elemental logical function canal_comm_eq(a, b)
        type(MPI_Comm), intent(in) :: a, b
        canal_comm_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_comm_ne(a, b)
        type(MPI_Comm), intent(in) :: a, b
        canal_comm_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_datatype_eq(a, b)
        type(MPI_Datatype), intent(in) :: a, b
        canal_datatype_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_datatype_ne(a, b)
        type(MPI_Datatype), intent(in) :: a, b
        canal_datatype_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_group_eq(a, b)
        type(MPI_Group), intent(in) :: a, b
        canal_group_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_group_ne(a, b)
        type(MPI_Group), intent(in) :: a, b
        canal_group_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_request_eq(a, b)
        type(MPI_Request), intent(in) :: a, b
        canal_request_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_request_ne(a, b)
        type(MPI_Request), intent(in) :: a, b
        canal_request_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_op_eq(a, b)
        type(MPI_Op), intent(in) :: a, b
        canal_op_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_op_ne(a, b)
        type(MPI_Op), intent(in) :: a, b
        canal_op_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_info_eq(a, b)
        type(MPI_Info), intent(in) :: a, b
        canal_info_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_info_ne(a, b)
        type(MPI_Info), intent(in) :: a, b
        canal_info_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_errhandler_eq(a, b)
        type(MPI_Errhandler), intent(in) :: a, b
        canal_errhandler_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_errhandler_ne(a, b)
        type(MPI_Errhandler), intent(in) :: a, b
        canal_errhandler_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_win_eq(a, b)
        type(MPI_Win), intent(in) :: a, b
        canal_win_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_win_ne(a, b)
        type(MPI_Win), intent(in) :: a, b
        canal_win_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_file_eq(a, b)
        type(MPI_File), intent(in) :: a, b
        canal_file_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_file_ne(a, b)
        type(MPI_File), intent(in) :: a, b
        canal_file_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_message_eq(a, b)
        type(MPI_Message), intent(in) :: a, b
        canal_message_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_message_ne(a, b)
        type(MPI_Message), intent(in) :: a, b
        canal_message_ne = a%MPI_VAL /= b%MPI_VAL
    end function
    elemental logical function canal_session_eq(a, b)
        type(MPI_Session), intent(in) :: a, b
        canal_session_eq = a%MPI_VAL == b%MPI_VAL
    end function
    elemental logical function canal_session_ne(a, b)
        type(MPI_Session), intent(in) :: a, b
        canal_session_ne = a%MPI_VAL /= b%MPI_VAL
    end function
