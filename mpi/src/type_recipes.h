// What MPI_Type_get_envelope and MPI_Type_get_contents answer: every constructor
// records its combiner and arguments with the new datatype, in the order of the
// standard's table for that combiner. A type made by a large-count (_c) constructor keeps
// its counts, displacements and bounds as large counts, the others as integers and
// addresses, as the standard requires.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "mpi/src/derived_types.h"

namespace weft::mpi {

// A datatype an argument named: a predefined one (or one of MPI_Type_create_f90_*'s,
// which is never freed) by its handle, a derived one by what it was, so that a recipe
// outlives the program's MPI_Type_free of its old types.
struct RecipeType {
  MPI_Datatype permanent = MPI_DATATYPE_NULL;
  std::shared_ptr<const Typemap> typemap;
  std::shared_ptr<const Recipe> recipe;
  bool committed = false;
};

struct Recipe {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> integers;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Count> large_counts;
  std::vector<RecipeType> types;
  bool large = false;  // made by a _c constructor
};

// Writes a recipe argument by argument, each where its kind of constructor puts it.
class RecipeWriter {
 public:
  RecipeWriter(int combiner, bool large);
  // A count or block length: an integer, or a large count from a _c constructor.
  RecipeWriter& count(MPI_Count value);
  template <typename T>
  RecipeWriter& counts(MPI_Count n, const T* values) {
    for (MPI_Count i = 0; i < n; ++i) count(static_cast<MPI_Count>(values[i]));
    return *this;
  }
  // A byte displacement or bound: an address, or a large count from a _c constructor.
  RecipeWriter& address(MPI_Aint value);
  template <typename T>
  RecipeWriter& addresses(MPI_Count n, const T* values) {
    for (MPI_Count i = 0; i < n; ++i) address(static_cast<MPI_Aint>(values[i]));
    return *this;
  }
  // An integer in either kind (ndims, order, distributions, ...).
  RecipeWriter& integer(int value);
  RecipeWriter& integers(MPI_Count n, const int* values);
  RecipeWriter& type(MPI_Datatype type);
  RecipeWriter& types(MPI_Count n, const MPI_Datatype* types);
  // Stores the recipe with `newtype` (a derived datatype) and returns it.
  MPI_Datatype attach(MPI_Datatype newtype);

 private:
  Recipe recipe_;
};

// The recipe of a datatype; null for a predefined one.
std::shared_ptr<const Recipe> recipe_of(MPI_Datatype type);

// A handle for a recipe's old type: the permanent handle itself, otherwise a new
// derived datatype the caller frees.
MPI_Datatype handle_for(const RecipeType& type);

}  // namespace weft::mpi
