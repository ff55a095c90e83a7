// GPUDirect RDMA's part of the engine: which messages move device memory directly, and
// their requests (RequestState::device). The rest of the engine sees ordinary
// rendezvous messages, with two branches on the rendezvous path: the CTS of a receive
// into device memory says so (kCtsToDevice), and a stream to or from device memory goes
// by Link::send_stream_by_rdma. docs/ARCHITECTURE.md, "Verbs".
#include "p2p/engine.h"

namespace weft::p2p {

bool Engine::moves_device_memory(int world_peer, uint64_t bytes) {
  if (bytes <= options_.eager_limit || world_peer < 0 || world_peer == rank_) return false;
  std::lock_guard<base::FutexMutex> lock(mutex_);
  const Peer& p = peers_[world_peer];
  return p.link != nullptr && !p.link->failed() && p.link->takes_device_memory();
}

Engine::RequestPtr Engine::isend_device(GroupPtr group, const Tensor& tensor, int device, int dst,
                                        int tag, bool user_async, bool synchronous) {
  const DeviceBuffer memory{device, nullptr};
  return post(OpKind::kSend, std::move(group), tensor, dst, tag, user_async, synchronous, 0,
              &memory);
}

Engine::RequestPtr Engine::irecv_device(GroupPtr group, const Tensor& staging, void* target,
                                        int device, int src, int tag, bool user_async) {
  const DeviceBuffer memory{device, static_cast<std::byte*>(target)};
  return post(OpKind::kRecv, std::move(group), staging, src, tag, user_async, false, 0, &memory);
}

}  // namespace weft::p2p
