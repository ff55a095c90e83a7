#include "mpi/src/block_buffer.h"

#include <algorithm>
#include <string>

#include "mpi/src/datatypes.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"

namespace weft::mpi {

struct BlockBuffer::State {
  bool staged = false;
  std::vector<uint64_t> counts, offsets;  // bytes, in the tensor
  // Staged only: each block's first element and element count, the typemap, and the
  // packed bytes.
  std::vector<std::byte*> starts;
  std::vector<uint64_t> elements;
  std::shared_ptr<const Typemap> typemap;
  std::vector<std::byte> staging;
};

namespace {

// `offset` bytes from `base`, computed as an integer: a derived datatype may address
// absolute locations from MPI_BOTTOM (a null `base`).
std::byte* at(const void* base, int64_t offset) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<uintptr_t>(base) +
                                      static_cast<uintptr_t>(offset));
}

uint64_t product(uint64_t a, uint64_t b, const char* what) {
  uint64_t p;
  if (__builtin_mul_overflow(a, b, &p)) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " count overflows 64 bits of data");
  }
  return p;
}

void check_count(MPI_Count count, const char* what) {
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT,
                   std::string(what) + " count " + std::to_string(count) + " is negative");
  }
}

}  // namespace

BlockBuffer BlockBuffer::make(const void* buf, const std::vector<Block>& blocks,
                              MPI_Datatype datatype, const char* what) {
  auto s = std::make_shared<State>();
  size_t n = blocks.size();
  s->counts.resize(n);
  s->offsets.resize(n);
  BlockBuffer result;
  result.state_ = s;
  uint64_t span = 0;
  std::byte* base = static_cast<std::byte*>(const_cast<void*>(buf));
  if (!is_derived(datatype)) {
    // Predefined: elements at their array stride, padding (MPI_DOUBLE_INT's) included.
    const TypeInfo& type = type_info(datatype);
    for (size_t r = 0; r < n; ++r) {
      s->counts[r] = product(blocks[r].count, type.extent, what);
      s->offsets[r] = product(blocks[r].displacement, type.extent, what);
      span = std::max(span, s->offsets[r] + s->counts[r]);
    }
    if (buf == nullptr && span > 0) {
      throw MpiError(MPI_ERR_BUFFER, std::string(what) + " buffer is NULL");
    }
    result.tensor_ = weft::Tensor(base, span, weft::DType::kUInt8);
    return result;
  }
  // layout_of checks the handle, its commit, and block 0's count.
  MPI_Count first_count = n == 0 ? 0 : static_cast<MPI_Count>(blocks[0].count);
  BufferLayout layout = layout_of(buf, first_count, datatype, what);
  const Typemap& t = *layout.typemap;
  if (t.size == 0 || t.dense()) {
    // Every element is `extent` bytes of data: the blocks are byte ranges in place.
    int64_t first = t.segments.empty() ? 0 : t.segments[0].offset;
    for (size_t r = 0; r < n; ++r) {
      s->counts[r] = product(blocks[r].count, t.size, what);
      s->offsets[r] = product(blocks[r].displacement, static_cast<uint64_t>(t.extent), what);
      span = std::max(span, s->offsets[r] + s->counts[r]);
    }
    if (at(buf, first) == nullptr && span > 0) {
      throw MpiError(MPI_ERR_BUFFER, std::string(what) + " buffer is NULL");
    }
    result.tensor_ = weft::Tensor(at(buf, first), span, weft::DType::kUInt8);
    return result;
  }
  s->staged = true;
  s->typemap = layout.typemap;
  s->starts.resize(n);
  s->elements.resize(n);
  for (size_t r = 0; r < n; ++r) {
    s->counts[r] = product(blocks[r].count, t.size, what);
    s->offsets[r] = span;
    span += s->counts[r];
    s->elements[r] = blocks[r].count;
    s->starts[r] = at(buf, static_cast<int64_t>(blocks[r].displacement) * t.extent);
  }
  s->staging.resize(span);
  result.tensor_ = weft::Tensor(s->staging.data(), span, weft::DType::kUInt8);
  return result;
}

std::optional<weft::Tensor> BlockBuffer::in_place(const void* buf, MPI_Count count,
                                                  MPI_Datatype datatype, const char* what) {
  check_count(count, what);
  if (is_derived(datatype)) {
    BufferLayout layout = layout_of(buf, count, datatype, what);
    if (!layout.contiguous) return std::nullopt;
    return weft::Tensor(layout.start, layout.bytes, weft::DType::kUInt8);
  }
  uint64_t bytes = product(static_cast<uint64_t>(count), type_info(datatype).extent, what);
  if (buf == nullptr && bytes > 0) {
    throw MpiError(MPI_ERR_BUFFER, std::string(what) + " buffer is NULL");
  }
  return weft::Tensor(const_cast<void*>(buf), bytes, weft::DType::kUInt8);
}

BlockBuffer BlockBuffer::single(const void* buf, MPI_Count count, MPI_Datatype datatype,
                                const char* what) {
  // A block that is one byte range of the program's memory moves as it is (in_place
  // checks the count and the buffer).
  if (std::optional<weft::Tensor> bytes = in_place(buf, count, datatype, what)) {
    BlockBuffer result;
    result.state_ = std::make_shared<State>();
    result.state_->counts = {bytes->bytes()};
    result.state_->offsets = {0};
    result.tensor_ = *bytes;
    return result;
  }
  return make(buf, {Block{0, static_cast<uint64_t>(count)}}, datatype, what);
}

BlockBuffer BlockBuffer::uniform(const void* buf, MPI_Count count, int blocks,
                                 MPI_Datatype datatype, const char* what) {
  check_count(count, what);
  std::vector<Block> list(static_cast<size_t>(blocks));
  for (int r = 0; r < blocks; ++r) {
    list[static_cast<size_t>(r)] =
        Block{product(static_cast<uint64_t>(r), static_cast<uint64_t>(count), what),
              static_cast<uint64_t>(count)};
  }
  return make(buf, list, datatype, what);
}

BlockBuffer BlockBuffer::varying(const void* buf, CountArray counts, CountArray displs, int blocks,
                                 MPI_Datatype datatype, const char* counts_name,
                                 const char* displs_name) {
  std::vector<Block> list(static_cast<size_t>(blocks));
  for (int r = 0; r < blocks; ++r) {
    for (auto [value, name] : {std::pair{counts[r], counts_name}, {displs[r], displs_name}}) {
      if (value < 0) {
        throw MpiError(MPI_ERR_COUNT, std::string(name) + "[" + std::to_string(r) +
                                          "] = " + std::to_string(value) + " is negative");
      }
    }
    list[static_cast<size_t>(r)] =
        Block{static_cast<uint64_t>(displs[r]), static_cast<uint64_t>(counts[r])};
  }
  return make(buf, list, datatype, counts_name);
}

const std::vector<uint64_t>& BlockBuffer::counts() const { return state_->counts; }

const std::vector<uint64_t>& BlockBuffer::offsets() const { return state_->offsets; }

weft::Tensor BlockBuffer::block(int r) const {
  size_t i = static_cast<size_t>(r);
  return weft::Tensor(static_cast<std::byte*>(tensor_.data()) + state_->offsets[i],
                      state_->counts[i], weft::DType::kUInt8);
}

bool BlockBuffer::staged() const { return state_->staged; }

void BlockBuffer::pack(int r) const {
  if (!state_->staged) return;
  size_t i = static_cast<size_t>(r);
  weft::mpi::pack(state_->starts[i], state_->elements[i], *state_->typemap,
                  state_->staging.data() + state_->offsets[i]);
}

void BlockBuffer::pack() const {
  for (size_t r = 0; r < state_->counts.size(); ++r) pack(static_cast<int>(r));
}

void BlockBuffer::unpack(int r, uint64_t bytes) const {
  if (!state_->staged) return;
  size_t i = static_cast<size_t>(r);
  weft::mpi::unpack(state_->staging.data() + state_->offsets[i], bytes, state_->elements[i],
                    *state_->typemap, state_->starts[i]);
}

void BlockBuffer::unpack() const {
  for (size_t r = 0; r < state_->counts.size(); ++r) {
    unpack(static_cast<int>(r), state_->counts[r]);
  }
}

}  // namespace weft::mpi
