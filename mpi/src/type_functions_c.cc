// The large-count (_c) forms of the datatype constructors, queries, counts and packing,
// and the deprecated _x queries: the same work as type_functions.cc with 64-bit counts,
// displacements and results.
#include <cstring>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/datatypes.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/type_constructors.h"
#include "mpi/src/type_recipes.h"

using weft::mpi::construct_type;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

// The elements of a predefined type travel at their extent (a pair type with its
// padding), of a derived one at its size, as MPI_Get_count counts them.
uint64_t count_in(const MPI_Status* status, MPI_Datatype datatype) {
  require_pointer(status, "status");
  uint64_t bytes = weft::mpi::status_bytes(*status);
  if (weft::mpi::is_derived(datatype)) return weft::mpi::element_count(bytes, datatype);
  const weft::mpi::TypeInfo& type = weft::mpi::type_info(datatype);
  if (type.extent == 0) return 0;
  return bytes % type.extent == 0 ? bytes / type.extent : weft::mpi::kUndefinedCount;
}

uint64_t elements_in(const MPI_Status* status, MPI_Datatype datatype) {
  if (!weft::mpi::is_derived(datatype)) return count_in(status, datatype);
  require_pointer(status, "status");
  return weft::mpi::basic_element_count(weft::mpi::status_bytes(*status), datatype);
}

MPI_Count as_count(uint64_t n) {
  return n == weft::mpi::kUndefinedCount ? MPI_Count{MPI_UNDEFINED} : static_cast<MPI_Count>(n);
}

// The _c queries and their deprecated _x twins (MPI-4.1) answer alike.
int type_size(const char* function, MPI_Datatype datatype, MPI_Count* size) {
  return mpi_call(function, MPI_COMM_WORLD, [&] {
    require_pointer(size, "size");
    *size = static_cast<MPI_Count>(weft::mpi::datatype_size(datatype));
  });
}

int type_extent(const char* function, MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return mpi_call(function, MPI_COMM_WORLD, [&] {
    require_pointer(lb, "lb");
    require_pointer(extent, "extent");
    const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
    *lb = t.lb;
    *extent = t.extent;
  });
}

int type_true_extent(const char* function, MPI_Datatype datatype, MPI_Count* true_lb,
                     MPI_Count* true_extent) {
  return mpi_call(function, MPI_COMM_WORLD, [&] {
    require_pointer(true_lb, "true_lb");
    require_pointer(true_extent, "true_extent");
    const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
    *true_lb = t.true_lb;
    *true_extent = t.true_extent;
  });
}

int elements(const char* function, const MPI_Status* status, MPI_Datatype datatype,
             MPI_Count* count) {
  return mpi_call(function, MPI_COMM_WORLD, [&] {
    require_pointer(count, "count");
    *count = as_count(elements_in(status, datatype));
  });
}

uint64_t packed_bytes(MPI_Count count, const weft::mpi::Typemap& t, const char* what) {
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), t.size, &bytes) ||
      bytes > static_cast<uint64_t>(INT64_MAX)) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) +
                                      " of the datatype overflows 63 bits of data");
  }
  return bytes;
}

}  // namespace

extern "C" {

// ---- Constructors ----

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_contiguous_c", newtype,
                        [&] { return weft::mpi::contiguous_type(true, count, oldtype); });
}
WEFT_MPI_ALIAS(Type_contiguous_c)

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_vector_c", newtype, [&] {
    return weft::mpi::vector_type(true, count, blocklength, stride, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_vector_c)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_hvector_c", newtype, [&] {
    return weft::mpi::hvector_type(true, count, blocklength, stride, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_hvector_c)

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype* newtype) {
  return construct_type("MPI_Type_indexed_c", newtype, [&] {
    return weft::mpi::indexed_type(true, count, array_of_blocklengths, array_of_displacements,
                                   oldtype);
  });
}
WEFT_MPI_ALIAS(Type_indexed_c)

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_hindexed_c", newtype, [&] {
    return weft::mpi::hindexed_type(true, count, array_of_blocklengths, array_of_displacements,
                                    oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_hindexed_c)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_indexed_block_c", newtype, [&] {
    return weft::mpi::indexed_block_type(true, count, blocklength, array_of_displacements, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_hindexed_block_c", newtype, [&] {
    return weft::mpi::hindexed_block_type(true, count, blocklength, array_of_displacements,
                                          oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_hindexed_block_c)

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_struct_c", newtype, [&] {
    return weft::mpi::struct_type(true, count, array_of_blocklengths, array_of_displacements,
                                  array_of_types);
  });
}
WEFT_MPI_ALIAS(Type_create_struct_c)

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_resized_c", newtype,
                        [&] { return weft::mpi::resized_type(true, oldtype, lb, extent); });
}
WEFT_MPI_ALIAS(Type_create_resized_c)

// ---- Queries ----

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return type_size("MPI_Type_size_c", datatype, size);
}
WEFT_MPI_ALIAS(Type_size_c)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return type_size("MPI_Type_size_x", datatype, size);
}
WEFT_MPI_ALIAS(Type_size_x)

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return type_extent("MPI_Type_get_extent_c", datatype, lb, extent);
}
WEFT_MPI_ALIAS(Type_get_extent_c)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return type_extent("MPI_Type_get_extent_x", datatype, lb, extent);
}
WEFT_MPI_ALIAS(Type_get_extent_x)

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return type_true_extent("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent);
}
WEFT_MPI_ALIAS(Type_get_true_extent_c)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return type_true_extent("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent);
}
WEFT_MPI_ALIAS(Type_get_true_extent_x)

// ---- Counts ----

int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return mpi_call("MPI_Get_count_c", MPI_COMM_WORLD, [&] {
    require_pointer(count, "count");
    *count = as_count(count_in(status, datatype));
  });
}
WEFT_MPI_ALIAS(Get_count_c)

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements("MPI_Get_elements_c", status, datatype, count);
}
WEFT_MPI_ALIAS(Get_elements_c)

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements("MPI_Get_elements_x", status, datatype, count);
}
WEFT_MPI_ALIAS(Get_elements_x)

// ---- Packing ----

int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  return mpi_call("MPI_Pack_c", comm, [&] {
    weft::mpi::require_initialized("MPI_Pack_c");
    weft::mpi::comm_of(comm);
    require_pointer(position, "position");
    weft::mpi::check_position(*position, outsize, "outsize");
    weft::mpi::check_committed(datatype, "the input datatype");
    const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
    uint64_t bytes = packed_bytes(incount, t, "incount");
    if (bytes > static_cast<uint64_t>(outsize - *position)) {
      throw MpiError(MPI_ERR_TRUNCATE, "packing " + std::to_string(bytes) + " bytes at position " +
                                           std::to_string(*position) +
                                           " overflows the output buffer of " +
                                           std::to_string(outsize) + " bytes");
    }
    if (bytes == 0) return;
    if (outbuf == nullptr) throw MpiError(MPI_ERR_BUFFER, "outbuf is NULL");
    weft::mpi::pack(inbuf, static_cast<uint64_t>(incount), t,
                    static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<MPI_Count>(bytes);
  });
}
WEFT_MPI_ALIAS(Pack_c)

int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return mpi_call("MPI_Unpack_c", comm, [&] {
    weft::mpi::require_initialized("MPI_Unpack_c");
    weft::mpi::comm_of(comm);
    require_pointer(position, "position");
    weft::mpi::check_position(*position, insize, "insize");
    weft::mpi::check_committed(datatype, "the output datatype");
    const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
    uint64_t bytes = packed_bytes(outcount, t, "outcount");
    if (bytes > static_cast<uint64_t>(insize - *position)) {
      throw MpiError(MPI_ERR_TRUNCATE, "unpacking " + std::to_string(bytes) +
                                           " bytes at position " + std::to_string(*position) +
                                           " overruns the input buffer of " +
                                           std::to_string(insize) + " bytes");
    }
    if (bytes == 0) return;
    if (inbuf == nullptr) throw MpiError(MPI_ERR_BUFFER, "inbuf is NULL");
    weft::mpi::unpack(static_cast<const std::byte*>(inbuf) + *position, bytes,
                      static_cast<uint64_t>(outcount), t, outbuf);
    *position += static_cast<MPI_Count>(bytes);
  });
}
WEFT_MPI_ALIAS(Unpack_c)

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return mpi_call("MPI_Pack_size_c", comm, [&] {
    weft::mpi::require_initialized("MPI_Pack_size_c");
    weft::mpi::comm_of(comm);
    require_pointer(size, "size");
    *size =
        static_cast<MPI_Count>(packed_bytes(incount, *weft::mpi::typemap_of(datatype), "incount"));
  });
}
WEFT_MPI_ALIAS(Pack_size_c)

}  // extern "C"
