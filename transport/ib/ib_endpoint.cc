#include "transport/ib/ib_endpoint.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "base/random_id.h"
#include "weft/error.h"

namespace weft::transport::ib {
namespace {

// The transitions' attributes (InfiniBand specification, 11.2.4.2 and table 45):
// a local ACK timeout of 4.096 us * 2^14 = 67 ms, retried 7 times, so a peer that
// stopped answering fails its requests after about half a second; no RNR retry at all,
// since credits make sure a receive is always posted: a credit mistake is an error at
// once, not a stall.
constexpr uint8_t kAckTimeout = 14;
constexpr uint8_t kRetryCount = 7;
constexpr uint8_t kRnrRetry = 0;
constexpr uint8_t kMinRnrTimer = 12;  // 0.64 ms; unused with no RNR retry
constexpr uint8_t kRdAtomic = 1;      // weft issues no RDMA READ or atomics
constexpr uint8_t kHopLimit = 64;     // RoCE v2 routes across subnets
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

constexpr size_t kPage = 4096;

std::string errno_text(int error) { return error != 0 ? std::strerror(error) : "no reason given"; }

void* map_zeroed(size_t bytes, const char* what) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw Error(ErrorCode::kInternal, std::string("verbs: cannot map ") + std::to_string(bytes) +
                                          " bytes for " + what + ": " + std::strerror(errno));
  }
  return p;
}

}  // namespace

uint32_t IbEndpoint::send_queue_depth(const EndpointOptions& options) {
  // A SEND per eager send buffer, a transfer's writes, the sleep flag, and one spare.
  return options.receives + options.writes_in_flight + 2;
}

IbEndpoint::IbEndpoint(std::shared_ptr<VerbsContext> context, EndpointOptions options)
    : context_(std::move(context)), options_(options) {
  const VerbsApi& api = context_->api();
  const std::string where = "verbs device " + context_->address().name();
  try {
    buffers_bytes_ =
        (uint64_t{options_.receives} * 2 * options_.buffer_bytes + kPage - 1) & ~(kPage - 1);
    buffers_ = static_cast<std::byte*>(map_zeroed(buffers_bytes_, "eager buffers"));
    control_ = static_cast<volatile uint64_t*>(map_zeroed(kPage, "the sleep flag"));
    errno = 0;
    buffers_mr_ = api.reg_mr(context_->pd(), buffers_, buffers_bytes_, IBV_ACCESS_LOCAL_WRITE);
    if (buffers_mr_ == nullptr) {
      throw Error(ErrorCode::kInternal, where + ": ibv_reg_mr of " +
                                            std::to_string(buffers_bytes_) +
                                            " bytes of eager buffers failed: " + errno_text(errno));
    }
    errno = 0;
    control_mr_ = api.reg_mr(context_->pd(), const_cast<uint64_t*>(control_), kPage, kAccess);
    if (control_mr_ == nullptr) {
      throw Error(ErrorCode::kInternal,
                  where + ": ibv_reg_mr of the sleep flag failed: " + errno_text(errno));
    }
    ibv_qp_init_attr init{};
    init.send_cq = context_->send_cq();
    init.recv_cq = context_->recv_cq();
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = send_queue_depth(options_);
    init.cap.max_recv_wr = receive_queue_depth(options_);
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    errno = 0;
    qp_ = api.create_qp(context_->pd(), &init);
    if (qp_ == nullptr) {
      throw Error(ErrorCode::kInternal, where + ": ibv_create_qp (" +
                                            std::to_string(init.cap.max_send_wr) + " sends, " +
                                            std::to_string(init.cap.max_recv_wr) +
                                            " receives) failed: " + errno_text(errno));
    }
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = context_->address().port;
    attr.qp_access_flags = kAccess;
    if (const int rc = api.modify_qp(
            qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        rc != 0) {
      throw Error(ErrorCode::kInternal, where + ": queue pair " + std::to_string(qp_->qp_num) +
                                            " RESET -> INIT failed: " + errno_text(rc));
    }
    for (uint32_t i = 0; i < options_.receives; ++i) {
      if (const int rc = post_receive(i); rc != 0) {
        throw Error(ErrorCode::kInternal, where + ": ibv_post_recv on queue pair " +
                                              std::to_string(qp_->qp_num) +
                                              " failed: " + errno_text(rc));
      }
    }
    psn_ = static_cast<uint32_t>(base::random_id()) & 0xffffff;
  } catch (...) {
    release();
    throw;
  }
}

IbEndpoint::~IbEndpoint() { release(); }

void IbEndpoint::destroy_queue_pair() {
  if (qp_ == nullptr) return;
  if (const int rc = context_->api().destroy_qp(qp_); rc != 0) {
    WEFT_LOG(WARN) << "verbs: ibv_destroy_qp failed: " << errno_text(rc);
  }
  qp_ = nullptr;
}

void IbEndpoint::release() {
  const VerbsApi& api = context_->api();
  auto check = [](int rc, const char* call) {
    if (rc != 0) {
      WEFT_LOG(WARN) << "verbs: " << call << " failed: " << errno_text(rc);
    }
  };
  // The queue pair first: it refers to the memory and the completion queues.
  destroy_queue_pair();
  if (buffers_mr_ != nullptr) check(api.dereg_mr(buffers_mr_), "ibv_dereg_mr");
  if (control_mr_ != nullptr) check(api.dereg_mr(control_mr_), "ibv_dereg_mr");
  if (buffers_ != nullptr) munmap(buffers_, buffers_bytes_);
  if (control_ != nullptr) munmap(const_cast<uint64_t*>(control_), kPage);
  qp_ = nullptr;
  buffers_mr_ = control_mr_ = nullptr;
  buffers_ = nullptr;
  control_ = nullptr;
}

int IbEndpoint::post_receive(uint32_t index) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(receive_buffer(index));
  sge.length = options_.buffer_bytes;
  sge.lkey = buffers_mr_->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = index;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return context_->api().post_recv(qp_, &wr, &bad);
}

EndpointAddress IbEndpoint::address() const {
  EndpointAddress a;
  a.qpn = qp_->qp_num;
  a.psn = psn_;
  a.sleep_address = reinterpret_cast<uint64_t>(control_);
  a.sleep_rkey = control_mr_->rkey;
  a.receives = options_.receives;
  a.buffer_bytes = options_.buffer_bytes;
  return a;
}

void IbEndpoint::connect(const PortAddress& remote_port, const EndpointAddress& remote) {
  const VerbsApi& api = context_->api();
  const PortAddress& local = context_->address();
  remote_ = remote;
  path_mtu_ = std::min(local.mtu, remote_port.mtu);
  const std::string what = "verbs device " + local.name() + ": queue pair " +
                           std::to_string(qp_->qp_num) + " to queue pair " +
                           std::to_string(remote.qpn) + " at " + remote_port.name();

  ibv_qp_attr rtr{};
  rtr.qp_state = IBV_QPS_RTR;
  rtr.path_mtu = path_mtu_;
  rtr.dest_qp_num = remote.qpn;
  rtr.rq_psn = remote.psn;
  rtr.max_dest_rd_atomic = kRdAtomic;
  rtr.min_rnr_timer = kMinRnrTimer;
  rtr.ah_attr.port_num = local.port;
  rtr.ah_attr.sl = 0;
  if (local.ethernet) {
    // RoCE has no LIDs: the address is the GID, in a GRH on every packet.
    rtr.ah_attr.is_global = 1;
    rtr.ah_attr.grh.dgid = remote_port.gid;
    rtr.ah_attr.grh.sgid_index = static_cast<uint8_t>(local.gid_index);
    rtr.ah_attr.grh.hop_limit = kHopLimit;
  } else {
    rtr.ah_attr.dlid = remote_port.lid;
  }
  if (const int rc =
          api.modify_qp(qp_, &rtr,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                            IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
      rc != 0) {
    throw Error(ErrorCode::kInternal, what + ": INIT -> RTR failed: " + errno_text(rc));
  }
  ibv_qp_attr rts{};
  rts.qp_state = IBV_QPS_RTS;
  rts.timeout = kAckTimeout;
  rts.retry_cnt = kRetryCount;
  rts.rnr_retry = kRnrRetry;
  rts.sq_psn = psn_;
  rts.max_rd_atomic = kRdAtomic;
  if (const int rc = api.modify_qp(qp_, &rts,
                                   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
      rc != 0) {
    throw Error(ErrorCode::kInternal, what + ": RTR -> RTS failed: " + errno_text(rc));
  }
}

}  // namespace weft::transport::ib
