// VerbsContext: the one verbs port a process uses, open for the life of its links: the
// device context, one protection domain, one completion queue for the sends of every
// queue pair and one for their receives, and the registrations of user buffers.
//
// Links share the two completion queues, and each polls them when it makes progress:
// poll() moves every completion into the mailbox of the queue pair it belongs to, so a
// link finds its own completions there, in order, whichever link polled them.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "transport/ib/registration_cache.h"
#include "transport/ib/verbs_api.h"

namespace weft::transport::ib {

// The port as weft addresses it, and as peers need to know it.
struct PortAddress {
  std::string device;  // "mlx5_0"
  uint8_t port = 0;
  bool ethernet = false;  // RoCE; otherwise InfiniBand
  uint16_t lid = 0;       // InfiniBand
  ibv_gid gid{};
  int gid_index = 0;
  bool roce_v2 = false;  // the GID's type, on Ethernet
  ibv_mtu mtu = IBV_MTU_1024;
  uint64_t max_message = 0;  // the port's max_msg_sz

  // "softib0:1"
  std::string name() const { return device + ":" + std::to_string(port); }
  // "RoCE v2 gid 1" or "InfiniBand lid 7"
  std::string addressing() const;
};

// 256 .. 4096 for the IBV_MTU_* values.
int mtu_bytes(ibv_mtu mtu);

class VerbsContext {
 public:
  // Completions of one queue pair, filled by poll(); the link empties them.
  struct Mailbox {
    std::vector<ibv_wc> sends;
    std::vector<ibv_wc> receives;
  };

  // Opens `device` and `port`, allocates the protection domain and reads the port's
  // address with GID `gid_index`. Throws weft::Error naming the device and the call.
  static std::shared_ptr<VerbsContext> open(const VerbsApi& api, const std::string& device,
                                            uint8_t port, int gid_index,
                                            RegistrationCache::Limits registrations);
  ~VerbsContext();
  VerbsContext(const VerbsContext&) = delete;
  VerbsContext& operator=(const VerbsContext&) = delete;

  // Creates the completion queues, sized for every queue pair to come: the sends and
  // receives they may have outstanding together. Throws when the device's max_cqe is
  // smaller, saying what to lower.
  void create_completion_queues(uint64_t send_entries, uint64_t receive_entries);

  const VerbsApi& api() const { return api_; }
  ibv_context* device() const { return context_; }
  ibv_pd* pd() const { return pd_; }
  ibv_cq* send_cq() const { return send_cq_; }
  ibv_cq* recv_cq() const { return recv_cq_; }
  const PortAddress& address() const { return address_; }
  const ibv_device_attr& limits() const { return device_attr_; }
  RegistrationCache& registrations() { return *registrations_; }

  // A queue pair's completions go to `mailbox` from now on (until detach).
  void attach(uint32_t qpn, Mailbox* mailbox);
  void detach(uint32_t qpn);
  // Moves every completion both queues hold into its queue pair's mailbox. False once a
  // queue has failed (overrun), with the reason in failure().
  bool poll();
  const std::string& failure() const { return failure_; }

 private:
  VerbsContext(const VerbsApi& api) : api_(api) {}
  bool drain(ibv_cq* cq, bool sends);

  const VerbsApi& api_;
  ibv_context* context_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_cq* send_cq_ = nullptr;
  ibv_cq* recv_cq_ = nullptr;
  ibv_device_attr device_attr_{};
  PortAddress address_;
  std::unique_ptr<RegistrationCache> registrations_;
  std::unordered_map<uint32_t, Mailbox*> mailboxes_;
  std::string failure_;
};

}  // namespace weft::transport::ib
