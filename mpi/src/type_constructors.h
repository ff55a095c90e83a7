// What the datatype constructors and packing functions share between their int forms
// and their large-count (_c) forms: each entry point names itself and passes its
// arguments, and one template here does the work. The templates take the form's own
// argument types, so each form still reaches its own make_* overload of derived_types.h;
// `large` says whether the recipe keeps its counts as large counts (type_recipes.h).
#pragma once

#include <mpi.h>

#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/type_recipes.h"

namespace weft::mpi {

// The common shape of the constructors: checks, builds, stores the new handle.
template <typename Make>
int construct_type(const char* function, MPI_Datatype* newtype, Make&& make) {
  return mpi_call(function, MPI_COMM_WORLD, [&] {
    require_initialized(function);
    require_pointer(newtype, "newtype");
    *newtype = make();
  });
}

// MPI_ERR_ARG for a negative buffer size (`what` names it: "outsize") or a position
// outside [0, size], as MPI_Pack, MPI_Unpack and their external32 forms check them.
inline void check_position(MPI_Count position, MPI_Count size, const char* what) {
  if (size < 0) {
    throw MpiError(MPI_ERR_ARG, std::string(what) + " " + std::to_string(size) + " is negative");
  }
  if (position < 0 || position > size) {
    throw MpiError(MPI_ERR_ARG, "position " + std::to_string(position) + " is outside [0, " +
                                    std::to_string(size) + "]");
  }
}

template <typename Count>
MPI_Datatype contiguous_type(bool large, Count count, MPI_Datatype oldtype) {
  return RecipeWriter(MPI_COMBINER_CONTIGUOUS, large)
      .count(count)
      .type(oldtype)
      .attach(make_contiguous(count, oldtype));
}

template <typename Count>
MPI_Datatype vector_type(bool large, Count count, Count blocklength, Count stride,
                         MPI_Datatype oldtype) {
  return RecipeWriter(MPI_COMBINER_VECTOR, large)
      .count(count)
      .count(blocklength)
      .count(stride)
      .type(oldtype)
      .attach(make_vector(count, blocklength, stride, oldtype));
}

template <typename Count, typename Stride>
MPI_Datatype hvector_type(bool large, Count count, Count blocklength, Stride stride,
                          MPI_Datatype oldtype) {
  return RecipeWriter(MPI_COMBINER_HVECTOR, large)
      .count(count)
      .count(blocklength)
      .address(stride)
      .type(oldtype)
      .attach(make_hvector(count, blocklength, stride, oldtype));
}

template <typename Count>
MPI_Datatype indexed_type(bool large, Count count, const Count blocklengths[],
                          const Count displacements[], MPI_Datatype oldtype) {
  MPI_Datatype t = make_indexed(count, blocklengths, displacements, oldtype);
  return RecipeWriter(MPI_COMBINER_INDEXED, large)
      .count(count)
      .counts(count, blocklengths)
      .counts(count, displacements)
      .type(oldtype)
      .attach(t);
}

template <typename Count, typename Displacement>
MPI_Datatype hindexed_type(bool large, Count count, const Count blocklengths[],
                           const Displacement displacements[], MPI_Datatype oldtype) {
  MPI_Datatype t = make_hindexed(count, blocklengths, displacements, oldtype);
  return RecipeWriter(MPI_COMBINER_HINDEXED, large)
      .count(count)
      .counts(count, blocklengths)
      .addresses(count, displacements)
      .type(oldtype)
      .attach(t);
}

template <typename Count>
MPI_Datatype indexed_block_type(bool large, Count count, Count blocklength,
                                const Count displacements[], MPI_Datatype oldtype) {
  MPI_Datatype t = make_indexed_block(count, blocklength, displacements, oldtype);
  return RecipeWriter(MPI_COMBINER_INDEXED_BLOCK, large)
      .count(count)
      .count(blocklength)
      .counts(count, displacements)
      .type(oldtype)
      .attach(t);
}

template <typename Count, typename Displacement>
MPI_Datatype hindexed_block_type(bool large, Count count, Count blocklength,
                                 const Displacement displacements[], MPI_Datatype oldtype) {
  MPI_Datatype t = make_hindexed_block(count, blocklength, displacements, oldtype);
  return RecipeWriter(MPI_COMBINER_HINDEXED_BLOCK, large)
      .count(count)
      .count(blocklength)
      .addresses(count, displacements)
      .type(oldtype)
      .attach(t);
}

template <typename Count, typename Displacement>
MPI_Datatype struct_type(bool large, Count count, const Count blocklengths[],
                         const Displacement displacements[], const MPI_Datatype types[]) {
  MPI_Datatype t = make_struct(count, blocklengths, displacements, types);
  return RecipeWriter(MPI_COMBINER_STRUCT, large)
      .count(count)
      .counts(count, blocklengths)
      .addresses(count, displacements)
      .types(count, types)
      .attach(t);
}

template <typename Bound>
MPI_Datatype resized_type(bool large, MPI_Datatype oldtype, Bound lb, Bound extent) {
  return RecipeWriter(MPI_COMBINER_RESIZED, large)
      .address(lb)
      .address(extent)
      .type(oldtype)
      .attach(make_resized(oldtype, lb, extent));
}

}  // namespace weft::mpi
