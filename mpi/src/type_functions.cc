// The derived datatype functions (MPI_Type_contiguous ... MPI_Type_free, the extent and
// name queries) and MPI_Pack, MPI_Unpack, MPI_Pack_size, over derived_types.h. Errors
// that concern no communicator go to MPI_COMM_WORLD's error handler, as elsewhere;
// Pack and Unpack use their communicator's.
#include <climits>
#include <cstring>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/keyvals.h"
#include "mpi/src/objects.h"
#include "mpi/src/type_constructors.h"
#include "mpi/src/type_recipes.h"

using weft::mpi::construct_type;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::RecipeWriter;
using weft::mpi::require_pointer;

namespace {}  // namespace

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_contiguous", newtype,
                        [&] { return weft::mpi::contiguous_type(false, count, oldtype); });
}
WEFT_MPI_ALIAS(Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return construct_type("MPI_Type_vector", newtype, [&] {
    return weft::mpi::vector_type(false, count, blocklength, stride, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_hvector", newtype, [&] {
    return weft::mpi::hvector_type(false, count, blocklength, stride, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_hvector)

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return construct_type("MPI_Type_indexed", newtype, [&] {
    return weft::mpi::indexed_type(false, count, array_of_blocklengths, array_of_displacements,
                                   oldtype);
  });
}
WEFT_MPI_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_hindexed", newtype, [&] {
    return weft::mpi::hindexed_type(false, count, array_of_blocklengths, array_of_displacements,
                                    oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_indexed_block", newtype, [&] {
    return weft::mpi::indexed_block_type(false, count, blocklength, array_of_displacements,
                                         oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_hindexed_block", newtype, [&] {
    return weft::mpi::hindexed_block_type(false, count, blocklength, array_of_displacements,
                                          oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_struct", newtype, [&] {
    return weft::mpi::struct_type(false, count, array_of_blocklengths, array_of_displacements,
                                  array_of_types);
  });
}
WEFT_MPI_ALIAS(Type_create_struct)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_resized", newtype,
                        [&] { return weft::mpi::resized_type(false, oldtype, lb, extent); });
}
WEFT_MPI_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct_type("MPI_Type_dup", newtype, [&] {
    MPI_Datatype dup =
        RecipeWriter(MPI_COMBINER_DUP, false).type(oldtype).attach(weft::mpi::make_dup(oldtype));
    weft::mpi::copy_attributes(oldtype, dup);
    return dup;
  });
}
WEFT_MPI_ALIAS(Type_dup)

int PMPI_Type_commit(MPI_Datatype* datatype) {
  return mpi_call("MPI_Type_commit", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Type_commit");
    require_pointer(datatype, "the datatype argument (MPI_Datatype*)");
    weft::mpi::commit_datatype(*datatype);
  });
}
WEFT_MPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype* datatype) {
  return mpi_call("MPI_Type_free", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Type_free");
    require_pointer(datatype, "the datatype argument (MPI_Datatype*)");
    if (weft::mpi::is_derived(*datatype)) weft::mpi::delete_attributes(*datatype);
    weft::mpi::free_datatype(datatype);
  });
}
WEFT_MPI_ALIAS(Type_free)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return mpi_call("MPI_Type_get_extent", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Type_get_extent");
    require_pointer(lb, "lb");
    require_pointer(extent, "extent");
    const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
    *lb = t.lb;
    *extent = t.extent;
  });
}
WEFT_MPI_ALIAS(Type_get_extent)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return mpi_call("MPI_Type_get_true_extent", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Type_get_true_extent");
    require_pointer(true_lb, "true_lb");
    require_pointer(true_extent, "true_extent");
    const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
    *true_lb = t.true_lb;
    *true_extent = t.true_extent;
  });
}
WEFT_MPI_ALIAS(Type_get_true_extent)

int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  return mpi_call("MPI_Type_get_name", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Type_get_name");
    require_pointer(type_name, "type_name");
    require_pointer(resultlen, "resultlen");
    // The null handle has a name too (MPI-4.1).
    std::string name = datatype == MPI_DATATYPE_NULL ? std::string("MPI_DATATYPE_NULL")
                                                     : weft::mpi::datatype_name(datatype);
    std::memcpy(type_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
  });
}
WEFT_MPI_ALIAS(Type_get_name)

int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  return mpi_call("MPI_Type_set_name", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Type_set_name");
    require_pointer(type_name, "type_name");
    weft::mpi::set_datatype_name(datatype, type_name);
  });
}
WEFT_MPI_ALIAS(Type_set_name)

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  return mpi_call("MPI_Get_address", MPI_COMM_WORLD, [&] {
    require_pointer(address, "address");
    *address = reinterpret_cast<MPI_Aint>(location);
  });
}
WEFT_MPI_ALIAS(Get_address)

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
              int* position, MPI_Comm comm) {
  return mpi_call("MPI_Pack", comm, [&] {
    weft::mpi::require_initialized("MPI_Pack");
    weft::mpi::comm_of(comm);
    require_pointer(position, "position");
    weft::mpi::check_position(*position, outsize, "outsize");
    weft::mpi::BufferLayout layout = weft::mpi::layout_of(inbuf, incount, datatype, "input");
    uint64_t room = static_cast<uint64_t>(outsize - *position);
    if (layout.bytes > room) {
      throw MpiError(MPI_ERR_TRUNCATE, "packing " + std::to_string(layout.bytes) +
                                           " bytes at position " + std::to_string(*position) +
                                           " overflows the output buffer of " +
                                           std::to_string(outsize) + " bytes");
    }
    if (layout.bytes == 0) return;
    if (outbuf == nullptr) throw MpiError(MPI_ERR_BUFFER, "outbuf is NULL");
    weft::mpi::pack(layout, static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<int>(layout.bytes);
  });
}
WEFT_MPI_ALIAS(Pack)

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  return mpi_call("MPI_Unpack", comm, [&] {
    weft::mpi::require_initialized("MPI_Unpack");
    weft::mpi::comm_of(comm);
    require_pointer(position, "position");
    weft::mpi::check_position(*position, insize, "insize");
    weft::mpi::BufferLayout layout = weft::mpi::layout_of(outbuf, outcount, datatype, "output");
    uint64_t left = static_cast<uint64_t>(insize - *position);
    if (layout.bytes > left) {
      throw MpiError(MPI_ERR_TRUNCATE, "unpacking " + std::to_string(layout.bytes) +
                                           " bytes at position " + std::to_string(*position) +
                                           " overruns the input buffer of " +
                                           std::to_string(insize) + " bytes");
    }
    if (layout.bytes == 0) return;
    if (inbuf == nullptr) throw MpiError(MPI_ERR_BUFFER, "inbuf is NULL");
    weft::mpi::unpack(static_cast<const std::byte*>(inbuf) + *position, layout.bytes, layout);
    *position += static_cast<int>(layout.bytes);
  });
}
WEFT_MPI_ALIAS(Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return mpi_call("MPI_Pack_size", comm, [&] {
    weft::mpi::require_initialized("MPI_Pack_size");
    weft::mpi::comm_of(comm);
    require_pointer(size, "size");
    uint64_t each = weft::mpi::datatype_size(datatype);
    if (incount < 0) {
      throw MpiError(MPI_ERR_COUNT, "incount " + std::to_string(incount) + " is negative");
    }
    uint64_t bytes = each * static_cast<uint64_t>(incount);
    if (each != 0 && bytes / each != static_cast<uint64_t>(incount)) bytes = UINT64_MAX;
    if (bytes > static_cast<uint64_t>(INT_MAX)) {
      throw MpiError(MPI_ERR_COUNT, "incount " + std::to_string(incount) + " of " +
                                        std::to_string(each) +
                                        "-byte elements packs to more than INT_MAX bytes");
    }
    *size = static_cast<int>(bytes);
  });
}
WEFT_MPI_ALIAS(Pack_size)

}  // extern "C"
