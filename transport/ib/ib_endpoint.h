// IbEndpoint: this process's end of one reliable connection, from its creation to the
// moment it becomes a link: the queue pair, taken RESET -> INIT at once and RTR -> RTS
// by connect(), and the memory registered once for the connection's life (the eager
// buffers and the word the peer writes to say it sleeps). Every receive is posted when
// the endpoint is made, before its address is published, so the peer's first SEND
// always finds one.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "transport/ib/verbs_context.h"

namespace weft::transport::ib {

struct EndpointOptions {
  uint32_t receives = 64;            // eager buffers posted for the peer (its credit)
  uint32_t buffer_bytes = 16 << 10;  // each eager buffer, headers included
  uint32_t writes_in_flight = 8;     // RDMA WRITEs of one transfer outstanding at once
};

// What the peer needs of this end, published through the job's store.
struct EndpointAddress {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint64_t sleep_address = 0;  // the word the peer writes when it goes to sleep
  uint32_t sleep_rkey = 0;
  uint32_t receives = 0;      // receives it keeps posted (the other end's credit)
  uint32_t buffer_bytes = 0;  // the size of each (the largest SEND it takes)
};

class IbEndpoint {
 public:
  // The send and receive queue depths an endpoint with `options` needs, for sizing the
  // completion queues before any endpoint exists.
  static uint32_t send_queue_depth(const EndpointOptions& options);
  static uint32_t receive_queue_depth(const EndpointOptions& options) { return options.receives; }

  // Creates the queue pair (in INIT), registers the buffers and posts every receive.
  // Throws weft::Error naming the call that failed.
  IbEndpoint(std::shared_ptr<VerbsContext> context, EndpointOptions options);
  ~IbEndpoint();
  IbEndpoint(const IbEndpoint&) = delete;
  IbEndpoint& operator=(const IbEndpoint&) = delete;

  EndpointAddress address() const;
  // RTR, then RTS, towards `remote` on `remote_port`: path MTU the smaller of both
  // ports', a GRH with this port's GID index on RoCE, the remote LID on InfiniBand.
  // Throws weft::Error naming the step.
  void connect(const PortAddress& remote_port, const EndpointAddress& remote);

  // Destroys the queue pair now (a failed link's): the adapter stops at once. Only the
  // memory stays, until the endpoint goes.
  void destroy_queue_pair();

  VerbsContext& context() { return *context_; }
  const std::shared_ptr<VerbsContext>& shared_context() const { return context_; }
  ibv_qp* qp() const { return qp_; }
  const EndpointOptions& options() const { return options_; }
  const EndpointAddress& remote() const { return remote_; }
  ibv_mtu path_mtu() const { return path_mtu_; }

  // Eager buffers: `receives` to receive into, as many to send from.
  std::byte* receive_buffer(uint32_t index) const { return buffers_ + index * stride(); }
  std::byte* send_buffer(uint32_t index) const {
    return buffers_ + (options_.receives + index) * stride();
  }
  uint32_t buffers_lkey() const { return buffers_mr_->lkey; }
  // Posts receive `index` again; 0 or ibv_post_recv's error.
  int post_receive(uint32_t index);

  // The word the peer writes its sleep generation into, and the one this end writes
  // its own from.
  volatile uint64_t* peer_sleep_word() const { return control_; }
  uint64_t* own_sleep_word() const { return const_cast<uint64_t*>(control_ + 1); }
  uint32_t control_lkey() const { return control_mr_->lkey; }

 private:
  uint64_t stride() const { return options_.buffer_bytes; }
  // Destroys what the endpoint made, in the order verbs require.
  void release();

  std::shared_ptr<VerbsContext> context_;
  EndpointOptions options_;
  ibv_qp* qp_ = nullptr;
  uint32_t psn_ = 0;
  EndpointAddress remote_;
  ibv_mtu path_mtu_ = IBV_MTU_1024;
  std::byte* buffers_ = nullptr;
  size_t buffers_bytes_ = 0;
  ibv_mr* buffers_mr_ = nullptr;
  volatile uint64_t* control_ = nullptr;  // one page
  ibv_mr* control_mr_ = nullptr;
};

}  // namespace weft::transport::ib
