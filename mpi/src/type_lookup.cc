// The functions that find a datatype rather than build one: MPI_Type_match_size,
// MPI_Type_create_f90_{integer,real,complex} and MPI_Type_get_value_index.
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/type_recipes.h"

namespace weft::mpi {
namespace {

// The Fortran kinds weft has, by the decimal precision and exponent range each holds
// (IEEE binary32, binary64 and x86's 80-bit extended as REAL16, whose typemap it is).
struct RealKind {
  int precision, range;
  MPI_Datatype real, complex;
};
const RealKind kRealKinds[] = {
    {6, 37, MPI_REAL4, MPI_COMPLEX8},
    {15, 307, MPI_REAL8, MPI_COMPLEX16},
    {18, 4931, MPI_REAL16, MPI_COMPLEX32},
};

struct IntegerKind {
  int range;
  MPI_Datatype type;
};
const IntegerKind kIntegerKinds[] = {
    {2, MPI_INTEGER1},  {4, MPI_INTEGER2},   {9, MPI_INTEGER4},
    {18, MPI_INTEGER8}, {38, MPI_INTEGER16},
};

// The standard's f90 datatypes are predefined in all but name: one per combiner and
// arguments, never freed, carrying the combiner and (p, r) for MPI_Type_get_contents.
MPI_Datatype f90_type(int combiner, int p, int r, MPI_Datatype basis) {
  static std::mutex mutex;
  static auto* made = new std::map<std::tuple<int, int, int>, MPI_Datatype>();
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(combiner, p, r);
  auto found = made->find(key);
  if (found != made->end()) return found->second;
  MPI_Datatype type = make_dup(basis);
  RecipeWriter recipe(combiner, false);
  if (combiner != MPI_COMBINER_F90_INTEGER) recipe.integer(p);
  recipe.integer(r).attach(type);
  MPI_ABI_Datatype& object = derived_of(type);
  object.committed = true;
  object.permanent = true;
  made->emplace(key, type);
  return type;
}

MPI_Datatype real_kind(int combiner, int p, int r) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
    throw MpiError(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
  }
  for (const RealKind& kind : kRealKinds) {
    if ((p == MPI_UNDEFINED || p <= kind.precision) && (r == MPI_UNDEFINED || r <= kind.range)) {
      return f90_type(combiner, p, r, combiner == MPI_COMBINER_F90_REAL ? kind.real : kind.complex);
    }
  }
  throw MpiError(MPI_ERR_ARG, "no real kind has precision " + std::to_string(p) +
                                  " and exponent range " + std::to_string(r));
}

MPI_Datatype integer_kind(int r) {
  for (const IntegerKind& kind : kIntegerKinds) {
    if (r <= kind.range) return f90_type(MPI_COMBINER_F90_INTEGER, 0, r, kind.type);
  }
  throw MpiError(MPI_ERR_ARG, "no integer kind has exponent range " + std::to_string(r));
}

MPI_Datatype matching(int typeclass, int size) {
  struct Sized {
    int typeclass, size;
    MPI_Datatype type;
  };
  static const Sized kTypes[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
      {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32}, {MPIX_TYPECLASS_LOGICAL, 1, MPI_LOGICAL1},
      {MPIX_TYPECLASS_LOGICAL, 2, MPI_LOGICAL2},  {MPIX_TYPECLASS_LOGICAL, 4, MPI_LOGICAL4},
      {MPIX_TYPECLASS_LOGICAL, 8, MPI_LOGICAL8},  {MPIX_TYPECLASS_LOGICAL, 16, MPI_LOGICAL16},
  };
  bool known_class = false;
  for (const Sized& t : kTypes) {
    if (t.typeclass != typeclass) continue;
    known_class = true;
    if (t.size == size) return t.type;
  }
  if (!known_class) {
    throw MpiError(MPI_ERR_ARG,
                   "typeclass " + std::to_string(typeclass) + " is not an MPI_TYPECLASS_* value");
  }
  throw MpiError(MPI_ERR_ARG, "no datatype of typeclass " + std::to_string(typeclass) +
                                  " has size " + std::to_string(size));
}

MPI_Datatype value_index(MPI_Datatype value, MPI_Datatype index) {
  typemap_of(value, "value_type");
  typemap_of(index, "index_type");
  struct Pair {
    MPI_Datatype value, index, pair;
  };
  static const Pair kPairs[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
  };
  for (const Pair& p : kPairs) {
    if (p.value == value && p.index == index) return p.pair;
  }
  return MPI_DATATYPE_NULL;  // no predefined pair type: the standard allows NULL
}

}  // namespace
}  // namespace weft::mpi

using weft::mpi::mpi_call;
using weft::mpi::require_pointer;

extern "C" {

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  return mpi_call("MPI_Type_match_size", MPI_COMM_WORLD, [&] {
    require_pointer(datatype, "datatype");
    *datatype = weft::mpi::matching(typeclass, size);
  });
}
WEFT_MPI_ALIAS(Type_match_size)

int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  return mpi_call("MPI_Type_create_f90_integer", MPI_COMM_WORLD, [&] {
    require_pointer(newtype, "newtype");
    *newtype = weft::mpi::integer_kind(r);
  });
}
WEFT_MPI_ALIAS(Type_create_f90_integer)

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return mpi_call("MPI_Type_create_f90_real", MPI_COMM_WORLD, [&] {
    require_pointer(newtype, "newtype");
    *newtype = weft::mpi::real_kind(MPI_COMBINER_F90_REAL, p, r);
  });
}
WEFT_MPI_ALIAS(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return mpi_call("MPI_Type_create_f90_complex", MPI_COMM_WORLD, [&] {
    require_pointer(newtype, "newtype");
    *newtype = weft::mpi::real_kind(MPI_COMBINER_F90_COMPLEX, p, r);
  });
}
WEFT_MPI_ALIAS(Type_create_f90_complex)

int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype* pair_type) {
  return mpi_call("MPI_Type_get_value_index", MPI_COMM_WORLD, [&] {
    require_pointer(pair_type, "pair_type");
    *pair_type = weft::mpi::value_index(value_type, index_type);
  });
}
WEFT_MPI_ALIAS(Type_get_value_index)

}  // extern "C"
