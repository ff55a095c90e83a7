// The predefined datatypes: their sizes, and the C type a reduction works on. Data
// moves as bytes (the core matches messages by size, the program by MPI's type rules),
// so only reductions need to know what an element is.
#pragma once

#include <mpi.h>
#include <weft/tensor.h>

#include <cstddef>
#include <optional>

namespace weft::mpi {

// What a reduction sees in an element.
enum class Element {
  kNone,  // data only: no reduction applies (MPI_PACKED, MPI_WCHAR, MPI_CHARACTER, ...)
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat,
  kDouble,
  kLongDouble,
  kFloatComplex,
  kDoubleComplex,
  kLongDoubleComplex,
  kBool,     // C _Bool and C++ bool
  kLogical,  // Fortran LOGICAL: an int, nonzero is true
  kByte,     // MPI_BYTE: bitwise operations only
  // Value-index pairs for MAXLOC and MINLOC.
  kFloatInt,
  kDoubleInt,
  kLongInt,
  kIntInt,
  kShortInt,
  kLongDoubleInt,
  kFloatFloat,
  kDoubleDouble,
};

// Which family of MPI's reduction rules an element belongs to.
enum class Family {
  kNone,
  kCInteger,
  kFortranInteger,
  kFloating,
  kComplex,
  kLogical,
  kByte,
  kPair
};

struct TypeInfo {
  const char* name;  // "MPI_INT"
  size_t size;       // MPI_Type_size: the bytes of data, padding left out
  size_t extent;     // the stride of an array: what a count of them occupies and moves
  Element element;
  Family family;
  MPI_Datatype handle;  // what a user-defined operation is told the datatype is
};

// MpiError(MPI_ERR_TYPE) for MPI_DATATYPE_NULL and anything not predefined (derived
// datatypes: typemap_of and datatype_size in derived_types.h cover both kinds).
const TypeInfo& type_info(MPI_Datatype datatype);

// The core's dtype for elements the core reduces itself.
std::optional<weft::DType> core_dtype(Element element);

}  // namespace weft::mpi
