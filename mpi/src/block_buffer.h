// A buffer as a collective (or a single message) sees it: blocks of one datatype in the
// program's memory, one per rank or just one, as the bytes the core moves. Where each
// block's data is one byte range (every predefined datatype, a dense derived one, a
// single block laid out contiguously), the core moves the program's memory itself and
// the blocks keep their places. Otherwise (a vector, a struct with gaps, a resized type)
// the blocks are staged one after another in a packed buffer: pack() copies the
// program's data in before a send, unpack() spreads what arrived back out after a
// receive. Every datatype's packed form is its data without padding, so a send and a
// receive whose type signatures match always agree on the bytes.
#pragma once

#include <mpi.h>
#include <weft/tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace weft::mpi {

class BlockBuffer {
 public:
  // `count` elements at `buf`. `what` names the buffer in errors: "send", "receive".
  static BlockBuffer single(const void* buf, MPI_Count count, MPI_Datatype datatype,
                            const char* what);
  // `blocks` blocks of `count` elements each, one after another (Gather's receive buffer).
  static BlockBuffer uniform(const void* buf, int count, int blocks, MPI_Datatype datatype,
                             const char* what);
  // Block r: counts[r] elements starting displs[r] extents after `buf` (the v-forms).
  // MPI_ERR_COUNT for a negative count or displacement, naming the array and index.
  static BlockBuffer varying(const void* buf, const int counts[], const int displs[], int blocks,
                             MPI_Datatype datatype, const char* counts_name,
                             const char* displs_name);

  // The bytes of `count` elements at `buf` when they are one range of the program's
  // memory, which needs no BlockBuffer (nor its allocations); nullopt otherwise. Checks
  // the arguments as single() does.
  static std::optional<weft::Tensor> in_place(const void* buf, MPI_Count count,
                                              MPI_Datatype datatype, const char* what);

  // The bytes the core moves: the program's memory, or the staging buffer.
  const weft::Tensor& tensor() const { return tensor_; }
  // Block r's bytes, and where it starts, in tensor().
  const std::vector<uint64_t>& counts() const;
  const std::vector<uint64_t>& offsets() const;
  weft::Tensor block(int r) const;
  uint64_t block_bytes(int r) const { return counts()[static_cast<size_t>(r)]; }
  bool staged() const;

  // Staged only, no-ops otherwise: the program's data of every block (or block r) into
  // the staging buffer, and back out of it (the first `bytes` of block r: a receive may
  // bring fewer than the block holds).
  void pack() const;
  void pack(int r) const;
  void unpack() const;
  void unpack(int r, uint64_t bytes) const;

  // What must live until the core is done with tensor(), counts() and offsets().
  std::shared_ptr<void> keep_alive() const { return state_; }

 private:
  struct State;
  struct Block {
    uint64_t displacement;  // in extents from the buffer
    uint64_t count;         // elements
  };
  static BlockBuffer make(const void* buf, const std::vector<Block>& blocks, MPI_Datatype datatype,
                          const char* what);
  std::shared_ptr<State> state_;
  weft::Tensor tensor_;
};

}  // namespace weft::mpi
