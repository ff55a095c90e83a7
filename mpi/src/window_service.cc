#include "mpi/src/window_service.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "mpi/src/errors.h"
#include "mpi/src/window_memory.h"
#include "weft/error.h"
#include "weft/p2p.h"

namespace weft::mpi {
namespace {

// Tags on the window's own communicator (rma_synchronization.cc's notices use 1 and 2).
constexpr int kRequestTag = 3;
constexpr int kReplyTag = 4;

enum class Kind : uint32_t { kPut, kGet, kAccumulate, kCompareAndSwap, kLock, kUnlock, kStop };

weft::Tensor bytes_of(const void* data, uint64_t n) {
  return weft::Tensor(const_cast<void*>(data), n, weft::DType::kUInt8);
}

// A reply: the error class (MPI_SUCCESS), the message's length, the message, the data.
struct ReplyHeader {
  int32_t error_class = MPI_SUCCESS;
  uint32_t message_bytes = 0;
};

}  // namespace

// What a request message starts with; the target typemap's segments and the payload
// follow it.
struct WindowService::Request {
  Kind kind = Kind::kStop;
  int32_t lock_type = 0;
  uint64_t address = 0;  // the origin's: translated on the way (see call and handle)
  uint64_t count = 0;
  // The target typemap, rebuilt at the target from its segments.
  int64_t extent = 0;
  uint64_t size = 0;
  uint64_t segments = 0;
  // An accumulate's predefined element type and operation: the standard ABI's handle
  // values, the same in every process.
  uint64_t element = 0;
  uint64_t op = 0;
  uint32_t fetch = 0;  // an accumulate that returns the old values
  uint32_t unused = 0;
};

WindowService::WindowService(const weft::Group& group, const WindowMemory& memory)
    : group_(group), memory_(memory) {
  thread_ = std::thread([this] { serve(); });
}

WindowService::~WindowService() {
  Request stop;
  stop.kind = Kind::kStop;
  try {
    weft::send(bytes_of(&stop, sizeof stop), weft::GroupRank{group_.rank()}, kRequestTag, group_);
  } catch (const std::exception&) {
    // The job is failing: the service's own receive fails too, and it ends.
  }
  thread_.join();
}

std::vector<std::byte> WindowService::call(int rank, const Request& request, const Typemap* typemap,
                                           const std::byte* payload, uint64_t payload_bytes,
                                           uint64_t reply_bytes) {
  std::vector<std::byte> message(sizeof request);
  Request header = request;
  // Sent relative to the target's base as this process knows it, because the same
  // memory may be mapped at other addresses there (an allocated window's segment).
  header.address -= memory_.target(rank).base;
  if (typemap != nullptr) {
    header.extent = typemap->extent;
    header.size = typemap->size;
    header.segments = typemap->segments.size();
  }
  std::memcpy(message.data(), &header, sizeof header);
  if (typemap != nullptr) {
    const auto* segments = reinterpret_cast<const std::byte*>(typemap->segments.data());
    message.insert(message.end(), segments, segments + header.segments * sizeof(Segment));
  }
  if (payload_bytes > 0) message.insert(message.end(), payload, payload + payload_bytes);

  std::lock_guard<std::mutex> one_at_a_time(calls_);
  std::vector<std::byte> reply(sizeof(ReplyHeader) + reply_bytes);
  weft::send(bytes_of(message.data(), message.size()), weft::GroupRank{rank}, kRequestTag, group_);
  // An error's message may be longer than the data asked for: probe for the size.
  weft::ProbeResult found = weft::probe(weft::GroupRank{rank}, kReplyTag, group_);
  reply.resize(std::max<uint64_t>(reply.size(), found.bytes));
  weft::recv(bytes_of(reply.data(), reply.size()), weft::GroupRank{rank}, kReplyTag, group_);
  ReplyHeader answer;
  std::memcpy(&answer, reply.data(), sizeof answer);
  if (answer.error_class != MPI_SUCCESS) {
    std::string why(reinterpret_cast<const char*>(reply.data() + sizeof answer),
                    answer.message_bytes);
    throw MpiError(answer.error_class, why);
  }
  reply.erase(reply.begin(), reply.begin() + sizeof answer);
  reply.resize(reply_bytes);
  return reply;
}

void WindowService::put(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                        const std::byte* packed) {
  Request r;
  r.kind = Kind::kPut;
  r.address = address;
  r.count = count;
  call(rank, r, &typemap, packed, count * typemap.size, 0);
}

void WindowService::get(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                        std::byte* packed) {
  Request r;
  r.kind = Kind::kGet;
  r.address = address;
  r.count = count;
  std::vector<std::byte> data = call(rank, r, &typemap, nullptr, 0, count * typemap.size);
  if (!data.empty()) std::memcpy(packed, data.data(), data.size());
}

void WindowService::accumulate(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                               MPI_Datatype element, MPI_Op op, const std::byte* origin,
                               std::byte* result) {
  Request r;
  r.kind = Kind::kAccumulate;
  r.address = address;
  r.count = count;
  r.element = reinterpret_cast<uintptr_t>(element);
  r.op = reinterpret_cast<uintptr_t>(op);
  r.fetch = result != nullptr ? 1 : 0;
  const uint64_t bytes = count * typemap.size;
  std::vector<std::byte> old =
      call(rank, r, &typemap, origin, op == MPI_NO_OP ? 0 : bytes, result != nullptr ? bytes : 0);
  if (result != nullptr && bytes > 0) std::memcpy(result, old.data(), bytes);
}

void WindowService::compare_and_swap(int rank, uint64_t address, const Typemap& typemap,
                                     const std::byte* origin, const std::byte* compare,
                                     std::byte* result) {
  Request r;
  r.kind = Kind::kCompareAndSwap;
  r.address = address;
  r.count = 1;
  std::vector<std::byte> both(origin, origin + typemap.size);
  both.insert(both.end(), compare, compare + typemap.size);
  std::vector<std::byte> old = call(rank, r, &typemap, both.data(), both.size(), typemap.size);
  std::memcpy(result, old.data(), typemap.size);
}

void WindowService::lock(int rank, int type) {
  Request r;
  r.kind = Kind::kLock;
  r.lock_type = type;
  call(rank, r, nullptr, nullptr, 0, 0);
}

void WindowService::unlock(int rank, int type) {
  Request r;
  r.kind = Kind::kUnlock;
  r.lock_type = type;
  call(rank, r, nullptr, nullptr, 0, 0);
}

// ---- The target's side ----

void WindowService::serve() {
  std::vector<std::byte> message;
  for (;;) {
    weft::ProbeResult found;
    try {
      found = weft::probe(weft::GroupRank{weft::kAnySource}, kRequestTag, group_);
    } catch (const weft::TimeoutError&) {
      continue;  // nothing asked for a while: keep serving
    } catch (const std::exception&) {
      return;  // the job is failing (a peer died, weft shut down): nobody can ask
    }
    message.resize(found.bytes);
    try {
      weft::recv(bytes_of(message.data(), message.size()), weft::GroupRank{found.group_source},
                 kRequestTag, group_);
      if (!handle(found.group_source, message)) return;
    } catch (const std::exception&) {
      return;
    }
  }
}

void WindowService::reply(int to, int error_class, const std::string& message,
                          const std::byte* data, uint64_t bytes) {
  std::vector<std::byte> out(sizeof(ReplyHeader));
  ReplyHeader header;
  header.error_class = error_class;
  header.message_bytes = static_cast<uint32_t>(message.size());
  std::memcpy(out.data(), &header, sizeof header);
  const auto* text = reinterpret_cast<const std::byte*>(message.data());
  out.insert(out.end(), text, text + message.size());
  if (bytes > 0) out.insert(out.end(), data, data + bytes);
  weft::send(bytes_of(out.data(), out.size()), weft::GroupRank{to}, kReplyTag, group_);
}

bool WindowService::handle(int source, const std::vector<std::byte>& message) {
  Request r;
  std::memcpy(&r, message.data(), sizeof r);
  if (r.kind == Kind::kStop) return false;
  const int me = group_.rank();
  r.address += memory_.target(me).base;
  if (r.kind == Kind::kLock) {
    waiting_.emplace_back(source, r.lock_type);
    grant_waiting();
    return true;
  }
  if (r.kind == Kind::kUnlock) {
    holders_ = r.lock_type == MPI_LOCK_EXCLUSIVE ? 0 : holders_ - 1;
    reply(source, MPI_SUCCESS, "", nullptr, 0);
    grant_waiting();
    return true;
  }
  Typemap typemap;
  typemap.extent = r.extent;
  typemap.size = r.size;
  typemap.segments.resize(r.segments);
  const std::byte* at = message.data() + sizeof r;
  std::memcpy(typemap.segments.data(), at, r.segments * sizeof(Segment));
  const std::byte* payload = at + r.segments * sizeof(Segment);
  const uint64_t bytes = r.count * typemap.size;
  std::vector<std::byte> out;
  try {
    switch (r.kind) {
      case Kind::kPut:
        memory_.put_here(me, r.address, r.count, typemap, payload);
        break;
      case Kind::kGet:
        out.resize(bytes);
        memory_.get_here(me, r.address, r.count, typemap, out.data());
        break;
      case Kind::kAccumulate:
        out.resize(r.fetch ? bytes : 0);
        memory_.accumulate_here(me, r.address, r.count, typemap,
                                reinterpret_cast<MPI_Datatype>(static_cast<uintptr_t>(r.element)),
                                reinterpret_cast<MPI_Op>(static_cast<uintptr_t>(r.op)), payload,
                                r.fetch ? out.data() : nullptr);
        break;
      case Kind::kCompareAndSwap:
        out.resize(typemap.size);
        memory_.compare_and_swap_here(me, r.address, typemap, payload, payload + typemap.size,
                                      out.data());
        break;
      default:
        break;
    }
  } catch (const std::exception& e) {
    reply(source, error_class_of(e), e.what(), nullptr, 0);
    return true;
  }
  reply(source, MPI_SUCCESS, "", out.data(), out.size());
  return true;
}

// Grants queued locks in arrival order while they fit: any number of sharers, or one
// exclusive holder.
void WindowService::grant_waiting() {
  while (!waiting_.empty()) {
    auto [origin, type] = waiting_.front();
    bool fits = type == MPI_LOCK_EXCLUSIVE ? holders_ == 0 : holders_ >= 0;
    if (!fits) return;
    holders_ = type == MPI_LOCK_EXCLUSIVE ? -1 : holders_ + 1;
    waiting_.erase(waiting_.begin());
    reply(origin, MPI_SUCCESS, "", nullptr, 0);
  }
}

}  // namespace weft::mpi
