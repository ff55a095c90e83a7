// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size (and their _c forms)
// for the one portable representation the standard defines, "external32": every basic
// element big-endian at the standard's size (a C long is 4 bytes, a long double a 16-byte
// IEEE binary128, a complex number its two parts). Data is packed natively first, then
// each basic element of the packed stream is converted in place order, using the
// predefined type every run of basic elements records.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/type_constructors.h"

namespace weft::mpi {
namespace {

enum class Kind {
  kSigned,      // two's complement integer, sign-extended or narrowed
  kUnsigned,    // unsigned integer, zero-extended or narrowed
  kFloat,       // IEEE binary16/32/64 (or raw bytes of one size): reversed
  kLongDouble,  // x86 80-bit extended in memory, binary128 in external32
};

struct External {
  size_t size;  // bytes of one part in external32
  Kind kind;
  int parts;  // 2 for complex numbers
};

External external_of(MPI_Datatype t) {
  struct Entry {
    MPI_Datatype type;
    External external;
  };
  static const Entry kTable[] = {
      {MPI_PACKED, {1, Kind::kUnsigned, 1}},
      {MPI_BYTE, {1, Kind::kUnsigned, 1}},
      {MPI_CHAR, {1, Kind::kSigned, 1}},
      {MPI_SIGNED_CHAR, {1, Kind::kSigned, 1}},
      {MPI_UNSIGNED_CHAR, {1, Kind::kUnsigned, 1}},
      {MPI_WCHAR, {4, Kind::kUnsigned, 1}},
      {MPI_SHORT, {2, Kind::kSigned, 1}},
      {MPI_UNSIGNED_SHORT, {2, Kind::kUnsigned, 1}},
      {MPI_INT, {4, Kind::kSigned, 1}},
      {MPI_UNSIGNED, {4, Kind::kUnsigned, 1}},
      {MPI_LONG, {4, Kind::kSigned, 1}},
      {MPI_UNSIGNED_LONG, {4, Kind::kUnsigned, 1}},
      {MPI_LONG_LONG, {8, Kind::kSigned, 1}},
      {MPI_UNSIGNED_LONG_LONG, {8, Kind::kUnsigned, 1}},
      {MPI_FLOAT, {4, Kind::kFloat, 1}},
      {MPI_DOUBLE, {8, Kind::kFloat, 1}},
      {MPI_LONG_DOUBLE, {16, Kind::kLongDouble, 1}},
      {MPI_C_BOOL, {1, Kind::kUnsigned, 1}},
      {MPI_CXX_BOOL, {1, Kind::kUnsigned, 1}},
      {MPI_INT8_T, {1, Kind::kSigned, 1}},
      {MPI_INT16_T, {2, Kind::kSigned, 1}},
      {MPI_INT32_T, {4, Kind::kSigned, 1}},
      {MPI_INT64_T, {8, Kind::kSigned, 1}},
      {MPI_UINT8_T, {1, Kind::kUnsigned, 1}},
      {MPI_UINT16_T, {2, Kind::kUnsigned, 1}},
      {MPI_UINT32_T, {4, Kind::kUnsigned, 1}},
      {MPI_UINT64_T, {8, Kind::kUnsigned, 1}},
      {MPI_AINT, {8, Kind::kSigned, 1}},
      {MPI_COUNT, {8, Kind::kSigned, 1}},
      {MPI_OFFSET, {8, Kind::kSigned, 1}},
      {MPI_C_FLOAT_COMPLEX, {4, Kind::kFloat, 2}},
      {MPI_C_DOUBLE_COMPLEX, {8, Kind::kFloat, 2}},
      {MPI_C_LONG_DOUBLE_COMPLEX, {16, Kind::kLongDouble, 2}},
      {MPI_CXX_FLOAT_COMPLEX, {4, Kind::kFloat, 2}},
      {MPI_CXX_DOUBLE_COMPLEX, {8, Kind::kFloat, 2}},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, {16, Kind::kLongDouble, 2}},
      {MPI_CHARACTER, {1, Kind::kUnsigned, 1}},
      {MPI_LOGICAL, {4, Kind::kSigned, 1}},
      {MPI_INTEGER, {4, Kind::kSigned, 1}},
      {MPI_REAL, {4, Kind::kFloat, 1}},
      {MPI_DOUBLE_PRECISION, {8, Kind::kFloat, 1}},
      {MPI_COMPLEX, {4, Kind::kFloat, 2}},
      {MPI_DOUBLE_COMPLEX, {8, Kind::kFloat, 2}},
      {MPI_LOGICAL1, {1, Kind::kSigned, 1}},
      {MPI_LOGICAL2, {2, Kind::kSigned, 1}},
      {MPI_LOGICAL4, {4, Kind::kSigned, 1}},
      {MPI_LOGICAL8, {8, Kind::kSigned, 1}},
      {MPI_LOGICAL16, {16, Kind::kSigned, 1}},
      {MPI_INTEGER1, {1, Kind::kSigned, 1}},
      {MPI_INTEGER2, {2, Kind::kSigned, 1}},
      {MPI_INTEGER4, {4, Kind::kSigned, 1}},
      {MPI_INTEGER8, {8, Kind::kSigned, 1}},
      {MPI_INTEGER16, {16, Kind::kSigned, 1}},
      {MPI_REAL2, {2, Kind::kFloat, 1}},
      {MPI_REAL4, {4, Kind::kFloat, 1}},
      {MPI_REAL8, {8, Kind::kFloat, 1}},
      {MPI_REAL16, {16, Kind::kLongDouble, 1}},
      {MPI_COMPLEX4, {2, Kind::kFloat, 2}},
      {MPI_COMPLEX8, {4, Kind::kFloat, 2}},
      {MPI_COMPLEX16, {8, Kind::kFloat, 2}},
      {MPI_COMPLEX32, {16, Kind::kLongDouble, 2}},
  };
  for (const Entry& e : kTable) {
    if (e.type == t) return e.external;
  }
  throw MpiError(MPI_ERR_TYPE, "the datatype has a basic element with no external32 form");
}

void check_datarep(const char* datarep) {
  if (datarep == nullptr) throw MpiError(MPI_ERR_ARG, "datarep is NULL");
  if (std::strcmp(datarep, "external32") != 0) {
    throw MpiError(MPI_ERR_UNSUPPORTED_DATAREP,
                   std::string("datarep \"") + datarep + "\" is not \"external32\"");
  }
}

// Calls f(type, native_size, n) for each run of n basic elements of `copies` copies of
// `node`, in pack order.
template <typename F>
void each_run(const BasicNode& node, uint64_t copies, F&& f) {
  if (node.items.size() == 1 && !node.items[0].inner) {
    f(node.items[0].type, node.items[0].size, node.items[0].repeat * copies);
    return;
  }
  for (uint64_t c = 0; c < copies; ++c) {
    for (const BasicItem& item : node.items) {
      if (item.inner) {
        each_run(*item.inner, item.repeat, f);
      } else {
        f(item.type, item.size, item.repeat);
      }
    }
  }
}

uint64_t external_bytes(const Typemap& t, uint64_t count) {
  uint64_t bytes = 0;
  if (count == 0 || t.size == 0) return 0;
  each_run(*t.basics, 1, [&](MPI_Datatype type, uint64_t, uint64_t n) {
    External e = external_of(type);
    bytes += e.size * e.parts * n;
  });
  uint64_t total;
  if (__builtin_mul_overflow(bytes, count, &total) || total > uint64_t{INT64_MAX}) {
    throw MpiError(MPI_ERR_COUNT, "the external32 data of " + std::to_string(count) +
                                      " elements overflows 63 bits");
  }
  return total;
}

void reverse_copy(const std::byte* from, std::byte* to, size_t n) {
  for (size_t i = 0; i < n; ++i) to[i] = from[n - 1 - i];
}

// One part of a basic element: native (little-endian) `from` to big-endian `to`.
void to_external(const std::byte* from, size_t native, std::byte* to, const External& e) {
  if (e.kind == Kind::kLongDouble) {
    long double v;
    std::memcpy(&v, from, sizeof v);
    __float128 q = static_cast<__float128>(v);
    reverse_copy(reinterpret_cast<const std::byte*>(&q), to, 16);
    return;
  }
  if (e.kind == Kind::kFloat || native == e.size) {
    reverse_copy(from, to, native);
    return;
  }
  // An integer changing size: extend to 128 bits, check it fits, narrow.
  unsigned __int128 u = 0;
  std::memcpy(&u, from, native);
  bool negative = e.kind == Kind::kSigned && (static_cast<uint8_t>(from[native - 1]) & 0x80);
  if (negative && native < 16) u |= ~(static_cast<unsigned __int128>(0)) << (8 * native);
  if (e.size < native) {
    unsigned __int128 high = u >> (8 * e.size - (e.kind == Kind::kSigned ? 1 : 0));
    bool fits =
        high == 0 || (negative && high == (~static_cast<unsigned __int128>(0) >> (8 * e.size - 1)));
    if (!fits) {
      throw MpiError(MPI_ERR_CONVERSION, "an integer does not fit the " + std::to_string(e.size) +
                                             " bytes external32 gives it");
    }
  }
  reverse_copy(reinterpret_cast<const std::byte*>(&u), to, e.size);
}

void from_external(const std::byte* from, std::byte* to, size_t native, const External& e) {
  if (e.kind == Kind::kLongDouble) {
    __float128 q;
    reverse_copy(from, reinterpret_cast<std::byte*>(&q), 16);
    long double v = static_cast<long double>(q);
    std::memset(to, 0, native);
    std::memcpy(to, &v, std::min(native, sizeof v));
    return;
  }
  if (e.kind == Kind::kFloat || native == e.size) {
    reverse_copy(from, to, native);
    return;
  }
  unsigned __int128 u = 0;
  reverse_copy(from, reinterpret_cast<std::byte*>(&u), e.size);
  bool negative = e.kind == Kind::kSigned && (static_cast<uint8_t>(from[0]) & 0x80);
  if (negative) u |= ~(static_cast<unsigned __int128>(0)) << (8 * e.size);
  if (native < e.size) {
    throw MpiError(MPI_ERR_CONVERSION, "an external32 integer is wider than its native type");
  }
  std::memcpy(to, &u, native);
}

// Converts `count` elements' packed native data to external32, or back.
template <bool kToExternal>
void convert(const Typemap& t, uint64_t count, const std::byte* in, std::byte* out) {
  if (count == 0 || t.size == 0) return;
  each_run(*t.basics, count, [&](MPI_Datatype type, uint64_t native_size, uint64_t n) {
    External e = external_of(type);
    size_t part = native_size / e.parts;
    for (uint64_t i = 0; i < n * e.parts; ++i) {
      if constexpr (kToExternal) {
        to_external(in, part, out, e);
      } else {
        from_external(in, out, part, e);
      }
      in += kToExternal ? part : e.size;
      out += kToExternal ? e.size : part;
    }
  });
}

void check_count(MPI_Count count, const char* what) {
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
  }
}

void pack_external(const char* datarep, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                   void* outbuf, MPI_Count outsize, MPI_Count* position) {
  require_initialized("MPI_Pack_external");
  check_datarep(datarep);
  require_pointer(position, "position");
  check_position(*position, outsize, "outsize");
  check_count(incount, "incount");
  check_committed(datatype, "the datatype");
  const Typemap& t = *typemap_of(datatype);
  uint64_t bytes = external_bytes(t, static_cast<uint64_t>(incount));
  if (bytes > static_cast<uint64_t>(outsize - *position)) {
    throw MpiError(MPI_ERR_TRUNCATE,
                   "packing " + std::to_string(bytes) + " external32 bytes at position " +
                       std::to_string(*position) + " overflows the output buffer of " +
                       std::to_string(outsize) + " bytes");
  }
  if (bytes == 0) return;
  if (outbuf == nullptr) throw MpiError(MPI_ERR_BUFFER, "outbuf is NULL");
  std::vector<std::byte> native(static_cast<size_t>(incount) * t.size);
  pack(inbuf, static_cast<uint64_t>(incount), t, native.data());
  convert<true>(t, static_cast<uint64_t>(incount), native.data(),
                static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(bytes);
}

void unpack_external(const char* datarep, const void* inbuf, MPI_Count insize, MPI_Count* position,
                     void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  require_initialized("MPI_Unpack_external");
  check_datarep(datarep);
  require_pointer(position, "position");
  check_position(*position, insize, "insize");
  check_count(outcount, "outcount");
  check_committed(datatype, "the datatype");
  const Typemap& t = *typemap_of(datatype);
  uint64_t bytes = external_bytes(t, static_cast<uint64_t>(outcount));
  if (bytes > static_cast<uint64_t>(insize - *position)) {
    throw MpiError(MPI_ERR_TRUNCATE,
                   "unpacking " + std::to_string(bytes) + " external32 bytes at position " +
                       std::to_string(*position) + " overruns the input buffer of " +
                       std::to_string(insize) + " bytes");
  }
  if (bytes == 0) return;
  if (inbuf == nullptr) throw MpiError(MPI_ERR_BUFFER, "inbuf is NULL");
  std::vector<std::byte> native(static_cast<size_t>(outcount) * t.size);
  convert<false>(t, static_cast<uint64_t>(outcount),
                 static_cast<const std::byte*>(inbuf) + *position, native.data());
  unpack(native.data(), native.size(), static_cast<uint64_t>(outcount), t, outbuf);
  *position += static_cast<MPI_Count>(bytes);
}

MPI_Count pack_external_size(const char* datarep, MPI_Count incount, MPI_Datatype datatype) {
  require_initialized("MPI_Pack_external_size");
  check_datarep(datarep);
  check_count(incount, "incount");
  return static_cast<MPI_Count>(
      external_bytes(*typemap_of(datatype), static_cast<uint64_t>(incount)));
}

}  // namespace
}  // namespace weft::mpi

using weft::mpi::mpi_call;
using weft::mpi::require_pointer;

extern "C" {

int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                       void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  return mpi_call("MPI_Pack_external", MPI_COMM_WORLD, [&] {
    weft::mpi::pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position);
  });
}
WEFT_MPI_ALIAS(Pack_external)

int PMPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                         MPI_Count* position) {
  return mpi_call("MPI_Pack_external_c", MPI_COMM_WORLD, [&] {
    weft::mpi::pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position);
  });
}
WEFT_MPI_ALIAS(Pack_external_c)

int PMPI_Unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize,
                         MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype) {
  return mpi_call("MPI_Unpack_external", MPI_COMM_WORLD, [&] {
    weft::mpi::unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype);
  });
}
WEFT_MPI_ALIAS(Unpack_external)

int PMPI_Unpack_external_c(const char* datarep, const void* inbuf, MPI_Count insize,
                           MPI_Count* position, void* outbuf, MPI_Count outcount,
                           MPI_Datatype datatype) {
  return mpi_call("MPI_Unpack_external_c", MPI_COMM_WORLD, [&] {
    weft::mpi::unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype);
  });
}
WEFT_MPI_ALIAS(Unpack_external_c)

int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint* size) {
  return mpi_call("MPI_Pack_external_size", MPI_COMM_WORLD, [&] {
    require_pointer(size, "size");
    *size = weft::mpi::pack_external_size(datarep, incount, datatype);
  });
}
WEFT_MPI_ALIAS(Pack_external_size)

int PMPI_Pack_external_size_c(const char* datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count* size) {
  return mpi_call("MPI_Pack_external_size_c", MPI_COMM_WORLD, [&] {
    require_pointer(size, "size");
    *size = weft::mpi::pack_external_size(datarep, incount, datatype);
  });
}
WEFT_MPI_ALIAS(Pack_external_size_c)

}  // extern "C"
