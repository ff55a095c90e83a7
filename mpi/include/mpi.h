/* mpi.h for weft: the MPI 5.0 standard ABI.
 *
 * Every type, predefined handle, constant, callback type and function of the
 * standard's ABI, with the standard's values, so that a program built against the
 * standard ABI builds against this header, and a program built here runs on any
 * implementation of that ABI. tests/mpi/abi_values_test checks each value against
 * mpi/abi/constants.txt, and tests/mpi/exports_test checks that libmpi_abi.so exports
 * every function of mpi/abi/functions.txt.
 *
 * Every function is exported. The ones weft does not carry out on this system refuse
 * with the standard's error class (MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_SPAWN) and a
 * message saying so; docs/MPI.md lists which. */
#ifndef WEFT_MPI_H
#define WEFT_MPI_H

#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define MPI_VERSION 5
#define MPI_SUBVERSION 0
#define MPI_ABI_VERSION 1
#define MPI_ABI_SUBVERSION 0

typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;
/* Not part of the ABI: a Fortran INTEGER, for programs that still name it. */
typedef int MPI_Fint;

/* The status a receive fills in. The count and the cancelled flag live in the
   internal fields. */
typedef struct {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int MPI_internal[5];
} MPI_Status;

/* Handles are pointers to incomplete structs. Each predefined handle has the small
   value the standard gives it, so a comparison with one is a compile-time constant;
   any other handle is the address of one of weft's objects (mpi/src/objects.h). */
typedef struct MPI_ABI_Op* MPI_Op;
#define MPI_OP_NULL ((MPI_Op)0x00000020)
#define MPI_SUM ((MPI_Op)0x00000021)
#define MPI_MIN ((MPI_Op)0x00000022)
#define MPI_MAX ((MPI_Op)0x00000023)
#define MPI_PROD ((MPI_Op)0x00000024)
#define MPI_BAND ((MPI_Op)0x00000028)
#define MPI_BOR ((MPI_Op)0x00000029)
#define MPI_BXOR ((MPI_Op)0x0000002a)
#define MPI_LAND ((MPI_Op)0x00000030)
#define MPI_LOR ((MPI_Op)0x00000031)
#define MPI_LXOR ((MPI_Op)0x00000032)
#define MPI_MINLOC ((MPI_Op)0x00000038)
#define MPI_MAXLOC ((MPI_Op)0x00000039)
#define MPI_REPLACE ((MPI_Op)0x0000003c)
#define MPI_NO_OP ((MPI_Op)0x0000003d)

typedef struct MPI_ABI_Comm* MPI_Comm;
#define MPI_COMM_NULL ((MPI_Comm)0x00000100)
#define MPI_COMM_WORLD ((MPI_Comm)0x00000101)
#define MPI_COMM_SELF ((MPI_Comm)0x00000102)

typedef struct MPI_ABI_Group* MPI_Group;
#define MPI_GROUP_NULL ((MPI_Group)0x00000108)
#define MPI_GROUP_EMPTY ((MPI_Group)0x00000109)

typedef struct MPI_ABI_Win* MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0x00000110)

typedef struct MPI_ABI_File* MPI_File;
#define MPI_FILE_NULL ((MPI_File)0x00000118)

typedef struct MPI_ABI_Session* MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0x00000120)

typedef struct MPI_ABI_Message* MPI_Message;
#define MPI_MESSAGE_NULL ((MPI_Message)0x00000128)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x00000129)

typedef struct MPI_ABI_Info* MPI_Info;
#define MPI_INFO_NULL ((MPI_Info)0x00000130)
#define MPI_INFO_ENV ((MPI_Info)0x00000131)

typedef struct MPI_ABI_Errhandler* MPI_Errhandler;
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x00000140)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x00000141)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x00000142)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x00000143)

typedef struct MPI_ABI_Request* MPI_Request;
#define MPI_REQUEST_NULL ((MPI_Request)0x00000180)

/* Predefined datatypes. The standard reserves gaps between groups for types
   an implementation does not have; those values stay unused. */
typedef struct MPI_ABI_Datatype* MPI_Datatype;
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x00000200)
#define MPI_AINT ((MPI_Datatype)0x00000201)
#define MPI_COUNT ((MPI_Datatype)0x00000202)
#define MPI_OFFSET ((MPI_Datatype)0x00000203)
#define MPI_PACKED ((MPI_Datatype)0x00000207)
#define MPI_SHORT ((MPI_Datatype)0x00000208)
#define MPI_INT ((MPI_Datatype)0x00000209)
#define MPI_LONG ((MPI_Datatype)0x0000020a)
#define MPI_LONG_LONG ((MPI_Datatype)0x0000020b)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x0000020c)
#define MPI_UNSIGNED ((MPI_Datatype)0x0000020d)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x0000020e)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x0000020f)
#define MPI_FLOAT ((MPI_Datatype)0x00000210)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)0x00000212)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)0x00000213)
#define MPI_DOUBLE ((MPI_Datatype)0x00000214)
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x00000216)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x00000217)
#define MPI_LOGICAL ((MPI_Datatype)0x00000218)
#define MPI_INTEGER ((MPI_Datatype)0x00000219)
#define MPI_REAL ((MPI_Datatype)0x0000021a)
#define MPI_COMPLEX ((MPI_Datatype)0x0000021b)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x0000021c)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x0000021d)
#define MPI_CHARACTER ((MPI_Datatype)0x0000021e)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x00000220)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x00000224)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x00000225)
#define MPI_FLOAT_INT ((MPI_Datatype)0x00000228)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x00000229)
#define MPI_LONG_INT ((MPI_Datatype)0x0000022a)
#define MPI_2INT ((MPI_Datatype)0x0000022b)
#define MPI_SHORT_INT ((MPI_Datatype)0x0000022c)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x0000022d)
#define MPI_2REAL ((MPI_Datatype)0x00000230)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x00000231)
#define MPI_2INTEGER ((MPI_Datatype)0x00000232)
#define MPI_C_BOOL ((MPI_Datatype)0x00000238)
#define MPI_CXX_BOOL ((MPI_Datatype)0x00000239)
#define MPI_WCHAR ((MPI_Datatype)0x0000023c)
#define MPI_INT8_T ((MPI_Datatype)0x00000240)
#define MPI_UINT8_T ((MPI_Datatype)0x00000241)
#define MPI_CHAR ((MPI_Datatype)0x00000243)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x00000244)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x00000245)
#define MPI_BYTE ((MPI_Datatype)0x00000247)
#define MPI_INT16_T ((MPI_Datatype)0x00000248)
#define MPI_UINT16_T ((MPI_Datatype)0x00000249)
#define MPI_INT32_T ((MPI_Datatype)0x00000250)
#define MPI_UINT32_T ((MPI_Datatype)0x00000251)
#define MPI_INT64_T ((MPI_Datatype)0x00000258)
#define MPI_UINT64_T ((MPI_Datatype)0x00000259)
#define MPI_LOGICAL1 ((MPI_Datatype)0x000002c0)
#define MPI_INTEGER1 ((MPI_Datatype)0x000002c1)
#define MPI_LOGICAL2 ((MPI_Datatype)0x000002c8)
#define MPI_INTEGER2 ((MPI_Datatype)0x000002c9)
#define MPI_REAL2 ((MPI_Datatype)0x000002ca)
#define MPI_LOGICAL4 ((MPI_Datatype)0x000002d0)
#define MPI_INTEGER4 ((MPI_Datatype)0x000002d1)
#define MPI_REAL4 ((MPI_Datatype)0x000002d2)
#define MPI_COMPLEX4 ((MPI_Datatype)0x000002d3)
#define MPI_LOGICAL8 ((MPI_Datatype)0x000002d8)
#define MPI_INTEGER8 ((MPI_Datatype)0x000002d9)
#define MPI_REAL8 ((MPI_Datatype)0x000002da)
#define MPI_COMPLEX8 ((MPI_Datatype)0x000002db)
#define MPI_LOGICAL16 ((MPI_Datatype)0x000002e0)
#define MPI_INTEGER16 ((MPI_Datatype)0x000002e1)
#define MPI_REAL16 ((MPI_Datatype)0x000002e2)
#define MPI_COMPLEX16 ((MPI_Datatype)0x000002e3)
#define MPI_COMPLEX32 ((MPI_Datatype)0x000002eb)

/* The layout of a status as Fortran sees it (an array of integers). */
enum { MPI_F_STATUS_SIZE = 8, MPI_F_SOURCE = 0, MPI_F_TAG = 1, MPI_F_ERROR = 2 };

/* Error classes; weft's error codes are the classes themselves, and codes a
   program adds with MPI_Add_error_code start after MPI_ERR_LASTCODE. */
enum {
  MPI_SUCCESS = 0,

  MPI_ERR_BUFFER = 1,
  MPI_ERR_COUNT = 2,
  MPI_ERR_TYPE = 3,
  MPI_ERR_TAG = 4,
  MPI_ERR_COMM = 5,
  MPI_ERR_RANK = 6,
  MPI_ERR_REQUEST = 7,
  MPI_ERR_ROOT = 8,
  MPI_ERR_GROUP = 9,
  MPI_ERR_OP = 10,
  MPI_ERR_TOPOLOGY = 11,
  MPI_ERR_DIMS = 12,
  MPI_ERR_ARG = 13,
  MPI_ERR_UNKNOWN = 14,
  MPI_ERR_TRUNCATE = 15,
  MPI_ERR_OTHER = 16,
  MPI_ERR_INTERN = 17,
  MPI_ERR_PENDING = 18,
  MPI_ERR_IN_STATUS = 19,
  MPI_ERR_ACCESS = 20,
  MPI_ERR_AMODE = 21,
  MPI_ERR_ASSERT = 22,
  MPI_ERR_BAD_FILE = 23,
  MPI_ERR_BASE = 24,
  MPI_ERR_CONVERSION = 25,
  MPI_ERR_DISP = 26,
  MPI_ERR_DUP_DATAREP = 27,
  MPI_ERR_FILE_EXISTS = 28,
  MPI_ERR_FILE_IN_USE = 29,
  MPI_ERR_FILE = 30,
  MPI_ERR_INFO_KEY = 31,
  MPI_ERR_INFO_NOKEY = 32,
  MPI_ERR_INFO_VALUE = 33,
  MPI_ERR_INFO = 34,
  MPI_ERR_IO = 35,
  MPI_ERR_KEYVAL = 36,
  MPI_ERR_LOCKTYPE = 37,
  MPI_ERR_NAME = 38,
  MPI_ERR_NO_MEM = 39,
  MPI_ERR_NOT_SAME = 40,
  MPI_ERR_NO_SPACE = 41,
  MPI_ERR_NO_SUCH_FILE = 42,
  MPI_ERR_PORT = 43,
  MPI_ERR_QUOTA = 44,
  MPI_ERR_READ_ONLY = 45,
  MPI_ERR_RMA_ATTACH = 46,
  MPI_ERR_RMA_CONFLICT = 47,
  MPI_ERR_RMA_RANGE = 48,
  MPI_ERR_RMA_SHARED = 49,
  MPI_ERR_RMA_SYNC = 50,
  MPI_ERR_SERVICE = 51,
  MPI_ERR_SIZE = 52,
  MPI_ERR_SPAWN = 53,
  MPI_ERR_UNSUPPORTED_DATAREP = 54,
  MPI_ERR_UNSUPPORTED_OPERATION = 55,
  MPI_ERR_WIN = 56,
  MPI_ERR_RMA_FLAVOR = 57,
  MPI_ERR_PROC_ABORTED = 58,
  MPI_ERR_VALUE_TOO_LARGE = 59,
  MPI_ERR_SESSION = 60,
  MPI_ERR_ERRHANDLER = 61,
  MPI_ERR_ABI = 62,

  MPI_T_ERR_CANNOT_INIT = 1001,
  MPI_T_ERR_NOT_ACCESSIBLE = 1002,
  MPI_T_ERR_NOT_INITIALIZED = 1003,
  MPI_T_ERR_NOT_SUPPORTED = 1004,
  MPI_T_ERR_MEMORY = 1005,
  MPI_T_ERR_INVALID = 1006,
  MPI_T_ERR_INVALID_INDEX = 1007,
  MPI_T_ERR_INVALID_ITEM = 1008,
  MPI_T_ERR_INVALID_SESSION = 1009,
  MPI_T_ERR_INVALID_HANDLE = 1010,
  MPI_T_ERR_INVALID_NAME = 1011,
  MPI_T_ERR_OUT_OF_HANDLES = 1012,
  MPI_T_ERR_OUT_OF_SESSIONS = 1013,
  MPI_T_ERR_CVAR_SET_NOT_NOW = 1014,
  MPI_T_ERR_CVAR_SET_NEVER = 1015,
  MPI_T_ERR_PVAR_NO_WRITE = 1016,
  MPI_T_ERR_PVAR_NO_STARTSTOP = 1017,
  MPI_T_ERR_PVAR_NO_ATOMIC = 1018,

  MPI_ERR_LASTCODE = 16383
};

/* Special buffer addresses. */
#define MPI_BOTTOM ((void*)0)
#define MPI_IN_PLACE ((void*)1)
#define MPI_BUFFER_AUTOMATIC ((void*)2)

/* Arguments a program passes when it wants nothing back. */
#define MPI_ARGV_NULL ((char**)0)
#define MPI_ARGVS_NULL ((char***)0)
#define MPI_ERRCODES_IGNORE ((int*)0)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_UNWEIGHTED ((int*)10)
#define MPI_WEIGHTS_EMPTY ((int*)11)

/* The sizes of the strings the library returns, terminating NUL included. */
#define MPI_MAX_DATAREP_STRING 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_INFO_KEY 256
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_PORT_NAME 1024
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_STRINGTAG_LEN 1024
#define MPI_MAX_PSET_NAME_LEN 1024
#define MPI_BSEND_OVERHEAD 512

/* File access modes and window assertions: bits, to be OR-ed together. */
enum {
  MPI_MODE_APPEND = 1,
  MPI_MODE_CREATE = 2,
  MPI_MODE_DELETE_ON_CLOSE = 4,
  MPI_MODE_EXCL = 8,
  MPI_MODE_RDONLY = 16,
  MPI_MODE_RDWR = 32,
  MPI_MODE_SEQUENTIAL = 64,
  MPI_MODE_UNIQUE_OPEN = 128,
  MPI_MODE_WRONLY = 256,

  MPI_MODE_NOCHECK = 1024,
  MPI_MODE_NOPRECEDE = 2048,
  MPI_MODE_NOPUT = 4096,
  MPI_MODE_NOSTORE = 8192,
  MPI_MODE_NOSUCCEED = 16384
};

/* Wildcards and sentinel ranks; all negative, so no rank is ever one. */
enum {
  MPI_ANY_SOURCE = -1,
  MPI_ANY_TAG = -2,

  MPI_PROC_NULL = -3,
  MPI_ROOT = -4,

  MPI_UNDEFINED = -32766
};

/* Thread levels (ordered), array orders and distributions, datatype combiners,
   comparison results, topology kinds, split types, lock types, window flavours and
   models, file seek origins. */
enum {
  MPI_THREAD_SINGLE = 0,
  MPI_THREAD_FUNNELED = 1024,
  MPI_THREAD_SERIALIZED = 2048,
  MPI_THREAD_MULTIPLE = 4096,

  MPI_ORDER_C = 0xC,
  MPI_ORDER_FORTRAN = 0xF,

  MPI_DISTRIBUTE_NONE = 16,
  MPI_DISTRIBUTE_BLOCK = 17,
  MPI_DISTRIBUTE_CYCLIC = 18,
  MPI_DISTRIBUTE_DFLT_DARG = 19,

  MPI_COMBINER_NAMED = 101,
  MPI_COMBINER_DUP = 102,
  MPI_COMBINER_CONTIGUOUS = 103,
  MPI_COMBINER_VECTOR = 104,
  MPI_COMBINER_HVECTOR = 105,
  MPI_COMBINER_INDEXED = 106,
  MPI_COMBINER_HINDEXED = 107,
  MPI_COMBINER_INDEXED_BLOCK = 108,
  MPI_COMBINER_HINDEXED_BLOCK = 109,
  MPI_COMBINER_STRUCT = 110,
  MPI_COMBINER_SUBARRAY = 111,
  MPI_COMBINER_DARRAY = 112,
  MPI_COMBINER_F90_REAL = 113,
  MPI_COMBINER_F90_COMPLEX = 114,
  MPI_COMBINER_F90_INTEGER = 115,
  MPI_COMBINER_RESIZED = 116,
  MPI_COMBINER_VALUE_INDEX = 117,

  MPIX_TYPECLASS_LOGICAL = 191,
  MPI_TYPECLASS_INTEGER = 192,
  MPI_TYPECLASS_REAL = 193,
  MPI_TYPECLASS_COMPLEX = 194,

  MPI_IDENT = 201,
  MPI_CONGRUENT = 202,
  MPI_SIMILAR = 203,
  MPI_UNEQUAL = 204,

  MPI_CART = 211,
  MPI_GRAPH = 212,
  MPI_DIST_GRAPH = 213,

  MPI_COMM_TYPE_SHARED = 221,
  MPI_COMM_TYPE_HW_UNGUIDED = 222,
  MPI_COMM_TYPE_HW_GUIDED = 223,
  MPI_COMM_TYPE_RESOURCE_GUIDED = 224,

  MPI_LOCK_EXCLUSIVE = 301,
  MPI_LOCK_SHARED = 302,

  MPI_WIN_FLAVOR_CREATE = 311,
  MPI_WIN_FLAVOR_ALLOCATE = 312,
  MPI_WIN_FLAVOR_DYNAMIC = 313,
  MPI_WIN_FLAVOR_SHARED = 314,

  MPI_WIN_UNIFIED = 321,
  MPI_WIN_SEPARATE = 322,

  MPI_SEEK_CUR = 401,
  MPI_SEEK_END = 402,
  MPI_SEEK_SET = 403
};

/* MPI_File_set_view's displacement for "where the shared pointer is". */
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)

/* Predefined attribute keys of communicators and windows. */
enum {
  MPI_KEYVAL_INVALID = 0,

  MPI_TAG_UB = 501,
  MPI_IO = 502,
  MPI_HOST = 503,
  MPI_WTIME_IS_GLOBAL = 504,
  MPI_APPNUM = 505,
  MPI_LASTUSEDCODE = 506,
  MPI_UNIVERSE_SIZE = 507,

  MPI_WIN_BASE = 601,
  MPI_WIN_DISP_UNIT = 602,
  MPI_WIN_SIZE = 603,
  MPI_WIN_CREATE_FLAVOR = 604,
  MPI_WIN_MODEL = 605
};

/* The functions a program hands to the library: reduction operators, generalized
   request callbacks, attribute copy and delete callbacks, data representation
   conversions and error handlers. */
typedef void(MPI_User_function)(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void(MPI_User_function_c)(void* invec, void* inoutvec, MPI_Count* len,
                                  MPI_Datatype* datatype);

typedef int(MPI_Grequest_query_function)(void* extra_state, MPI_Status* status);
typedef int(MPI_Grequest_free_function)(void* extra_state);
typedef int(MPI_Grequest_cancel_function)(void* extra_state, int complete);

typedef int(MPI_Copy_function)(MPI_Comm comm, int keyval, void* extra_state, void* attribute_val_in,
                               void* attribute_val_out, int* flag);
typedef int(MPI_Delete_function)(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state);
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm comm, int keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int keyval, void* attribute_val,
                                           void* extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype datatype, int keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int keyval, void* attribute_val,
                                           void* extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win win, int keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int keyval, void* attribute_val,
                                          void* extra_state);

typedef int(MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint* extent,
                                         void* extra_state);
typedef int(MPI_Datarep_conversion_function)(void* userbuf, MPI_Datatype datatype, int count,
                                             void* filebuf, MPI_Offset position, void* extra_state);
typedef int(MPI_Datarep_conversion_function_c)(void* userbuf, MPI_Datatype datatype,
                                               MPI_Count count, void* filebuf, MPI_Offset position,
                                               void* extra_state);

typedef void(MPI_Comm_errhandler_function)(MPI_Comm* comm, int* error_code, ...);
typedef void(MPI_File_errhandler_function)(MPI_File* file, int* error_code, ...);
typedef void(MPI_Win_errhandler_function)(MPI_Win* win, int* error_code, ...);
typedef void(MPI_Session_errhandler_function)(MPI_Session* session, int* error_code, ...);

typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;

/* The predefined attribute callbacks: "copy nothing", "copy the value" and "do
   nothing on delete". */
#define MPI_NULL_COPY_FN ((MPI_Copy_function*)0x0)
#define MPI_DUP_FN ((MPI_Copy_function*)0x1)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function*)0x0)
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function*)0x0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function*)0x1)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function*)0x0)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function*)0x0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function*)0x1)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function*)0x0)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function*)0x0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function*)0x1)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function*)0x0)
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function*)0x0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c*)0x0)

/* The tool information interface (MPI_T): handles, verbosity levels, bindings,
   scopes, variable classes and event callbacks. */
typedef struct MPI_ABI_T_enum* MPI_T_enum;
typedef struct MPI_ABI_T_cvar_handle* MPI_T_cvar_handle;
typedef struct MPI_ABI_T_pvar_handle* MPI_T_pvar_handle;
typedef struct MPI_ABI_T_pvar_session* MPI_T_pvar_session;
typedef struct MPI_ABI_T_event_registration* MPI_T_event_registration;
typedef struct MPI_ABI_T_event_instance* MPI_T_event_instance;

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)

typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0x00,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED = 0x03,
  MPI_T_CB_REQUIRE_THREAD_SAFE = 0x0F,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 0x3F
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
  MPI_T_SOURCE_ORDERED = 1,
  MPI_T_SOURCE_UNORDERED = 2
} MPI_T_source_order;

enum {
  MPI_T_VERBOSITY_USER_BASIC = 0x09,
  MPI_T_VERBOSITY_USER_DETAIL = 0x0a,
  MPI_T_VERBOSITY_USER_ALL = 0x0c,
  MPI_T_VERBOSITY_TUNER_BASIC = 0x11,
  MPI_T_VERBOSITY_TUNER_DETAIL = 0x12,
  MPI_T_VERBOSITY_TUNER_ALL = 0x14,
  MPI_T_VERBOSITY_MPIDEV_BASIC = 0x21,
  MPI_T_VERBOSITY_MPIDEV_DETAIL = 0x22,
  MPI_T_VERBOSITY_MPIDEV_ALL = 0x24
};

enum {
  MPI_T_BIND_NO_OBJECT = 1,
  MPI_T_BIND_MPI_COMM = 2,
  MPI_T_BIND_MPI_DATATYPE = 3,
  MPI_T_BIND_MPI_ERRHANDLER = 4,
  MPI_T_BIND_MPI_FILE = 5,
  MPI_T_BIND_MPI_GROUP = 6,
  MPI_T_BIND_MPI_OP = 7,
  MPI_T_BIND_MPI_REQUEST = 8,
  MPI_T_BIND_MPI_WIN = 9,
  MPI_T_BIND_MPI_MESSAGE = 10,
  MPI_T_BIND_MPI_INFO = 11,
  MPI_T_BIND_MPI_SESSION = 12
};

enum {
  MPI_T_SCOPE_CONSTANT = 1,
  MPI_T_SCOPE_READONLY = 2,
  MPI_T_SCOPE_LOCAL = 3,
  MPI_T_SCOPE_GROUP = 4,
  MPI_T_SCOPE_GROUP_EQ = 5,
  MPI_T_SCOPE_ALL = 6,
  MPI_T_SCOPE_ALL_EQ = 7
};

enum {
  MPI_T_PVAR_CLASS_STATE = 1,
  MPI_T_PVAR_CLASS_LEVEL = 2,
  MPI_T_PVAR_CLASS_SIZE = 3,
  MPI_T_PVAR_CLASS_PERCENTAGE = 4,
  MPI_T_PVAR_CLASS_HIGHWATERMARK = 5,
  MPI_T_PVAR_CLASS_LOWWATERMARK = 6,
  MPI_T_PVAR_CLASS_COUNTER = 7,
  MPI_T_PVAR_CLASS_AGGREGATE = 8,
  MPI_T_PVAR_CLASS_TIMER = 9,
  MPI_T_PVAR_CLASS_GENERIC = 10
};

typedef void(MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                      MPI_T_event_registration event_registration,
                                      MPI_T_cb_safety cb_safety, void* user_data);
typedef void(MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                           MPI_T_cb_safety cb_safety, void* user_data);
typedef void(MPI_T_event_dropped_cb_function)(MPI_Count count,
                                              MPI_T_event_registration event_registration,
                                              int source_index, MPI_T_cb_safety cb_safety,
                                              void* user_data);

/* Every function exists twice, as MPI_ and as PMPI_ for profiling tools. */
#define WEFT_MPI_FN(ret, name, args) \
  ret MPI_##name args;               \
  ret PMPI_##name args;

/* The environment */
WEFT_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode))
WEFT_MPI_FN(int, Finalize, (void))
WEFT_MPI_FN(int, Finalized, (int* flag))
WEFT_MPI_FN(int, Get_hw_resource_info, (MPI_Info * hw_info))
WEFT_MPI_FN(int, Get_library_version, (char* version, int* resultlen))
WEFT_MPI_FN(int, Get_processor_name, (char* name, int* resultlen))
WEFT_MPI_FN(int, Get_version, (int* version, int* subversion))
WEFT_MPI_FN(int, Init, (int* argc, char*** argv))
WEFT_MPI_FN(int, Init_thread, (int* argc, char*** argv, int required, int* provided))
WEFT_MPI_FN(int, Initialized, (int* flag))
WEFT_MPI_FN(int, Is_thread_main, (int* flag))
WEFT_MPI_FN(int, Pcontrol, (const int level, ...))
WEFT_MPI_FN(int, Query_thread, (int* provided))
WEFT_MPI_FN(double, Wtick, (void))
WEFT_MPI_FN(double, Wtime, (void))

/* Point-to-point */
WEFT_MPI_FN(int, Bsend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
WEFT_MPI_FN(int, Bsend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm))
WEFT_MPI_FN(int, Bsend_init,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Bsend_init_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Buffer_attach, (void* buffer, int size))
WEFT_MPI_FN(int, Buffer_attach_c, (void* buffer, MPI_Count size))
WEFT_MPI_FN(int, Buffer_detach, (void* buffer_addr, int* size))
WEFT_MPI_FN(int, Buffer_detach_c, (void* buffer_addr, MPI_Count* size))
WEFT_MPI_FN(int, Buffer_flush, (void))
WEFT_MPI_FN(int, Buffer_iflush, (MPI_Request * request))
WEFT_MPI_FN(int, Ibsend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ibsend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Improbe,
            (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
             MPI_Status* status))
WEFT_MPI_FN(int, Imrecv,
            (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
             MPI_Request* request))
WEFT_MPI_FN(int, Imrecv_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
             MPI_Request* request))
WEFT_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status))
WEFT_MPI_FN(int, Irecv,
            (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Irecv_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Irsend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Irsend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Isend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Isend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Isendrecv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Isendrecv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Isendrecv_replace,
            (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Isendrecv_replace_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Issend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Issend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Mprobe,
            (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status))
WEFT_MPI_FN(int, Mrecv,
            (void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status))
WEFT_MPI_FN(int, Mrecv_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
             MPI_Status* status))
WEFT_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status))
WEFT_MPI_FN(int, Recv,
            (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status))
WEFT_MPI_FN(int, Recv_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status))
WEFT_MPI_FN(int, Recv_init,
            (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Recv_init_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Rsend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
WEFT_MPI_FN(int, Rsend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm))
WEFT_MPI_FN(int, Rsend_init,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Rsend_init_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Send,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
WEFT_MPI_FN(int, Send_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm))
WEFT_MPI_FN(int, Send_init,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Send_init_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Sendrecv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status* status))
WEFT_MPI_FN(int, Sendrecv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status* status))
WEFT_MPI_FN(int, Sendrecv_replace,
            (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Status* status))
WEFT_MPI_FN(int, Sendrecv_replace_c,
            (void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Status* status))
WEFT_MPI_FN(int, Ssend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
WEFT_MPI_FN(int, Ssend_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm))
WEFT_MPI_FN(int, Ssend_init,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ssend_init_c,
            (const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request))

/* Partitioned point-to-point */
WEFT_MPI_FN(int, Parrived, (MPI_Request request, int partition, int* flag))
WEFT_MPI_FN(int, Pready, (int partition, MPI_Request request))
WEFT_MPI_FN(int, Pready_list, (int length, const int array_of_partitions[], MPI_Request request))
WEFT_MPI_FN(int, Pready_range, (int partition_low, int partition_high, MPI_Request request))
WEFT_MPI_FN(int, Precv_init,
            (void* buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Precv_init_c,
            (void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Psend_init,
            (const void* buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Psend_init_c,
            (const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request))

/* Requests and statuses */
WEFT_MPI_FN(int, Cancel, (MPI_Request * request))
WEFT_MPI_FN(int, Grequest_complete, (MPI_Request request))
WEFT_MPI_FN(int, Grequest_start,
            (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function* free_fn,
             MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request))
WEFT_MPI_FN(int, Request_free, (MPI_Request * request))
WEFT_MPI_FN(int, Request_get_status, (MPI_Request request, int* flag, MPI_Status* status))
WEFT_MPI_FN(int, Request_get_status_all,
            (int count, const MPI_Request array_of_requests[], int* flag,
             MPI_Status* array_of_statuses))
WEFT_MPI_FN(int, Request_get_status_any,
            (int count, const MPI_Request array_of_requests[], int* indx, int* flag,
             MPI_Status* status))
WEFT_MPI_FN(int, Request_get_status_some,
            (int incount, const MPI_Request array_of_requests[], int* outcount,
             int array_of_indices[], MPI_Status* array_of_statuses))
WEFT_MPI_FN(int, Start, (MPI_Request * request))
WEFT_MPI_FN(int, Startall, (int count, MPI_Request array_of_requests[]))
WEFT_MPI_FN(int, Status_get_error, (const MPI_Status* status, int* error))
WEFT_MPI_FN(int, Status_get_source, (const MPI_Status* status, int* source))
WEFT_MPI_FN(int, Status_get_tag, (const MPI_Status* status, int* tag))
WEFT_MPI_FN(int, Status_set_cancelled, (MPI_Status * status, int flag))
WEFT_MPI_FN(int, Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count))
WEFT_MPI_FN(int, Status_set_elements_c,
            (MPI_Status * status, MPI_Datatype datatype, MPI_Count count))
WEFT_MPI_FN(int, Status_set_elements_x,
            (MPI_Status * status, MPI_Datatype datatype, MPI_Count count)) /* deprecated */
WEFT_MPI_FN(int, Status_set_error, (MPI_Status * status, int error))
WEFT_MPI_FN(int, Status_set_source, (MPI_Status * status, int source))
WEFT_MPI_FN(int, Status_set_tag, (MPI_Status * status, int tag))
WEFT_MPI_FN(int, Test, (MPI_Request * request, int* flag, MPI_Status* status))
WEFT_MPI_FN(int, Test_cancelled, (const MPI_Status* status, int* flag))
WEFT_MPI_FN(int, Testall,
            (int count, MPI_Request array_of_requests[], int* flag, MPI_Status* array_of_statuses))
WEFT_MPI_FN(int, Testany,
            (int count, MPI_Request array_of_requests[], int* indx, int* flag, MPI_Status* status))
WEFT_MPI_FN(int, Testsome,
            (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status* array_of_statuses))
WEFT_MPI_FN(int, Wait, (MPI_Request * request, MPI_Status* status))
WEFT_MPI_FN(int, Waitall,
            (int count, MPI_Request array_of_requests[], MPI_Status* array_of_statuses))
WEFT_MPI_FN(int, Waitany,
            (int count, MPI_Request array_of_requests[], int* indx, MPI_Status* status))
WEFT_MPI_FN(int, Waitsome,
            (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status* array_of_statuses))

/* Datatypes, packing and addresses */
WEFT_MPI_FN(int, Get_address, (const void* location, MPI_Aint* address))
WEFT_MPI_FN(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count))
WEFT_MPI_FN(int, Get_count_c, (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count))
WEFT_MPI_FN(int, Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count))
WEFT_MPI_FN(int, Get_elements_c,
            (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count))
WEFT_MPI_FN(int, Get_elements_x,
            (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count)) /* deprecated */
WEFT_MPI_FN(int, Pack,
            (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
             int* position, MPI_Comm comm))
WEFT_MPI_FN(int, Pack_c,
            (const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
             MPI_Count outsize, MPI_Count* position, MPI_Comm comm))
WEFT_MPI_FN(int, Pack_external,
            (const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
             void* outbuf, MPI_Aint outsize, MPI_Aint* position))
WEFT_MPI_FN(int, Pack_external_c,
            (const char* datarep, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
             void* outbuf, MPI_Count outsize, MPI_Count* position))
WEFT_MPI_FN(int, Pack_external_size,
            (const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size))
WEFT_MPI_FN(int, Pack_external_size_c,
            (const char* datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count* size))
WEFT_MPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size))
WEFT_MPI_FN(int, Pack_size_c,
            (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size))
WEFT_MPI_FN(int, Type_commit, (MPI_Datatype * datatype))
WEFT_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_darray,
            (int size, int rank, int ndims, const int array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
             int order, MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_darray_c,
            (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
             int order, MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_f90_integer, (int r, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_f90_real, (int p, int r, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_hindexed,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_hindexed_c,
            (MPI_Count count, const MPI_Count array_of_blocklengths[],
             const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_hindexed_block,
            (int count, int blocklength, const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_hindexed_block_c,
            (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_hvector,
            (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
             MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_hvector_c,
            (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
             MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_indexed_block,
            (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_indexed_block_c,
            (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_resized,
            (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_resized_c,
            (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_struct,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             const MPI_Datatype array_of_types[], MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_struct_c,
            (MPI_Count count, const MPI_Count array_of_blocklengths[],
             const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
             MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_subarray,
            (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_create_subarray_c,
            (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
             const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
             MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_free, (MPI_Datatype * datatype))
WEFT_MPI_FN(int, Type_get_contents,
            (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
             int array_of_integers[], MPI_Aint array_of_addresses[],
             MPI_Datatype array_of_datatypes[]))
WEFT_MPI_FN(int, Type_get_contents_c,
            (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
             MPI_Datatype array_of_datatypes[]))
WEFT_MPI_FN(int, Type_get_envelope,
            (MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
             int* combiner))
WEFT_MPI_FN(int, Type_get_envelope_c,
            (MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner))
WEFT_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent))
WEFT_MPI_FN(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent))
WEFT_MPI_FN(int, Type_get_extent_x,
            (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent)) /* deprecated */
WEFT_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char* type_name, int* resultlen))
WEFT_MPI_FN(int, Type_get_true_extent,
            (MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent))
WEFT_MPI_FN(int, Type_get_true_extent_c,
            (MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent))
WEFT_MPI_FN(int, Type_get_true_extent_x,
            (MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent)) /* deprecated */
WEFT_MPI_FN(int, Type_get_value_index,
            (MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type))
WEFT_MPI_FN(int, Type_indexed,
            (int count, const int array_of_blocklengths[], const int array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_indexed_c,
            (MPI_Count count, const MPI_Count array_of_blocklengths[],
             const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_match_size, (int typeclass, int size, MPI_Datatype* datatype))
WEFT_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char* type_name))
WEFT_MPI_FN(int, Type_size, (MPI_Datatype datatype, int* size))
WEFT_MPI_FN(int, Type_size_c, (MPI_Datatype datatype, MPI_Count* size))
WEFT_MPI_FN(int, Type_size_x, (MPI_Datatype datatype, MPI_Count* size)) /* deprecated */
WEFT_MPI_FN(int, Type_vector,
            (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype))
WEFT_MPI_FN(int, Type_vector_c,
            (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
             MPI_Datatype* newtype))
WEFT_MPI_FN(int, Unpack,
            (const void* inbuf, int insize, int* position, void* outbuf, int outcount,
             MPI_Datatype datatype, MPI_Comm comm))
WEFT_MPI_FN(int, Unpack_c,
            (const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm))
WEFT_MPI_FN(int, Unpack_external,
            (const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
             void* outbuf, int outcount, MPI_Datatype datatype))
WEFT_MPI_FN(int, Unpack_external_c,
            (const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
             void* outbuf, MPI_Count outcount, MPI_Datatype datatype))
WEFT_MPI_FN(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
WEFT_MPI_FN(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))

/* Collective operations */
WEFT_MPI_FN(int, Allgather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Allgather_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Allgather_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Allgather_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Allgatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Allgatherv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm))
WEFT_MPI_FN(int, Allgatherv_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Allgatherv_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Allreduce,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Allreduce_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Allreduce_init,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Allreduce_init_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Alltoall,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Alltoall_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Alltoall_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Alltoall_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Alltoallv,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Alltoallv_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Alltoallv_init,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Alltoallv_init_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Alltoallw,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
WEFT_MPI_FN(int, Alltoallw_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
WEFT_MPI_FN(int, Alltoallw_init,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Alltoallw_init_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Barrier, (MPI_Comm comm))
WEFT_MPI_FN(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Bcast_c,
            (void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Bcast_init,
            (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Bcast_init_c,
            (void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Exscan,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Exscan_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Exscan_init,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Exscan_init_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Gather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Gather_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Gather_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Gather_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Gatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm))
WEFT_MPI_FN(int, Gatherv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm))
WEFT_MPI_FN(int, Gatherv_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Gatherv_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Iallgather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iallgather_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iallgatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Iallgatherv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iallreduce,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iallreduce_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ialltoall,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ialltoall_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ialltoallv,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ialltoallv_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ialltoallw,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ialltoallw_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ibcast,
            (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ibcast_c,
            (void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Iexscan,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iexscan_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Igather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Igather_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Igatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Igatherv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ireduce,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ireduce_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ireduce_scatter,
            (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ireduce_scatter_c,
            (const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ireduce_scatter_block,
            (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ireduce_scatter_block_c,
            (const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iscan,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iscan_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iscatter,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Iscatter_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Iscatterv,
            (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Iscatterv_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Reduce,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm))
WEFT_MPI_FN(int, Reduce_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm))
WEFT_MPI_FN(int, Reduce_init,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Reduce_init_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Reduce_local,
            (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
WEFT_MPI_FN(int, Reduce_local_c,
            (const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op))
WEFT_MPI_FN(int, Reduce_scatter,
            (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm))
WEFT_MPI_FN(int, Reduce_scatter_c,
            (const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
WEFT_MPI_FN(int, Reduce_scatter_block,
            (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Reduce_scatter_block_c,
            (const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm))
WEFT_MPI_FN(int, Reduce_scatter_block_init,
            (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Reduce_scatter_block_init_c,
            (const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Reduce_scatter_init,
            (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Reduce_scatter_init_c,
            (const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Scan,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Scan_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
WEFT_MPI_FN(int, Scan_init,
            (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Scan_init_c,
            (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Scatter,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Scatter_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Scatter_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Scatter_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Scatterv,
            (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
WEFT_MPI_FN(int, Scatterv_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm))
WEFT_MPI_FN(int, Scatterv_init,
            (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Scatterv_init_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))

/* Reduction operators */
WEFT_MPI_FN(int, Op_commutative, (MPI_Op op, int* commute))
WEFT_MPI_FN(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op* op))
WEFT_MPI_FN(int, Op_create_c, (MPI_User_function_c * user_fn, int commute, MPI_Op* op))
WEFT_MPI_FN(int, Op_free, (MPI_Op * op))

/* Groups */
WEFT_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int* result))
WEFT_MPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
WEFT_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))
WEFT_MPI_FN(int, Group_free, (MPI_Group * group))
WEFT_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))
WEFT_MPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
WEFT_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))
WEFT_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))
WEFT_MPI_FN(int, Group_rank, (MPI_Group group, int* rank))
WEFT_MPI_FN(int, Group_size, (MPI_Group group, int* size))
WEFT_MPI_FN(int, Group_translate_ranks,
            (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
WEFT_MPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))

/* Communicators and intercommunicators */
WEFT_MPI_FN(int, Comm_attach_buffer, (MPI_Comm comm, void* buffer, int size))
WEFT_MPI_FN(int, Comm_attach_buffer_c, (MPI_Comm comm, void* buffer, MPI_Count size))
WEFT_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result))
WEFT_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_detach_buffer, (MPI_Comm comm, void* buffer_addr, int* size))
WEFT_MPI_FN(int, Comm_detach_buffer_c, (MPI_Comm comm, void* buffer_addr, MPI_Count* size))
WEFT_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_flush_buffer, (MPI_Comm comm))
WEFT_MPI_FN(int, Comm_free, (MPI_Comm * comm))
WEFT_MPI_FN(int, Comm_get_info, (MPI_Comm comm, MPI_Info* info_used))
WEFT_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char* comm_name, int* resultlen))
WEFT_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group* group))
WEFT_MPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request))
WEFT_MPI_FN(int, Comm_idup_with_info,
            (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request))
WEFT_MPI_FN(int, Comm_iflush_buffer, (MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Comm_rank, (MPI_Comm comm, int* rank))
WEFT_MPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group* group))
WEFT_MPI_FN(int, Comm_remote_size, (MPI_Comm comm, int* size))
WEFT_MPI_FN(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
WEFT_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char* comm_name))
WEFT_MPI_FN(int, Comm_size, (MPI_Comm comm, int* size))
WEFT_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_split_type,
            (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_test_inter, (MPI_Comm comm, int* flag))
WEFT_MPI_FN(int, Intercomm_create,
            (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
             MPI_Comm* newintercomm))
WEFT_MPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm))

/* Process topologies and neighbourhood collectives */
WEFT_MPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
WEFT_MPI_FN(int, Cart_create,
            (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
             MPI_Comm* comm_cart))
WEFT_MPI_FN(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
WEFT_MPI_FN(int, Cart_map,
            (MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank))
WEFT_MPI_FN(int, Cart_rank, (MPI_Comm comm, const int coords[], int* rank))
WEFT_MPI_FN(int, Cart_shift,
            (MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest))
WEFT_MPI_FN(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm))
WEFT_MPI_FN(int, Cartdim_get, (MPI_Comm comm, int* ndims))
WEFT_MPI_FN(int, Dims_create, (int nnodes, int ndims, int dims[]))
WEFT_MPI_FN(int, Dist_graph_create,
            (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
             const int destinations[], const int weights[], MPI_Info info, int reorder,
             MPI_Comm* comm_dist_graph))
WEFT_MPI_FN(int, Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
             int outdegree, const int destinations[], const int destweights[], MPI_Info info,
             int reorder, MPI_Comm* comm_dist_graph))
WEFT_MPI_FN(int, Dist_graph_neighbors,
            (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
             int destinations[], int destweights[]))
WEFT_MPI_FN(int, Dist_graph_neighbors_count,
            (MPI_Comm comm, int* indegree, int* outdegree, int* weighted))
WEFT_MPI_FN(int, Graph_create,
            (MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
             MPI_Comm* comm_graph))
WEFT_MPI_FN(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]))
WEFT_MPI_FN(int, Graph_map,
            (MPI_Comm comm, int nnodes, const int indx[], const int edges[], int* newrank))
WEFT_MPI_FN(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
WEFT_MPI_FN(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors))
WEFT_MPI_FN(int, Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges))
WEFT_MPI_FN(int, Ineighbor_allgather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_allgather_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_allgatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_allgatherv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_alltoall,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_alltoall_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_alltoallv,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_alltoallv_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_alltoallw,
            (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Ineighbor_alltoallw_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_allgather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_allgather_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_allgather_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_allgather_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_allgatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_allgatherv_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_allgatherv_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_allgatherv_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_alltoall,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_alltoall_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_alltoall_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_alltoall_init_c,
            (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_alltoallv,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_alltoallv_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_alltoallv_init,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_alltoallv_init_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_alltoallw,
            (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_alltoallw_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
WEFT_MPI_FN(int, Neighbor_alltoallw_init,
            (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Neighbor_alltoallw_init_c,
            (const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request* request))
WEFT_MPI_FN(int, Topo_test, (MPI_Comm comm, int* status))

/* Attribute caching and keyvals */
WEFT_MPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval)) /* deprecated */
WEFT_MPI_FN(int, Attr_get,
            (MPI_Comm comm, int keyval, void* attribute_val, int* flag))     /* deprecated */
WEFT_MPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val)) /* deprecated */
WEFT_MPI_FN(int, Comm_create_keyval,
            (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
             MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
             void* extra_state))
WEFT_MPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
WEFT_MPI_FN(int, Comm_free_keyval, (int* comm_keyval))
WEFT_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag))
WEFT_MPI_FN(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val))
WEFT_MPI_FN(int, Keyval_create,
            (MPI_Copy_function * copy_fn, MPI_Delete_function* delete_fn, int* keyval,
             void* extra_state))             /* deprecated */
WEFT_MPI_FN(int, Keyval_free, (int* keyval)) /* deprecated */
WEFT_MPI_FN(int, Type_create_keyval,
            (MPI_Type_copy_attr_function * type_copy_attr_fn,
             MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
             void* extra_state))
WEFT_MPI_FN(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
WEFT_MPI_FN(int, Type_free_keyval, (int* type_keyval))
WEFT_MPI_FN(int, Type_get_attr,
            (MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag))
WEFT_MPI_FN(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val))

/* Info objects */
WEFT_MPI_FN(int, Info_create, (MPI_Info * info))
WEFT_MPI_FN(int, Info_create_env, (int argc, char* argv[], MPI_Info* info))
WEFT_MPI_FN(int, Info_delete, (MPI_Info info, const char* key))
WEFT_MPI_FN(int, Info_dup, (MPI_Info info, MPI_Info* newinfo))
WEFT_MPI_FN(int, Info_free, (MPI_Info * info))
WEFT_MPI_FN(int, Info_get,
            (MPI_Info info, const char* key, int valuelen, char* value, int* flag)) /* deprecated */
WEFT_MPI_FN(int, Info_get_nkeys, (MPI_Info info, int* nkeys))
WEFT_MPI_FN(int, Info_get_nthkey, (MPI_Info info, int n, char* key))
WEFT_MPI_FN(int, Info_get_string,
            (MPI_Info info, const char* key, int* buflen, char* value, int* flag))
WEFT_MPI_FN(int, Info_get_valuelen,
            (MPI_Info info, const char* key, int* valuelen, int* flag)) /* deprecated */
WEFT_MPI_FN(int, Info_set, (MPI_Info info, const char* key, const char* value))

/* Errors and error handlers */
WEFT_MPI_FN(int, Add_error_class, (int* errorclass))
WEFT_MPI_FN(int, Add_error_code, (int errorclass, int* errorcode))
WEFT_MPI_FN(int, Add_error_string, (int errorcode, const char* string))
WEFT_MPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
WEFT_MPI_FN(int, Comm_create_errhandler,
            (MPI_Comm_errhandler_function * comm_errhandler_fn, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
WEFT_MPI_FN(int, Errhandler_free, (MPI_Errhandler * errhandler))
WEFT_MPI_FN(int, Error_class, (int errorcode, int* errorclass))
WEFT_MPI_FN(int, Error_string, (int errorcode, char* string, int* resultlen))
WEFT_MPI_FN(int, Remove_error_class, (int errorclass))
WEFT_MPI_FN(int, Remove_error_code, (int errorcode))
WEFT_MPI_FN(int, Remove_error_string, (int errorcode))

/* Sessions */
WEFT_MPI_FN(int, Comm_create_from_group,
            (MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
             MPI_Comm* newcomm))
WEFT_MPI_FN(int, Group_from_session_pset,
            (MPI_Session session, const char* pset_name, MPI_Group* newgroup))
WEFT_MPI_FN(int, Intercomm_create_from_groups,
            (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
             const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
             MPI_Comm* newintercomm))
WEFT_MPI_FN(int, Session_attach_buffer, (MPI_Session session, void* buffer, int size))
WEFT_MPI_FN(int, Session_attach_buffer_c, (MPI_Session session, void* buffer, MPI_Count size))
WEFT_MPI_FN(int, Session_call_errhandler, (MPI_Session session, int errorcode))
WEFT_MPI_FN(int, Session_create_errhandler,
            (MPI_Session_errhandler_function * session_errhandler_fn, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, Session_detach_buffer, (MPI_Session session, void* buffer_addr, int* size))
WEFT_MPI_FN(int, Session_detach_buffer_c, (MPI_Session session, void* buffer_addr, MPI_Count* size))
WEFT_MPI_FN(int, Session_finalize, (MPI_Session * session))
WEFT_MPI_FN(int, Session_flush_buffer, (MPI_Session session))
WEFT_MPI_FN(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, Session_get_info, (MPI_Session session, MPI_Info* info_used))
WEFT_MPI_FN(int, Session_get_nth_pset,
            (MPI_Session session, MPI_Info info, int n, int* pset_len, char* pset_name))
WEFT_MPI_FN(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int* npset_names))
WEFT_MPI_FN(int, Session_get_pset_info,
            (MPI_Session session, const char* pset_name, MPI_Info* info))
WEFT_MPI_FN(int, Session_iflush_buffer, (MPI_Session session, MPI_Request* request))
WEFT_MPI_FN(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session))
WEFT_MPI_FN(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler))

/* Dynamic processes and ports */
WEFT_MPI_FN(int, Close_port, (const char* port_name))
WEFT_MPI_FN(int, Comm_accept,
            (const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_connect,
            (const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm))
WEFT_MPI_FN(int, Comm_disconnect, (MPI_Comm * comm))
WEFT_MPI_FN(int, Comm_get_parent, (MPI_Comm * parent))
WEFT_MPI_FN(int, Comm_join, (int fd, MPI_Comm* intercomm))
WEFT_MPI_FN(int, Comm_spawn,
            (const char* command, char* argv[], int maxprocs, MPI_Info info, int root,
             MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]))
WEFT_MPI_FN(int, Comm_spawn_multiple,
            (int count, char* array_of_commands[], char** array_of_argv[],
             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
             MPI_Comm* intercomm, int array_of_errcodes[]))
WEFT_MPI_FN(int, Lookup_name, (const char* service_name, MPI_Info info, char* port_name))
WEFT_MPI_FN(int, Open_port, (MPI_Info info, char* port_name))
WEFT_MPI_FN(int, Publish_name, (const char* service_name, MPI_Info info, const char* port_name))
WEFT_MPI_FN(int, Unpublish_name, (const char* service_name, MPI_Info info, const char* port_name))

/* One-sided communication (windows) */
WEFT_MPI_FN(int, Accumulate,
            (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Op op, MPI_Win win))
WEFT_MPI_FN(int, Accumulate_c,
            (const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
WEFT_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr))
WEFT_MPI_FN(int, Compare_and_swap,
            (const void* origin_addr, const void* compare_addr, void* result_addr,
             MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
WEFT_MPI_FN(int, Fetch_and_op,
            (const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
             MPI_Aint target_disp, MPI_Op op, MPI_Win win))
WEFT_MPI_FN(int, Free_mem, (void* base))
WEFT_MPI_FN(int, Get,
            (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
WEFT_MPI_FN(int, Get_c,
            (void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Win win))
WEFT_MPI_FN(int, Get_accumulate,
            (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win))
WEFT_MPI_FN(int, Get_accumulate_c,
            (const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
WEFT_MPI_FN(int, Put,
            (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win))
WEFT_MPI_FN(int, Put_c,
            (const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Win win))
WEFT_MPI_FN(int, Raccumulate,
            (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Op op, MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Raccumulate_c,
            (const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Rget,
            (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request* request))
WEFT_MPI_FN(int, Rget_c,
            (void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Rget_accumulate,
            (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Rget_accumulate_c,
            (const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Rput,
            (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Rput_c,
            (const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request))
WEFT_MPI_FN(int, Win_allocate,
            (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
             MPI_Win* win))
WEFT_MPI_FN(int, Win_allocate_c,
            (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
             MPI_Win* win))
WEFT_MPI_FN(int, Win_allocate_shared,
            (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
             MPI_Win* win))
WEFT_MPI_FN(int, Win_allocate_shared_c,
            (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
             MPI_Win* win))
WEFT_MPI_FN(int, Win_attach, (MPI_Win win, void* base, MPI_Aint size))
WEFT_MPI_FN(int, Win_call_errhandler, (MPI_Win win, int errorcode))
WEFT_MPI_FN(int, Win_complete, (MPI_Win win))
WEFT_MPI_FN(int, Win_create,
            (void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win))
WEFT_MPI_FN(int, Win_create_c,
            (void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
             MPI_Win* win))
WEFT_MPI_FN(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win* win))
WEFT_MPI_FN(int, Win_create_errhandler,
            (MPI_Win_errhandler_function * win_errhandler_fn, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, Win_create_keyval,
            (MPI_Win_copy_attr_function * win_copy_attr_fn,
             MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state))
WEFT_MPI_FN(int, Win_delete_attr, (MPI_Win win, int win_keyval))
WEFT_MPI_FN(int, Win_detach, (MPI_Win win, const void* base))
WEFT_MPI_FN(int, Win_fence, (int assert, MPI_Win win))
WEFT_MPI_FN(int, Win_flush, (int rank, MPI_Win win))
WEFT_MPI_FN(int, Win_flush_all, (MPI_Win win))
WEFT_MPI_FN(int, Win_flush_local, (int rank, MPI_Win win))
WEFT_MPI_FN(int, Win_flush_local_all, (MPI_Win win))
WEFT_MPI_FN(int, Win_free, (MPI_Win * win))
WEFT_MPI_FN(int, Win_free_keyval, (int* win_keyval))
WEFT_MPI_FN(int, Win_get_attr, (MPI_Win win, int win_keyval, void* attribute_val, int* flag))
WEFT_MPI_FN(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, Win_get_group, (MPI_Win win, MPI_Group* group))
WEFT_MPI_FN(int, Win_get_info, (MPI_Win win, MPI_Info* info_used))
WEFT_MPI_FN(int, Win_get_name, (MPI_Win win, char* win_name, int* resultlen))
WEFT_MPI_FN(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
WEFT_MPI_FN(int, Win_lock_all, (int assert, MPI_Win win))
WEFT_MPI_FN(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
WEFT_MPI_FN(int, Win_set_attr, (MPI_Win win, int win_keyval, void* attribute_val))
WEFT_MPI_FN(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
WEFT_MPI_FN(int, Win_set_info, (MPI_Win win, MPI_Info info))
WEFT_MPI_FN(int, Win_set_name, (MPI_Win win, const char* win_name))
WEFT_MPI_FN(int, Win_shared_query,
            (MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr))
WEFT_MPI_FN(int, Win_shared_query_c,
            (MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr))
WEFT_MPI_FN(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
WEFT_MPI_FN(int, Win_sync, (MPI_Win win))
WEFT_MPI_FN(int, Win_test, (MPI_Win win, int* flag))
WEFT_MPI_FN(int, Win_unlock, (int rank, MPI_Win win))
WEFT_MPI_FN(int, Win_unlock_all, (MPI_Win win))
WEFT_MPI_FN(int, Win_wait, (MPI_Win win))

/* Parallel I/O */
WEFT_MPI_FN(int, File_call_errhandler, (MPI_File fh, int errorcode))
WEFT_MPI_FN(int, File_close, (MPI_File * fh))
WEFT_MPI_FN(int, File_create_errhandler,
            (MPI_File_errhandler_function * file_errhandler_fn, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, File_delete, (const char* filename, MPI_Info info))
WEFT_MPI_FN(int, File_get_amode, (MPI_File fh, int* amode))
WEFT_MPI_FN(int, File_get_atomicity, (MPI_File fh, int* flag))
WEFT_MPI_FN(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset* disp))
WEFT_MPI_FN(int, File_get_errhandler, (MPI_File file, MPI_Errhandler* errhandler))
WEFT_MPI_FN(int, File_get_group, (MPI_File fh, MPI_Group* group))
WEFT_MPI_FN(int, File_get_info, (MPI_File fh, MPI_Info* info_used))
WEFT_MPI_FN(int, File_get_position, (MPI_File fh, MPI_Offset* offset))
WEFT_MPI_FN(int, File_get_position_shared, (MPI_File fh, MPI_Offset* offset))
WEFT_MPI_FN(int, File_get_size, (MPI_File fh, MPI_Offset* size))
WEFT_MPI_FN(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent))
WEFT_MPI_FN(int, File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype, MPI_Count* extent))
WEFT_MPI_FN(int, File_get_view,
            (MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
             char* datarep))
WEFT_MPI_FN(int, File_iread,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iread_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iread_all,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iread_all_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iread_at,
            (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iread_at_c,
            (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iread_at_all,
            (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iread_at_all_c,
            (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iread_shared,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iread_shared_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_all,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_all_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_at,
            (MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_at_c,
            (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
             MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_at_all,
            (MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_at_all_c,
            (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
             MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_shared,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request))
WEFT_MPI_FN(int, File_iwrite_shared_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Request* request))
WEFT_MPI_FN(int, File_open,
            (MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh))
WEFT_MPI_FN(int, File_preallocate, (MPI_File fh, MPI_Offset size))
WEFT_MPI_FN(int, File_read,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_all,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_all_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_all_begin, (MPI_File fh, void* buf, int count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_read_all_begin_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_read_all_end, (MPI_File fh, void* buf, MPI_Status* status))
WEFT_MPI_FN(int, File_read_at,
            (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_read_at_c,
            (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_read_at_all,
            (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_read_at_all_c,
            (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_read_at_all_begin,
            (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_read_at_all_begin_c,
            (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_read_at_all_end, (MPI_File fh, void* buf, MPI_Status* status))
WEFT_MPI_FN(int, File_read_ordered,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_ordered_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_ordered_begin,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_read_ordered_begin_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_read_ordered_end, (MPI_File fh, void* buf, MPI_Status* status))
WEFT_MPI_FN(int, File_read_shared,
            (MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_read_shared_c,
            (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
WEFT_MPI_FN(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
WEFT_MPI_FN(int, File_set_atomicity, (MPI_File fh, int flag))
WEFT_MPI_FN(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
WEFT_MPI_FN(int, File_set_info, (MPI_File fh, MPI_Info info))
WEFT_MPI_FN(int, File_set_size, (MPI_File fh, MPI_Offset size))
WEFT_MPI_FN(int, File_set_view,
            (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
             const char* datarep, MPI_Info info))
WEFT_MPI_FN(int, File_sync, (MPI_File fh))
WEFT_MPI_FN(int, File_write,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_write_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_write_all,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_write_all_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_write_all_begin,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_write_all_begin_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_write_all_end, (MPI_File fh, const void* buf, MPI_Status* status))
WEFT_MPI_FN(int, File_write_at,
            (MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_write_at_c,
            (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
             MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_write_at_all,
            (MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_write_at_all_c,
            (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
             MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_write_at_all_begin,
            (MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_write_at_all_begin_c,
            (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
             MPI_Datatype datatype))
WEFT_MPI_FN(int, File_write_at_all_end, (MPI_File fh, const void* buf, MPI_Status* status))
WEFT_MPI_FN(int, File_write_ordered,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_write_ordered_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, File_write_ordered_begin,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_write_ordered_begin_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype))
WEFT_MPI_FN(int, File_write_ordered_end, (MPI_File fh, const void* buf, MPI_Status* status))
WEFT_MPI_FN(int, File_write_shared,
            (MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status))
WEFT_MPI_FN(int, File_write_shared_c,
            (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
             MPI_Status* status))
WEFT_MPI_FN(int, Register_datarep,
            (const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
             MPI_Datarep_conversion_function* write_conversion_fn,
             MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state))
WEFT_MPI_FN(int, Register_datarep_c,
            (const char* datarep, MPI_Datarep_conversion_function_c* read_conversion_fn,
             MPI_Datarep_conversion_function_c* write_conversion_fn,
             MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state))

/* The tool information interface (MPI_T) */
WEFT_MPI_FN(int, T_category_changed, (int* update_number))
WEFT_MPI_FN(int, T_category_get_categories, (int cat_index, int len, int indices[]))
WEFT_MPI_FN(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
WEFT_MPI_FN(int, T_category_get_events, (int cat_index, int len, int indices[]))
WEFT_MPI_FN(int, T_category_get_index, (const char* name, int* cat_index))
WEFT_MPI_FN(int, T_category_get_info,
            (int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
             int* num_pvars, int* num_categories))
WEFT_MPI_FN(int, T_category_get_num, (int* num_cat))
WEFT_MPI_FN(int, T_category_get_num_events, (int cat_index, int* num_events))
WEFT_MPI_FN(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
WEFT_MPI_FN(int, T_cvar_get_index, (const char* name, int* cvar_index))
WEFT_MPI_FN(int, T_cvar_get_info,
            (int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
             MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope))
WEFT_MPI_FN(int, T_cvar_get_num, (int* num_cvar))
WEFT_MPI_FN(int, T_cvar_handle_alloc,
            (int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count))
WEFT_MPI_FN(int, T_cvar_handle_free, (MPI_T_cvar_handle * handle))
WEFT_MPI_FN(int, T_cvar_read, (MPI_T_cvar_handle handle, void* buf))
WEFT_MPI_FN(int, T_cvar_write, (MPI_T_cvar_handle handle, const void* buf))
WEFT_MPI_FN(int, T_enum_get_info, (MPI_T_enum enumtype, int* num, char* name, int* name_len))
WEFT_MPI_FN(int, T_enum_get_item,
            (MPI_T_enum enumtype, int indx, int* value, char* name, int* name_len))
WEFT_MPI_FN(int, T_event_callback_get_info,
            (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
             MPI_Info* info_used))
WEFT_MPI_FN(int, T_event_callback_set_info,
            (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info))
WEFT_MPI_FN(int, T_event_copy, (MPI_T_event_instance event_instance, void* buffer))
WEFT_MPI_FN(int, T_event_get_index, (const char* name, int* event_index))
WEFT_MPI_FN(int, T_event_get_info,
            (int event_index, char* name, int* name_len, int* verbosity,
             MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
             int* num_elements, MPI_T_enum* enumtype, MPI_Info* info, char* desc, int* desc_len,
             int* bind))
WEFT_MPI_FN(int, T_event_get_num, (int* num_events))
WEFT_MPI_FN(int, T_event_get_source, (MPI_T_event_instance event_instance, int* source_index))
WEFT_MPI_FN(int, T_event_get_timestamp,
            (MPI_T_event_instance event_instance, MPI_Count* event_timestamp))
WEFT_MPI_FN(int, T_event_handle_alloc,
            (int event_index, void* obj_handle, MPI_Info info,
             MPI_T_event_registration* event_registration))
WEFT_MPI_FN(int, T_event_handle_free,
            (MPI_T_event_registration event_registration, void* user_data,
             MPI_T_event_free_cb_function free_cb_function))
WEFT_MPI_FN(int, T_event_handle_get_info,
            (MPI_T_event_registration event_registration, MPI_Info* info_used))
WEFT_MPI_FN(int, T_event_handle_set_info,
            (MPI_T_event_registration event_registration, MPI_Info info))
WEFT_MPI_FN(int, T_event_read,
            (MPI_T_event_instance event_instance, int element_index, void* buffer))
WEFT_MPI_FN(int, T_event_register_callback,
            (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info,
             void* user_data, MPI_T_event_cb_function event_cb_function))
WEFT_MPI_FN(int, T_event_set_dropped_handler,
            (MPI_T_event_registration event_registration,
             MPI_T_event_dropped_cb_function dropped_cb_function))
WEFT_MPI_FN(int, T_finalize, (void))
WEFT_MPI_FN(int, T_init_thread, (int required, int* provided))
WEFT_MPI_FN(int, T_pvar_get_index, (const char* name, int var_class, int* pvar_index))
WEFT_MPI_FN(int, T_pvar_get_info,
            (int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
             MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
             int* readonly, int* continuous, int* atomic))
WEFT_MPI_FN(int, T_pvar_get_num, (int* num_pvar))
WEFT_MPI_FN(int, T_pvar_handle_alloc,
            (MPI_T_pvar_session session, int pvar_index, void* obj_handle,
             MPI_T_pvar_handle* handle, int* count))
WEFT_MPI_FN(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle* handle))
WEFT_MPI_FN(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf))
WEFT_MPI_FN(int, T_pvar_readreset,
            (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf))
WEFT_MPI_FN(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
WEFT_MPI_FN(int, T_pvar_session_create, (MPI_T_pvar_session * session))
WEFT_MPI_FN(int, T_pvar_session_free, (MPI_T_pvar_session * session))
WEFT_MPI_FN(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
WEFT_MPI_FN(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
WEFT_MPI_FN(int, T_pvar_write,
            (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf))
WEFT_MPI_FN(int, T_source_get_info,
            (int source_index, char* name, int* name_len, char* desc, int* desc_len,
             MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
             MPI_Info* info))
WEFT_MPI_FN(int, T_source_get_num, (int* num_sources))
WEFT_MPI_FN(int, T_source_get_timestamp, (int source_index, MPI_Count* timestamp))

/* The standard ABI itself and handle conversion to and from integers (Fortran) */
WEFT_MPI_FN(int, Abi_get_fortran_booleans,
            (int logical_size, void* logical_true, void* logical_false, int* is_set))
WEFT_MPI_FN(int, Abi_get_fortran_info, (MPI_Info * info))
WEFT_MPI_FN(int, Abi_get_info, (MPI_Info * info))
WEFT_MPI_FN(int, Abi_get_version, (int* abi_major, int* abi_minor))
WEFT_MPI_FN(int, Abi_set_fortran_booleans,
            (int logical_size, void* logical_true, void* logical_false))
WEFT_MPI_FN(int, Abi_set_fortran_info, (MPI_Info info))
WEFT_MPI_FN(MPI_Comm, Comm_fromint, (int comm))
WEFT_MPI_FN(int, Comm_toint, (MPI_Comm comm))
WEFT_MPI_FN(MPI_Errhandler, Errhandler_fromint, (int errhandler))
WEFT_MPI_FN(int, Errhandler_toint, (MPI_Errhandler errhandler))
WEFT_MPI_FN(MPI_File, File_fromint, (int file))
WEFT_MPI_FN(int, File_toint, (MPI_File file))
WEFT_MPI_FN(MPI_Group, Group_fromint, (int group))
WEFT_MPI_FN(int, Group_toint, (MPI_Group group))
WEFT_MPI_FN(MPI_Info, Info_fromint, (int info))
WEFT_MPI_FN(int, Info_toint, (MPI_Info info))
WEFT_MPI_FN(MPI_Message, Message_fromint, (int message))
WEFT_MPI_FN(int, Message_toint, (MPI_Message message))
WEFT_MPI_FN(MPI_Op, Op_fromint, (int op))
WEFT_MPI_FN(int, Op_toint, (MPI_Op op))
WEFT_MPI_FN(MPI_Request, Request_fromint, (int request))
WEFT_MPI_FN(int, Request_toint, (MPI_Request request))
WEFT_MPI_FN(MPI_Session, Session_fromint, (int session))
WEFT_MPI_FN(int, Session_toint, (MPI_Session session))
WEFT_MPI_FN(MPI_Datatype, Type_fromint, (int datatype))
WEFT_MPI_FN(int, Type_toint, (MPI_Datatype datatype))
WEFT_MPI_FN(MPI_Win, Win_fromint, (int win))
WEFT_MPI_FN(int, Win_toint, (MPI_Win win))
#undef WEFT_MPI_FN

#if defined(__cplusplus)
}
#endif

#endif /* WEFT_MPI_H */
