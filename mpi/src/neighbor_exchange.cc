#include "mpi/src/neighbor_exchange.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>

#include "mpi/src/errors.h"

namespace weft::mpi {

namespace {

// The order in which `neighbors` exchange blocks with the core: grouped by rank, each
// rank's sorted by label, then by position; MPI_PROC_NULL left out.
std::vector<size_t> core_order(const std::vector<int>& neighbors, const std::vector<int>& labels) {
  std::vector<size_t> order;
  for (size_t k = 0; k < neighbors.size(); ++k) {
    if (neighbors[k] != MPI_PROC_NULL) order.push_back(k);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(neighbors[a], labels[a], a) < std::tie(neighbors[b], labels[b], b);
  });
  return order;
}

// Each side's blocks in the core's order, with the bytes for each rank.
void lay_out(const std::vector<int>& neighbors, const std::vector<int>& labels, const BlockAt& at,
             int group_size, std::vector<NeighborBlock>& blocks, std::vector<uint64_t>& counts,
             std::vector<std::byte>& bytes) {
  std::vector<NeighborBlock> by_position(neighbors.size());
  // Every block is checked, MPI_PROC_NULL's too: its arguments are the program's all the same.
  for (size_t k = 0; k < neighbors.size(); ++k) by_position[k] = at(k);
  counts.assign(static_cast<size_t>(group_size), 0);
  uint64_t total = 0;
  for (size_t k : core_order(neighbors, labels)) {
    blocks.push_back(by_position[k]);
    counts[static_cast<size_t>(neighbors[k])] += by_position[k].bytes();
    total += by_position[k].bytes();
  }
  bytes.resize(total + 1);  // never empty: the core is given a real address
}

}  // namespace

NeighborExchange::NeighborExchange(const MPI_ABI_Comm& comm, const Topology& topology,
                                   const BlockAt& send, const BlockAt& receive)
    : group_(comm.group) {
  int size = comm.group.size();
  lay_out(topology.destinations, topology.destination_labels, send, size, sends_, send_counts_,
          send_bytes_);
  lay_out(topology.sources, topology.source_labels, receive, size, receives_, receive_counts_,
          receive_bytes_);
}

weft::Request NeighborExchange::start(bool async) {
  std::byte* out = send_bytes_.data();
  for (const NeighborBlock& b : sends_) {
    pack(reinterpret_cast<const void*>(b.address), b.count, *b.typemap, out);
    out += b.bytes();
  }
  weft::Tensor input(send_bytes_.data(), send_bytes_.size() - 1, weft::DType::kUInt8);
  weft::Tensor output(receive_bytes_.data(), receive_bytes_.size() - 1, weft::DType::kUInt8);
  if (async) {
    return weft::iall_to_allv(input, send_counts_, {}, output, receive_counts_, {}, group_);
  }
  weft::all_to_allv(input, send_counts_, {}, output, receive_counts_, {}, group_);
  return weft::Request();
}

void NeighborExchange::finish() const {
  const std::byte* in = receive_bytes_.data();
  for (const NeighborBlock& b : receives_) {
    unpack(in, b.bytes(), b.count, *b.typemap, reinterpret_cast<void*>(b.address));
    in += b.bytes();
  }
}

}  // namespace weft::mpi
