// The array datatypes: MPI_Type_create_subarray's block of a multidimensional array and
// MPI_Type_create_darray's share of a distributed one, without the MPI_Init check. Both
// are the elements of a global array (C or Fortran order) whose index in every dimension
// lies in that dimension's runs, in the array's memory order, with lb 0 and the whole
// array's extent.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace weft::mpi {

// Indices [start, start + length) of one dimension.
struct IndexRun {
  int64_t start;
  int64_t length;
};

// The runs of process coordinate `coord` (of `psize`) in a dimension of `gsize` elements
// distributed as `distrib` (MPI_DISTRIBUTE_*) with argument `darg`; MpiError(MPI_ERR_ARG)
// for a distribution that cannot be carried out.
std::vector<IndexRun> distributed_runs(int64_t gsize, int distrib, int darg, int psize, int coord,
                                       int dim);

// The general form both constructors use: MPI_ERR_ARG for a bad order or size.
MPI_Datatype make_array_type(const std::vector<int64_t>& sizes,
                             const std::vector<std::vector<IndexRun>>& runs, int order,
                             MPI_Datatype oldtype);

MPI_Datatype make_subarray(int ndims, const int64_t sizes[], const int64_t subsizes[],
                           const int64_t starts[], int order, MPI_Datatype oldtype);
MPI_Datatype make_darray(int size, int rank, int ndims, const int64_t gsizes[],
                         const int distribs[], const int dargs[], const int psizes[], int order,
                         MPI_Datatype oldtype);

}  // namespace weft::mpi
