// MPI_Type_create_subarray and MPI_Type_create_darray (and their _c forms), built from
// the other constructors one dimension at a time, fastest-varying first.
#include "mpi/src/array_types.h"

#include <algorithm>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/type_constructors.h"
#include "mpi/src/type_recipes.h"

namespace weft::mpi {
namespace {

// An intermediate datatype, freed when the construction is done or fails.
class Temporary {
 public:
  Temporary() = default;
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  ~Temporary() { reset(MPI_DATATYPE_NULL); }
  void reset(MPI_Datatype type) {
    if (type_ != MPI_DATATYPE_NULL) free_datatype(&type_);
    type_ = type;
  }
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

[[noreturn]] void bad(const std::string& what) { throw MpiError(MPI_ERR_ARG, what); }

std::string at(const char* array, int i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

int64_t checked_product(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) bad("the array's size in bytes overflows 64 bits");
  return r;
}

void check_arrays(int ndims, std::initializer_list<std::pair<const void*, const char*>> arrays) {
  if (ndims <= 0) bad("ndims " + std::to_string(ndims) + " is not positive");
  for (const auto& [array, name] : arrays) {
    if (array == nullptr) bad(std::string(name) + " is NULL");
  }
}

}  // namespace

MPI_Datatype make_array_type(const std::vector<int64_t>& sizes,
                             const std::vector<std::vector<IndexRun>>& runs, int order,
                             MPI_Datatype oldtype) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    bad("order " + std::to_string(order) + " is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN");
  }
  int64_t stride = typemap_of(oldtype, "oldtype")->extent;
  int ndims = static_cast<int>(sizes.size());
  Temporary built;  // the dimensions done so far
  for (int k = 0; k < ndims; ++k) {
    int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
    std::vector<MPI_Count> lengths;
    std::vector<MPI_Aint> displacements;
    for (const IndexRun& run : runs[d]) {
      lengths.push_back(run.length);
      displacements.push_back(checked_product(run.start, stride));
    }
    // One step of this dimension is one whole row of the dimensions done.
    Temporary row;
    MPI_Datatype element = oldtype;
    if (k > 0) {
      row.reset(make_resized(built.get(), 0, stride));
      element = row.get();
    }
    built.reset(make_hindexed(static_cast<MPI_Count>(lengths.size()), lengths.data(),
                              displacements.data(), element));
    stride = checked_product(stride, sizes[d]);
  }
  return make_resized(built.get(), 0, stride);
}

MPI_Datatype make_subarray(int ndims, const int64_t sizes[], const int64_t subsizes[],
                           const int64_t starts[], int order, MPI_Datatype oldtype) {
  check_arrays(
      ndims,
      {{sizes, "array_of_sizes"}, {subsizes, "array_of_subsizes"}, {starts, "array_of_starts"}});
  std::vector<int64_t> dims(sizes, sizes + ndims);
  std::vector<std::vector<IndexRun>> runs(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    if (sizes[i] <= 0)
      bad(at("array_of_sizes", i) + " " + std::to_string(sizes[i]) + " is not positive");
    if (subsizes[i] < 0 || subsizes[i] > sizes[i]) {
      bad(at("array_of_subsizes", i) + " " + std::to_string(subsizes[i]) + " is outside [0, " +
          std::to_string(sizes[i]) + "]");
    }
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
      bad(at("array_of_starts", i) + " " + std::to_string(starts[i]) + " is outside [0, " +
          std::to_string(sizes[i] - subsizes[i]) + "]");
    }
    runs[i].push_back({starts[i], subsizes[i]});
  }
  return make_array_type(dims, runs, order, oldtype);
}

std::vector<IndexRun> distributed_runs(int64_t gsize, int distrib, int darg, int psize, int coord,
                                       int dim) {
  std::vector<IndexRun> runs;
  std::string where = "dimension " + std::to_string(dim);
  if (distrib == MPI_DISTRIBUTE_NONE) {
    if (psize != 1)
      bad(where + " is MPI_DISTRIBUTE_NONE over " + std::to_string(psize) + " processes, not 1");
    runs.push_back({0, gsize});
  } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
    int64_t block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    if (block <= 0 || checked_product(block, psize) < gsize) {
      bad(where + ": blocks of " + std::to_string(block) + " over " + std::to_string(psize) +
          " processes do not cover its " + std::to_string(gsize) + " elements");
    }
    int64_t start = std::min<int64_t>(gsize, checked_product(coord, block));
    int64_t end = std::min<int64_t>(gsize, start + block);
    if (end > start) runs.push_back({start, end - start});
  } else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
    int64_t block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    if (block <= 0) bad(where + ": cyclic block size " + std::to_string(darg) + " is not positive");
    for (int64_t start = checked_product(coord, block); start < gsize; start += block * psize) {
      runs.push_back({start, std::min(block, gsize - start)});
    }
  } else {
    bad(where + ": distribution " + std::to_string(distrib) + " is not an MPI_DISTRIBUTE_* value");
  }
  return runs;
}

MPI_Datatype make_darray(int size, int rank, int ndims, const int64_t gsizes[],
                         const int distribs[], const int dargs[], const int psizes[], int order,
                         MPI_Datatype oldtype) {
  check_arrays(ndims, {{gsizes, "array_of_gsizes"},
                       {distribs, "array_of_distribs"},
                       {dargs, "array_of_dargs"},
                       {psizes, "array_of_psizes"}});
  if (size <= 0) bad("size " + std::to_string(size) + " is not positive");
  if (rank < 0 || rank >= size) bad("rank " + std::to_string(rank) + " is outside [0, size)");
  int64_t processes = 1;
  for (int i = 0; i < ndims; ++i) {
    if (psizes[i] <= 0) bad(at("array_of_psizes", i) + " is not positive");
    if (gsizes[i] <= 0) bad(at("array_of_gsizes", i) + " is not positive");
    processes = checked_product(processes, psizes[i]);
  }
  if (processes != size) {
    bad("the process grid has " + std::to_string(processes) + " processes, not size " +
        std::to_string(size));
  }
  // The process grid is numbered in row-major order whatever the array's order.
  std::vector<int> coords(static_cast<size_t>(ndims));
  for (int i = ndims - 1, r = rank; i >= 0; --i) {
    coords[i] = r % psizes[i];
    r /= psizes[i];
  }
  std::vector<int64_t> dims(gsizes, gsizes + ndims);
  std::vector<std::vector<IndexRun>> runs;
  for (int i = 0; i < ndims; ++i) {
    runs.push_back(distributed_runs(gsizes[i], distribs[i], dargs[i], psizes[i], coords[i], i));
  }
  return make_array_type(dims, runs, order, oldtype);
}

}  // namespace weft::mpi

using weft::mpi::construct_type;
using weft::mpi::mpi_call;
using weft::mpi::RecipeWriter;
using weft::mpi::require_pointer;

namespace {

template <typename T>
std::vector<int64_t> widened(int n, const T* values) {
  if (n <= 0 || values == nullptr) return {};
  return std::vector<int64_t>(values, values + n);
}

template <typename Size>
MPI_Datatype subarray(bool large, int ndims, const Size sizes[], const Size subsizes[],
                      const Size starts[], int order, MPI_Datatype oldtype) {
  std::vector<int64_t> s = widened(ndims, sizes), sub = widened(ndims, subsizes),
                       st = widened(ndims, starts);
  MPI_Datatype t =
      weft::mpi::make_subarray(ndims, sizes ? s.data() : nullptr, subsizes ? sub.data() : nullptr,
                               starts ? st.data() : nullptr, order, oldtype);
  return RecipeWriter(MPI_COMBINER_SUBARRAY, large)
      .integer(ndims)
      .counts(ndims, sizes)
      .counts(ndims, subsizes)
      .counts(ndims, starts)
      .integer(order)
      .type(oldtype)
      .attach(t);
}

template <typename Size>
MPI_Datatype darray(bool large, int size, int rank, int ndims, const Size gsizes[],
                    const int distribs[], const int dargs[], const int psizes[], int order,
                    MPI_Datatype oldtype) {
  std::vector<int64_t> g = widened(ndims, gsizes);
  MPI_Datatype t = weft::mpi::make_darray(size, rank, ndims, gsizes ? g.data() : nullptr, distribs,
                                          dargs, psizes, order, oldtype);
  return RecipeWriter(MPI_COMBINER_DARRAY, large)
      .integer(size)
      .integer(rank)
      .integer(ndims)
      .counts(ndims, gsizes)
      .integers(ndims, distribs)
      .integers(ndims, dargs)
      .integers(ndims, psizes)
      .integer(order)
      .type(oldtype)
      .attach(t);
}

}  // namespace

extern "C" {

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_subarray", newtype, [&] {
    return subarray(false, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                    oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_subarray)

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_subarray_c", newtype, [&] {
    return subarray(true, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                    oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_subarray_c)

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_darray", newtype, [&] {
    return darray(false, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_darray)

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  return construct_type("MPI_Type_create_darray_c", newtype, [&] {
    return darray(true, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype);
  });
}
WEFT_MPI_ALIAS(Type_create_darray_c)

}  // extern "C"
