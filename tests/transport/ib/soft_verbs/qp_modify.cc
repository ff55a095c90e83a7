// modify_qp: the state machine's checks, the attributes, the binding to the remote
// queue pair at RTR, and RESET.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tests/transport/ib/soft_verbs/qp_transitions.h"
#include "tests/transport/ib/soft_verbs/queue_pair.h"

namespace weft::testing::soft_verbs {
namespace {

constexpr int kQpAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                          IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
constexpr uint32_t kMaxPsn = 0xffffff;

std::string gid_text(const ibv_gid& gid) {
  std::string text;
  for (int i = 0; i < 16; i += 2) {
    char group[8];
    std::snprintf(group, sizeof group, "%s%02x%02x", i ? ":" : "", gid.raw[i], gid.raw[i + 1]);
    text += group;
  }
  return text;
}

}  // namespace

int Qp::modify(const ibv_qp_attr& attr, int attr_mask) {
  notice_remote_error();
  const ibv_qp_state current = state();
  const ibv_qp_state next = (attr_mask & IBV_QP_STATE) ? attr.qp_state : current;
  const std::string what = "modify_qp " + name() + ": ";
  if ((attr_mask & IBV_QP_CUR_STATE) && attr.cur_qp_state != current) {
    return refuse(EINVAL, what + "cur_qp_state says " + state_name(attr.cur_qp_state) +
                              " but the queue pair is in " + state_name(current));
  }
  if (std::string why = refuse_transition(current, next, attr_mask); !why.empty()) {
    return refuse(EINVAL, what + why);
  }
  if (std::string why = check_values(attr, attr_mask); !why.empty()) {
    return refuse(EINVAL, what + why);
  }
  if (current == IBV_QPS_INIT && next == IBV_QPS_RTR) {
    if (const int error = connect(attr); error != 0) return error;
  }
  // Everything is checked: apply it all. What the peer reads is stored before the state
  // that makes it valid.
  if (attr_mask & IBV_QP_ACCESS_FLAGS) {
    access_flags_ = attr.qp_access_flags;
    shared_->access_flags.store(attr.qp_access_flags, std::memory_order_relaxed);
  }
  if (attr_mask & IBV_QP_MIN_RNR_TIMER) {
    shared_->min_rnr_timer.store(attr.min_rnr_timer, std::memory_order_relaxed);
  }
  if (attr_mask & IBV_QP_RQ_PSN) shared_->rq_psn.store(attr.rq_psn, std::memory_order_relaxed);
  if (attr_mask & IBV_QP_MAX_DEST_RD_ATOMIC) {
    shared_->max_dest_rd_atomic.store(attr.max_dest_rd_atomic, std::memory_order_relaxed);
  }
  if (attr_mask & IBV_QP_TIMEOUT) timeout_ = attr.timeout;
  if (attr_mask & IBV_QP_RETRY_CNT) retry_cnt_ = attr.retry_cnt;
  if (attr_mask & IBV_QP_RNR_RETRY) rnr_retry_ = attr.rnr_retry;
  if (attr_mask & IBV_QP_SQ_PSN) sq_psn_ = attr.sq_psn;
  if (attr_mask & IBV_QP_MAX_QP_RD_ATOMIC) max_rd_atomic_ = attr.max_rd_atomic;
  if (next == IBV_QPS_RESET) {
    reset();
  } else if (next == IBV_QPS_ERR) {
    enter_error();
  } else {
    if (next == IBV_QPS_RTR && current != IBV_QPS_RTR) {
      shared_->ready_ns.store(now_ns(), std::memory_order_relaxed);
    }
    shared_->state.store(next, std::memory_order_release);
  }
  ibv.state = next;
  return 0;
}

std::string Qp::check_values(const ibv_qp_attr& attr, int attr_mask) const {
  if ((attr_mask & IBV_QP_PORT) && attr.port_num != kPort) {
    return "port_num " + std::to_string(attr.port_num) + ": softib0 has port 1 only";
  }
  if ((attr_mask & IBV_QP_PKEY_INDEX) && attr.pkey_index != 0) {
    return "pkey_index " + std::to_string(attr.pkey_index) + ": the P_Key table has index 0 only";
  }
  if ((attr_mask & IBV_QP_ACCESS_FLAGS) && (attr.qp_access_flags & ~kQpAccess) != 0) {
    return "qp_access_flags " + hex(attr.qp_access_flags) + " are not access flags";
  }
  if ((attr_mask & IBV_QP_PATH_MTU) &&
      (attr.path_mtu < IBV_MTU_256 || attr.path_mtu > kActiveMtu)) {
    return "path_mtu " + std::to_string(attr.path_mtu) +
           " is not an MTU the port's active MTU (IBV_MTU_4096) allows";
  }
  if (attr_mask & IBV_QP_AV) {
    const ibv_ah_attr& ah = attr.ah_attr;
    if (ah.port_num != kPort) {
      return "ah_attr.port_num " + std::to_string(ah.port_num) + ": softib0 has port 1 only";
    }
    if (!ah.is_global) {
      return "ah_attr.is_global 0: a RoCE port addresses its peer by GID, in a GRH "
             "(is_global 1, grh.dgid the peer's GID)";
    }
    if (ah.grh.sgid_index >= kGidTableLength) {
      return "ah_attr.grh.sgid_index " + std::to_string(ah.grh.sgid_index) +
             " is not in the port's GID table of " + std::to_string(kGidTableLength);
    }
    if (!is_fabric_gid(ah.grh.dgid)) {
      return "ah_attr.grh.dgid " + gid_text(ah.grh.dgid) +
             " is no GID of the fabric (a queue pair has the GIDs of its device's one port: "
             "query_gid)";
    }
  }
  if ((attr_mask & IBV_QP_DEST_QPN) && attr.dest_qp_num > kMaxPsn) {
    return "dest_qp_num " + hex(attr.dest_qp_num) + " is wider than 24 bits";
  }
  if ((attr_mask & IBV_QP_RQ_PSN) && attr.rq_psn > kMaxPsn) return "rq_psn is wider than 24 bits";
  if ((attr_mask & IBV_QP_SQ_PSN) && attr.sq_psn > kMaxPsn) return "sq_psn is wider than 24 bits";
  if ((attr_mask & IBV_QP_MIN_RNR_TIMER) && attr.min_rnr_timer > 31) {
    return "min_rnr_timer " + std::to_string(attr.min_rnr_timer) + " is not in [0, 31]";
  }
  if ((attr_mask & IBV_QP_TIMEOUT) && attr.timeout > 31) {
    return "timeout " + std::to_string(attr.timeout) + " is not in [0, 31]";
  }
  if ((attr_mask & IBV_QP_RETRY_CNT) && attr.retry_cnt > 7) {
    return "retry_cnt " + std::to_string(attr.retry_cnt) + " is not in [0, 7]";
  }
  if ((attr_mask & IBV_QP_RNR_RETRY) && attr.rnr_retry > 7) {
    return "rnr_retry " + std::to_string(attr.rnr_retry) + " is not in [0, 7]";
  }
  if ((attr_mask & IBV_QP_MAX_QP_RD_ATOMIC) && attr.max_rd_atomic > kMaxRdAtomic) {
    return "max_rd_atomic " + std::to_string(attr.max_rd_atomic) + " exceeds the device's " +
           std::to_string(kMaxRdAtomic);
  }
  if ((attr_mask & IBV_QP_MAX_DEST_RD_ATOMIC) && attr.max_dest_rd_atomic > kMaxRdAtomic) {
    return "max_dest_rd_atomic " + std::to_string(attr.max_dest_rd_atomic) +
           " exceeds the device's " + std::to_string(kMaxRdAtomic);
  }
  return "";
}

int Qp::connect(const ibv_qp_attr& attr) {
  const Fabric& fabric = *device_.fabric;
  const std::string what =
      "modify_qp " + name() + " to RTR: dest_qp_num " + std::to_string(attr.dest_qp_num) + " ";
  MappedFile peer_file = MappedFile::open(fabric.qp_path(attr.dest_qp_num), sizeof(QpHeader));
  if (!peer_file.valid()) {
    return refuse(EINVAL, what + "is no queue pair of the fabric (no " +
                              fabric.qp_path(attr.dest_qp_num) + ")");
  }
  auto* peer = peer_file.as<QpHeader>();
  if (peer_file.size() < qp_file_bytes(peer->rq_slots, peer->max_recv_sge)) {
    return refuse(EINVAL, what + "has a damaged file");
  }
  if (peer->state.load(std::memory_order_acquire) == kStateDestroyed) {
    return refuse(EINVAL, what + "was destroyed");
  }
  MappedFile regions = MappedFile::open(fabric.path(peer->region_table), sizeof(RegionTableHeader));
  if (!regions.valid() ||
      regions.size() < region_table_bytes(regions.as<RegionTableHeader>()->capacity)) {
    return refuse(EINVAL, what + "belongs to a process whose memory-region table " +
                              fabric.path(peer->region_table) + " is gone");
  }
  peer_process_ = PeerProcess(peer->owner_pid);
  peer_file_ = std::move(peer_file);
  peer_ = peer;
  peer_regions_ = std::move(regions);
  psn_checked_ = false;
  shared_->dest_qpn.store(attr.dest_qp_num, std::memory_order_relaxed);
  return 0;
}

void Qp::reset() {
  // As an adapter does: whatever was posted is forgotten, with no completions.
  send_queue_.clear();
  sends_retired_ = sends_posted_;
  shared_->rq_posted.store(0, std::memory_order_relaxed);
  shared_->rq_taken.store(0, std::memory_order_relaxed);
  shared_->rq_completed.store(0, std::memory_order_relaxed);
  shared_->dest_qpn.store(0, std::memory_order_relaxed);
  receives_polled_ = 0;
  receives_closed_at_ = 0;
  in_error_ = false;
  peer_ = nullptr;
  peer_file_ = MappedFile();
  peer_regions_ = MappedFile();
  peer_process_ = PeerProcess();
  psn_checked_ = false;
  shared_->state.store(IBV_QPS_RESET, std::memory_order_release);
}

}  // namespace weft::testing::soft_verbs
