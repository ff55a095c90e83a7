#include "mpi/src/collective_helpers.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mpi/src/errors.h"
#include "mpi/src/reduce_ops.h"

namespace weft::mpi {

weft::Tensor bytes_at(const void* base, uint64_t offset, uint64_t bytes) {
  auto* start = static_cast<std::byte*>(const_cast<void*>(base)) + offset;
  return weft::Tensor(start, bytes, weft::DType::kUInt8);
}

void check_same_bytes(const weft::Tensor& send, const weft::Tensor& recv) {
  if (send.bytes() != recv.bytes()) {
    throw MpiError(MPI_ERR_TRUNCATE, "the send block has " + std::to_string(send.bytes()) +
                                         " bytes but the receive block " +
                                         std::to_string(recv.bytes()));
  }
}

std::vector<uint64_t> byte_counts(const int counts[], int n, MPI_Datatype datatype,
                                  const char* what) {
  const TypeInfo& type = type_info(datatype);
  std::vector<uint64_t> bytes(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (counts[r] < 0) {
      throw MpiError(MPI_ERR_COUNT, std::string(what) + "[" + std::to_string(r) +
                                        "] = " + std::to_string(counts[r]) + " is negative");
    }
    bytes[static_cast<size_t>(r)] = static_cast<uint64_t>(counts[r]) * type.extent;
  }
  return bytes;
}

uint64_t span_of(const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs) {
  uint64_t end = 0;
  for (size_t r = 0; r < counts.size(); ++r) end = std::max(end, displs[r] + counts[r]);
  return end;
}

void combine_in_rank_order(MPI_Op op, const TypeInfo& type, size_t count, int first, int last,
                           const std::byte* all, void* out) {
  size_t block = count * type.extent;
  if (block == 0) return;
  std::vector<std::byte> acc(all + static_cast<size_t>(last) * block,
                             all + static_cast<size_t>(last + 1) * block);
  for (int r = last - 1; r >= first; --r) {
    reduce_local(op, type, all + static_cast<size_t>(r) * block, acc.data(), count);
  }
  std::memcpy(out, acc.data(), block);
}

}  // namespace weft::mpi
