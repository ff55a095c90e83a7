// What the collectives share: byte views of MPI buffers, the per-rank counts of the
// v-forms in bytes, and the rank-order combination of gathered contributions (which
// gives every rank the same bits, and keeps a non-commutative operation in order).
#pragma once

#include <mpi.h>
#include <weft/tensor.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi/src/datatypes.h"

namespace weft::mpi {

weft::Tensor bytes_at(const void* base, uint64_t offset, uint64_t bytes);

// MPI_ERR_TRUNCATE unless the sender's and the receiver's block are the same size.
void check_same_bytes(const weft::Tensor& send, const weft::Tensor& recv);

// `counts[0..n)` (and `displs`, in elements) in bytes of `datatype`; MPI_ERR_COUNT for a
// negative count, naming `what`.
std::vector<uint64_t> byte_counts(const int counts[], int n, MPI_Datatype datatype,
                                  const char* what);

// The bytes a v-form buffer spans: the end of its furthest block.
uint64_t span_of(const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs);

// contributions first..last of `all` (each `count` elements, one after another),
// combined as x_first op (... op x_last), into `out`.
void combine_in_rank_order(MPI_Op op, const TypeInfo& type, size_t count, int first, int last,
                           const std::byte* all, void* out);

}  // namespace weft::mpi
