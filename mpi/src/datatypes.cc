#include "mpi/src/datatypes.h"

#include <array>
#include <complex>
#include <cstdint>
#include <string>

#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"

namespace weft::mpi {
namespace {

template <typename A, typename B>
struct Pair {
  A value;
  B index;
};

using E = Element;
using F = Family;

struct Entry {
  uintptr_t handle;
  TypeInfo info;
};

#define WEFT_TYPE(handle, ctype, element, family)                    \
  Entry {                                                            \
    reinterpret_cast<uintptr_t>(handle), {                           \
#handle, sizeof(ctype), sizeof(ctype), element, family, handle \
    }                                                                \
  }
// A value-index pair's size is that of its two members; its extent includes the padding.
#define WEFT_PAIR(handle, V, I, element)                                             \
  Entry {                                                                            \
    reinterpret_cast<uintptr_t>(handle), {                                           \
#handle, sizeof(V) + sizeof(I), sizeof(Pair <V, I>), element, F::kPair, handle \
    }                                                                                \
  }

const Entry kEntries[] = {
    WEFT_TYPE(MPI_AINT, MPI_Aint, E::kInt64, F::kCInteger),
    WEFT_TYPE(MPI_COUNT, MPI_Count, E::kInt64, F::kCInteger),
    WEFT_TYPE(MPI_OFFSET, MPI_Offset, E::kInt64, F::kCInteger),
    WEFT_TYPE(MPI_PACKED, char, E::kNone, F::kNone),
    WEFT_TYPE(MPI_SHORT, short, E::kInt16, F::kCInteger),
    WEFT_TYPE(MPI_INT, int, E::kInt32, F::kCInteger),
    WEFT_TYPE(MPI_LONG, long, E::kInt64, F::kCInteger),
    WEFT_TYPE(MPI_LONG_LONG, long long, E::kInt64, F::kCInteger),
    WEFT_TYPE(MPI_UNSIGNED_SHORT, unsigned short, E::kUInt16, F::kCInteger),
    WEFT_TYPE(MPI_UNSIGNED, unsigned, E::kUInt32, F::kCInteger),
    WEFT_TYPE(MPI_UNSIGNED_LONG, unsigned long, E::kUInt64, F::kCInteger),
    WEFT_TYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long, E::kUInt64, F::kCInteger),
    WEFT_TYPE(MPI_FLOAT, float, E::kFloat, F::kFloating),
    WEFT_TYPE(MPI_C_FLOAT_COMPLEX, std::complex<float>, E::kFloatComplex, F::kComplex),
    WEFT_TYPE(MPI_CXX_FLOAT_COMPLEX, std::complex<float>, E::kFloatComplex, F::kComplex),
    WEFT_TYPE(MPI_DOUBLE, double, E::kDouble, F::kFloating),
    WEFT_TYPE(MPI_C_DOUBLE_COMPLEX, std::complex<double>, E::kDoubleComplex, F::kComplex),
    WEFT_TYPE(MPI_CXX_DOUBLE_COMPLEX, std::complex<double>, E::kDoubleComplex, F::kComplex),
    WEFT_TYPE(MPI_LOGICAL, int32_t, E::kLogical, F::kLogical),
    WEFT_TYPE(MPI_INTEGER, int32_t, E::kInt32, F::kFortranInteger),
    WEFT_TYPE(MPI_REAL, float, E::kFloat, F::kFloating),
    WEFT_TYPE(MPI_COMPLEX, std::complex<float>, E::kFloatComplex, F::kComplex),
    WEFT_TYPE(MPI_DOUBLE_PRECISION, double, E::kDouble, F::kFloating),
    WEFT_TYPE(MPI_DOUBLE_COMPLEX, std::complex<double>, E::kDoubleComplex, F::kComplex),
    WEFT_TYPE(MPI_LONG_DOUBLE, long double, E::kLongDouble, F::kFloating),
    WEFT_TYPE(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>, E::kLongDoubleComplex,
              F::kComplex),
    WEFT_TYPE(MPI_CXX_LONG_DOUBLE_COMPLEX, std::complex<long double>, E::kLongDoubleComplex,
              F::kComplex),
    WEFT_PAIR(MPI_FLOAT_INT, float, int, E::kFloatInt),
    WEFT_PAIR(MPI_DOUBLE_INT, double, int, E::kDoubleInt),
    WEFT_PAIR(MPI_LONG_INT, long, int, E::kLongInt),
    WEFT_PAIR(MPI_2INT, int, int, E::kIntInt),
    WEFT_PAIR(MPI_SHORT_INT, short, int, E::kShortInt),
    WEFT_PAIR(MPI_LONG_DOUBLE_INT, long double, int, E::kLongDoubleInt),
    WEFT_PAIR(MPI_2REAL, float, float, E::kFloatFloat),
    WEFT_PAIR(MPI_2DOUBLE_PRECISION, double, double, E::kDoubleDouble),
    WEFT_PAIR(MPI_2INTEGER, int, int, E::kIntInt),
    WEFT_TYPE(MPI_C_BOOL, bool, E::kBool, F::kLogical),
    WEFT_TYPE(MPI_CXX_BOOL, bool, E::kBool, F::kLogical),
    WEFT_TYPE(MPI_WCHAR, wchar_t, E::kNone, F::kNone),
    WEFT_TYPE(MPI_INT8_T, int8_t, E::kInt8, F::kCInteger),
    WEFT_TYPE(MPI_UINT8_T, uint8_t, E::kUInt8, F::kCInteger),
    WEFT_TYPE(MPI_CHAR, char, E::kInt8, F::kCInteger),
    WEFT_TYPE(MPI_SIGNED_CHAR, signed char, E::kInt8, F::kCInteger),
    WEFT_TYPE(MPI_UNSIGNED_CHAR, unsigned char, E::kUInt8, F::kCInteger),
    WEFT_TYPE(MPI_BYTE, unsigned char, E::kByte, F::kByte),
    WEFT_TYPE(MPI_INT16_T, int16_t, E::kInt16, F::kCInteger),
    WEFT_TYPE(MPI_UINT16_T, uint16_t, E::kUInt16, F::kCInteger),
    WEFT_TYPE(MPI_INT32_T, int32_t, E::kInt32, F::kCInteger),
    WEFT_TYPE(MPI_UINT32_T, uint32_t, E::kUInt32, F::kCInteger),
    WEFT_TYPE(MPI_INT64_T, int64_t, E::kInt64, F::kCInteger),
    WEFT_TYPE(MPI_UINT64_T, uint64_t, E::kUInt64, F::kCInteger),
    WEFT_TYPE(MPI_LOGICAL1, int8_t, E::kNone, F::kNone),
    WEFT_TYPE(MPI_INTEGER1, int8_t, E::kInt8, F::kFortranInteger),
    WEFT_TYPE(MPI_CHARACTER, char, E::kNone, F::kNone),
    WEFT_TYPE(MPI_LOGICAL2, int16_t, E::kNone, F::kNone),
    WEFT_TYPE(MPI_INTEGER2, int16_t, E::kInt16, F::kFortranInteger),
    WEFT_TYPE(MPI_REAL2, uint16_t, E::kNone, F::kNone),
    WEFT_TYPE(MPI_LOGICAL4, int32_t, E::kLogical, F::kLogical),
    WEFT_TYPE(MPI_INTEGER4, int32_t, E::kInt32, F::kFortranInteger),
    WEFT_TYPE(MPI_REAL4, float, E::kFloat, F::kFloating),
    WEFT_TYPE(MPI_COMPLEX4, uint32_t, E::kNone, F::kNone),
    WEFT_TYPE(MPI_LOGICAL8, int64_t, E::kNone, F::kNone),
    WEFT_TYPE(MPI_INTEGER8, int64_t, E::kInt64, F::kFortranInteger),
    WEFT_TYPE(MPI_REAL8, double, E::kDouble, F::kFloating),
    WEFT_TYPE(MPI_COMPLEX8, std::complex<float>, E::kFloatComplex, F::kComplex),
    WEFT_TYPE(MPI_LOGICAL16, __int128, E::kNone, F::kNone),
    WEFT_TYPE(MPI_INTEGER16, __int128, E::kNone, F::kNone),
    WEFT_TYPE(MPI_REAL16, long double, E::kNone, F::kNone),
    WEFT_TYPE(MPI_COMPLEX16, std::complex<double>, E::kDoubleComplex, F::kComplex),
    WEFT_TYPE(MPI_COMPLEX32, std::complex<long double>, E::kNone, F::kNone),
};

#undef WEFT_TYPE
#undef WEFT_PAIR

// Predefined datatype handles lie in [0x200, 0x300): one table slot each, so a lookup
// on every call costs an index.
constexpr uintptr_t kFirstHandle = 0x200;
constexpr size_t kSlots = 0x100;

std::array<const TypeInfo*, kSlots> build_table() {
  std::array<const TypeInfo*, kSlots> table{};
  for (const auto& entry : kEntries) table[entry.handle - kFirstHandle] = &entry.info;
  return table;
}

}  // namespace

const TypeInfo& type_info(MPI_Datatype datatype) {
  static const std::array<const TypeInfo*, kSlots> table = build_table();
  auto handle = reinterpret_cast<uintptr_t>(datatype);
  if (handle >= kFirstHandle && handle < kFirstHandle + kSlots && table[handle - kFirstHandle]) {
    return *table[handle - kFirstHandle];
  }
  if (datatype == MPI_DATATYPE_NULL)
    throw MpiError(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
  if (is_derived(datatype)) {
    throw MpiError(MPI_ERR_TYPE,
                   "the datatype is a derived datatype, which this function "
                   "does not take yet (only predefined ones)");
  }
  throw MpiError(MPI_ERR_TYPE, "datatype " + std::to_string(handle) +
                                   " is not a valid datatype (freed, or never created)");
}

std::optional<weft::DType> core_dtype(Element element) {
  switch (element) {
    case Element::kInt8:
      return weft::DType::kInt8;
    case Element::kUInt8:
      return weft::DType::kUInt8;
    case Element::kInt32:
      return weft::DType::kInt32;
    case Element::kUInt32:
      return weft::DType::kUInt32;
    case Element::kInt64:
      return weft::DType::kInt64;
    case Element::kUInt64:
      return weft::DType::kUInt64;
    case Element::kFloat:
      return weft::DType::kFloat32;
    case Element::kDouble:
      return weft::DType::kFloat64;
    default:
      return std::nullopt;
  }
}

}  // namespace weft::mpi
