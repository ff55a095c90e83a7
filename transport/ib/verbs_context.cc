#include "transport/ib/verbs_context.h"

#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "weft/error.h"

namespace weft::transport::ib {
namespace {

// Completions taken from a queue per call.
constexpr int kPollBatch = 32;

std::string errno_text(int error) { return error != 0 ? std::strerror(error) : "no reason given"; }

}  // namespace

std::string PortAddress::addressing() const {
  if (!ethernet) return "InfiniBand lid " + std::to_string(lid);
  return std::string(roce_v2 ? "RoCE v2" : "RoCE v1") + " gid " + std::to_string(gid_index);
}

int mtu_bytes(ibv_mtu mtu) { return 128 << static_cast<int>(mtu); }

std::shared_ptr<VerbsContext> VerbsContext::open(const VerbsApi& api, const std::string& device,
                                                 uint8_t port, int gid_index,
                                                 RegistrationCache::Limits registrations) {
  const std::string what = "verbs device " + device + " port " + std::to_string(port);
  std::shared_ptr<VerbsContext> c(new VerbsContext(api));
  int count = 0;
  errno = 0;
  ibv_device** list = api.get_device_list(&count);
  if (list == nullptr) {
    throw Error(ErrorCode::kInternal, what + ": ibv_get_device_list failed: " + errno_text(errno));
  }
  for (int i = 0; i < count && c->context_ == nullptr; ++i) {
    const char* name = api.get_device_name(list[i]);
    if (name == nullptr || device != name) continue;
    errno = 0;
    c->context_ = api.open_device(list[i]);
    if (c->context_ == nullptr) {
      const int error = errno;
      api.free_device_list(list);
      throw Error(ErrorCode::kInternal, what + ": ibv_open_device failed: " + errno_text(error));
    }
  }
  api.free_device_list(list);
  if (c->context_ == nullptr) throw Error(ErrorCode::kInternal, what + ": no such device");

  PortAddress& a = c->address_;
  a.device = device;
  a.port = port;
  a.gid_index = gid_index;
  if (const int rc = api.query_device(c->context_, &c->device_attr_); rc != 0) {
    throw Error(ErrorCode::kInternal, what + ": ibv_query_device failed: " + errno_text(rc));
  }
  ibv_port_attr attr{};
  if (const int rc = api.query_port(c->context_, port, &attr); rc != 0) {
    throw Error(ErrorCode::kInternal, what + ": ibv_query_port failed: " + errno_text(rc));
  }
  if (attr.state != IBV_PORT_ACTIVE) {
    throw Error(ErrorCode::kInternal, what + " is no longer active");
  }
  a.ethernet = attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  a.lid = attr.lid;
  a.mtu = attr.active_mtu;
  a.max_message = attr.max_msg_sz;
  if (const int rc = api.query_gid(c->context_, port, gid_index, &a.gid); rc != 0) {
    throw Error(ErrorCode::kInternal, what + ": ibv_query_gid(" + std::to_string(gid_index) +
                                          ") failed: " + errno_text(rc));
  }
  ibv_gid_type type{};
  a.roce_v2 = a.ethernet && api.query_gid_type(c->context_, port, gid_index, &type) == 0 &&
              type == IBV_GID_TYPE_ROCE_V2;
  errno = 0;
  c->pd_ = api.alloc_pd(c->context_);
  if (c->pd_ == nullptr) {
    throw Error(ErrorCode::kInternal, what + ": ibv_alloc_pd failed: " + errno_text(errno));
  }
  c->registrations_ = std::make_unique<RegistrationCache>(api, c->pd_, registrations);
  return c;
}

VerbsContext::~VerbsContext() {
  // Registrations first: they hold the protection domain.
  registrations_.reset();
  auto check = [](int rc, const char* call) {
    if (rc != 0) {
      WEFT_LOG(WARN) << "verbs: " << call << " failed: " << errno_text(rc);
    }
  };
  if (send_cq_ != nullptr) check(api_.destroy_cq(send_cq_), "ibv_destroy_cq");
  if (recv_cq_ != nullptr) check(api_.destroy_cq(recv_cq_), "ibv_destroy_cq");
  if (pd_ != nullptr) check(api_.dealloc_pd(pd_), "ibv_dealloc_pd");
  if (context_ != nullptr) check(api_.close_device(context_), "ibv_close_device");
}

void VerbsContext::create_completion_queues(uint64_t send_entries, uint64_t receive_entries) {
  const uint64_t most = static_cast<uint64_t>(device_attr_.max_cqe);
  for (uint64_t entries : {send_entries, receive_entries}) {
    if (entries > most) {
      throw Error(ErrorCode::kInternal,
                  "verbs device " + address_.name() + ": its links need a completion queue of " +
                      std::to_string(entries) + " entries, but the device allows " +
                      std::to_string(most) +
                      "; lower WEFT_IB_RECV_BUFFERS, or use fewer verbs peers per process");
    }
  }
  auto create = [&](uint64_t entries) {
    errno = 0;
    ibv_cq* cq = api_.create_cq(context_, static_cast<int>(entries), nullptr, nullptr, 0);
    if (cq == nullptr) {
      throw Error(ErrorCode::kInternal, "verbs device " + address_.name() + ": ibv_create_cq of " +
                                            std::to_string(entries) +
                                            " entries failed: " + errno_text(errno));
    }
    return cq;
  };
  send_cq_ = create(send_entries);
  recv_cq_ = create(receive_entries);
}

void VerbsContext::attach(uint32_t qpn, Mailbox* mailbox) { mailboxes_[qpn] = mailbox; }

void VerbsContext::detach(uint32_t qpn) { mailboxes_.erase(qpn); }

bool VerbsContext::poll() {
  if (!failure_.empty()) return false;
  return drain(recv_cq_, false) && drain(send_cq_, true);
}

bool VerbsContext::drain(ibv_cq* cq, bool sends) {
  ibv_wc wc[kPollBatch];
  while (true) {
    const int n = api_.poll_cq(cq, kPollBatch, wc);
    if (n < 0) {
      failure_ = std::string("polling the ") + (sends ? "send" : "receive") +
                 " completion queue of " + address_.name() +
                 " failed (an overrun, completions lost): " + errno_text(errno);
      return false;
    }
    for (int i = 0; i < n; ++i) {
      auto it = mailboxes_.find(wc[i].qp_num);
      if (it == mailboxes_.end()) continue;  // a queue pair whose link is gone
      (sends ? it->second->sends : it->second->receives).push_back(wc[i]);
    }
    if (n < kPollBatch) return true;
  }
}

}  // namespace weft::transport::ib
