// MPI_Type_get_envelope and MPI_Type_get_contents (and their _c forms), from the recipe
// each constructor records (type_recipes.h).
#include <algorithm>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/type_recipes.h"

namespace weft::mpi {

RecipeWriter::RecipeWriter(int combiner, bool large) {
  recipe_.combiner = combiner;
  recipe_.large = large;
}

RecipeWriter& RecipeWriter::count(MPI_Count value) {
  if (recipe_.large) {
    recipe_.large_counts.push_back(value);
  } else {
    recipe_.integers.push_back(static_cast<int>(value));
  }
  return *this;
}

RecipeWriter& RecipeWriter::address(MPI_Aint value) {
  if (recipe_.large) {
    recipe_.large_counts.push_back(value);
  } else {
    recipe_.addresses.push_back(value);
  }
  return *this;
}

RecipeWriter& RecipeWriter::integer(int value) {
  recipe_.integers.push_back(value);
  return *this;
}

RecipeWriter& RecipeWriter::integers(MPI_Count n, const int* values) {
  for (MPI_Count i = 0; i < n; ++i) integer(values[i]);
  return *this;
}

RecipeWriter& RecipeWriter::type(MPI_Datatype type) {
  RecipeType kept;
  if (is_predefined(type)) {
    kept.permanent = type;
  } else {
    MPI_ABI_Datatype& object = derived_of(type, "oldtype");
    if (object.permanent) {
      kept.permanent = type;
    } else {
      kept.typemap = object.typemap;
      kept.recipe = object.recipe;
      kept.committed = object.committed;
    }
  }
  recipe_.types.push_back(std::move(kept));
  return *this;
}

RecipeWriter& RecipeWriter::types(MPI_Count n, const MPI_Datatype* types) {
  for (MPI_Count i = 0; i < n; ++i) type(types[i]);
  return *this;
}

MPI_Datatype RecipeWriter::attach(MPI_Datatype newtype) {
  derived_of(newtype).recipe = std::make_shared<const Recipe>(std::move(recipe_));
  return newtype;
}

std::shared_ptr<const Recipe> recipe_of(MPI_Datatype type) {
  if (is_predefined(type)) return nullptr;
  MPI_ABI_Datatype& object = derived_of(type);
  if (object.recipe == nullptr) {
    throw MpiError(MPI_ERR_INTERN, "the datatype does not record how it was made");
  }
  return object.recipe;
}

MPI_Datatype handle_for(const RecipeType& type) {
  if (type.permanent != MPI_DATATYPE_NULL) return type.permanent;
  auto* object = new MPI_ABI_Datatype();
  object->typemap = type.typemap;
  object->recipe = type.recipe;
  object->committed = type.committed;
  return object;
}

namespace {

struct Envelope {
  MPI_Count integers = 0, addresses = 0, large_counts = 0, datatypes = 0;
  int combiner = MPI_COMBINER_NAMED;
};

Envelope envelope_of(MPI_Datatype type) {
  Envelope e;
  std::shared_ptr<const Recipe> r = recipe_of(type);
  if (r == nullptr) return e;  // predefined: MPI_COMBINER_NAMED
  e.integers = static_cast<MPI_Count>(r->integers.size());
  e.addresses = static_cast<MPI_Count>(r->addresses.size());
  e.large_counts = static_cast<MPI_Count>(r->large_counts.size());
  e.datatypes = static_cast<MPI_Count>(r->types.size());
  e.combiner = r->combiner;
  return e;
}

void check_room(MPI_Count given, size_t needed, const char* what) {
  if (given < 0 || static_cast<size_t>(given) < needed) {
    throw MpiError(MPI_ERR_ARG, std::string(what) + " " + std::to_string(given) +
                                    " is less than the " + std::to_string(needed) +
                                    " the datatype's envelope gives");
  }
}

template <typename T>
void copy_out(const std::vector<T>& from, T* to, const char* what) {
  if (from.empty()) return;
  if (to == nullptr) throw MpiError(MPI_ERR_ARG, std::string(what) + " is NULL");
  std::copy(from.begin(), from.end(), to);
}

void contents_of(MPI_Datatype type, MPI_Count max_integers, MPI_Count max_addresses,
                 MPI_Count max_large_counts, MPI_Count max_datatypes, int integers[],
                 MPI_Aint addresses[], MPI_Count large_counts[], MPI_Datatype datatypes[]) {
  std::shared_ptr<const Recipe> r = recipe_of(type);
  if (r == nullptr) {
    throw MpiError(MPI_ERR_TYPE,
                   "the datatype is predefined (MPI_COMBINER_NAMED): it has no contents");
  }
  check_room(max_integers, r->integers.size(), "max_integers");
  check_room(max_addresses, r->addresses.size(), "max_addresses");
  check_room(max_large_counts, r->large_counts.size(), "max_large_counts");
  check_room(max_datatypes, r->types.size(), "max_datatypes");
  copy_out(r->integers, integers, "array_of_integers");
  copy_out(r->addresses, addresses, "array_of_addresses");
  copy_out(r->large_counts, large_counts, "array_of_large_counts");
  if (!r->types.empty() && datatypes == nullptr) {
    throw MpiError(MPI_ERR_ARG, "array_of_datatypes is NULL");
  }
  for (size_t i = 0; i < r->types.size(); ++i) datatypes[i] = handle_for(r->types[i]);
}

}  // namespace
}  // namespace weft::mpi

using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

extern "C" {

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                             MPI_Count* num_addresses, MPI_Count* num_large_counts,
                             MPI_Count* num_datatypes, int* combiner) {
  return mpi_call("MPI_Type_get_envelope_c", MPI_COMM_WORLD, [&] {
    require_pointer(num_integers, "num_integers");
    require_pointer(num_addresses, "num_addresses");
    require_pointer(num_large_counts, "num_large_counts");
    require_pointer(num_datatypes, "num_datatypes");
    require_pointer(combiner, "combiner");
    weft::mpi::Envelope e = weft::mpi::envelope_of(datatype);
    *num_integers = e.integers;
    *num_addresses = e.addresses;
    *num_large_counts = e.large_counts;
    *num_datatypes = e.datatypes;
    *combiner = e.combiner;
  });
}
WEFT_MPI_ALIAS(Type_get_envelope_c)

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                           int* num_datatypes, int* combiner) {
  return mpi_call("MPI_Type_get_envelope", MPI_COMM_WORLD, [&] {
    require_pointer(num_integers, "num_integers");
    require_pointer(num_addresses, "num_addresses");
    require_pointer(num_datatypes, "num_datatypes");
    require_pointer(combiner, "combiner");
    weft::mpi::Envelope e = weft::mpi::envelope_of(datatype);
    if (e.large_counts > 0) {
      throw MpiError(MPI_ERR_TYPE,
                     "the datatype was made by a large-count constructor: its arguments "
                     "need MPI_Type_get_envelope_c");
    }
    *num_integers = static_cast<int>(e.integers);
    *num_addresses = static_cast<int>(e.addresses);
    *num_datatypes = static_cast<int>(e.datatypes);
    *combiner = e.combiner;
  });
}
WEFT_MPI_ALIAS(Type_get_envelope)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
  return mpi_call("MPI_Type_get_contents_c", MPI_COMM_WORLD, [&] {
    weft::mpi::contents_of(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                           array_of_integers, array_of_addresses, array_of_large_counts,
                           array_of_datatypes);
  });
}
WEFT_MPI_ALIAS(Type_get_contents_c)

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  return mpi_call("MPI_Type_get_contents", MPI_COMM_WORLD, [&] {
    if (weft::mpi::envelope_of(datatype).large_counts > 0) {
      throw MpiError(MPI_ERR_TYPE,
                     "the datatype was made by a large-count constructor: its arguments "
                     "need MPI_Type_get_contents_c");
    }
    weft::mpi::contents_of(datatype, max_integers, max_addresses, 0, max_datatypes,
                           array_of_integers, array_of_addresses, nullptr, array_of_datatypes);
  });
}
WEFT_MPI_ALIAS(Type_get_contents)

}  // extern "C"
