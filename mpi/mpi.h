/*
 * mpi.h -- the public C interface of Canal, an MPI library with the MPICH ABI.
 *
 * Programs include this file to use MPI. It declares MPI 4.0 with exactly the
 * types, handle values, constants and structure layouts of MPICH 4.0.2
 * (libmpi.so.12), so that programs compiled against MPICH run on Canal and the
 * other way round. The values were measured on Debian's MPICH with
 * ../shared/tools/abi-check.sh and small probe programs, never copied from
 * MPICH's header. The file is ordered like the standard: a part for each
 * chapter holding its types and constants, then the prototypes of every
 * chapter (MPI_ and the profiling PMPI_ names), then the MPICH extensions.
 *
 * MPICH, MPICH_VERSION and friends state the MPICH API level Canal is
 * compatible with; Canal's own identity is CANAL_VERSION and the string from
 * MPI_Get_library_version.
 */
#ifndef MPI_INCLUDED
#define MPI_INCLUDED

/* MPICH's headers pull in stdint.h for C99 and later; some programs rely on it. */
#if defined(__cplusplus)
#if __cplusplus >= 201103L
#include <cstdint>
#endif
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#include <stdint.h>
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Identification                                                            */
/* ------------------------------------------------------------------------- */

#define MPI_VERSION 4
#define MPI_SUBVERSION 0

/* The MPICH API level (4.0.2); MPICH_NUMVERSION encodes
   major*10^7 + minor*10^5 + revision*10^3 + release type*100 + patch. */
#define MPICH 1
#define MPICH_NAME 4
#define MPICH_VERSION "4.0.2"
#define MPICH_NUMVERSION 40002300
#define MPICH_RELEASE_TYPE_ALPHA 0
#define MPICH_RELEASE_TYPE_BETA 1
#define MPICH_RELEASE_TYPE_RC 2
#define MPICH_RELEASE_TYPE_PATCH 3
#define MPICH_CALC_VERSION(major, minor, revision, type, patch) \
    (((major) * 10000000) + ((minor) * 100000) + ((revision) * 1000) + ((type) * 100) + (patch))
#define MPICH_HAS_C2F 1

/* Canal itself: CANAL_NUMVERSION is major*10000 + minor*100 + patch. */
#define CANAL 1
#define CANAL_VERSION "0.1.0"
#define CANAL_NUMVERSION 100

/* Markers MPICH's header defines and that configure scripts test for.
   The empty ones are decoration hooks in MPICH; here they expand to nothing. */
#define MPICH_API_PUBLIC
#define ROMIO_API_PUBLIC
#define MPIU_DLL_SPEC
#define NO_TAGS_WITH_MODIFIERS 1
#define MPI_PROTO_H_INCLUDED
#define MPIO_INCLUDE
#define ROMIO_VERSION 126
#define MPIIMPL_ADVERTISES_FEATURES 1
#define MPIIMPL_HAVE_MPI_INFO 1
#define MPIIMPL_HAVE_MPI_COMBINER_DARRAY 1
#define MPIIMPL_HAVE_MPI_TYPE_CREATE_DARRAY 1
#define MPIIMPL_HAVE_MPI_COMBINER_SUBARRAY 1
#define MPIIMPL_HAVE_MPI_COMBINER_DUP 1
#define MPIIMPL_HAVE_MPI_GREQUEST 1
#define MPIIMPL_HAVE_STATUS_SET_BYTES 1
#define MPIIMPL_HAVE_STATUS_SET_INFO 1
#define HAVE_MPI_INFO
#define HAVE_MPI_OFFSET
#define HAVE_MPI_GREQUEST 1
#define HAVE_MPI_DARRAY_SUBARRAY
#define MPI_FILE_DEFINED

/* ------------------------------------------------------------------------- */
/* Basic types (chapter 2). Handles are ints except MPI_File and the tool    */
/* interface handles, which are pointers to opaque structures.               */
/* ------------------------------------------------------------------------- */

typedef int MPI_Datatype;
typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Win;
typedef int MPI_Session;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Request;
typedef int MPI_Message;
typedef int MPI_Info;
typedef int MPIX_Grequest_class;
typedef struct ADIOI_FileD *MPI_File;

typedef long MPI_Aint;
typedef long MPI_Count;
typedef long MPI_Offset;
typedef int MPI_Fint;

#define MPI_AINT_FMT_DEC_SPEC "%ld"
#define MPI_AINT_FMT_HEX_SPEC "%lx"

/* The status: the count is split in two ints, the top bit of the second one
   is the cancelled flag. MPI_SOURCE, MPI_TAG and MPI_ERROR are public. */
typedef struct MPI_Status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

/* The same layout as seen by the Fortran 2008 bindings. */
typedef struct {
    MPI_Fint count_lo;
    MPI_Fint count_hi_and_cancelled;
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
} MPI_F08_status;

/* Null handles */
#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_GROUP_NULL ((MPI_Group)0x08000000)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_WIN_NULL ((MPI_Win)0x20000000)
#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)
#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)
#define MPI_SESSION_NULL ((MPI_Session)0x38000000)
#define MPI_FILE_NULL ((MPI_File)0)

/* Special addresses and array placeholders */
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
/* MPI 4.1: MPI_Buffer_attach and friends allocate as needed (MPICH 4.2's value) */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)
#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)

/* Assorted constants */
#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID 0x24000000

#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_STRINGTAG_LEN 256
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_DATAREP_STRING 128

/* ------------------------------------------------------------------------- */
/* Chapter 3: point-to-point communication                                   */
/* ------------------------------------------------------------------------- */

#define MPI_BSEND_OVERHEAD 96
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)

/* ------------------------------------------------------------------------- */
/* Chapter 5: datatypes. The byte above the low byte of a predefined type's  */
/* handle is its size.                                                       */
/* ------------------------------------------------------------------------- */

/* C types */
#define MPI_CHAR ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x4c000118)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x4c000102)
#define MPI_BYTE ((MPI_Datatype)0x4c00010d)
#define MPI_WCHAR ((MPI_Datatype)0x4c00040e)
#define MPI_SHORT ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x4c000204)
#define MPI_INT ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED ((MPI_Datatype)0x4c000406)
#define MPI_LONG ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x4c000808)
#define MPI_FLOAT ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x4c00100c)
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x4c000809)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c000819)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_PACKED ((MPI_Datatype)0x4c00010f)
#define MPI_LB ((MPI_Datatype)0x4c000010)
#define MPI_UB ((MPI_Datatype)0x4c000011)

/* Pair types for MPI_MINLOC and MPI_MAXLOC */
#define MPI_FLOAT_INT ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT ((MPI_Datatype)0x8c000003)
#define MPI_2INT ((MPI_Datatype)0x4c000816)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x8c000004)

/* Fortran types */
#define MPI_COMPLEX ((MPI_Datatype)0x4c00081e)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001022)
#define MPI_LOGICAL ((MPI_Datatype)0x4c00041d)
#define MPI_REAL ((MPI_Datatype)0x4c00041c)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x4c00081f)
#define MPI_INTEGER ((MPI_Datatype)0x4c00041b)
#define MPI_2INTEGER ((MPI_Datatype)0x4c000820)
#define MPI_2REAL ((MPI_Datatype)0x4c000821)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x4c001023)
#define MPI_CHARACTER ((MPI_Datatype)0x4c00011a)

/* Optional Fortran types; MPI_INTEGER16 does not exist in this ABI */
#define MPI_REAL4 ((MPI_Datatype)0x4c000427)
#define MPI_REAL8 ((MPI_Datatype)0x4c000829)
#define MPI_REAL16 ((MPI_Datatype)0x4c00102b)
#define MPI_COMPLEX8 ((MPI_Datatype)0x4c000828)
#define MPI_COMPLEX16 ((MPI_Datatype)0x4c00102a)
#define MPI_COMPLEX32 ((MPI_Datatype)0x4c00202c)
#define MPI_INTEGER1 ((MPI_Datatype)0x4c00012d)
#define MPI_INTEGER2 ((MPI_Datatype)0x4c00022f)
#define MPI_INTEGER4 ((MPI_Datatype)0x4c000430)
#define MPI_INTEGER8 ((MPI_Datatype)0x4c000831)
#define MPI_INTEGER16 ((MPI_Datatype)MPI_DATATYPE_NULL)

/* C99 and address-sized types */
#define MPI_INT8_T ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T ((MPI_Datatype)0x4c00083e)
#define MPI_C_BOOL ((MPI_Datatype)0x4c00013f)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)0x4c000840)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001041)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002042)
#define MPIX_C_FLOAT16 ((MPI_Datatype)0x4c000246)
/* MPICH 4.2's Fortran types of fixed size, with MPICH's values (not in MPICH
   4.0.2: additional handles that collide with none of its) */
#define MPI_LOGICAL1 ((MPI_Datatype)0x4c000147)
#define MPI_LOGICAL2 ((MPI_Datatype)0x4c000248)
#define MPI_LOGICAL4 ((MPI_Datatype)0x4c000449)
#define MPI_LOGICAL8 ((MPI_Datatype)0x4c00084a)
#define MPI_LOGICAL16 ((MPI_Datatype)0x4c00104b)
#define MPI_REAL2 ((MPI_Datatype)0x4c000226)
#define MPI_COMPLEX4 ((MPI_Datatype)0x4c00042e)
#define MPI_AINT ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET ((MPI_Datatype)0x4c000844)
#define MPI_COUNT ((MPI_Datatype)0x4c000845)

/* C++ types */
#define MPI_CXX_BOOL ((MPI_Datatype)0x4c000133)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)0x4c000834)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001035)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002036)

/* Type classes for MPI_Type_match_size */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* Combiners returned by MPI_Type_get_envelope */
enum {
    MPI_COMBINER_NAMED = 1,
    MPI_COMBINER_DUP = 2,
    MPI_COMBINER_CONTIGUOUS = 3,
    MPI_COMBINER_VECTOR = 4,
    MPI_COMBINER_HVECTOR_INTEGER = 5,
    MPI_COMBINER_HVECTOR = 6,
    MPI_COMBINER_INDEXED = 7,
    MPI_COMBINER_HINDEXED_INTEGER = 8,
    MPI_COMBINER_HINDEXED = 9,
    MPI_COMBINER_INDEXED_BLOCK = 10,
    MPI_COMBINER_STRUCT_INTEGER = 11,
    MPI_COMBINER_STRUCT = 12,
    MPI_COMBINER_SUBARRAY = 13,
    MPI_COMBINER_DARRAY = 14,
    MPI_COMBINER_F90_REAL = 15,
    MPI_COMBINER_F90_COMPLEX = 16,
    MPI_COMBINER_F90_INTEGER = 17,
    MPI_COMBINER_RESIZED = 18,
    MPI_COMBINER_HINDEXED_BLOCK = 19
};

/* Subarray and darray constructors */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* ------------------------------------------------------------------------- */
/* Chapter 6: collective communication                                       */
/* ------------------------------------------------------------------------- */

#define MPI_MAX ((MPI_Op)0x58000001)
#define MPI_MIN ((MPI_Op)0x58000002)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_PROD ((MPI_Op)0x58000004)
#define MPI_LAND ((MPI_Op)0x58000005)
#define MPI_BAND ((MPI_Op)0x58000006)
#define MPI_LOR ((MPI_Op)0x58000007)
#define MPI_BOR ((MPI_Op)0x58000008)
#define MPI_LXOR ((MPI_Op)0x58000009)
#define MPI_BXOR ((MPI_Op)0x5800000a)
#define MPI_MINLOC ((MPI_Op)0x5800000b)
#define MPI_MAXLOC ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP ((MPI_Op)0x5800000e)

typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void(MPI_User_function_c)(void *invec, void *inoutvec, MPI_Count *len,
                                  MPI_Datatype *datatype);

/* ------------------------------------------------------------------------- */
/* Chapter 7: groups, contexts, communicators and caching                    */
/* ------------------------------------------------------------------------- */

#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

/* Results of the compare functions */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Split types for MPI_Comm_split_type */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_GUIDED 2
#define MPI_COMM_TYPE_HW_UNGUIDED 3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4 /* MPI 4.1 (MPICH 4.2's value) */
#define MPIX_COMM_TYPE_NEIGHBORHOOD 4

/* Predefined attribute keys of MPI_COMM_WORLD (the Fortran key is the C key + 1) */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d

/* Attribute callbacks */
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval,
                                           void *attribute_val, void *extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval,
                                         void *extra_state, void *attribute_val_in,
                                         void *attribute_val_out, int *flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                           void *attribute_val, void *extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                          void *extra_state);
/* The MPI-1 names (deprecated) */
typedef int(MPI_Copy_function)(MPI_Comm oldcomm, int keyval, void *extra_state,
                               void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Delete_function)(MPI_Comm comm, int keyval, void *attribute_val,
                                 void *extra_state);

/* The predefined callbacks: "null" ones are null pointers, the "dup" ones are
   the library's MPIR_Dup_fn, which copies the attribute value. */
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_DUP_FN MPIR_Dup_fn
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)MPIR_Dup_fn)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function *)MPIR_Dup_fn)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function *)MPIR_Dup_fn)

/* ------------------------------------------------------------------------- */
/* Chapter 8: process topologies                                             */
/* ------------------------------------------------------------------------- */

enum { MPI_GRAPH = 1, MPI_CART = 2, MPI_DIST_GRAPH = 3 };
/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are addresses of objects in the
   library (declared with the other data objects below). */

/* ------------------------------------------------------------------------- */
/* Chapter 9: environmental management and errors                            */
/* ------------------------------------------------------------------------- */

#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)
#define MPIR_ERRORS_THROW_EXCEPTIONS ((MPI_Errhandler)0x54000002)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000003)

typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef void(MPI_File_errhandler_function)(MPI_File *file, int *error_code, ...);
typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
typedef void(MPI_Session_errhandler_function)(MPI_Session *session, int *error_code, ...);
/* The MPI-2.0 names, deprecated since MPI-2.2, and the MPI-1 one */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;
typedef void(MPI_Handler_function)(MPI_Comm *comm, int *error_code, ...);

/* Error classes */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
/* 54 is unused */
#define MPI_ERR_RMA_RANGE 55
#define MPI_ERR_RMA_ATTACH 56
#define MPI_ERR_RMA_SHARED 57
#define MPI_ERR_RMA_FLAVOR 58
/* 59-74 and 78 are the tool interface's classes (chapter 15) */
#define MPI_ERR_SESSION 75
#define MPI_ERR_PROC_ABORTED 76
#define MPI_ERR_VALUE_TOO_LARGE 77
/* MPI 4.1 and 5.0 classes, with MPICH 4.2's values. MPICH_ERR_LAST_CLASS
 * keeps MPICH 4.0.2's value (part of its ABI); these come after it. */
#define MPI_ERR_ERRHANDLER 80
#define MPI_ERR_ABI 81
#define MPICH_ERR_LAST_CLASS 78
#define MPI_ERR_LASTCODE 0x3fffffff

/* MPICH's fault-tolerance classes start above a gap */
#define MPICH_ERR_FIRST_MPIX 100
#define MPIX_ERR_PROC_FAILED (MPICH_ERR_FIRST_MPIX + 1)
#define MPIX_ERR_PROC_FAILED_PENDING (MPICH_ERR_FIRST_MPIX + 2)
#define MPIX_ERR_REVOKED (MPICH_ERR_FIRST_MPIX + 3)
#define MPIX_ERR_EAGAIN (MPICH_ERR_FIRST_MPIX + 4)
#define MPIX_ERR_NOREQ (MPICH_ERR_FIRST_MPIX + 5)
#define MPICH_ERR_LAST_MPIX (MPICH_ERR_FIRST_MPIX + 5)

/* ------------------------------------------------------------------------- */
/* Chapter 11: process initialization, creation and management               */
/* ------------------------------------------------------------------------- */

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_INFO_ENV ((MPI_Info)0x5c000001)

/* ------------------------------------------------------------------------- */
/* Chapter 12: one-sided communications                                      */
/* ------------------------------------------------------------------------- */

/* Predefined window attribute keys */
#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009

enum {
    MPI_WIN_FLAVOR_CREATE = 1,
    MPI_WIN_FLAVOR_ALLOCATE = 2,
    MPI_WIN_FLAVOR_DYNAMIC = 3,
    MPI_WIN_FLAVOR_SHARED = 4
};
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED = 2 };

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235

/* Assertions */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

/* ------------------------------------------------------------------------- */
/* Chapter 13: external interfaces (generalized requests)                    */
/* ------------------------------------------------------------------------- */

typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int(MPI_Grequest_free_function)(void *extra_state);
typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);
typedef int(MPIX_Grequest_poll_function)(void *extra_state, MPI_Status *status);
typedef int(MPIX_Grequest_wait_function)(int count, void **array_of_states, double timeout,
                                         MPI_Status *status);

/* ------------------------------------------------------------------------- */
/* Chapter 14: I/O                                                           */
/* ------------------------------------------------------------------------- */

#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256

#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)

typedef int(MPI_Datarep_conversion_function)(void *userbuf, MPI_Datatype datatype, int count,
                                             void *filebuf, MPI_Offset position,
                                             void *extra_state);
typedef int(MPI_Datarep_conversion_function_c)(void *userbuf, MPI_Datatype datatype,
                                               MPI_Count count, void *filebuf,
                                               MPI_Offset position, void *extra_state);
typedef int(MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint *extent,
                                         void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* ROMIO's request names: MPICH's I/O requests are ordinary requests */
#define MPIO_Request MPI_Request
#define MPIO_USES_MPI_REQUEST
#define MPIO_REQUEST_DEFINED
#define MPIO_REQUEST_NULL ((MPIO_Request)0)
#define MPIO_Wait MPI_Wait
#define MPIO_Test MPI_Test
#define PMPIO_Wait PMPI_Wait
#define PMPIO_Test PMPI_Test

/* ------------------------------------------------------------------------- */
/* Chapter 15: tool support                                                  */
/* ------------------------------------------------------------------------- */

struct MPIR_T_enum_s;
struct MPIR_T_cvar_handle_s;
struct MPIR_T_pvar_handle_s;
struct MPIR_T_pvar_session_s;
struct MPIR_T_event_registration_s;
struct MPIR_T_event_instance_s;
typedef struct MPIR_T_enum_s *MPI_T_enum;
typedef struct MPIR_T_cvar_handle_s *MPI_T_cvar_handle;
typedef struct MPIR_T_pvar_handle_s *MPI_T_pvar_handle;
typedef struct MPIR_T_pvar_session_s *MPI_T_pvar_session;
typedef struct MPIR_T_event_registration_s *MPI_T_event_registration;
typedef struct MPIR_T_event_instance_s *MPI_T_event_instance;

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)

/* Verbosity levels; the standard requires this relative order */
enum {
    MPI_T_VERBOSITY_INVALID = 0,
    MPI_T_VERBOSITY_USER_BASIC = 221,
    MPI_T_VERBOSITY_USER_DETAIL = 222,
    MPI_T_VERBOSITY_USER_ALL = 223,
    MPI_T_VERBOSITY_TUNER_BASIC = 224,
    MPI_T_VERBOSITY_TUNER_DETAIL = 225,
    MPI_T_VERBOSITY_TUNER_ALL = 226,
    MPI_T_VERBOSITY_MPIDEV_BASIC = 227,
    MPI_T_VERBOSITY_MPIDEV_DETAIL = 228,
    MPI_T_VERBOSITY_MPIDEV_ALL = 229
};

/* Object kinds a variable can be bound to */
enum {
    MPI_T_BIND_INVALID = 0,
    MPI_T_BIND_NO_OBJECT = 9700,
    MPI_T_BIND_MPI_COMM = 9701,
    MPI_T_BIND_MPI_DATATYPE = 9702,
    MPI_T_BIND_MPI_ERRHANDLER = 9703,
    MPI_T_BIND_MPI_FILE = 9704,
    MPI_T_BIND_MPI_GROUP = 9705,
    MPI_T_BIND_MPI_OP = 9706,
    MPI_T_BIND_MPI_REQUEST = 9707,
    MPI_T_BIND_MPI_WIN = 9708,
    MPI_T_BIND_MPI_MESSAGE = 9709,
    MPI_T_BIND_MPI_INFO = 9710
};

/* Scopes of control variables */
enum {
    MPI_T_SCOPE_INVALID = 0,
    MPI_T_SCOPE_CONSTANT = 60438,
    MPI_T_SCOPE_READONLY = 60439,
    MPI_T_SCOPE_LOCAL = 60440,
    MPI_T_SCOPE_GROUP = 60441,
    MPI_T_SCOPE_GROUP_EQ = 60442,
    MPI_T_SCOPE_ALL = 60443,
    MPI_T_SCOPE_ALL_EQ = 60444
};

/* Classes of performance variables */
enum {
    MPI_T_PVAR_CLASS_INVALID = 0,
    MPI_T_PVAR_CLASS_STATE = 240,
    MPI_T_PVAR_CLASS_LEVEL = 241,
    MPI_T_PVAR_CLASS_SIZE = 242,
    MPI_T_PVAR_CLASS_PERCENTAGE = 243,
    MPI_T_PVAR_CLASS_HIGHWATERMARK = 244,
    MPI_T_PVAR_CLASS_LOWWATERMARK = 245,
    MPI_T_PVAR_CLASS_COUNTER = 246,
    MPI_T_PVAR_CLASS_AGGREGATE = 247,
    MPI_T_PVAR_CLASS_TIMER = 248,
    MPI_T_PVAR_CLASS_GENERIC = 249
};

typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 0,
    MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;

typedef void(MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                      MPI_T_event_registration event_registration,
                                      MPI_T_cb_safety cb_safety, void *user_data);
typedef void(MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                           MPI_T_cb_safety cb_safety, void *user_data);
typedef void(MPI_T_event_dropped_cb_function)(MPI_Count count,
                                              MPI_T_event_registration event_registration,
                                              int source_index, MPI_T_cb_safety cb_safety,
                                              void *user_data);

/* Error classes of the tool interface */
#define MPI_T_ERR_MEMORY 59
#define MPI_T_ERR_NOT_INITIALIZED 60
#define MPI_T_ERR_CANNOT_INIT 61
#define MPI_T_ERR_INVALID_INDEX 62
#define MPI_T_ERR_INVALID_ITEM 63
#define MPI_T_ERR_INVALID_HANDLE 64
#define MPI_T_ERR_OUT_OF_HANDLES 65
#define MPI_T_ERR_OUT_OF_SESSIONS 66
#define MPI_T_ERR_INVALID_SESSION 67
#define MPI_T_ERR_CVAR_SET_NOT_NOW 68
#define MPI_T_ERR_CVAR_SET_NEVER 69
#define MPI_T_ERR_PVAR_NO_STARTSTOP 70
#define MPI_T_ERR_PVAR_NO_WRITE 71
#define MPI_T_ERR_PVAR_NO_ATOMIC 72
#define MPI_T_ERR_INVALID_NAME 73
#define MPI_T_ERR_INVALID 74
#define MPI_T_ERR_NOT_SUPPORTED 78
#define MPI_T_ERR_NOT_ACCESSIBLE 79 /* MPI 4.1 (MPICH 4.2's value) */

/* ------------------------------------------------------------------------- */
/* Chapter 19: language bindings. In this ABI the Fortran handle of an       */
/* integer handle is the same integer, so the conversions are casts. Only    */
/* MPI_File (a pointer) and MPI_Status need functions.                       */
/* ------------------------------------------------------------------------- */

#define MPI_Comm_c2f(comm) ((MPI_Fint)(comm))
#define MPI_Comm_f2c(comm) ((MPI_Comm)(comm))
#define MPI_Type_c2f(datatype) ((MPI_Fint)(datatype))
#define MPI_Type_f2c(datatype) ((MPI_Datatype)(datatype))
#define MPI_Group_c2f(group) ((MPI_Fint)(group))
#define MPI_Group_f2c(group) ((MPI_Group)(group))
#define MPI_Info_c2f(info) ((MPI_Fint)(info))
#define MPI_Info_f2c(info) ((MPI_Info)(info))
#define MPI_Request_c2f(request) ((MPI_Fint)(request))
#define MPI_Request_f2c(request) ((MPI_Request)(request))
#define MPI_Op_c2f(op) ((MPI_Fint)(op))
#define MPI_Op_f2c(op) ((MPI_Op)(op))
#define MPI_Errhandler_c2f(errhandler) ((MPI_Fint)(errhandler))
#define MPI_Errhandler_f2c(errhandler) ((MPI_Errhandler)(errhandler))
#define MPI_Win_c2f(win) ((MPI_Fint)(win))
#define MPI_Win_f2c(win) ((MPI_Win)(win))
#define MPI_Message_c2f(msg) ((MPI_Fint)(msg))
#define MPI_Message_f2c(msg) ((MPI_Message)(msg))
#define MPI_Session_c2f(session) ((MPI_Fint)(session))
#define MPI_Session_f2c(session) ((MPI_Session)(session))
#define PMPI_Comm_c2f(comm) ((MPI_Fint)(comm))
#define PMPI_Comm_f2c(comm) ((MPI_Comm)(comm))
#define PMPI_Type_c2f(datatype) ((MPI_Fint)(datatype))
#define PMPI_Type_f2c(datatype) ((MPI_Datatype)(datatype))
#define PMPI_Group_c2f(group) ((MPI_Fint)(group))
#define PMPI_Group_f2c(group) ((MPI_Group)(group))
#define PMPI_Info_c2f(info) ((MPI_Fint)(info))
#define PMPI_Info_f2c(info) ((MPI_Info)(info))
#define PMPI_Request_c2f(request) ((MPI_Fint)(request))
#define PMPI_Request_f2c(request) ((MPI_Request)(request))
#define PMPI_Op_c2f(op) ((MPI_Fint)(op))
#define PMPI_Op_f2c(op) ((MPI_Op)(op))
#define PMPI_Errhandler_c2f(errhandler) ((MPI_Fint)(errhandler))
#define PMPI_Errhandler_f2c(errhandler) ((MPI_Errhandler)(errhandler))
#define PMPI_Win_c2f(win) ((MPI_Fint)(win))
#define PMPI_Win_f2c(win) ((MPI_Win)(win))
#define PMPI_Message_c2f(msg) ((MPI_Fint)(msg))
#define PMPI_Message_f2c(msg) ((MPI_Message)(msg))
#define PMPI_Session_c2f(session) ((MPI_Fint)(session))
#define PMPI_Session_f2c(session) ((MPI_Session)(session))

/* Index of the public fields in a Fortran status array */
#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE 2
#define MPI_F_TAG 3
#define MPI_F_ERROR 4

/* ------------------------------------------------------------------------- */
/* MPICH extensions: GPU support queries and QMPI (tool stacking)            */
/* ------------------------------------------------------------------------- */

#define MPIX_GPU_SUPPORT_CUDA 0
#define MPIX_GPU_SUPPORT_ZE 1
#define MPIX_GPU_SUPPORT_HIP 2

typedef struct {
    void **storage_stack;
} QMPI_Context;
#define QMPI_MAX_TOOL_NAME_LENGTH 256

/* ------------------------------------------------------------------------- */
/* Functions and data objects of the library. The library itself is built   */
/* with -fvisibility=hidden and CANAL_BUILDING defined; everything declared  */
/* from here to the end of the file is its exported interface.               */
/* ------------------------------------------------------------------------- */

#if defined(CANAL_BUILDING)
#pragma GCC visibility push(default)
#endif

/* Sentinel addresses for MPI_Dist_graph_create and friends (chapter 8) */
extern int *const MPI_UNWEIGHTED;
extern int *const MPI_WEIGHTS_EMPTY;

/* "Ignore the status" for the Fortran-array and Fortran 2008 status forms
   (chapter 19), and the Fortran 2008 bindings' special buffers */
extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
extern int MPIR_F08_MPI_IN_PLACE;
extern int MPIR_F08_MPI_BOTTOM;
extern MPI_F08_status *MPI_F08_STATUS_IGNORE;
extern MPI_F08_status *MPI_F08_STATUSES_IGNORE;

/* Stands for every handle of a performance-variable session (chapter 15) */
extern struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES;

/* The function behind MPI_DUP_FN, MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN and
   MPI_WIN_DUP_FN: copies the attribute value and sets *flag. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag);

/* ------------------------------------------------------------------------- */
/* Prototypes, by chapter of the standard                                    */
/* ------------------------------------------------------------------------- */

/* 3. Point-to-Point Communication */
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_attach_c(void *buffer, MPI_Count size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
int MPI_Cancel(MPI_Request *request);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request);
int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Request *request);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status);
int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Status *status);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Status *status);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm);
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status *array_of_statuses);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status *array_of_statuses);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status *array_of_statuses);

/* 4. Partitioned Point-to-Point Communication */
int MPI_Parrived(MPI_Request request, int partition, int *flag);
int MPI_Pready(int partition, MPI_Request request);
int MPI_Pready_list(int length, int array_of_partitions[], MPI_Request request);
int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);

/* 5. Datatypes */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Get_address(const void *location, MPI_Aint *address);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
int MPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int MPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                        MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                        MPI_Count *position);
int MPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size);
int MPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                             MPI_Count *size);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                               const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]);
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes,
                            int array_of_integers[], MPI_Aint array_of_addresses[],
                            MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype);
int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount,
                          MPI_Datatype datatype);

/* 6. Collective Communication */
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm);
int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm);
int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm);
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request);
int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request *request);
int MPI_Barrier(MPI_Comm comm);
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request);
int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);
int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm);
int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request);
int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm);
int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request);
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request);
int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request);
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request);
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request);
int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request);
int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request);
int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);
int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request);
int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);
int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm);
int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op);
int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request);
int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm);
int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm);
int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);

/* 7. Groups, Contexts, Communicators, and Caching */
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm);
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_free_keyval(int *comm_keyval);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_free(MPI_Group *group);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm);
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                     MPI_Group remote_group, int remote_leader,
                                     const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
int MPI_Type_free_keyval(int *type_keyval);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
int MPI_Win_free_keyval(int *win_keyval);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int MPI_Win_set_name(MPI_Win win, const char *win_name);

/* 8. Process Topologies */
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]);
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                     int reorder, MPI_Comm *comm_graph);
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]);
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request);
int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm);
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Topo_test(MPI_Comm comm, int *status);

/* 9. MPI Environmental Management */
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_File_call_errhandler(MPI_File fh, int errorcode);
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int MPI_Free_mem(void *base);
int MPI_Get_library_version(char *version, int *resultlen);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Session_call_errhandler(MPI_Session session, int errorcode);
int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                  MPI_Errhandler *errhandler);
int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
double MPI_Wtick(void);
double MPI_Wtime(void);

/* 10. The Info Object */
int MPI_Info_create(MPI_Info *info);
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
int MPI_Info_delete(MPI_Info info, const char *key);
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int MPI_Info_free(MPI_Info *info);
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
int MPI_Info_set(MPI_Info info, const char *key, const char *value);

/* 11. Process Initialization, Creation, and Management */
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Close_port(const char *port_name);
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm);
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm);
int MPI_Comm_disconnect(MPI_Comm *comm);
int MPI_Comm_get_parent(MPI_Comm *parent);
int MPI_Comm_join(int fd, MPI_Comm *intercomm);
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup);
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Initialized(int *flag);
int MPI_Is_thread_main(int *flag);
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
int MPI_Open_port(MPI_Info info, char *port_name);
int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
int MPI_Query_thread(int *provided);
int MPI_Session_finalize(MPI_Session *session);
int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                             char *pset_name);
int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);

/* 12. One-Sided Communications */
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win);
int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win);
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win);
int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win);
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request);
int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request);
int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request);
int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win);
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win);
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win);
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win);
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int MPI_Win_complete(MPI_Win win);
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win);
int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win);
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_detach(MPI_Win win, const void *base);
int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_free(MPI_Win *win);
int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int MPI_Win_lock_all(int assert, MPI_Win win);
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr);
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_sync(MPI_Win win);
int MPI_Win_test(MPI_Win win, int *flag);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int MPI_Win_wait(MPI_Win win);

/* 13. External Interfaces */
int MPI_Grequest_complete(MPI_Request request);
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);

/* 14. I/O */
int MPI_File_close(MPI_File *fh);
int MPI_File_delete(const char *filename, MPI_Info info);
int MPI_File_get_amode(MPI_File fh, int *amode);
int MPI_File_get_atomicity(MPI_File fh, int *flag);
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int MPI_File_get_group(MPI_File fh, MPI_Group *group);
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep);
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int MPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request);
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request);
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Request *request);
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request);
int MPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Request *request);
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request);
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request);
int MPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request);
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request);
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int MPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request);
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status);
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status);
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void * buf, int count,
                         MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype);
int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype);
int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void * buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Status *status);
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int MPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status);
int MPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Status *status);
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_set_atomicity(MPI_File fh, int flag);
int MPI_File_set_info(MPI_File fh, MPI_Info info);
int MPI_File_set_size(MPI_File fh, MPI_Offset size);
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info);
int MPI_File_sync(MPI_File fh);
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status);
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                               MPI_Datatype datatype);
int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status);
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void * buf, int count,
                      MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype);
int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                  MPI_Datatype datatype);
int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void * buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status);
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype);
int MPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
int MPI_Register_datarep_c(const char *datarep,
                           MPI_Datarep_conversion_function_c *read_conversion_fn,
                           MPI_Datarep_conversion_function_c *write_conversion_fn,
                           MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);

/* 15. Tool Support */
int MPI_Pcontrol(const int level, ...);
int MPI_T_category_changed(int *update_number);
int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
int MPI_T_category_get_events(int cat_index, int len, int indices[]);
int MPI_T_category_get_index(const char *name, int *cat_index);
int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                            int *num_cvars, int *num_pvars, int *num_categories);
int MPI_T_category_get_num(int *num_cat);
int MPI_T_category_get_num_events(int cat_index, int *num_events);
int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
int MPI_T_cvar_get_index(const char *name, int *cvar_index);
int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *scope);
int MPI_T_cvar_get_num(int *num_cvar);
int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                            int *count);
int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
int MPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len);
int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info *info_used);
int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info info);
int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer);
int MPI_T_event_get_index(const char *name, int *event_index);
int MPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                         int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                         int *desc_len, int *bind);
int MPI_T_event_get_num(int *num_events);
int MPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index);
int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp);
int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                             MPI_T_event_registration *event_registration);
int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                            MPI_T_event_free_cb_function free_cb_function);
int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used);
int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);
int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer);
int MPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                  MPI_T_event_cb_function event_cb_function);
int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                    MPI_T_event_dropped_cb_function dropped_cb_function);
int MPI_T_finalize(void);
int MPI_T_init_thread(int required, int *provided);
int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *readonly, int *continuous, int *atomic);
int MPI_T_pvar_get_num(int *num_pvar);
int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count);
int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_session_create(MPI_T_pvar_session *session);
int MPI_T_pvar_session_free(MPI_T_pvar_session *session);
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
int MPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                          MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                          MPI_Count *max_ticks, MPI_Info *info);
int MPI_T_source_get_num(int *num_sources);
int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp);

/* 16. Deprecated Interfaces */
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
int MPI_Keyval_free(int *keyval);

/* 17. Removed Interfaces */
int MPI_Address(void *location, MPI_Aint *address);
int MPI_Errhandler_create(MPI_Comm_errhandler_function *comm_errhandler_fn,
                          MPI_Errhandler *errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);

/* 19. Language Bindings */
MPI_Fint MPI_File_c2f(MPI_File file);
MPI_File MPI_File_f2c(MPI_Fint file);
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);

/* Added by MPI 4.1 (additional to MPICH 4.0.2's ABI) */
int MPI_Buffer_flush(void);
int MPI_Buffer_iflush(MPI_Request *request);
int MPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size);
int MPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size);
int MPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size);
int MPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size);
int MPI_Comm_flush_buffer(MPI_Comm comm);
int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request);
int MPI_Get_hw_resource_info(MPI_Info *hw_info);
int MPI_Remove_error_class(int errorclass);
int MPI_Remove_error_code(int errorcode);
int MPI_Remove_error_string(int errorcode);
int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses);
int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status);
int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses);
int MPI_Session_attach_buffer(MPI_Session session, void *buffer, int size);
int MPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size);
int MPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size);
int MPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size);
int MPI_Session_flush_buffer(MPI_Session session);
int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);
int MPI_Status_get_error(const MPI_Status *status, int *error);
int MPI_Status_get_source(const MPI_Status *status, int *source);
int MPI_Status_get_tag(const MPI_Status *status, int *tag);
int MPI_Status_set_error(MPI_Status *status, int error);
int MPI_Status_set_source(MPI_Status *status, int source);
int MPI_Status_set_tag(MPI_Status *status, int tag);
int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type);

/* Added by MPI 5.0 (additional to MPICH 4.0.2's ABI) */
int MPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set);
int MPI_Abi_get_fortran_info(MPI_Info *info);
int MPI_Abi_get_info(MPI_Info *info);
int MPI_Abi_get_version(int *abi_major, int *abi_minor);
int MPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false);
int MPI_Abi_set_fortran_info(MPI_Info info);
MPI_Comm MPI_Comm_fromint(int comm);
int MPI_Comm_toint(MPI_Comm comm);
MPI_Errhandler MPI_Errhandler_fromint(int errhandler);
int MPI_Errhandler_toint(MPI_Errhandler errhandler);
MPI_File MPI_File_fromint(int file);
int MPI_File_toint(MPI_File file);
MPI_Group MPI_Group_fromint(int group);
int MPI_Group_toint(MPI_Group group);
MPI_Info MPI_Info_fromint(int info);
int MPI_Info_toint(MPI_Info info);
MPI_Message MPI_Message_fromint(int message);
int MPI_Message_toint(MPI_Message message);
MPI_Op MPI_Op_fromint(int op);
int MPI_Op_toint(MPI_Op op);
MPI_Request MPI_Request_fromint(int request);
int MPI_Request_toint(MPI_Request request);
MPI_Session MPI_Session_fromint(int session);
int MPI_Session_toint(MPI_Session session);
MPI_Datatype MPI_Type_fromint(int datatype);
int MPI_Type_toint(MPI_Datatype datatype);
MPI_Win MPI_Win_fromint(int win);
int MPI_Win_toint(MPI_Win win);

/* ------------------------------------------------------------------------- */
/* The profiling interface: PMPI_ twins of every function above              */
/* ------------------------------------------------------------------------- */

/* 3. Point-to-Point Communication */
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm);
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
int PMPI_Buffer_attach(void *buffer, int size);
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size);
int PMPI_Buffer_detach(void *buffer_addr, int *size);
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
int PMPI_Cancel(MPI_Request *request);
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status);
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request);
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request);
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request);
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status);
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status);
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status);
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status);
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request);
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request);
int PMPI_Request_free(MPI_Request *request);
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm);
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status);
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm);
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
int PMPI_Start(MPI_Request *request);
int PMPI_Startall(int count, MPI_Request array_of_requests[]);
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int PMPI_Test_cancelled(const MPI_Status *status, int *flag);
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status *array_of_statuses);
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                 MPI_Status *status);
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status *array_of_statuses);
int PMPI_Wait(MPI_Request *request, MPI_Status *status);
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status);
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status *array_of_statuses);

/* 4. Partitioned Point-to-Point Communication */
int PMPI_Parrived(MPI_Request request, int partition, int *flag);
int PMPI_Pready(int partition, MPI_Request request);
int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request);
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);

/* 5. Datatypes */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int PMPI_Get_address(const void *location, MPI_Aint *address);
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm);
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position);
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint *size);
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size);
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size);
int PMPI_Type_commit(MPI_Datatype *datatype);
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype);
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype);
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype);
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype);
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_free(MPI_Datatype *datatype);
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner);
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner);
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype);
int PMPI_Type_size(MPI_Datatype datatype, int *size);
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm);
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype);

/* 6. Collective Communication */
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request);
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm);
int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request);
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm);
int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm);
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request);
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request);
int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int PMPI_Barrier(MPI_Comm comm);
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request);
int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request);
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm);
int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm);
int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request);
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request);
int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request);
int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request);
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request);
int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request);
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request);
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);
int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request);
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request);
int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request);
int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request);
int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request);
int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request);
int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request);
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Op_commutative(MPI_Op op, int *commute);
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);
int PMPI_Op_free(MPI_Op *op);
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm);
int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm);
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op);
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op);
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request);
int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request);
int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request);
int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm);
int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm);
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm);
int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request);

/* 7. Groups, Contexts, Communicators, and Caching */
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm);
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state);
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int PMPI_Comm_free(MPI_Comm *comm);
int PMPI_Comm_free_keyval(int *comm_keyval);
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request);
int PMPI_Comm_rank(MPI_Comm comm, int *rank);
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int PMPI_Comm_remote_size(MPI_Comm comm, int *size);
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int PMPI_Comm_size(MPI_Comm comm, int *size);
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int PMPI_Group_free(MPI_Group *group);
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int PMPI_Group_rank(MPI_Group group, int *rank);
int PMPI_Group_size(MPI_Group group, int *size);
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]);
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm);
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm);
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state);
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
int PMPI_Type_free_keyval(int *type_keyval);
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state);
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval);
int PMPI_Win_free_keyval(int *win_keyval);
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int PMPI_Win_set_name(MPI_Win win, const char *win_name);

/* 8. Process Topologies */
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart);
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims);
int PMPI_Dims_create(int nnodes, int ndims, int dims[]);
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph);
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]);
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                      int reorder, MPI_Comm *comm_graph);
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]);
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank);
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request);
int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request);
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request);
int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request);
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm);
int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request);
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm);
int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Topo_test(MPI_Comm comm, int *status);

/* 9. MPI Environmental Management */
int PMPI_Add_error_class(int *errorclass);
int PMPI_Add_error_code(int errorclass, int *errorcode);
int PMPI_Add_error_string(int errorcode, const char *string);
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler);
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Errhandler_free(MPI_Errhandler *errhandler);
int PMPI_Error_class(int errorcode, int *errorclass);
int PMPI_Error_string(int errorcode, char *string, int *resultlen);
int PMPI_File_call_errhandler(MPI_File fh, int errorcode);
int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler);
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int PMPI_Free_mem(void *base);
int PMPI_Get_library_version(char *version, int *resultlen);
int PMPI_Get_processor_name(char *name, int *resultlen);
int PMPI_Get_version(int *version, int *subversion);
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode);
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler);
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode);
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler);
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
double PMPI_Wtick(void);
double PMPI_Wtime(void);

/* 10. The Info Object */
int PMPI_Info_create(MPI_Info *info);
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
int PMPI_Info_delete(MPI_Info info, const char *key);
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int PMPI_Info_free(MPI_Info *info);
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
int PMPI_Info_set(MPI_Info info, const char *key, const char *value);

/* 11. Process Initialization, Creation, and Management */
int PMPI_Abort(MPI_Comm comm, int errorcode);
int PMPI_Close_port(const char *port_name);
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm);
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm);
int PMPI_Comm_disconnect(MPI_Comm *comm);
int PMPI_Comm_get_parent(MPI_Comm *parent);
int PMPI_Comm_join(int fd, MPI_Comm *intercomm);
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
int PMPI_Finalize(void);
int PMPI_Finalized(int *flag);
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup);
int PMPI_Init(int *argc, char ***argv);
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int PMPI_Initialized(int *flag);
int PMPI_Is_thread_main(int *flag);
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
int PMPI_Open_port(MPI_Info info, char *port_name);
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
int PMPI_Query_thread(int *provided);
int PMPI_Session_finalize(MPI_Session *session);
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name);
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);

/* 12. One-Sided Communications */
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win);
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win);
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win);
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win);
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win);
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request *request);
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request);
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request);
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request);
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request);
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win);
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win);
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win);
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win);
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int PMPI_Win_complete(MPI_Win win);
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win);
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win);
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int PMPI_Win_detach(MPI_Win win, const void *base);
int PMPI_Win_fence(int assert, MPI_Win win);
int PMPI_Win_flush(int rank, MPI_Win win);
int PMPI_Win_flush_all(MPI_Win win);
int PMPI_Win_flush_local(int rank, MPI_Win win);
int PMPI_Win_flush_local_all(MPI_Win win);
int PMPI_Win_free(MPI_Win *win);
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group);
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int PMPI_Win_lock_all(int assert, MPI_Win win);
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int PMPI_Win_set_info(MPI_Win win, MPI_Info info);
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr);
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int PMPI_Win_sync(MPI_Win win);
int PMPI_Win_test(MPI_Win win, int *flag);
int PMPI_Win_unlock(int rank, MPI_Win win);
int PMPI_Win_unlock_all(MPI_Win win);
int PMPI_Win_wait(MPI_Win win);

/* 13. External Interfaces */
int PMPI_Grequest_complete(MPI_Request request);
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request);
int PMPI_Status_set_cancelled(MPI_Status *status, int flag);
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);

/* 14. I/O */
int PMPI_File_close(MPI_File *fh);
int PMPI_File_delete(const char *filename, MPI_Info info);
int PMPI_File_get_amode(MPI_File fh, int *amode);
int PMPI_File_get_atomicity(MPI_File fh, int *flag);
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int PMPI_File_get_group(MPI_File fh, MPI_Group *group);
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used);
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size);
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep);
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request);
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request);
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request);
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request);
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request);
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request);
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request);
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request);
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request);
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request);
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size);
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status);
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status);
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void * buf, int count,
                          MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype);
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                  MPI_Datatype datatype);
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void * buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status);
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int PMPI_File_set_atomicity(MPI_File fh, int flag);
int PMPI_File_set_info(MPI_File fh, MPI_Info info);
int PMPI_File_set_size(MPI_File fh, MPI_Offset size);
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info);
int PMPI_File_sync(MPI_File fh);
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status);
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status);
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype);
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status *status);
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void * buf, int count,
                       MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype);
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype);
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void * buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status *status);
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status);
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype);
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status);
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);

/* 15. Tool Support */
int PMPI_Pcontrol(const int level, ...);
int PMPI_T_category_changed(int *update_number);
int PMPI_T_category_get_categories(int cat_index, int len, int indices[]);
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]);
int PMPI_T_category_get_events(int cat_index, int len, int indices[]);
int PMPI_T_category_get_index(const char *name, int *cat_index);
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories);
int PMPI_T_category_get_num(int *num_cat);
int PMPI_T_category_get_num_events(int cat_index, int *num_events);
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]);
int PMPI_T_cvar_get_index(const char *name, int *cvar_index);
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope);
int PMPI_T_cvar_get_num(int *num_cvar);
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count);
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len);
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used);
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info);
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer);
int PMPI_T_event_get_index(const char *name, int *event_index);
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind);
int PMPI_T_event_get_num(int *num_events);
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index);
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp);
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration);
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function);
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used);
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer);
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function);
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function);
int PMPI_T_finalize(void);
int PMPI_T_init_thread(int required, int *provided);
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic);
int PMPI_T_pvar_get_num(int *num_pvar);
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count);
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session);
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session);
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info);
int PMPI_T_source_get_num(int *num_sources);
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp);

/* 16. Deprecated Interfaces */
int PMPI_Attr_delete(MPI_Comm comm, int keyval);
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state);
int PMPI_Keyval_free(int *keyval);

/* 17. Removed Interfaces */
int PMPI_Address(void *location, MPI_Aint *address);
int PMPI_Errhandler_create(MPI_Comm_errhandler_function *comm_errhandler_fn,
                           MPI_Errhandler *errhandler);
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);

/* 19. Language Bindings */
MPI_Fint PMPI_File_c2f(MPI_File file);
MPI_File PMPI_File_f2c(MPI_Fint file);
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);

/* Added by MPI 4.1 (additional to MPICH 4.0.2's ABI) */
int PMPI_Buffer_flush(void);
int PMPI_Buffer_iflush(MPI_Request *request);
int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size);
int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size);
int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size);
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size);
int PMPI_Comm_flush_buffer(MPI_Comm comm);
int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request);
int PMPI_Get_hw_resource_info(MPI_Info *hw_info);
int PMPI_Remove_error_class(int errorclass);
int PMPI_Remove_error_code(int errorcode);
int PMPI_Remove_error_string(int errorcode);
int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses);
int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status);
int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses);
int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size);
int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size);
int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size);
int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size);
int PMPI_Session_flush_buffer(MPI_Session session);
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);
int PMPI_Status_get_error(const MPI_Status *status, int *error);
int PMPI_Status_get_source(const MPI_Status *status, int *source);
int PMPI_Status_get_tag(const MPI_Status *status, int *tag);
int PMPI_Status_set_error(MPI_Status *status, int error);
int PMPI_Status_set_source(MPI_Status *status, int source);
int PMPI_Status_set_tag(MPI_Status *status, int tag);
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type);

/* Added by MPI 5.0 (additional to MPICH 4.0.2's ABI) */
int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set);
int PMPI_Abi_get_fortran_info(MPI_Info *info);
int PMPI_Abi_get_info(MPI_Info *info);
int PMPI_Abi_get_version(int *abi_major, int *abi_minor);
int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false);
int PMPI_Abi_set_fortran_info(MPI_Info info);
MPI_Comm PMPI_Comm_fromint(int comm);
int PMPI_Comm_toint(MPI_Comm comm);
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler);
int PMPI_Errhandler_toint(MPI_Errhandler errhandler);
MPI_File PMPI_File_fromint(int file);
int PMPI_File_toint(MPI_File file);
MPI_Group PMPI_Group_fromint(int group);
int PMPI_Group_toint(MPI_Group group);
MPI_Info PMPI_Info_fromint(int info);
int PMPI_Info_toint(MPI_Info info);
MPI_Message PMPI_Message_fromint(int message);
int PMPI_Message_toint(MPI_Message message);
MPI_Op PMPI_Op_fromint(int op);
int PMPI_Op_toint(MPI_Op op);
MPI_Request PMPI_Request_fromint(int request);
int PMPI_Request_toint(MPI_Request request);
MPI_Session PMPI_Session_fromint(int session);
int PMPI_Session_toint(MPI_Session session);
MPI_Datatype PMPI_Type_fromint(int datatype);
int PMPI_Type_toint(MPI_Datatype datatype);
MPI_Win PMPI_Win_fromint(int win);
int PMPI_Win_toint(MPI_Win win);

/* ------------------------------------------------------------------------- */
/* MPICH extensions (MPIX_, with PMPIX_ twins)                               */
/* ------------------------------------------------------------------------- */

int MPIX_Comm_agree(MPI_Comm comm, int *flag);
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int MPIX_Delete_error_class(int errorclass);
int MPIX_Delete_error_code(int errorcode);
int MPIX_Delete_error_string(int errorcode);
int MPIX_GPU_query_support(int gpu_type, int *is_supported);
int MPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state,
                                 MPI_Request *request);
int MPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                               MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn,
                               MPIX_Grequest_poll_function *poll_fn,
                               MPIX_Grequest_wait_function *wait_fn,
                               MPIX_Grequest_class *greq_class);
int MPIX_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        MPIX_Grequest_poll_function *poll_fn, MPIX_Grequest_wait_function *wait_fn,
                        void *extra_state, MPI_Request *request);
int MPIX_Query_cuda_support(void);
int MPIX_Query_hip_support(void);
int MPIX_Query_ze_support(void);

int PMPIX_Comm_agree(MPI_Comm comm, int *flag);
int PMPIX_Comm_failure_ack(MPI_Comm comm);
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_revoke(MPI_Comm comm);
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int PMPIX_Delete_error_class(int errorclass);
int PMPIX_Delete_error_code(int errorcode);
int PMPIX_Delete_error_string(int errorcode);
int PMPIX_GPU_query_support(int gpu_type, int *is_supported);
int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state,
                                  MPI_Request *request);
int PMPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                                MPI_Grequest_free_function *free_fn,
                                MPI_Grequest_cancel_function *cancel_fn,
                                MPIX_Grequest_poll_function *poll_fn,
                                MPIX_Grequest_wait_function *wait_fn,
                                MPIX_Grequest_class *greq_class);
int PMPIX_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                         MPI_Grequest_cancel_function *cancel_fn,
                         MPIX_Grequest_poll_function *poll_fn, MPIX_Grequest_wait_function *wait_fn,
                         void *extra_state, MPI_Request *request);
int PMPIX_Query_cuda_support(void);
int PMPIX_Query_hip_support(void);
int PMPIX_Query_ze_support(void);

/* QMPI: the function identifiers for QMPI_Register_function, in MPICH order */
enum QMPI_Functions_enum {
    MPI_ATTR_DELETE_T = 0,
    MPI_ATTR_GET_T = 1,
    MPI_ATTR_PUT_T = 2,
    MPI_COMM_CREATE_KEYVAL_T = 3,
    MPI_COMM_DELETE_ATTR_T = 4,
    MPI_COMM_FREE_KEYVAL_T = 5,
    MPI_COMM_GET_ATTR_T = 6,
    MPI_COMM_SET_ATTR_T = 7,
    MPI_KEYVAL_CREATE_T = 8,
    MPI_KEYVAL_FREE_T = 9,
    MPI_TYPE_CREATE_KEYVAL_T = 10,
    MPI_TYPE_DELETE_ATTR_T = 11,
    MPI_TYPE_FREE_KEYVAL_T = 12,
    MPI_TYPE_GET_ATTR_T = 13,
    MPI_TYPE_SET_ATTR_T = 14,
    MPI_WIN_CREATE_KEYVAL_T = 15,
    MPI_WIN_DELETE_ATTR_T = 16,
    MPI_WIN_FREE_KEYVAL_T = 17,
    MPI_WIN_GET_ATTR_T = 18,
    MPI_WIN_SET_ATTR_T = 19,
    MPI_ALLGATHER_T = 20,
    MPI_ALLGATHER_C_T = 21,
    MPI_ALLGATHER_INIT_T = 22,
    MPI_ALLGATHER_INIT_C_T = 23,
    MPI_ALLGATHERV_T = 24,
    MPI_ALLGATHERV_C_T = 25,
    MPI_ALLGATHERV_INIT_T = 26,
    MPI_ALLGATHERV_INIT_C_T = 27,
    MPI_ALLREDUCE_T = 28,
    MPI_ALLREDUCE_C_T = 29,
    MPI_ALLREDUCE_INIT_T = 30,
    MPI_ALLREDUCE_INIT_C_T = 31,
    MPI_ALLTOALL_T = 32,
    MPI_ALLTOALL_C_T = 33,
    MPI_ALLTOALL_INIT_T = 34,
    MPI_ALLTOALL_INIT_C_T = 35,
    MPI_ALLTOALLV_T = 36,
    MPI_ALLTOALLV_C_T = 37,
    MPI_ALLTOALLV_INIT_T = 38,
    MPI_ALLTOALLV_INIT_C_T = 39,
    MPI_ALLTOALLW_T = 40,
    MPI_ALLTOALLW_C_T = 41,
    MPI_ALLTOALLW_INIT_T = 42,
    MPI_ALLTOALLW_INIT_C_T = 43,
    MPI_BARRIER_T = 44,
    MPI_BARRIER_INIT_T = 45,
    MPI_BCAST_T = 46,
    MPI_BCAST_C_T = 47,
    MPI_BCAST_INIT_T = 48,
    MPI_BCAST_INIT_C_T = 49,
    MPI_EXSCAN_T = 50,
    MPI_EXSCAN_C_T = 51,
    MPI_EXSCAN_INIT_T = 52,
    MPI_EXSCAN_INIT_C_T = 53,
    MPI_GATHER_T = 54,
    MPI_GATHER_C_T = 55,
    MPI_GATHER_INIT_T = 56,
    MPI_GATHER_INIT_C_T = 57,
    MPI_GATHERV_T = 58,
    MPI_GATHERV_C_T = 59,
    MPI_GATHERV_INIT_T = 60,
    MPI_GATHERV_INIT_C_T = 61,
    MPI_IALLGATHER_T = 62,
    MPI_IALLGATHER_C_T = 63,
    MPI_IALLGATHERV_T = 64,
    MPI_IALLGATHERV_C_T = 65,
    MPI_IALLREDUCE_T = 66,
    MPI_IALLREDUCE_C_T = 67,
    MPI_IALLTOALL_T = 68,
    MPI_IALLTOALL_C_T = 69,
    MPI_IALLTOALLV_T = 70,
    MPI_IALLTOALLV_C_T = 71,
    MPI_IALLTOALLW_T = 72,
    MPI_IALLTOALLW_C_T = 73,
    MPI_IBARRIER_T = 74,
    MPI_IBCAST_T = 75,
    MPI_IBCAST_C_T = 76,
    MPI_IEXSCAN_T = 77,
    MPI_IEXSCAN_C_T = 78,
    MPI_IGATHER_T = 79,
    MPI_IGATHER_C_T = 80,
    MPI_IGATHERV_T = 81,
    MPI_IGATHERV_C_T = 82,
    MPI_INEIGHBOR_ALLGATHER_T = 83,
    MPI_INEIGHBOR_ALLGATHER_C_T = 84,
    MPI_INEIGHBOR_ALLGATHERV_T = 85,
    MPI_INEIGHBOR_ALLGATHERV_C_T = 86,
    MPI_INEIGHBOR_ALLTOALL_T = 87,
    MPI_INEIGHBOR_ALLTOALL_C_T = 88,
    MPI_INEIGHBOR_ALLTOALLV_T = 89,
    MPI_INEIGHBOR_ALLTOALLV_C_T = 90,
    MPI_INEIGHBOR_ALLTOALLW_T = 91,
    MPI_INEIGHBOR_ALLTOALLW_C_T = 92,
    MPI_IREDUCE_T = 93,
    MPI_IREDUCE_C_T = 94,
    MPI_IREDUCE_SCATTER_T = 95,
    MPI_IREDUCE_SCATTER_C_T = 96,
    MPI_IREDUCE_SCATTER_BLOCK_T = 97,
    MPI_IREDUCE_SCATTER_BLOCK_C_T = 98,
    MPI_ISCAN_T = 99,
    MPI_ISCAN_C_T = 100,
    MPI_ISCATTER_T = 101,
    MPI_ISCATTER_C_T = 102,
    MPI_ISCATTERV_T = 103,
    MPI_ISCATTERV_C_T = 104,
    MPI_NEIGHBOR_ALLGATHER_T = 105,
    MPI_NEIGHBOR_ALLGATHER_C_T = 106,
    MPI_NEIGHBOR_ALLGATHER_INIT_T = 107,
    MPI_NEIGHBOR_ALLGATHER_INIT_C_T = 108,
    MPI_NEIGHBOR_ALLGATHERV_T = 109,
    MPI_NEIGHBOR_ALLGATHERV_C_T = 110,
    MPI_NEIGHBOR_ALLGATHERV_INIT_T = 111,
    MPI_NEIGHBOR_ALLGATHERV_INIT_C_T = 112,
    MPI_NEIGHBOR_ALLTOALL_T = 113,
    MPI_NEIGHBOR_ALLTOALL_C_T = 114,
    MPI_NEIGHBOR_ALLTOALL_INIT_T = 115,
    MPI_NEIGHBOR_ALLTOALL_INIT_C_T = 116,
    MPI_NEIGHBOR_ALLTOALLV_T = 117,
    MPI_NEIGHBOR_ALLTOALLV_C_T = 118,
    MPI_NEIGHBOR_ALLTOALLV_INIT_T = 119,
    MPI_NEIGHBOR_ALLTOALLV_INIT_C_T = 120,
    MPI_NEIGHBOR_ALLTOALLW_T = 121,
    MPI_NEIGHBOR_ALLTOALLW_C_T = 122,
    MPI_NEIGHBOR_ALLTOALLW_INIT_T = 123,
    MPI_NEIGHBOR_ALLTOALLW_INIT_C_T = 124,
    MPI_REDUCE_T = 125,
    MPI_REDUCE_C_T = 126,
    MPI_REDUCE_INIT_T = 127,
    MPI_REDUCE_INIT_C_T = 128,
    MPI_REDUCE_LOCAL_T = 129,
    MPI_REDUCE_LOCAL_C_T = 130,
    MPI_REDUCE_SCATTER_T = 131,
    MPI_REDUCE_SCATTER_C_T = 132,
    MPI_REDUCE_SCATTER_BLOCK_T = 133,
    MPI_REDUCE_SCATTER_BLOCK_C_T = 134,
    MPI_REDUCE_SCATTER_BLOCK_INIT_T = 135,
    MPI_REDUCE_SCATTER_BLOCK_INIT_C_T = 136,
    MPI_REDUCE_SCATTER_INIT_T = 137,
    MPI_REDUCE_SCATTER_INIT_C_T = 138,
    MPI_SCAN_T = 139,
    MPI_SCAN_C_T = 140,
    MPI_SCAN_INIT_T = 141,
    MPI_SCAN_INIT_C_T = 142,
    MPI_SCATTER_T = 143,
    MPI_SCATTER_C_T = 144,
    MPI_SCATTER_INIT_T = 145,
    MPI_SCATTER_INIT_C_T = 146,
    MPI_SCATTERV_T = 147,
    MPI_SCATTERV_C_T = 148,
    MPI_SCATTERV_INIT_T = 149,
    MPI_SCATTERV_INIT_C_T = 150,
    MPI_COMM_COMPARE_T = 151,
    MPI_COMM_CREATE_T = 152,
    MPI_COMM_CREATE_GROUP_T = 153,
    MPI_COMM_DUP_T = 154,
    MPI_COMM_DUP_WITH_INFO_T = 155,
    MPI_COMM_FREE_T = 156,
    MPI_COMM_GET_INFO_T = 157,
    MPI_COMM_GET_NAME_T = 158,
    MPI_COMM_GROUP_T = 159,
    MPI_COMM_IDUP_T = 160,
    MPI_COMM_IDUP_WITH_INFO_T = 161,
    MPI_COMM_RANK_T = 162,
    MPI_COMM_REMOTE_GROUP_T = 163,
    MPI_COMM_REMOTE_SIZE_T = 164,
    MPI_COMM_SET_INFO_T = 165,
    MPI_COMM_SET_NAME_T = 166,
    MPI_COMM_SIZE_T = 167,
    MPI_COMM_SPLIT_T = 168,
    MPI_COMM_SPLIT_TYPE_T = 169,
    MPI_COMM_TEST_INTER_T = 170,
    MPI_INTERCOMM_CREATE_T = 171,
    MPI_INTERCOMM_CREATE_FROM_GROUPS_T = 172,
    MPI_INTERCOMM_MERGE_T = 173,
    MPIX_COMM_REVOKE_T = 174,
    MPIX_COMM_SHRINK_T = 175,
    MPIX_COMM_FAILURE_ACK_T = 176,
    MPIX_COMM_FAILURE_GET_ACKED_T = 177,
    MPIX_COMM_AGREE_T = 178,
    MPI_GET_ADDRESS_T = 179,
    MPI_GET_COUNT_T = 180,
    MPI_GET_COUNT_C_T = 181,
    MPI_GET_ELEMENTS_T = 182,
    MPI_GET_ELEMENTS_C_T = 183,
    MPI_GET_ELEMENTS_X_T = 184,
    MPI_PACK_T = 185,
    MPI_PACK_C_T = 186,
    MPI_PACK_EXTERNAL_T = 187,
    MPI_PACK_EXTERNAL_C_T = 188,
    MPI_PACK_EXTERNAL_SIZE_T = 189,
    MPI_PACK_EXTERNAL_SIZE_C_T = 190,
    MPI_PACK_SIZE_T = 191,
    MPI_PACK_SIZE_C_T = 192,
    MPI_STATUS_SET_ELEMENTS_T = 193,
    MPI_STATUS_SET_ELEMENTS_X_T = 194,
    MPI_TYPE_COMMIT_T = 195,
    MPI_TYPE_CONTIGUOUS_T = 196,
    MPI_TYPE_CONTIGUOUS_C_T = 197,
    MPI_TYPE_CREATE_DARRAY_T = 198,
    MPI_TYPE_CREATE_DARRAY_C_T = 199,
    MPI_TYPE_CREATE_HINDEXED_T = 200,
    MPI_TYPE_CREATE_HINDEXED_C_T = 201,
    MPI_TYPE_CREATE_HINDEXED_BLOCK_T = 202,
    MPI_TYPE_CREATE_HINDEXED_BLOCK_C_T = 203,
    MPI_TYPE_CREATE_HVECTOR_T = 204,
    MPI_TYPE_CREATE_HVECTOR_C_T = 205,
    MPI_TYPE_CREATE_INDEXED_BLOCK_T = 206,
    MPI_TYPE_CREATE_INDEXED_BLOCK_C_T = 207,
    MPI_TYPE_CREATE_RESIZED_T = 208,
    MPI_TYPE_CREATE_RESIZED_C_T = 209,
    MPI_TYPE_CREATE_STRUCT_T = 210,
    MPI_TYPE_CREATE_STRUCT_C_T = 211,
    MPI_TYPE_CREATE_SUBARRAY_T = 212,
    MPI_TYPE_CREATE_SUBARRAY_C_T = 213,
    MPI_TYPE_DUP_T = 214,
    MPI_TYPE_FREE_T = 215,
    MPI_TYPE_GET_CONTENTS_T = 216,
    MPI_TYPE_GET_CONTENTS_C_T = 217,
    MPI_TYPE_GET_ENVELOPE_T = 218,
    MPI_TYPE_GET_ENVELOPE_C_T = 219,
    MPI_TYPE_GET_EXTENT_T = 220,
    MPI_TYPE_GET_EXTENT_C_T = 221,
    MPI_TYPE_GET_EXTENT_X_T = 222,
    MPI_TYPE_GET_NAME_T = 223,
    MPI_TYPE_GET_TRUE_EXTENT_T = 224,
    MPI_TYPE_GET_TRUE_EXTENT_C_T = 225,
    MPI_TYPE_GET_TRUE_EXTENT_X_T = 226,
    MPI_TYPE_INDEXED_T = 227,
    MPI_TYPE_INDEXED_C_T = 228,
    MPI_TYPE_MATCH_SIZE_T = 229,
    MPI_TYPE_SET_NAME_T = 230,
    MPI_TYPE_SIZE_T = 231,
    MPI_TYPE_SIZE_C_T = 232,
    MPI_TYPE_SIZE_X_T = 233,
    MPI_TYPE_VECTOR_T = 234,
    MPI_TYPE_VECTOR_C_T = 235,
    MPI_UNPACK_T = 236,
    MPI_UNPACK_C_T = 237,
    MPI_UNPACK_EXTERNAL_T = 238,
    MPI_UNPACK_EXTERNAL_C_T = 239,
    MPI_ADDRESS_T = 240,
    MPI_TYPE_EXTENT_T = 241,
    MPI_TYPE_LB_T = 242,
    MPI_TYPE_UB_T = 243,
    MPI_TYPE_HINDEXED_T = 244,
    MPI_TYPE_HVECTOR_T = 245,
    MPI_TYPE_STRUCT_T = 246,
    MPI_ADD_ERROR_CLASS_T = 247,
    MPI_ADD_ERROR_CODE_T = 248,
    MPI_ADD_ERROR_STRING_T = 249,
    MPI_COMM_CALL_ERRHANDLER_T = 250,
    MPI_COMM_CREATE_ERRHANDLER_T = 251,
    MPI_COMM_GET_ERRHANDLER_T = 252,
    MPI_COMM_SET_ERRHANDLER_T = 253,
    MPI_ERRHANDLER_FREE_T = 254,
    MPI_ERROR_CLASS_T = 255,
    MPI_ERROR_STRING_T = 256,
    MPI_FILE_CALL_ERRHANDLER_T = 257,
    MPI_FILE_CREATE_ERRHANDLER_T = 258,
    MPI_FILE_GET_ERRHANDLER_T = 259,
    MPI_FILE_SET_ERRHANDLER_T = 260,
    MPI_SESSION_CALL_ERRHANDLER_T = 261,
    MPI_SESSION_CREATE_ERRHANDLER_T = 262,
    MPI_SESSION_GET_ERRHANDLER_T = 263,
    MPI_SESSION_SET_ERRHANDLER_T = 264,
    MPI_WIN_CALL_ERRHANDLER_T = 265,
    MPI_WIN_CREATE_ERRHANDLER_T = 266,
    MPI_WIN_GET_ERRHANDLER_T = 267,
    MPI_WIN_SET_ERRHANDLER_T = 268,
    MPIX_DELETE_ERROR_CLASS_T = 269,
    MPIX_DELETE_ERROR_CODE_T = 270,
    MPIX_DELETE_ERROR_STRING_T = 271,
    MPI_ERRHANDLER_CREATE_T = 272,
    MPI_ERRHANDLER_GET_T = 273,
    MPI_ERRHANDLER_SET_T = 274,
    MPI_GROUP_COMPARE_T = 275,
    MPI_GROUP_DIFFERENCE_T = 276,
    MPI_GROUP_EXCL_T = 277,
    MPI_GROUP_FREE_T = 278,
    MPI_GROUP_INCL_T = 279,
    MPI_GROUP_INTERSECTION_T = 280,
    MPI_GROUP_RANGE_EXCL_T = 281,
    MPI_GROUP_RANGE_INCL_T = 282,
    MPI_GROUP_RANK_T = 283,
    MPI_GROUP_SIZE_T = 284,
    MPI_GROUP_TRANSLATE_RANKS_T = 285,
    MPI_GROUP_UNION_T = 286,
    MPI_INFO_CREATE_T = 287,
    MPI_INFO_CREATE_ENV_T = 288,
    MPI_INFO_DELETE_T = 289,
    MPI_INFO_DUP_T = 290,
    MPI_INFO_FREE_T = 291,
    MPI_INFO_GET_T = 292,
    MPI_INFO_GET_NKEYS_T = 293,
    MPI_INFO_GET_NTHKEY_T = 294,
    MPI_INFO_GET_STRING_T = 295,
    MPI_INFO_GET_VALUELEN_T = 296,
    MPI_INFO_SET_T = 297,
    MPI_ABORT_T = 298,
    MPI_COMM_CREATE_FROM_GROUP_T = 299,
    MPI_FINALIZE_T = 300,
    MPI_FINALIZED_T = 301,
    MPI_GROUP_FROM_SESSION_PSET_T = 302,
    MPI_INIT_T = 303,
    MPI_INIT_THREAD_T = 304,
    MPI_INITIALIZED_T = 305,
    MPI_IS_THREAD_MAIN_T = 306,
    MPI_QUERY_THREAD_T = 307,
    MPI_SESSION_FINALIZE_T = 308,
    MPI_SESSION_GET_INFO_T = 309,
    MPI_SESSION_GET_NTH_PSET_T = 310,
    MPI_SESSION_GET_NUM_PSETS_T = 311,
    MPI_SESSION_GET_PSET_INFO_T = 312,
    MPI_SESSION_INIT_T = 313,
    MPI_AINT_ADD_T = 314,
    MPI_AINT_DIFF_T = 315,
    MPI_GET_LIBRARY_VERSION_T = 316,
    MPI_GET_PROCESSOR_NAME_T = 317,
    MPI_GET_VERSION_T = 318,
    MPI_PCONTROL_T = 319,
    MPIX_GPU_QUERY_SUPPORT_T = 320,
    MPIX_QUERY_CUDA_SUPPORT_T = 321,
    MPIX_QUERY_ZE_SUPPORT_T = 322,
    MPIX_QUERY_HIP_SUPPORT_T = 323,
    MPI_T_CATEGORY_CHANGED_T = 324,
    MPI_T_CATEGORY_GET_CATEGORIES_T = 325,
    MPI_T_CATEGORY_GET_CVARS_T = 326,
    MPI_T_CATEGORY_GET_EVENTS_T = 327,
    MPI_T_CATEGORY_GET_INDEX_T = 328,
    MPI_T_CATEGORY_GET_INFO_T = 329,
    MPI_T_CATEGORY_GET_NUM_T = 330,
    MPI_T_CATEGORY_GET_NUM_EVENTS_T = 331,
    MPI_T_CATEGORY_GET_PVARS_T = 332,
    MPI_T_CVAR_GET_INDEX_T = 333,
    MPI_T_CVAR_GET_INFO_T = 334,
    MPI_T_CVAR_GET_NUM_T = 335,
    MPI_T_CVAR_HANDLE_ALLOC_T = 336,
    MPI_T_CVAR_HANDLE_FREE_T = 337,
    MPI_T_CVAR_READ_T = 338,
    MPI_T_CVAR_WRITE_T = 339,
    MPI_T_ENUM_GET_INFO_T = 340,
    MPI_T_ENUM_GET_ITEM_T = 341,
    MPI_T_EVENT_CALLBACK_GET_INFO_T = 342,
    MPI_T_EVENT_CALLBACK_SET_INFO_T = 343,
    MPI_T_EVENT_COPY_T = 344,
    MPI_T_EVENT_GET_INDEX_T = 345,
    MPI_T_EVENT_GET_INFO_T = 346,
    MPI_T_EVENT_GET_NUM_T = 347,
    MPI_T_EVENT_GET_SOURCE_T = 348,
    MPI_T_EVENT_GET_TIMESTAMP_T = 349,
    MPI_T_EVENT_HANDLE_ALLOC_T = 350,
    MPI_T_EVENT_HANDLE_FREE_T = 351,
    MPI_T_EVENT_HANDLE_GET_INFO_T = 352,
    MPI_T_EVENT_HANDLE_SET_INFO_T = 353,
    MPI_T_EVENT_READ_T = 354,
    MPI_T_EVENT_REGISTER_CALLBACK_T = 355,
    MPI_T_EVENT_SET_DROPPED_HANDLER_T = 356,
    MPI_T_FINALIZE_T = 357,
    MPI_T_INIT_THREAD_T = 358,
    MPI_T_PVAR_GET_INDEX_T = 359,
    MPI_T_PVAR_GET_INFO_T = 360,
    MPI_T_PVAR_GET_NUM_T = 361,
    MPI_T_PVAR_HANDLE_ALLOC_T = 362,
    MPI_T_PVAR_HANDLE_FREE_T = 363,
    MPI_T_PVAR_READ_T = 364,
    MPI_T_PVAR_READRESET_T = 365,
    MPI_T_PVAR_RESET_T = 366,
    MPI_T_PVAR_SESSION_CREATE_T = 367,
    MPI_T_PVAR_SESSION_FREE_T = 368,
    MPI_T_PVAR_START_T = 369,
    MPI_T_PVAR_STOP_T = 370,
    MPI_T_PVAR_WRITE_T = 371,
    MPI_T_SOURCE_GET_INFO_T = 372,
    MPI_T_SOURCE_GET_NUM_T = 373,
    MPI_T_SOURCE_GET_TIMESTAMP_T = 374,
    MPI_OP_COMMUTATIVE_T = 375,
    MPI_OP_CREATE_T = 376,
    MPI_OP_CREATE_C_T = 377,
    MPI_OP_FREE_T = 378,
    MPI_PARRIVED_T = 379,
    MPI_PREADY_T = 380,
    MPI_PREADY_LIST_T = 381,
    MPI_PREADY_RANGE_T = 382,
    MPI_PRECV_INIT_T = 383,
    MPI_PSEND_INIT_T = 384,
    MPI_BSEND_T = 385,
    MPI_BSEND_C_T = 386,
    MPI_BSEND_INIT_T = 387,
    MPI_BSEND_INIT_C_T = 388,
    MPI_BUFFER_ATTACH_T = 389,
    MPI_BUFFER_ATTACH_C_T = 390,
    MPI_BUFFER_DETACH_T = 391,
    MPI_BUFFER_DETACH_C_T = 392,
    MPI_IBSEND_T = 393,
    MPI_IBSEND_C_T = 394,
    MPI_IMPROBE_T = 395,
    MPI_IMRECV_T = 396,
    MPI_IMRECV_C_T = 397,
    MPI_IPROBE_T = 398,
    MPI_IRECV_T = 399,
    MPI_IRECV_C_T = 400,
    MPI_IRSEND_T = 401,
    MPI_IRSEND_C_T = 402,
    MPI_ISEND_T = 403,
    MPI_ISEND_C_T = 404,
    MPI_ISENDRECV_T = 405,
    MPI_ISENDRECV_C_T = 406,
    MPI_ISENDRECV_REPLACE_T = 407,
    MPI_ISENDRECV_REPLACE_C_T = 408,
    MPI_ISSEND_T = 409,
    MPI_ISSEND_C_T = 410,
    MPI_MPROBE_T = 411,
    MPI_MRECV_T = 412,
    MPI_MRECV_C_T = 413,
    MPI_PROBE_T = 414,
    MPI_RECV_T = 415,
    MPI_RECV_C_T = 416,
    MPI_RECV_INIT_T = 417,
    MPI_RECV_INIT_C_T = 418,
    MPI_RSEND_T = 419,
    MPI_RSEND_C_T = 420,
    MPI_RSEND_INIT_T = 421,
    MPI_RSEND_INIT_C_T = 422,
    MPI_SEND_T = 423,
    MPI_SEND_C_T = 424,
    MPI_SEND_INIT_T = 425,
    MPI_SEND_INIT_C_T = 426,
    MPI_SENDRECV_T = 427,
    MPI_SENDRECV_C_T = 428,
    MPI_SENDRECV_REPLACE_T = 429,
    MPI_SENDRECV_REPLACE_C_T = 430,
    MPI_SSEND_T = 431,
    MPI_SSEND_C_T = 432,
    MPI_SSEND_INIT_T = 433,
    MPI_SSEND_INIT_C_T = 434,
    MPI_CANCEL_T = 435,
    MPI_GREQUEST_COMPLETE_T = 436,
    MPI_GREQUEST_START_T = 437,
    MPI_REQUEST_FREE_T = 438,
    MPI_REQUEST_GET_STATUS_T = 439,
    MPI_START_T = 440,
    MPI_STARTALL_T = 441,
    MPI_STATUS_SET_CANCELLED_T = 442,
    MPI_TEST_T = 443,
    MPI_TEST_CANCELLED_T = 444,
    MPI_TESTALL_T = 445,
    MPI_TESTANY_T = 446,
    MPI_TESTSOME_T = 447,
    MPI_WAIT_T = 448,
    MPI_WAITALL_T = 449,
    MPI_WAITANY_T = 450,
    MPI_WAITSOME_T = 451,
    MPIX_GREQUEST_START_T = 452,
    MPIX_GREQUEST_CLASS_CREATE_T = 453,
    MPIX_GREQUEST_CLASS_ALLOCATE_T = 454,
    MPI_ACCUMULATE_T = 455,
    MPI_ACCUMULATE_C_T = 456,
    MPI_ALLOC_MEM_T = 457,
    MPI_COMPARE_AND_SWAP_T = 458,
    MPI_FETCH_AND_OP_T = 459,
    MPI_FREE_MEM_T = 460,
    MPI_GET_T = 461,
    MPI_GET_C_T = 462,
    MPI_GET_ACCUMULATE_T = 463,
    MPI_GET_ACCUMULATE_C_T = 464,
    MPI_PUT_T = 465,
    MPI_PUT_C_T = 466,
    MPI_RACCUMULATE_T = 467,
    MPI_RACCUMULATE_C_T = 468,
    MPI_RGET_T = 469,
    MPI_RGET_C_T = 470,
    MPI_RGET_ACCUMULATE_T = 471,
    MPI_RGET_ACCUMULATE_C_T = 472,
    MPI_RPUT_T = 473,
    MPI_RPUT_C_T = 474,
    MPI_WIN_ALLOCATE_T = 475,
    MPI_WIN_ALLOCATE_C_T = 476,
    MPI_WIN_ALLOCATE_SHARED_T = 477,
    MPI_WIN_ALLOCATE_SHARED_C_T = 478,
    MPI_WIN_ATTACH_T = 479,
    MPI_WIN_COMPLETE_T = 480,
    MPI_WIN_CREATE_T = 481,
    MPI_WIN_CREATE_C_T = 482,
    MPI_WIN_CREATE_DYNAMIC_T = 483,
    MPI_WIN_DETACH_T = 484,
    MPI_WIN_FENCE_T = 485,
    MPI_WIN_FLUSH_T = 486,
    MPI_WIN_FLUSH_ALL_T = 487,
    MPI_WIN_FLUSH_LOCAL_T = 488,
    MPI_WIN_FLUSH_LOCAL_ALL_T = 489,
    MPI_WIN_FREE_T = 490,
    MPI_WIN_GET_GROUP_T = 491,
    MPI_WIN_GET_INFO_T = 492,
    MPI_WIN_GET_NAME_T = 493,
    MPI_WIN_LOCK_T = 494,
    MPI_WIN_LOCK_ALL_T = 495,
    MPI_WIN_POST_T = 496,
    MPI_WIN_SET_INFO_T = 497,
    MPI_WIN_SET_NAME_T = 498,
    MPI_WIN_SHARED_QUERY_T = 499,
    MPI_WIN_SHARED_QUERY_C_T = 500,
    MPI_WIN_START_T = 501,
    MPI_WIN_SYNC_T = 502,
    MPI_WIN_TEST_T = 503,
    MPI_WIN_UNLOCK_T = 504,
    MPI_WIN_UNLOCK_ALL_T = 505,
    MPI_WIN_WAIT_T = 506,
    MPI_CLOSE_PORT_T = 507,
    MPI_COMM_ACCEPT_T = 508,
    MPI_COMM_CONNECT_T = 509,
    MPI_COMM_DISCONNECT_T = 510,
    MPI_COMM_GET_PARENT_T = 511,
    MPI_COMM_JOIN_T = 512,
    MPI_COMM_SPAWN_T = 513,
    MPI_COMM_SPAWN_MULTIPLE_T = 514,
    MPI_LOOKUP_NAME_T = 515,
    MPI_OPEN_PORT_T = 516,
    MPI_PUBLISH_NAME_T = 517,
    MPI_UNPUBLISH_NAME_T = 518,
    MPI_WTICK_T = 519,
    MPI_WTIME_T = 520,
    MPI_CART_COORDS_T = 521,
    MPI_CART_CREATE_T = 522,
    MPI_CART_GET_T = 523,
    MPI_CART_MAP_T = 524,
    MPI_CART_RANK_T = 525,
    MPI_CART_SHIFT_T = 526,
    MPI_CART_SUB_T = 527,
    MPI_CARTDIM_GET_T = 528,
    MPI_DIMS_CREATE_T = 529,
    MPI_DIST_GRAPH_CREATE_T = 530,
    MPI_DIST_GRAPH_CREATE_ADJACENT_T = 531,
    MPI_DIST_GRAPH_NEIGHBORS_T = 532,
    MPI_DIST_GRAPH_NEIGHBORS_COUNT_T = 533,
    MPI_GRAPH_CREATE_T = 534,
    MPI_GRAPH_GET_T = 535,
    MPI_GRAPH_MAP_T = 536,
    MPI_GRAPH_NEIGHBORS_T = 537,
    MPI_GRAPH_NEIGHBORS_COUNT_T = 538,
    MPI_GRAPHDIMS_GET_T = 539,
    MPI_TOPO_TEST_T = 540,
    MPI_LAST_FUNC_T = 541
};

/* QMPI: the type of a tool's function for each identifier above (MPICH's
 * QMPI_X_t): the function's parameters after the context and the tool id.
 * gen.py check compares each with the prototype of MPI_X. */
typedef int (QMPI_Attr_delete_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int keyval);
typedef int (QMPI_Attr_get_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int keyval,
    void *attribute_val, int *flag);
typedef int (QMPI_Attr_put_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int keyval,
    void *attribute_val);
typedef int (QMPI_Comm_create_keyval_t)(QMPI_Context context, int tool_id,
    MPI_Comm_copy_attr_function *comm_copy_attr_fn,
    MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state);
typedef int (QMPI_Comm_delete_attr_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int comm_keyval);
typedef int (QMPI_Comm_free_keyval_t)(QMPI_Context context, int tool_id, int *comm_keyval);
typedef int (QMPI_Comm_get_attr_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int comm_keyval, void *attribute_val, int *flag);
typedef int (QMPI_Comm_set_attr_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int comm_keyval, void *attribute_val);
typedef int (QMPI_Keyval_create_t)(QMPI_Context context, int tool_id, MPI_Copy_function *copy_fn,
    MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
typedef int (QMPI_Keyval_free_t)(QMPI_Context context, int tool_id, int *keyval);
typedef int (QMPI_Type_create_keyval_t)(QMPI_Context context, int tool_id,
    MPI_Type_copy_attr_function *type_copy_attr_fn,
    MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state);
typedef int (QMPI_Type_delete_attr_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    int type_keyval);
typedef int (QMPI_Type_free_keyval_t)(QMPI_Context context, int tool_id, int *type_keyval);
typedef int (QMPI_Type_get_attr_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    int type_keyval, void *attribute_val, int *flag);
typedef int (QMPI_Type_set_attr_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    int type_keyval, void *attribute_val);
typedef int (QMPI_Win_create_keyval_t)(QMPI_Context context, int tool_id,
    MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn,
    int *win_keyval, void *extra_state);
typedef int (QMPI_Win_delete_attr_t)(QMPI_Context context, int tool_id, MPI_Win win,
    int win_keyval);
typedef int (QMPI_Win_free_keyval_t)(QMPI_Context context, int tool_id, int *win_keyval);
typedef int (QMPI_Win_get_attr_t)(QMPI_Context context, int tool_id, MPI_Win win, int win_keyval,
    void *attribute_val, int *flag);
typedef int (QMPI_Win_set_attr_t)(QMPI_Context context, int tool_id, MPI_Win win, int win_keyval,
    void *attribute_val);
typedef int (QMPI_Allgather_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm);
typedef int (QMPI_Allgather_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Allgather_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Allgather_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Allgatherv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Allgatherv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Allgatherv_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Allgatherv_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Allreduce_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Allreduce_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Allreduce_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Allreduce_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Alltoall_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Alltoall_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Alltoall_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Alltoall_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Alltoallv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Alltoallv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Alltoallv_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Alltoallv_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Alltoallw_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
typedef int (QMPI_Alltoallw_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm);
typedef int (QMPI_Alltoallw_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Alltoallw_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Barrier_t)(QMPI_Context context, int tool_id, MPI_Comm comm);
typedef int (QMPI_Barrier_init_t)(QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Bcast_t)(QMPI_Context context, int tool_id, void *buffer, int count,
    MPI_Datatype datatype, int root, MPI_Comm comm);
typedef int (QMPI_Bcast_c_t)(QMPI_Context context, int tool_id, void *buffer, MPI_Count count,
    MPI_Datatype datatype, int root, MPI_Comm comm);
typedef int (QMPI_Bcast_init_t)(QMPI_Context context, int tool_id, void *buffer, int count,
    MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Bcast_init_c_t)(QMPI_Context context, int tool_id, void *buffer, MPI_Count count,
    MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Exscan_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Exscan_c_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Exscan_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Exscan_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Gather_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
    MPI_Comm comm);
typedef int (QMPI_Gather_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm);
typedef int (QMPI_Gather_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Gather_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Gatherv_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, int root, MPI_Comm comm);
typedef int (QMPI_Gatherv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
typedef int (QMPI_Gatherv_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Gatherv_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Iallgather_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iallgather_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iallgatherv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iallgatherv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iallreduce_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Iallreduce_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ialltoall_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ialltoall_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ialltoallv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ialltoallv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ialltoallw_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ialltoallw_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ibarrier_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ibcast_t)(QMPI_Context context, int tool_id, void *buffer, int count,
    MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ibcast_c_t)(QMPI_Context context, int tool_id, void *buffer, MPI_Count count,
    MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iexscan_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iexscan_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Igather_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Igather_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Igatherv_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Igatherv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_allgather_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_allgather_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_allgatherv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_allgatherv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_alltoall_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_alltoall_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ineighbor_alltoallv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ineighbor_alltoallv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ineighbor_alltoallw_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ineighbor_alltoallw_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ireduce_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ireduce_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ireduce_scatter_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ireduce_scatter_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ireduce_scatter_block_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Ireduce_scatter_block_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Iscan_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iscan_c_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iscatter_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iscatter_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iscatterv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Iscatterv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Neighbor_allgather_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm);
typedef int (QMPI_Neighbor_allgather_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Neighbor_allgather_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_allgather_init_c_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_allgatherv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Neighbor_allgatherv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Neighbor_allgatherv_init_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Neighbor_allgatherv_init_c_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_alltoall_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm);
typedef int (QMPI_Neighbor_alltoall_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Neighbor_alltoall_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_alltoall_init_c_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_alltoallv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Neighbor_alltoallv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
typedef int (QMPI_Neighbor_alltoallv_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_alltoallv_init_c_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_alltoallw_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
    MPI_Comm comm);
typedef int (QMPI_Neighbor_alltoallw_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm);
typedef int (QMPI_Neighbor_alltoallw_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Neighbor_alltoallw_init_c_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Reduce_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
typedef int (QMPI_Reduce_c_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
typedef int (QMPI_Reduce_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Reduce_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Reduce_local_t)(QMPI_Context context, int tool_id, const void *inbuf,
    void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op);
typedef int (QMPI_Reduce_local_c_t)(QMPI_Context context, int tool_id, const void *inbuf,
    void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op);
typedef int (QMPI_Reduce_scatter_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Reduce_scatter_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Reduce_scatter_block_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Reduce_scatter_block_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Reduce_scatter_block_init_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Reduce_scatter_block_init_c_t)(QMPI_Context context, int tool_id,
    const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Reduce_scatter_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Reduce_scatter_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
    MPI_Info info, MPI_Request *request);
typedef int (QMPI_Scan_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Scan_c_t)(QMPI_Context context, int tool_id, const void *sendbuf, void *recvbuf,
    MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
typedef int (QMPI_Scan_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Scan_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Scatter_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
    MPI_Comm comm);
typedef int (QMPI_Scatter_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm);
typedef int (QMPI_Scatter_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Scatter_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Scatterv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm);
typedef int (QMPI_Scatterv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
typedef int (QMPI_Scatterv_init_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int (QMPI_Scatterv_init_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Comm_compare_t)(QMPI_Context context, int tool_id, MPI_Comm comm1, MPI_Comm comm2,
    int *result);
typedef int (QMPI_Comm_create_t)(QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Group group,
    MPI_Comm *newcomm);
typedef int (QMPI_Comm_create_group_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Group group, int tag, MPI_Comm *newcomm);
typedef int (QMPI_Comm_dup_t)(QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Comm *newcomm);
typedef int (QMPI_Comm_dup_with_info_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Info info, MPI_Comm *newcomm);
typedef int (QMPI_Comm_free_t)(QMPI_Context context, int tool_id, MPI_Comm *comm);
typedef int (QMPI_Comm_get_info_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Info *info_used);
typedef int (QMPI_Comm_get_name_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    char *comm_name, int *resultlen);
typedef int (QMPI_Comm_group_t)(QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Group *group);
typedef int (QMPI_Comm_idup_t)(QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Comm *newcomm,
    MPI_Request *request);
typedef int (QMPI_Comm_idup_with_info_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Info info, MPI_Comm *newcomm, MPI_Request *request);
typedef int (QMPI_Comm_rank_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *rank);
typedef int (QMPI_Comm_remote_group_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Group *group);
typedef int (QMPI_Comm_remote_size_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *size);
typedef int (QMPI_Comm_set_info_t)(QMPI_Context context, int tool_id, MPI_Comm comm, MPI_Info info);
typedef int (QMPI_Comm_set_name_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    const char *comm_name);
typedef int (QMPI_Comm_size_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *size);
typedef int (QMPI_Comm_split_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int color,
    int key, MPI_Comm *newcomm);
typedef int (QMPI_Comm_split_type_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
typedef int (QMPI_Comm_test_inter_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *flag);
typedef int (QMPI_Intercomm_create_t)(QMPI_Context context, int tool_id, MPI_Comm local_comm,
    int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);
typedef int (QMPI_Intercomm_create_from_groups_t)(QMPI_Context context, int tool_id,
    MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
    const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm);
typedef int (QMPI_Intercomm_merge_t)(QMPI_Context context, int tool_id, MPI_Comm intercomm,
    int high, MPI_Comm *newintracomm);
typedef int (QMPIX_Comm_revoke_t)(QMPI_Context context, int tool_id, MPI_Comm comm);
typedef int (QMPIX_Comm_shrink_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Comm *newcomm);
typedef int (QMPIX_Comm_failure_ack_t)(QMPI_Context context, int tool_id, MPI_Comm comm);
typedef int (QMPIX_Comm_failure_get_acked_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Group *failedgrp);
typedef int (QMPIX_Comm_agree_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *flag);
typedef int (QMPI_Get_address_t)(QMPI_Context context, int tool_id, const void *location,
    MPI_Aint *address);
typedef int (QMPI_Get_count_t)(QMPI_Context context, int tool_id, const MPI_Status *status,
    MPI_Datatype datatype, int *count);
typedef int (QMPI_Get_count_c_t)(QMPI_Context context, int tool_id, const MPI_Status *status,
    MPI_Datatype datatype, MPI_Count *count);
typedef int (QMPI_Get_elements_t)(QMPI_Context context, int tool_id, const MPI_Status *status,
    MPI_Datatype datatype, int *count);
typedef int (QMPI_Get_elements_c_t)(QMPI_Context context, int tool_id, const MPI_Status *status,
    MPI_Datatype datatype, MPI_Count *count);
typedef int (QMPI_Get_elements_x_t)(QMPI_Context context, int tool_id, const MPI_Status *status,
    MPI_Datatype datatype, MPI_Count *count);
typedef int (QMPI_Pack_t)(QMPI_Context context, int tool_id, const void *inbuf, int incount,
    MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm);
typedef int (QMPI_Pack_c_t)(QMPI_Context context, int tool_id, const void *inbuf, MPI_Count incount,
    MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
typedef int (QMPI_Pack_external_t)(QMPI_Context context, int tool_id, const char *datarep,
    const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
    MPI_Aint *position);
typedef int (QMPI_Pack_external_c_t)(QMPI_Context context, int tool_id, const char *datarep,
    const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
    MPI_Count *position);
typedef int (QMPI_Pack_external_size_t)(QMPI_Context context, int tool_id, const char *datarep,
    int incount, MPI_Datatype datatype, MPI_Aint *size);
typedef int (QMPI_Pack_external_size_c_t)(QMPI_Context context, int tool_id, const char *datarep,
    MPI_Count incount, MPI_Datatype datatype, MPI_Count *size);
typedef int (QMPI_Pack_size_t)(QMPI_Context context, int tool_id, int incount,
    MPI_Datatype datatype, MPI_Comm comm, int *size);
typedef int (QMPI_Pack_size_c_t)(QMPI_Context context, int tool_id, MPI_Count incount,
    MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size);
typedef int (QMPI_Status_set_elements_t)(QMPI_Context context, int tool_id, MPI_Status *status,
    MPI_Datatype datatype, int count);
typedef int (QMPI_Status_set_elements_x_t)(QMPI_Context context, int tool_id, MPI_Status *status,
    MPI_Datatype datatype, MPI_Count count);
typedef int (QMPI_Type_commit_t)(QMPI_Context context, int tool_id, MPI_Datatype *datatype);
typedef int (QMPI_Type_contiguous_t)(QMPI_Context context, int tool_id, int count,
    MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_contiguous_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_darray_t)(QMPI_Context context, int tool_id, int size, int rank,
    int ndims, const int array_of_gsizes[], const int array_of_distribs[],
    const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_create_darray_c_t)(QMPI_Context context, int tool_id, int size, int rank,
    int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[],
    const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_create_hindexed_t)(QMPI_Context context, int tool_id, int count,
    const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
    MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_hindexed_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[],
    MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_hindexed_block_t)(QMPI_Context context, int tool_id, int count,
    int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_create_hindexed_block_c_t)(QMPI_Context context, int tool_id,
    MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
    MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_hvector_t)(QMPI_Context context, int tool_id, int count,
    int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_hvector_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_indexed_block_t)(QMPI_Context context, int tool_id, int count,
    int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_create_indexed_block_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_create_resized_t)(QMPI_Context context, int tool_id, MPI_Datatype oldtype,
    MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_resized_c_t)(QMPI_Context context, int tool_id, MPI_Datatype oldtype,
    MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_struct_t)(QMPI_Context context, int tool_id, int count,
    const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
    const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
typedef int (QMPI_Type_create_struct_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[],
    const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
typedef int (QMPI_Type_create_subarray_t)(QMPI_Context context, int tool_id, int ndims,
    const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[],
    int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_create_subarray_c_t)(QMPI_Context context, int tool_id, int ndims,
    const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
    const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_dup_t)(QMPI_Context context, int tool_id, MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_free_t)(QMPI_Context context, int tool_id, MPI_Datatype *datatype);
typedef int (QMPI_Type_get_contents_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    int max_integers, int max_addresses, int max_datatypes, int array_of_integers[],
    MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
typedef int (QMPI_Type_get_contents_c_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts,
    MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
    MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);
typedef int (QMPI_Type_get_envelope_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    int *num_integers, int *num_addresses, int *num_datatypes, int *combiner);
typedef int (QMPI_Type_get_envelope_c_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Count *num_integers, MPI_Count *num_addresses, MPI_Count *num_large_counts,
    MPI_Count *num_datatypes, int *combiner);
typedef int (QMPI_Type_get_extent_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Aint *lb, MPI_Aint *extent);
typedef int (QMPI_Type_get_extent_c_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Count *lb, MPI_Count *extent);
typedef int (QMPI_Type_get_extent_x_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Count *lb, MPI_Count *extent);
typedef int (QMPI_Type_get_name_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    char *type_name, int *resultlen);
typedef int (QMPI_Type_get_true_extent_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Aint *true_lb, MPI_Aint *true_extent);
typedef int (QMPI_Type_get_true_extent_c_t)(QMPI_Context context, int tool_id,
    MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
typedef int (QMPI_Type_get_true_extent_x_t)(QMPI_Context context, int tool_id,
    MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
typedef int (QMPI_Type_indexed_t)(QMPI_Context context, int tool_id, int count,
    const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_indexed_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[],
    MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_match_size_t)(QMPI_Context context, int tool_id, int typeclass, int size,
    MPI_Datatype *datatype);
typedef int (QMPI_Type_set_name_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    const char *type_name);
typedef int (QMPI_Type_size_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype, int *size);
typedef int (QMPI_Type_size_c_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Count *size);
typedef int (QMPI_Type_size_x_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Count *size);
typedef int (QMPI_Type_vector_t)(QMPI_Context context, int tool_id, int count, int blocklength,
    int stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_vector_c_t)(QMPI_Context context, int tool_id, MPI_Count count,
    MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Unpack_t)(QMPI_Context context, int tool_id, const void *inbuf, int insize,
    int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm);
typedef int (QMPI_Unpack_c_t)(QMPI_Context context, int tool_id, const void *inbuf,
    MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
    MPI_Comm comm);
typedef int (QMPI_Unpack_external_t)(QMPI_Context context, int tool_id, const char datarep[],
    const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount,
    MPI_Datatype datatype);
typedef int (QMPI_Unpack_external_c_t)(QMPI_Context context, int tool_id, const char datarep[],
    const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
    MPI_Datatype datatype);
typedef int (QMPI_Address_t)(QMPI_Context context, int tool_id, void *location, MPI_Aint *address);
typedef int (QMPI_Type_extent_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Aint *extent);
typedef int (QMPI_Type_lb_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Aint *displacement);
typedef int (QMPI_Type_ub_t)(QMPI_Context context, int tool_id, MPI_Datatype datatype,
    MPI_Aint *displacement);
typedef int (QMPI_Type_hindexed_t)(QMPI_Context context, int tool_id, int count,
    int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype);
typedef int (QMPI_Type_hvector_t)(QMPI_Context context, int tool_id, int count, int blocklength,
    MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
typedef int (QMPI_Type_struct_t)(QMPI_Context context, int tool_id, int count,
    int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
    MPI_Datatype *newtype);
typedef int (QMPI_Add_error_class_t)(QMPI_Context context, int tool_id, int *errorclass);
typedef int (QMPI_Add_error_code_t)(QMPI_Context context, int tool_id, int errorclass,
    int *errorcode);
typedef int (QMPI_Add_error_string_t)(QMPI_Context context, int tool_id, int errorcode,
    const char *string);
typedef int (QMPI_Comm_call_errhandler_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int errorcode);
typedef int (QMPI_Comm_create_errhandler_t)(QMPI_Context context, int tool_id,
    MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler);
typedef int (QMPI_Comm_get_errhandler_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Errhandler *errhandler);
typedef int (QMPI_Comm_set_errhandler_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Errhandler errhandler);
typedef int (QMPI_Errhandler_free_t)(QMPI_Context context, int tool_id, MPI_Errhandler *errhandler);
typedef int (QMPI_Error_class_t)(QMPI_Context context, int tool_id, int errorcode, int *errorclass);
typedef int (QMPI_Error_string_t)(QMPI_Context context, int tool_id, int errorcode, char *string,
    int *resultlen);
typedef int (QMPI_File_call_errhandler_t)(QMPI_Context context, int tool_id, MPI_File fh,
    int errorcode);
typedef int (QMPI_File_create_errhandler_t)(QMPI_Context context, int tool_id,
    MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler);
typedef int (QMPI_File_get_errhandler_t)(QMPI_Context context, int tool_id, MPI_File file,
    MPI_Errhandler *errhandler);
typedef int (QMPI_File_set_errhandler_t)(QMPI_Context context, int tool_id, MPI_File file,
    MPI_Errhandler errhandler);
typedef int (QMPI_Session_call_errhandler_t)(QMPI_Context context, int tool_id, MPI_Session session,
    int errorcode);
typedef int (QMPI_Session_create_errhandler_t)(QMPI_Context context, int tool_id,
    MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler);
typedef int (QMPI_Session_get_errhandler_t)(QMPI_Context context, int tool_id, MPI_Session session,
    MPI_Errhandler *errhandler);
typedef int (QMPI_Session_set_errhandler_t)(QMPI_Context context, int tool_id, MPI_Session session,
    MPI_Errhandler errhandler);
typedef int (QMPI_Win_call_errhandler_t)(QMPI_Context context, int tool_id, MPI_Win win,
    int errorcode);
typedef int (QMPI_Win_create_errhandler_t)(QMPI_Context context, int tool_id,
    MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler);
typedef int (QMPI_Win_get_errhandler_t)(QMPI_Context context, int tool_id, MPI_Win win,
    MPI_Errhandler *errhandler);
typedef int (QMPI_Win_set_errhandler_t)(QMPI_Context context, int tool_id, MPI_Win win,
    MPI_Errhandler errhandler);
typedef int (QMPIX_Delete_error_class_t)(QMPI_Context context, int tool_id, int errorclass);
typedef int (QMPIX_Delete_error_code_t)(QMPI_Context context, int tool_id, int errorcode);
typedef int (QMPIX_Delete_error_string_t)(QMPI_Context context, int tool_id, int errorcode);
typedef int (QMPI_Errhandler_create_t)(QMPI_Context context, int tool_id,
    MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler);
typedef int (QMPI_Errhandler_get_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Errhandler *errhandler);
typedef int (QMPI_Errhandler_set_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    MPI_Errhandler errhandler);
typedef int (QMPI_Group_compare_t)(QMPI_Context context, int tool_id, MPI_Group group1,
    MPI_Group group2, int *result);
typedef int (QMPI_Group_difference_t)(QMPI_Context context, int tool_id, MPI_Group group1,
    MPI_Group group2, MPI_Group *newgroup);
typedef int (QMPI_Group_excl_t)(QMPI_Context context, int tool_id, MPI_Group group, int n,
    const int ranks[], MPI_Group *newgroup);
typedef int (QMPI_Group_free_t)(QMPI_Context context, int tool_id, MPI_Group *group);
typedef int (QMPI_Group_incl_t)(QMPI_Context context, int tool_id, MPI_Group group, int n,
    const int ranks[], MPI_Group *newgroup);
typedef int (QMPI_Group_intersection_t)(QMPI_Context context, int tool_id, MPI_Group group1,
    MPI_Group group2, MPI_Group *newgroup);
typedef int (QMPI_Group_range_excl_t)(QMPI_Context context, int tool_id, MPI_Group group, int n,
    int ranges[][3], MPI_Group *newgroup);
typedef int (QMPI_Group_range_incl_t)(QMPI_Context context, int tool_id, MPI_Group group, int n,
    int ranges[][3], MPI_Group *newgroup);
typedef int (QMPI_Group_rank_t)(QMPI_Context context, int tool_id, MPI_Group group, int *rank);
typedef int (QMPI_Group_size_t)(QMPI_Context context, int tool_id, MPI_Group group, int *size);
typedef int (QMPI_Group_translate_ranks_t)(QMPI_Context context, int tool_id, MPI_Group group1,
    int n, const int ranks1[], MPI_Group group2, int ranks2[]);
typedef int (QMPI_Group_union_t)(QMPI_Context context, int tool_id, MPI_Group group1,
    MPI_Group group2, MPI_Group *newgroup);
typedef int (QMPI_Info_create_t)(QMPI_Context context, int tool_id, MPI_Info *info);
typedef int (QMPI_Info_create_env_t)(QMPI_Context context, int tool_id, int argc, char *argv[],
    MPI_Info *info);
typedef int (QMPI_Info_delete_t)(QMPI_Context context, int tool_id, MPI_Info info, const char *key);
typedef int (QMPI_Info_dup_t)(QMPI_Context context, int tool_id, MPI_Info info, MPI_Info *newinfo);
typedef int (QMPI_Info_free_t)(QMPI_Context context, int tool_id, MPI_Info *info);
typedef int (QMPI_Info_get_t)(QMPI_Context context, int tool_id, MPI_Info info, const char *key,
    int valuelen, char *value, int *flag);
typedef int (QMPI_Info_get_nkeys_t)(QMPI_Context context, int tool_id, MPI_Info info, int *nkeys);
typedef int (QMPI_Info_get_nthkey_t)(QMPI_Context context, int tool_id, MPI_Info info, int n,
    char *key);
typedef int (QMPI_Info_get_string_t)(QMPI_Context context, int tool_id, MPI_Info info,
    const char *key, int *buflen, char *value, int *flag);
typedef int (QMPI_Info_get_valuelen_t)(QMPI_Context context, int tool_id, MPI_Info info,
    const char *key, int *valuelen, int *flag);
typedef int (QMPI_Info_set_t)(QMPI_Context context, int tool_id, MPI_Info info, const char *key,
    const char *value);
typedef int (QMPI_Abort_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int errorcode);
typedef int (QMPI_Comm_create_from_group_t)(QMPI_Context context, int tool_id, MPI_Group group,
    const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm);
typedef int (QMPI_Finalize_t)(QMPI_Context context, int tool_id);
typedef int (QMPI_Finalized_t)(QMPI_Context context, int tool_id, int *flag);
typedef int (QMPI_Group_from_session_pset_t)(QMPI_Context context, int tool_id, MPI_Session session,
    const char *pset_name, MPI_Group *newgroup);
typedef int (QMPI_Init_t)(QMPI_Context context, int tool_id, int *argc, char ***argv);
typedef int (QMPI_Init_thread_t)(QMPI_Context context, int tool_id, int *argc, char ***argv,
    int required, int *provided);
typedef int (QMPI_Initialized_t)(QMPI_Context context, int tool_id, int *flag);
typedef int (QMPI_Is_thread_main_t)(QMPI_Context context, int tool_id, int *flag);
typedef int (QMPI_Query_thread_t)(QMPI_Context context, int tool_id, int *provided);
typedef int (QMPI_Session_finalize_t)(QMPI_Context context, int tool_id, MPI_Session *session);
typedef int (QMPI_Session_get_info_t)(QMPI_Context context, int tool_id, MPI_Session session,
    MPI_Info *info_used);
typedef int (QMPI_Session_get_nth_pset_t)(QMPI_Context context, int tool_id, MPI_Session session,
    MPI_Info info, int n, int *pset_len, char *pset_name);
typedef int (QMPI_Session_get_num_psets_t)(QMPI_Context context, int tool_id, MPI_Session session,
    MPI_Info info, int *npset_names);
typedef int (QMPI_Session_get_pset_info_t)(QMPI_Context context, int tool_id, MPI_Session session,
    const char *pset_name, MPI_Info *info);
typedef int (QMPI_Session_init_t)(QMPI_Context context, int tool_id, MPI_Info info,
    MPI_Errhandler errhandler, MPI_Session *session);
typedef MPI_Aint (QMPI_Aint_add_t)(QMPI_Context context, int tool_id, MPI_Aint base, MPI_Aint disp);
typedef MPI_Aint (QMPI_Aint_diff_t)(QMPI_Context context, int tool_id, MPI_Aint addr1,
    MPI_Aint addr2);
typedef int (QMPI_Get_library_version_t)(QMPI_Context context, int tool_id, char *version,
    int *resultlen);
typedef int (QMPI_Get_processor_name_t)(QMPI_Context context, int tool_id, char *name,
    int *resultlen);
typedef int (QMPI_Get_version_t)(QMPI_Context context, int tool_id, int *version, int *subversion);
typedef int (QMPI_Pcontrol_t)(QMPI_Context context, int tool_id, const int level, ...);
typedef int (QMPIX_GPU_query_support_t)(QMPI_Context context, int tool_id, int gpu_type,
    int *is_supported);
typedef int (QMPIX_Query_cuda_support_t)(QMPI_Context context, int tool_id);
typedef int (QMPIX_Query_ze_support_t)(QMPI_Context context, int tool_id);
typedef int (QMPIX_Query_hip_support_t)(QMPI_Context context, int tool_id);
typedef int (QMPI_T_category_changed_t)(QMPI_Context context, int tool_id, int *update_number);
typedef int (QMPI_T_category_get_categories_t)(QMPI_Context context, int tool_id, int cat_index,
    int len, int indices[]);
typedef int (QMPI_T_category_get_cvars_t)(QMPI_Context context, int tool_id, int cat_index, int len,
    int indices[]);
typedef int (QMPI_T_category_get_events_t)(QMPI_Context context, int tool_id, int cat_index,
    int len, int indices[]);
typedef int (QMPI_T_category_get_index_t)(QMPI_Context context, int tool_id, const char *name,
    int *cat_index);
typedef int (QMPI_T_category_get_info_t)(QMPI_Context context, int tool_id, int cat_index,
    char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars,
    int *num_categories);
typedef int (QMPI_T_category_get_num_t)(QMPI_Context context, int tool_id, int *num_cat);
typedef int (QMPI_T_category_get_num_events_t)(QMPI_Context context, int tool_id, int cat_index,
    int *num_events);
typedef int (QMPI_T_category_get_pvars_t)(QMPI_Context context, int tool_id, int cat_index, int len,
    int indices[]);
typedef int (QMPI_T_cvar_get_index_t)(QMPI_Context context, int tool_id, const char *name,
    int *cvar_index);
typedef int (QMPI_T_cvar_get_info_t)(QMPI_Context context, int tool_id, int cvar_index, char *name,
    int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
    int *desc_len, int *bind, int *scope);
typedef int (QMPI_T_cvar_get_num_t)(QMPI_Context context, int tool_id, int *num_cvar);
typedef int (QMPI_T_cvar_handle_alloc_t)(QMPI_Context context, int tool_id, int cvar_index,
    void *obj_handle, MPI_T_cvar_handle *handle, int *count);
typedef int (QMPI_T_cvar_handle_free_t)(QMPI_Context context, int tool_id,
    MPI_T_cvar_handle *handle);
typedef int (QMPI_T_cvar_read_t)(QMPI_Context context, int tool_id, MPI_T_cvar_handle handle,
    void *buf);
typedef int (QMPI_T_cvar_write_t)(QMPI_Context context, int tool_id, MPI_T_cvar_handle handle,
    const void *buf);
typedef int (QMPI_T_enum_get_info_t)(QMPI_Context context, int tool_id, MPI_T_enum enumtype,
    int *num, char *name, int *name_len);
typedef int (QMPI_T_enum_get_item_t)(QMPI_Context context, int tool_id, MPI_T_enum enumtype,
    int indx, int *value, char *name, int *name_len);
typedef int (QMPI_T_event_callback_get_info_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info *info_used);
typedef int (QMPI_T_event_callback_set_info_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info);
typedef int (QMPI_T_event_copy_t)(QMPI_Context context, int tool_id,
    MPI_T_event_instance event_instance, void *buffer);
typedef int (QMPI_T_event_get_index_t)(QMPI_Context context, int tool_id, const char *name,
    int *event_index);
typedef int (QMPI_T_event_get_info_t)(QMPI_Context context, int tool_id, int event_index,
    char *name, int *name_len, int *verbosity, MPI_Datatype array_of_datatypes[],
    MPI_Aint array_of_displacements[], int *num_elements, MPI_T_enum *enumtype, MPI_Info *info,
    char *desc, int *desc_len, int *bind);
typedef int (QMPI_T_event_get_num_t)(QMPI_Context context, int tool_id, int *num_events);
typedef int (QMPI_T_event_get_source_t)(QMPI_Context context, int tool_id,
    MPI_T_event_instance event_instance, int *source_index);
typedef int (QMPI_T_event_get_timestamp_t)(QMPI_Context context, int tool_id,
    MPI_T_event_instance event_instance, MPI_Count *event_timestamp);
typedef int (QMPI_T_event_handle_alloc_t)(QMPI_Context context, int tool_id, int event_index,
    void *obj_handle, MPI_Info info, MPI_T_event_registration *event_registration);
typedef int (QMPI_T_event_handle_free_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration, void *user_data,
    MPI_T_event_free_cb_function free_cb_function);
typedef int (QMPI_T_event_handle_get_info_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration, MPI_Info *info_used);
typedef int (QMPI_T_event_handle_set_info_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration, MPI_Info info);
typedef int (QMPI_T_event_read_t)(QMPI_Context context, int tool_id,
    MPI_T_event_instance event_instance, int element_index, void *buffer);
typedef int (QMPI_T_event_register_callback_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info,
    void *user_data, MPI_T_event_cb_function event_cb_function);
typedef int (QMPI_T_event_set_dropped_handler_t)(QMPI_Context context, int tool_id,
    MPI_T_event_registration event_registration,
    MPI_T_event_dropped_cb_function dropped_cb_function);
typedef int (QMPI_T_finalize_t)(QMPI_Context context, int tool_id);
typedef int (QMPI_T_init_thread_t)(QMPI_Context context, int tool_id, int required, int *provided);
typedef int (QMPI_T_pvar_get_index_t)(QMPI_Context context, int tool_id, const char *name,
    int var_class, int *pvar_index);
typedef int (QMPI_T_pvar_get_info_t)(QMPI_Context context, int tool_id, int pvar_index, char *name,
    int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
    char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic);
typedef int (QMPI_T_pvar_get_num_t)(QMPI_Context context, int tool_id, int *num_pvar);
typedef int (QMPI_T_pvar_handle_alloc_t)(QMPI_Context context, int tool_id,
    MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle,
    int *count);
typedef int (QMPI_T_pvar_handle_free_t)(QMPI_Context context, int tool_id,
    MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
typedef int (QMPI_T_pvar_read_t)(QMPI_Context context, int tool_id, MPI_T_pvar_session session,
    MPI_T_pvar_handle handle, void *buf);
typedef int (QMPI_T_pvar_readreset_t)(QMPI_Context context, int tool_id, MPI_T_pvar_session session,
    MPI_T_pvar_handle handle, void *buf);
typedef int (QMPI_T_pvar_reset_t)(QMPI_Context context, int tool_id, MPI_T_pvar_session session,
    MPI_T_pvar_handle handle);
typedef int (QMPI_T_pvar_session_create_t)(QMPI_Context context, int tool_id,
    MPI_T_pvar_session *session);
typedef int (QMPI_T_pvar_session_free_t)(QMPI_Context context, int tool_id,
    MPI_T_pvar_session *session);
typedef int (QMPI_T_pvar_start_t)(QMPI_Context context, int tool_id, MPI_T_pvar_session session,
    MPI_T_pvar_handle handle);
typedef int (QMPI_T_pvar_stop_t)(QMPI_Context context, int tool_id, MPI_T_pvar_session session,
    MPI_T_pvar_handle handle);
typedef int (QMPI_T_pvar_write_t)(QMPI_Context context, int tool_id, MPI_T_pvar_session session,
    MPI_T_pvar_handle handle, const void *buf);
typedef int (QMPI_T_source_get_info_t)(QMPI_Context context, int tool_id, int source_index,
    char *name, int *name_len, char *desc, int *desc_len, MPI_T_source_order *ordering,
    MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info);
typedef int (QMPI_T_source_get_num_t)(QMPI_Context context, int tool_id, int *num_sources);
typedef int (QMPI_T_source_get_timestamp_t)(QMPI_Context context, int tool_id, int source_index,
    MPI_Count *timestamp);
typedef int (QMPI_Op_commutative_t)(QMPI_Context context, int tool_id, MPI_Op op, int *commute);
typedef int (QMPI_Op_create_t)(QMPI_Context context, int tool_id, MPI_User_function *user_fn,
    int commute, MPI_Op *op);
typedef int (QMPI_Op_create_c_t)(QMPI_Context context, int tool_id, MPI_User_function_c *user_fn,
    int commute, MPI_Op *op);
typedef int (QMPI_Op_free_t)(QMPI_Context context, int tool_id, MPI_Op *op);
typedef int (QMPI_Parrived_t)(QMPI_Context context, int tool_id, MPI_Request request, int partition,
    int *flag);
typedef int (QMPI_Pready_t)(QMPI_Context context, int tool_id, int partition, MPI_Request request);
typedef int (QMPI_Pready_list_t)(QMPI_Context context, int tool_id, int length,
    int array_of_partitions[], MPI_Request request);
typedef int (QMPI_Pready_range_t)(QMPI_Context context, int tool_id, int partition_low,
    int partition_high, MPI_Request request);
typedef int (QMPI_Precv_init_t)(QMPI_Context context, int tool_id, void *buf, int partitions,
    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Psend_init_t)(QMPI_Context context, int tool_id, const void *buf, int partitions,
    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info,
    MPI_Request *request);
typedef int (QMPI_Bsend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Bsend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Bsend_init_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Bsend_init_c_t)(QMPI_Context context, int tool_id, const void *buf,
    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Buffer_attach_t)(QMPI_Context context, int tool_id, void *buffer, int size);
typedef int (QMPI_Buffer_attach_c_t)(QMPI_Context context, int tool_id, void *buffer,
    MPI_Count size);
typedef int (QMPI_Buffer_detach_t)(QMPI_Context context, int tool_id, void *buffer_addr, int *size);
typedef int (QMPI_Buffer_detach_c_t)(QMPI_Context context, int tool_id, void *buffer_addr,
    MPI_Count *size);
typedef int (QMPI_Ibsend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ibsend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Improbe_t)(QMPI_Context context, int tool_id, int source, int tag, MPI_Comm comm,
    int *flag, MPI_Message *message, MPI_Status *status);
typedef int (QMPI_Imrecv_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
typedef int (QMPI_Imrecv_c_t)(QMPI_Context context, int tool_id, void *buf, MPI_Count count,
    MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
typedef int (QMPI_Iprobe_t)(QMPI_Context context, int tool_id, int source, int tag, MPI_Comm comm,
    int *flag, MPI_Status *status);
typedef int (QMPI_Irecv_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Irecv_c_t)(QMPI_Context context, int tool_id, void *buf, MPI_Count count,
    MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Irsend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Irsend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Isend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Isend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Isendrecv_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Isendrecv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Isendrecv_replace_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
    MPI_Request *request);
typedef int (QMPI_Isendrecv_replace_c_t)(QMPI_Context context, int tool_id, void *buf,
    MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
    MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Issend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Issend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Mprobe_t)(QMPI_Context context, int tool_id, int source, int tag, MPI_Comm comm,
    MPI_Message *message, MPI_Status *status);
typedef int (QMPI_Mrecv_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
typedef int (QMPI_Mrecv_c_t)(QMPI_Context context, int tool_id, void *buf, MPI_Count count,
    MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
typedef int (QMPI_Probe_t)(QMPI_Context context, int tool_id, int source, int tag, MPI_Comm comm,
    MPI_Status *status);
typedef int (QMPI_Recv_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
typedef int (QMPI_Recv_c_t)(QMPI_Context context, int tool_id, void *buf, MPI_Count count,
    MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
typedef int (QMPI_Recv_init_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Recv_init_c_t)(QMPI_Context context, int tool_id, void *buf, MPI_Count count,
    MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Rsend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Rsend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Rsend_init_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Rsend_init_c_t)(QMPI_Context context, int tool_id, const void *buf,
    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Send_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Send_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Send_init_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Send_init_c_t)(QMPI_Context context, int tool_id, const void *buf,
    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Sendrecv_t)(QMPI_Context context, int tool_id, const void *sendbuf, int sendcount,
    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
typedef int (QMPI_Sendrecv_c_t)(QMPI_Context context, int tool_id, const void *sendbuf,
    MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
    MPI_Status *status);
typedef int (QMPI_Sendrecv_replace_t)(QMPI_Context context, int tool_id, void *buf, int count,
    MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
    MPI_Status *status);
typedef int (QMPI_Sendrecv_replace_c_t)(QMPI_Context context, int tool_id, void *buf,
    MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
    MPI_Comm comm, MPI_Status *status);
typedef int (QMPI_Ssend_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Ssend_c_t)(QMPI_Context context, int tool_id, const void *buf, MPI_Count count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (QMPI_Ssend_init_t)(QMPI_Context context, int tool_id, const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Ssend_init_c_t)(QMPI_Context context, int tool_id, const void *buf,
    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
typedef int (QMPI_Cancel_t)(QMPI_Context context, int tool_id, MPI_Request *request);
typedef int (QMPI_Grequest_complete_t)(QMPI_Context context, int tool_id, MPI_Request request);
typedef int (QMPI_Grequest_start_t)(QMPI_Context context, int tool_id,
    MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
    MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
typedef int (QMPI_Request_free_t)(QMPI_Context context, int tool_id, MPI_Request *request);
typedef int (QMPI_Request_get_status_t)(QMPI_Context context, int tool_id, MPI_Request request,
    int *flag, MPI_Status *status);
typedef int (QMPI_Start_t)(QMPI_Context context, int tool_id, MPI_Request *request);
typedef int (QMPI_Startall_t)(QMPI_Context context, int tool_id, int count,
    MPI_Request array_of_requests[]);
typedef int (QMPI_Status_set_cancelled_t)(QMPI_Context context, int tool_id, MPI_Status *status,
    int flag);
typedef int (QMPI_Test_t)(QMPI_Context context, int tool_id, MPI_Request *request, int *flag,
    MPI_Status *status);
typedef int (QMPI_Test_cancelled_t)(QMPI_Context context, int tool_id, const MPI_Status *status,
    int *flag);
typedef int (QMPI_Testall_t)(QMPI_Context context, int tool_id, int count,
    MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses);
typedef int (QMPI_Testany_t)(QMPI_Context context, int tool_id, int count,
    MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status);
typedef int (QMPI_Testsome_t)(QMPI_Context context, int tool_id, int incount,
    MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
    MPI_Status *array_of_statuses);
typedef int (QMPI_Wait_t)(QMPI_Context context, int tool_id, MPI_Request *request,
    MPI_Status *status);
typedef int (QMPI_Waitall_t)(QMPI_Context context, int tool_id, int count,
    MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
typedef int (QMPI_Waitany_t)(QMPI_Context context, int tool_id, int count,
    MPI_Request array_of_requests[], int *indx, MPI_Status *status);
typedef int (QMPI_Waitsome_t)(QMPI_Context context, int tool_id, int incount,
    MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
    MPI_Status *array_of_statuses);
typedef int (QMPIX_Grequest_start_t)(QMPI_Context context, int tool_id,
    MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
    MPI_Grequest_cancel_function *cancel_fn, MPIX_Grequest_poll_function *poll_fn,
    MPIX_Grequest_wait_function *wait_fn, void *extra_state, MPI_Request *request);
typedef int (QMPIX_Grequest_class_create_t)(QMPI_Context context, int tool_id,
    MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
    MPI_Grequest_cancel_function *cancel_fn, MPIX_Grequest_poll_function *poll_fn,
    MPIX_Grequest_wait_function *wait_fn, MPIX_Grequest_class *greq_class);
typedef int (QMPIX_Grequest_class_allocate_t)(QMPI_Context context, int tool_id,
    MPIX_Grequest_class greq_class, void *extra_state, MPI_Request *request);
typedef int (QMPI_Accumulate_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
typedef int (QMPI_Accumulate_c_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
typedef int (QMPI_Alloc_mem_t)(QMPI_Context context, int tool_id, MPI_Aint size, MPI_Info info,
    void *baseptr);
typedef int (QMPI_Compare_and_swap_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
    MPI_Aint target_disp, MPI_Win win);
typedef int (QMPI_Fetch_and_op_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op,
    MPI_Win win);
typedef int (QMPI_Free_mem_t)(QMPI_Context context, int tool_id, void *base);
typedef int (QMPI_Get_t)(QMPI_Context context, int tool_id, void *origin_addr, int origin_count,
    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
    MPI_Datatype target_datatype, MPI_Win win);
typedef int (QMPI_Get_c_t)(QMPI_Context context, int tool_id, void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win);
typedef int (QMPI_Get_accumulate_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count,
    MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count,
    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
typedef int (QMPI_Get_accumulate_c_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
    MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count,
    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
typedef int (QMPI_Put_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    int target_count, MPI_Datatype target_datatype, MPI_Win win);
typedef int (QMPI_Put_c_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win);
typedef int (QMPI_Raccumulate_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Raccumulate_c_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
    MPI_Request *request);
typedef int (QMPI_Rget_t)(QMPI_Context context, int tool_id, void *origin_addr, int origin_count,
    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
    MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Rget_c_t)(QMPI_Context context, int tool_id, void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Rget_accumulate_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count,
    MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count,
    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Rget_accumulate_c_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
    MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count,
    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Rput_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Rput_c_t)(QMPI_Context context, int tool_id, const void *origin_addr,
    MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
typedef int (QMPI_Win_allocate_t)(QMPI_Context context, int tool_id, MPI_Aint size, int disp_unit,
    MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
typedef int (QMPI_Win_allocate_c_t)(QMPI_Context context, int tool_id, MPI_Aint size,
    MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
typedef int (QMPI_Win_allocate_shared_t)(QMPI_Context context, int tool_id, MPI_Aint size,
    int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
typedef int (QMPI_Win_allocate_shared_c_t)(QMPI_Context context, int tool_id, MPI_Aint size,
    MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
typedef int (QMPI_Win_attach_t)(QMPI_Context context, int tool_id, MPI_Win win, void *base,
    MPI_Aint size);
typedef int (QMPI_Win_complete_t)(QMPI_Context context, int tool_id, MPI_Win win);
typedef int (QMPI_Win_create_t)(QMPI_Context context, int tool_id, void *base, MPI_Aint size,
    int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
typedef int (QMPI_Win_create_c_t)(QMPI_Context context, int tool_id, void *base, MPI_Aint size,
    MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
typedef int (QMPI_Win_create_dynamic_t)(QMPI_Context context, int tool_id, MPI_Info info,
    MPI_Comm comm, MPI_Win *win);
typedef int (QMPI_Win_detach_t)(QMPI_Context context, int tool_id, MPI_Win win, const void *base);
typedef int (QMPI_Win_fence_t)(QMPI_Context context, int tool_id, int assert, MPI_Win win);
typedef int (QMPI_Win_flush_t)(QMPI_Context context, int tool_id, int rank, MPI_Win win);
typedef int (QMPI_Win_flush_all_t)(QMPI_Context context, int tool_id, MPI_Win win);
typedef int (QMPI_Win_flush_local_t)(QMPI_Context context, int tool_id, int rank, MPI_Win win);
typedef int (QMPI_Win_flush_local_all_t)(QMPI_Context context, int tool_id, MPI_Win win);
typedef int (QMPI_Win_free_t)(QMPI_Context context, int tool_id, MPI_Win *win);
typedef int (QMPI_Win_get_group_t)(QMPI_Context context, int tool_id, MPI_Win win,
    MPI_Group *group);
typedef int (QMPI_Win_get_info_t)(QMPI_Context context, int tool_id, MPI_Win win,
    MPI_Info *info_used);
typedef int (QMPI_Win_get_name_t)(QMPI_Context context, int tool_id, MPI_Win win, char *win_name,
    int *resultlen);
typedef int (QMPI_Win_lock_t)(QMPI_Context context, int tool_id, int lock_type, int rank,
    int assert, MPI_Win win);
typedef int (QMPI_Win_lock_all_t)(QMPI_Context context, int tool_id, int assert, MPI_Win win);
typedef int (QMPI_Win_post_t)(QMPI_Context context, int tool_id, MPI_Group group, int assert,
    MPI_Win win);
typedef int (QMPI_Win_set_info_t)(QMPI_Context context, int tool_id, MPI_Win win, MPI_Info info);
typedef int (QMPI_Win_set_name_t)(QMPI_Context context, int tool_id, MPI_Win win,
    const char *win_name);
typedef int (QMPI_Win_shared_query_t)(QMPI_Context context, int tool_id, MPI_Win win, int rank,
    MPI_Aint *size, int *disp_unit, void *baseptr);
typedef int (QMPI_Win_shared_query_c_t)(QMPI_Context context, int tool_id, MPI_Win win, int rank,
    MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr);
typedef int (QMPI_Win_start_t)(QMPI_Context context, int tool_id, MPI_Group group, int assert,
    MPI_Win win);
typedef int (QMPI_Win_sync_t)(QMPI_Context context, int tool_id, MPI_Win win);
typedef int (QMPI_Win_test_t)(QMPI_Context context, int tool_id, MPI_Win win, int *flag);
typedef int (QMPI_Win_unlock_t)(QMPI_Context context, int tool_id, int rank, MPI_Win win);
typedef int (QMPI_Win_unlock_all_t)(QMPI_Context context, int tool_id, MPI_Win win);
typedef int (QMPI_Win_wait_t)(QMPI_Context context, int tool_id, MPI_Win win);
typedef int (QMPI_Close_port_t)(QMPI_Context context, int tool_id, const char *port_name);
typedef int (QMPI_Comm_accept_t)(QMPI_Context context, int tool_id, const char *port_name,
    MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
typedef int (QMPI_Comm_connect_t)(QMPI_Context context, int tool_id, const char *port_name,
    MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
typedef int (QMPI_Comm_disconnect_t)(QMPI_Context context, int tool_id, MPI_Comm *comm);
typedef int (QMPI_Comm_get_parent_t)(QMPI_Context context, int tool_id, MPI_Comm *parent);
typedef int (QMPI_Comm_join_t)(QMPI_Context context, int tool_id, int fd, MPI_Comm *intercomm);
typedef int (QMPI_Comm_spawn_t)(QMPI_Context context, int tool_id, const char *command,
    char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
    int array_of_errcodes[]);
typedef int (QMPI_Comm_spawn_multiple_t)(QMPI_Context context, int tool_id, int count,
    char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[],
    const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm,
    int array_of_errcodes[]);
typedef int (QMPI_Lookup_name_t)(QMPI_Context context, int tool_id, const char *service_name,
    MPI_Info info, char *port_name);
typedef int (QMPI_Open_port_t)(QMPI_Context context, int tool_id, MPI_Info info, char *port_name);
typedef int (QMPI_Publish_name_t)(QMPI_Context context, int tool_id, const char *service_name,
    MPI_Info info, const char *port_name);
typedef int (QMPI_Unpublish_name_t)(QMPI_Context context, int tool_id, const char *service_name,
    MPI_Info info, const char *port_name);
typedef double (QMPI_Wtick_t)(QMPI_Context context, int tool_id);
typedef double (QMPI_Wtime_t)(QMPI_Context context, int tool_id);
typedef int (QMPI_Cart_coords_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int rank,
    int maxdims, int coords[]);
typedef int (QMPI_Cart_create_t)(QMPI_Context context, int tool_id, MPI_Comm comm_old, int ndims,
    const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart);
typedef int (QMPI_Cart_get_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int maxdims,
    int dims[], int periods[], int coords[]);
typedef int (QMPI_Cart_map_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int ndims,
    const int dims[], const int periods[], int *newrank);
typedef int (QMPI_Cart_rank_t)(QMPI_Context context, int tool_id, MPI_Comm comm, const int coords[],
    int *rank);
typedef int (QMPI_Cart_shift_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int direction,
    int disp, int *rank_source, int *rank_dest);
typedef int (QMPI_Cart_sub_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    const int remain_dims[], MPI_Comm *newcomm);
typedef int (QMPI_Cartdim_get_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *ndims);
typedef int (QMPI_Dims_create_t)(QMPI_Context context, int tool_id, int nnodes, int ndims,
    int dims[]);
typedef int (QMPI_Dist_graph_create_t)(QMPI_Context context, int tool_id, MPI_Comm comm_old, int n,
    const int sources[], const int degrees[], const int destinations[], const int weights[],
    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
typedef int (QMPI_Dist_graph_create_adjacent_t)(QMPI_Context context, int tool_id,
    MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree,
    const int destinations[], const int destweights[], MPI_Info info, int reorder,
    MPI_Comm *comm_dist_graph);
typedef int (QMPI_Dist_graph_neighbors_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[],
    int destweights[]);
typedef int (QMPI_Dist_graph_neighbors_count_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int *indegree, int *outdegree, int *weighted);
typedef int (QMPI_Graph_create_t)(QMPI_Context context, int tool_id, MPI_Comm comm_old, int nnodes,
    const int indx[], const int edges[], int reorder, MPI_Comm *comm_graph);
typedef int (QMPI_Graph_get_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int maxindex,
    int maxedges, int indx[], int edges[]);
typedef int (QMPI_Graph_map_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int nnodes,
    const int indx[], const int edges[], int *newrank);
typedef int (QMPI_Graph_neighbors_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int rank,
    int maxneighbors, int neighbors[]);
typedef int (QMPI_Graph_neighbors_count_t)(QMPI_Context context, int tool_id, MPI_Comm comm,
    int rank, int *nneighbors);
typedef int (QMPI_Graphdims_get_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *nnodes,
    int *nedges);
typedef int (QMPI_Topo_test_t)(QMPI_Context context, int tool_id, MPI_Comm comm, int *status);

int QMPI_Register_tool_name(const char *tool_name, void (*init_function_ptr)(int tool_id));
int QMPI_Register_tool_storage(int tool_id, void *tool_storage);
int QMPI_Register_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                           void (*function_ptr)(void));
int QMPI_Get_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                      void (**function_ptr)(void), int *next_tool_id);
int QMPI_Get_tool_storage(QMPI_Context context, int tool_id, void **storage);
int QMPI_Get_calling_address(QMPI_Context context, void **address);

#if defined(CANAL_BUILDING)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif /* MPI_INCLUDED */
