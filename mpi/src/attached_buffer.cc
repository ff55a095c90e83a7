#include "mpi/src/attached_buffer.h"

#include <climits>
#include <string>

#include "mpi/src/errors.h"

namespace weft::mpi {

void AttachedBuffer::attach(void* address, MPI_Count size) {
  if (attached_) throw MpiError(MPI_ERR_BUFFER, "a buffer is already attached");
  automatic_ = address == MPI_BUFFER_AUTOMATIC;
  if (!automatic_ && size < 0) {
    throw MpiError(MPI_ERR_ARG, "size " + std::to_string(size) + " is negative");
  }
  address_ = address;
  size_ = automatic_ ? 0 : size;
  attached_ = true;
}

AttachedBuffer::Detached AttachedBuffer::detach() {
  if (!attached_) throw MpiError(MPI_ERR_BUFFER, "no buffer is attached");
  // The standard: detaching waits until every message in the buffer has gone.
  flush();
  attached_ = false;
  return Detached{address_, size_};
}

void AttachedBuffer::reclaim() {
  std::erase_if(copies_, [&](const std::unique_ptr<Copy>& copy) {
    if (!copy->request.is_completed()) return false;
    in_use_ -= copy->bytes.size() + MPI_BSEND_OVERHEAD;
    return true;
  });
}

void AttachedBuffer::send(const weft::Tensor& bytes, int peer, int core_tag,
                          const weft::Group& group) {
  reclaim();
  uint64_t needed = bytes.bytes() + MPI_BSEND_OVERHEAD;
  if (!automatic_) {
    uint64_t room = attached_ ? static_cast<uint64_t>(size_) - in_use_ : 0;
    if (needed > room) {
      throw MpiError(MPI_ERR_BUFFER, "a buffered send of " + std::to_string(bytes.bytes()) +
                                         " bytes needs " + std::to_string(needed) +
                                         " bytes of attached buffer (with MPI_BSEND_OVERHEAD), " +
                                         (attached_ ? std::to_string(room) + " are free"
                                                    : std::string("but no buffer is attached")));
    }
  }
  auto copy = std::make_unique<Copy>();
  auto* data = static_cast<const std::byte*>(bytes.data());
  copy->bytes.assign(data, data + bytes.bytes());
  copy->request =
      weft::isend(weft::Tensor(copy->bytes.data(), copy->bytes.size(), weft::DType::kUInt8),
                  weft::GroupRank{peer}, core_tag, group);
  in_use_ += needed;
  // MPI_Finalize waits for the detached requests, so no buffered message is lost.
  library().detached.push_back(copy->request);
  copies_.push_back(std::move(copy));
}

void AttachedBuffer::flush() {
  for (auto& copy : copies_) copy->request.wait();
  copies_.clear();
  in_use_ = 0;
}

std::vector<weft::Request> AttachedBuffer::pending() {
  reclaim();
  std::vector<weft::Request> requests;
  for (auto& copy : copies_) requests.push_back(copy->request);
  return requests;
}

AttachedBuffer& process_buffer() {
  static AttachedBuffer* buffer = new AttachedBuffer();
  return *buffer;
}

AttachedBuffer& buffer_for(const MPI_ABI_Comm& comm) {
  if (comm.buffer && comm.buffer->attached()) return *comm.buffer;
  if (comm.session_buffer && comm.session_buffer->attached()) return *comm.session_buffer;
  return process_buffer();
}

void attach_buffer(AttachedBuffer& buffer, void* address, MPI_Count size) {
  buffer.attach(address, size);
}

void detach_buffer(AttachedBuffer& buffer, void* buffer_addr, MPI_Count* size) {
  if (buffer_addr == nullptr) throw MpiError(MPI_ERR_ARG, "buffer_addr is NULL");
  if (size == nullptr) throw MpiError(MPI_ERR_ARG, "size is NULL");
  AttachedBuffer::Detached detached = buffer.detach();
  *static_cast<void**>(buffer_addr) = detached.address;
  *size = detached.size;
}

void detach_buffer(AttachedBuffer& buffer, void* buffer_addr, int* size) {
  if (size == nullptr) throw MpiError(MPI_ERR_ARG, "size is NULL");
  MPI_Count full = 0;
  detach_buffer(buffer, buffer_addr, &full);
  // Detached already: the program gets its buffer back even though the size overflows.
  if (full > INT_MAX) {
    *size = MPI_UNDEFINED;
    throw MpiError(MPI_ERR_COUNT, "the detached buffer's size " + std::to_string(full) +
                                      " does not fit an int (use the _c form)");
  }
  *size = static_cast<int>(full);
}

MPI_Request flush_request(AttachedBuffer& buffer, MPI_Comm comm) {
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->proc_null = true;  // nothing of its own: it completes with the sends, empty
  r->more().also = buffer.pending();
  return r;
}

}  // namespace weft::mpi
