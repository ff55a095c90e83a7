#include "mpi/src/reduce_ops.h"

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>

#include "collectives/reduce/reduce_kernels.h"
#include "mpi/src/errors.h"
#include "mpi/src/user_ops.h"

namespace weft::mpi {
namespace {

enum class Kind {
  kSum,
  kProd,
  kMin,
  kMax,
  kLand,
  kLor,
  kLxor,
  kBand,
  kBor,
  kBxor,
  kMinloc,
  kMaxloc,
  kNotPredefined  // a user-defined op, MPI_OP_NULL, MPI_REPLACE, MPI_NO_OP or garbage
};

Kind kind_of(MPI_Op op) {
  if (op == MPI_SUM) return Kind::kSum;
  if (op == MPI_PROD) return Kind::kProd;
  if (op == MPI_MIN) return Kind::kMin;
  if (op == MPI_MAX) return Kind::kMax;
  if (op == MPI_LAND) return Kind::kLand;
  if (op == MPI_LOR) return Kind::kLor;
  if (op == MPI_LXOR) return Kind::kLxor;
  if (op == MPI_BAND) return Kind::kBand;
  if (op == MPI_BOR) return Kind::kBor;
  if (op == MPI_BXOR) return Kind::kBxor;
  if (op == MPI_MINLOC) return Kind::kMinloc;
  if (op == MPI_MAXLOC) return Kind::kMaxloc;
  return Kind::kNotPredefined;
}

// MPI's table of which operation applies to which family of types.
bool allowed(Kind kind, Family family) {
  switch (kind) {
    case Kind::kMin:
    case Kind::kMax:
      return family == Family::kCInteger || family == Family::kFortranInteger ||
             family == Family::kFloating;
    case Kind::kSum:
    case Kind::kProd:
      return family == Family::kCInteger || family == Family::kFortranInteger ||
             family == Family::kFloating || family == Family::kComplex;
    case Kind::kLand:
    case Kind::kLor:
    case Kind::kLxor:
      return family == Family::kCInteger || family == Family::kLogical;
    case Kind::kBand:
    case Kind::kBor:
    case Kind::kBxor:
      return family == Family::kCInteger || family == Family::kFortranInteger ||
             family == Family::kByte;
    case Kind::kMinloc:
    case Kind::kMaxloc:
      return family == Family::kPair;
    case Kind::kNotPredefined:
      return false;
  }
  return false;
}

// inout[i] = f(in[i], inout[i]): one loop per operation, with nothing to decide inside,
// so that the compiler vectorises it. Iteration i reads and writes element i only, so
// there is no dependence between iterations even when the two arrays are one (ivdep
// spares the overlap check GCC's -O2 cost model would not pay for).
template <typename T, typename F>
void each(const T* in, T* inout, size_t n, F f) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
  for (size_t i = 0; i < n; ++i) inout[i] = f(in[i], inout[i]);
}

template <typename T>
void arithmetic(Kind kind, const T* in, T* inout, size_t n) {
  switch (kind) {
    case Kind::kSum:
      return each(in, inout, n, [](T a, T b) { return static_cast<T>(a + b); });
    case Kind::kProd:
      return each(in, inout, n, [](T a, T b) { return static_cast<T>(a * b); });
    case Kind::kMin:  // the incoming value only when it is smaller (a NaN never is)
      return each(in, inout, n, [](T a, T b) { return a < b ? a : b; });
    case Kind::kMax:
      return each(in, inout, n, [](T a, T b) { return a > b ? a : b; });
    default:
      return;
  }
}

template <typename T>
void complex_arithmetic(Kind kind, const T* in, T* inout, size_t n) {
  for (size_t i = 0; i < n; ++i)
    inout[i] = kind == Kind::kSum ? in[i] + inout[i] : in[i] * inout[i];
}

template <typename T>
void logical(Kind kind, const T* in, T* inout, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    bool a = in[i] != T{}, b = inout[i] != T{};
    bool r = kind == Kind::kLand ? (a && b) : kind == Kind::kLor ? (a || b) : (a != b);
    inout[i] = static_cast<T>(r);
  }
}

template <typename T>
void bitwise(Kind kind, const T* in, T* inout, size_t n) {
  switch (kind) {
    case Kind::kBand:
      return each(in, inout, n, [](T a, T b) { return static_cast<T>(a & b); });
    case Kind::kBor:
      return each(in, inout, n, [](T a, T b) { return static_cast<T>(a | b); });
    default:
      return each(in, inout, n, [](T a, T b) { return static_cast<T>(a ^ b); });
  }
}

// C integers take arithmetic, logical and bitwise operations alike.
template <typename T>
void integer(Kind kind, const T* in, T* inout, size_t n) {
  switch (kind) {
    case Kind::kLand:
    case Kind::kLor:
    case Kind::kLxor:
      logical(kind, in, inout, n);
      break;
    case Kind::kBand:
    case Kind::kBor:
    case Kind::kBxor:
      bitwise(kind, in, inout, n);
      break;
    default:
      arithmetic(kind, in, inout, n);
      break;
  }
}

template <typename V, typename I>
struct Pair {
  V value;
  I index;
};

// MINLOC and MAXLOC: the better value wins; on a tie, the lower index.
template <typename V, typename I>
void located(Kind kind, const void* in_bytes, void* inout_bytes, size_t n) {
  auto* in = static_cast<const Pair<V, I>*>(in_bytes);
  auto* inout = static_cast<Pair<V, I>*>(inout_bytes);
  for (size_t i = 0; i < n; ++i) {
    bool better =
        kind == Kind::kMaxloc ? in[i].value > inout[i].value : in[i].value < inout[i].value;
    if (better) {
      inout[i] = in[i];
    } else if (in[i].value == inout[i].value && in[i].index < inout[i].index) {
      inout[i].index = in[i].index;
    }
  }
}

template <typename T>
const T* as(const void* p) {
  return static_cast<const T*>(p);
}
template <typename T>
T* as(void* p) {
  return static_cast<T*>(p);
}

}  // namespace

bool predefined_op_applies(MPI_Op op, const TypeInfo& type) {
  Kind kind = kind_of(op);
  return kind != Kind::kNotPredefined && allowed(kind, type.family) &&
         type.element != Element::kNone;
}

void check_op(MPI_Op op, const TypeInfo& type) {
  Kind kind = kind_of(op);
  if (kind == Kind::kNotPredefined) {
    if (op == MPI_OP_NULL) throw MpiError(MPI_ERR_OP, "the operation is MPI_OP_NULL");
    // A user-defined operation applies to any datatype: its function decides.
    if (user_op_or_null(op) != nullptr) return;
    throw MpiError(MPI_ERR_OP,
                   "not a reduction operation (MPI_REPLACE and MPI_NO_OP are "
                   "for one-sided communication)");
  }
  if (!predefined_op_applies(op, type)) {
    throw MpiError(MPI_ERR_OP, std::string("this operation is not defined on ") + type.name);
  }
}

void reduce_local(MPI_Op op, const TypeInfo& type, const void* in, void* inout, size_t n) {
  check_op(op, type);
  if (const MPI_ABI_Op* user = user_op_or_null(op)) {
    call_user_op(*user, in, inout, n, static_cast<int64_t>(type.extent), type.handle);
    return;
  }
  // The core's vectorised kernels where it has the operation and type, as the
  // collectives use them (so a local reduction combines as MPI_Allreduce does).
  if (std::optional<weft::ReduceOp> core = core_op(op, type)) {
    weft::collectives::reduce::reduce_elements(*core, *core_dtype(type.element), inout, in, inout,
                                               n);
    return;
  }
  Kind k = kind_of(op);
  switch (type.element) {
    case Element::kInt8:
      integer(k, as<int8_t>(in), as<int8_t>(inout), n);
      break;
    case Element::kInt16:
      integer(k, as<int16_t>(in), as<int16_t>(inout), n);
      break;
    case Element::kInt32:
      integer(k, as<int32_t>(in), as<int32_t>(inout), n);
      break;
    case Element::kInt64:
      integer(k, as<int64_t>(in), as<int64_t>(inout), n);
      break;
    case Element::kUInt8:
      integer(k, as<uint8_t>(in), as<uint8_t>(inout), n);
      break;
    case Element::kUInt16:
      integer(k, as<uint16_t>(in), as<uint16_t>(inout), n);
      break;
    case Element::kUInt32:
      integer(k, as<uint32_t>(in), as<uint32_t>(inout), n);
      break;
    case Element::kUInt64:
      integer(k, as<uint64_t>(in), as<uint64_t>(inout), n);
      break;
    case Element::kByte:
      bitwise(k, as<uint8_t>(in), as<uint8_t>(inout), n);
      break;
    case Element::kFloat:
      arithmetic(k, as<float>(in), as<float>(inout), n);
      break;
    case Element::kDouble:
      arithmetic(k, as<double>(in), as<double>(inout), n);
      break;
    case Element::kLongDouble:
      arithmetic(k, as<long double>(in), as<long double>(inout), n);
      break;
    case Element::kFloatComplex:
      complex_arithmetic(k, as<std::complex<float>>(in), as<std::complex<float>>(inout), n);
      break;
    case Element::kDoubleComplex:
      complex_arithmetic(k, as<std::complex<double>>(in), as<std::complex<double>>(inout), n);
      break;
    case Element::kLongDoubleComplex:
      complex_arithmetic(k, as<std::complex<long double>>(in), as<std::complex<long double>>(inout),
                         n);
      break;
    case Element::kBool:
      logical(k, as<bool>(in), as<bool>(inout), n);
      break;
    case Element::kLogical:
      logical(k, as<int32_t>(in), as<int32_t>(inout), n);
      break;
    case Element::kFloatInt:
      located<float, int>(k, in, inout, n);
      break;
    case Element::kDoubleInt:
      located<double, int>(k, in, inout, n);
      break;
    case Element::kLongInt:
      located<long, int>(k, in, inout, n);
      break;
    case Element::kIntInt:
      located<int, int>(k, in, inout, n);
      break;
    case Element::kShortInt:
      located<short, int>(k, in, inout, n);
      break;
    case Element::kLongDoubleInt:
      located<long double, int>(k, in, inout, n);
      break;
    case Element::kFloatFloat:
      located<float, float>(k, in, inout, n);
      break;
    case Element::kDoubleDouble:
      located<double, double>(k, in, inout, n);
      break;
    case Element::kNone:
      break;  // refused by check_op
  }
}

std::optional<weft::ReduceOp> core_op(MPI_Op op, const TypeInfo& type) {
  // A user-defined operation is never the core's: it is combined in rank order here.
  if (kind_of(op) == Kind::kNotPredefined || !core_dtype(type.element)) return std::nullopt;
  bool integral = type.family == Family::kCInteger || type.family == Family::kFortranInteger;
  if (op == MPI_SUM) return weft::ReduceOp::kSum;
  if (op == MPI_PROD) return weft::ReduceOp::kProduct;
  if (op == MPI_MIN) return weft::ReduceOp::kMin;
  if (op == MPI_MAX) return weft::ReduceOp::kMax;
  if (integral && op == MPI_BAND) return weft::ReduceOp::kBand;
  if (integral && op == MPI_BOR) return weft::ReduceOp::kBor;
  if (integral && op == MPI_BXOR) return weft::ReduceOp::kBxor;
  return std::nullopt;
}

}  // namespace weft::mpi
