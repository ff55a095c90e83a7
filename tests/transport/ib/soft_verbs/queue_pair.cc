// Queue pairs: creation, the receive queue, the error state and its flushes,
// destruction.
#include "tests/transport/ib/soft_verbs/queue_pair.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tests/transport/ib/soft_verbs/completion_queue.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace weft::testing::soft_verbs {
namespace {

// How long the owner of a receive queue that closes waits for a remote sender that
// took a receive before it closed to finish writing it: that sender is in the middle
// of one post, unless it died there.
constexpr int64_t kInFlightWaitNs = 1'000'000'000;

// Waits, bounded, until a remote sender has written every receive it took.
uint64_t wait_for_taken_receives(QpHeader* header, uint64_t taken) {
  uint64_t completed = header->rq_completed.load(std::memory_order_acquire);
  const int64_t give_up = now_ns() + kInFlightWaitNs;
  while (completed < taken && now_ns() < give_up) {
    sched_yield();
    completed = header->rq_completed.load(std::memory_order_acquire);
  }
  return completed;
}

}  // namespace

Qp::Qp(Device& device, Pd& pd, Cq& send_cq, Cq& recv_cq, const ibv_qp_init_attr& attr)
    : pd(pd), send_cq(send_cq), recv_cq(recv_cq), device_(device) {
  cap_ = attr.cap;
  signal_all_ = attr.sq_sig_all != 0;
  ibv.context = pd.ibv.context;
  ibv.qp_context = attr.qp_context;
  ibv.pd = &pd.ibv;
  ibv.send_cq = attr.send_cq;
  ibv.recv_cq = attr.recv_cq;
  ibv.handle = device.next_handle++;
  ibv.state = IBV_QPS_RESET;
  ibv.qp_type = IBV_QPT_RC;
}

Qp::~Qp() = default;

int Qp::create() {
  Fabric& fabric = *device_.fabric;
  const uint32_t slots = std::max<uint32_t>(1, cap_.max_recv_wr);
  for (int attempt = 0; attempt < 64; ++attempt) {
    MappedFile file =
        MappedFile::create(fabric.directory(), qp_file_bytes(slots, cap_.max_recv_sge));
    if (!file.valid()) {
      const int error = errno;
      return refuse(error, "create_qp: cannot create a file in " + fabric.directory() + ": " +
                               std::strerror(error));
    }
    auto* header = file.as<QpHeader>();
    header->qpn = fabric.allocate_qpn();
    header->owner_pid = getpid();
    header->pd_id = pd.id;
    header->rq_slots = slots;
    header->max_recv_sge = cap_.max_recv_sge;
    std::snprintf(header->region_table, sizeof header->region_table, "%s",
                  device_.regions->name().c_str());
    header->state.store(IBV_QPS_RESET, std::memory_order_relaxed);
    // A file left by a process that died with the number this one drew (a fabric
    // directory used again) keeps its number; draw another.
    if (file.publish(fabric.qp_path(header->qpn))) {
      file_ = std::move(file);
      shared_ = header;
      ibv.qp_num = header->qpn;
      return 0;
    }
    if (errno != EEXIST) {
      const int error = errno;
      return refuse(error, "create_qp: cannot name the queue pair's file: " +
                               std::string(std::strerror(error)));
    }
  }
  return refuse(EAGAIN, "create_qp: every queue pair number drawn was taken");
}

ibv_qp_state Qp::state() const {
  return static_cast<ibv_qp_state>(shared_->state.load(std::memory_order_acquire));
}

std::string Qp::name() const { return "QP " + std::to_string(qpn()); }

std::string Qp::peer_name() const {
  if (peer_ == nullptr) return "its peer";
  return "QP " + std::to_string(peer_->qpn) + " (pid " + std::to_string(peer_->owner_pid) + ")";
}

void Qp::notice_remote_error() {
  if (!in_error_ && state() == IBV_QPS_ERR) enter_error();
  ibv.state = state();
}

void Qp::enter_error() {
  if (in_error_) return;
  in_error_ = true;
  shared_->state.store(IBV_QPS_ERR, std::memory_order_release);
  ibv.state = IBV_QPS_ERR;
  std::deque<SendWork> pending;
  pending.swap(send_queue_);
  for (const SendWork& work : pending) complete_send(work, IBV_WC_WR_FLUSH_ERR, "");
  // No sender may take a receive from now on; those posted and not taken are flushed
  // by the next drain.
  receives_closed_at_ =
      shared_->rq_taken.fetch_or(kReceivesClosed, std::memory_order_acq_rel) & ~kReceivesClosed;
}

void Qp::mark_peer_error() {
  if (peer_ == nullptr) return;
  uint32_t peer_state = peer_->state.load(std::memory_order_acquire);
  while ((peer_state == IBV_QPS_RTR || peer_state == IBV_QPS_RTS) &&
         !peer_->state.compare_exchange_weak(peer_state, IBV_QPS_ERR, std::memory_order_acq_rel)) {
  }
}

std::string Qp::check_local_sges(const ibv_sge* sges, int count, int need_access) const {
  for (int i = 0; i < count; ++i) {
    const ibv_sge& sge = sges[i];
    const auto region = find_region(device_.regions->table(), sge.lkey, KeyKind::kLocal);
    std::string why;
    if (!region) {
      why =
          "no memory region of this process has that lkey (never registered, deregistered, "
          "or an rkey)";
    } else if (region->pd_id != pd.id) {
      why = "the region belongs to another protection domain than the queue pair";
    } else if ((region->access & need_access) != static_cast<uint32_t>(need_access)) {
      why = "the region lacks IBV_ACCESS_LOCAL_WRITE, which the device needs to write into it";
    } else if (!region->covers(sge.addr, sge.length)) {
      why = "[" + hex(sge.addr) + ", +" + std::to_string(sge.length) + ") is outside its region [" +
            hex(region->addr) + ", +" + std::to_string(region->length) + ")";
    }
    if (!why.empty()) {
      return "sge " + std::to_string(i) + " (lkey " + hex(sge.lkey) + "): " + why;
    }
  }
  return "";
}

int Qp::post_recv(ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  notice_remote_error();
  auto refuse_request = [&](int error, const std::string& why) {
    *bad_wr = wr;
    return refuse(error, "post_recv on " + name() + ": " + why);
  };
  for (; wr != nullptr; wr = wr->next) {
    if (state() == IBV_QPS_RESET) {
      return refuse_request(EINVAL,
                            "the queue pair is in RESET; receives may be posted from "
                            "INIT on");
    }
    if (wr->num_sge < 0 || wr->num_sge > static_cast<int>(cap_.max_recv_sge)) {
      return refuse_request(EINVAL, "num_sge " + std::to_string(wr->num_sge) +
                                        " exceeds max_recv_sge " +
                                        std::to_string(cap_.max_recv_sge));
    }
    if (in_error_) {
      drain_receives();
      flush_receive(wr->wr_id);
      continue;
    }
    const uint64_t posted = shared_->rq_posted.load(std::memory_order_relaxed);
    if (posted - receives_polled_ >= cap_.max_recv_wr) {
      return refuse_request(ENOMEM, "the receive queue holds max_recv_wr " +
                                        std::to_string(cap_.max_recv_wr) +
                                        " receives already (their completions free them when "
                                        "polled)");
    }
    if (std::string why = check_local_sges(wr->sg_list, wr->num_sge, IBV_ACCESS_LOCAL_WRITE);
        !why.empty()) {
      device_.report("post_recv on " + name() + ": wr_id " + std::to_string(wr->wr_id) +
                     " completes with IBV_WC_LOC_PROT_ERR: " + why);
      drain_receives();
      Completion completion;
      completion.wc.wr_id = wr->wr_id;
      completion.wc.status = IBV_WC_LOC_PROT_ERR;
      completion.wc.opcode = IBV_WC_RECV;
      completion.wc.qp_num = qpn();
      recv_cq.add(completion);
      enter_error();
      continue;
    }
    RecvSlot* slot = recv_slot(shared_, posted);
    slot->wr_id = wr->wr_id;
    slot->posted_ns = now_ns();
    slot->num_sge = static_cast<uint32_t>(wr->num_sge);
    SharedSge* sges = slot_sges(slot);
    for (int i = 0; i < wr->num_sge; ++i) {
      sges[i] = {wr->sg_list[i].addr, wr->sg_list[i].length, wr->sg_list[i].lkey};
    }
    shared_->rq_posted.store(posted + 1, std::memory_order_release);
  }
  return 0;
}

void Qp::progress(const Cq& cq) {
  notice_remote_error();
  carry_out_send_queue();
  if (&cq == &recv_cq) drain_receives();
}

void Qp::drain_receives() {
  uint64_t completed = shared_->rq_completed.load(std::memory_order_acquire);
  while (receives_polled_ < completed) deliver(recv_slot(shared_, receives_polled_++));
  if (!in_error_) return;
  completed = wait_for_taken_receives(shared_, receives_closed_at_);
  while (receives_polled_ < completed) deliver(recv_slot(shared_, receives_polled_++));
  const uint64_t posted = shared_->rq_posted.load(std::memory_order_relaxed);
  while (receives_polled_ < posted) flush_receive(recv_slot(shared_, receives_polled_++)->wr_id);
}

void Qp::deliver(RecvSlot* slot) {
  Completion completion;
  ibv_wc& wc = completion.wc;
  wc.wr_id = slot->wr_id;
  wc.status = static_cast<ibv_wc_status>(slot->status);
  wc.opcode = static_cast<ibv_wc_opcode>(slot->opcode);
  wc.byte_len = slot->byte_len;
  wc.imm_data = slot->imm_data;
  wc.qp_num = qpn();
  wc.src_qp = slot->src_qp;
  wc.wc_flags = slot->wc_flags;
  recv_cq.add(completion);
}

void Qp::flush_receive(uint64_t wr_id) {
  Completion completion;
  completion.wc.wr_id = wr_id;
  completion.wc.status = IBV_WC_WR_FLUSH_ERR;
  completion.wc.opcode = IBV_WC_RECV;
  completion.wc.qp_num = qpn();
  recv_cq.add(completion);
}

void Qp::retire_sends_through(uint64_t index) {
  sends_retired_ = std::max(sends_retired_, index + 1);
}

void Qp::destroy() {
  shared_->state.store(kStateDestroyed, std::memory_order_release);
  const uint64_t taken =
      shared_->rq_taken.fetch_or(kReceivesClosed, std::memory_order_acq_rel) & ~kReceivesClosed;
  wait_for_taken_receives(shared_, taken);
  file_.unlink();
}

ibv_qp* create_qp(ibv_pd* pd_handle, ibv_qp_init_attr* attr) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Pd* pd = d.find(d.pds, pd_handle);
  if (pd == nullptr)
    return refuse_null<ibv_qp>(EINVAL, unknown_handle("create_qp", "protection domain"));
  if (attr->qp_type != IBV_QPT_RC) {
    return refuse_null<ibv_qp>(EINVAL, "create_qp: qp_type " + std::to_string(attr->qp_type) +
                                           ": softib0 has reliable-connected (IBV_QPT_RC) queue "
                                           "pairs only");
  }
  if (attr->srq != nullptr) {
    return refuse_null<ibv_qp>(EINVAL, "create_qp: shared receive queues are not modelled");
  }
  Cq* send_cq = d.find(d.cqs, attr->send_cq);
  Cq* recv_cq = d.find(d.cqs, attr->recv_cq);
  if (send_cq == nullptr || recv_cq == nullptr) {
    return refuse_null<ibv_qp>(EINVAL, unknown_handle("create_qp", "completion queue"));
  }
  if (send_cq->context != pd->context || recv_cq->context != pd->context) {
    return refuse_null<ibv_qp>(EINVAL, "create_qp: the CQs and the PD belong to other contexts");
  }
  const ibv_qp_cap& cap = attr->cap;
  std::string why;
  if (cap.max_send_wr < 1 || cap.max_send_wr > kMaxQpWr) {
    why = "max_send_wr " + std::to_string(cap.max_send_wr) + " is not in [1, " +
          std::to_string(kMaxQpWr) + "]";
  } else if (cap.max_recv_wr > kMaxQpWr) {
    why = "max_recv_wr " + std::to_string(cap.max_recv_wr) + " exceeds " + std::to_string(kMaxQpWr);
  } else if (cap.max_send_sge > kMaxSge || cap.max_recv_sge > kMaxSge) {
    why = "max_send_sge and max_recv_sge may be " + std::to_string(kMaxSge) + " at most";
  } else if (cap.max_inline_data > kMaxInlineData) {
    why = "max_inline_data " + std::to_string(cap.max_inline_data) + " exceeds " +
          std::to_string(kMaxInlineData);
  }
  if (!why.empty()) return refuse_null<ibv_qp>(EINVAL, "create_qp: " + why);
  auto qp = std::make_unique<Qp>(d, *pd, *send_cq, *recv_cq, *attr);
  if (qp->create() != 0) return nullptr;
  send_cq->qps.push_back(qp.get());
  if (recv_cq != send_cq) recv_cq->qps.push_back(qp.get());
  ++pd->qps;
  ibv_qp* handle = &qp->ibv;
  d.qps.emplace(handle, std::move(qp));
  return handle;
}

int modify_qp(ibv_qp* handle, ibv_qp_attr* attr, int attr_mask) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Qp* qp = d.find(d.qps, handle);
  if (qp == nullptr) return refuse(EINVAL, unknown_handle("modify_qp", "queue pair"));
  return qp->modify(*attr, attr_mask);
}

int destroy_qp(ibv_qp* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Qp* qp = d.find(d.qps, handle);
  if (qp == nullptr) return refuse(EINVAL, unknown_handle("destroy_qp", "queue pair"));
  qp->destroy();
  for (Cq* cq : {&qp->send_cq, &qp->recv_cq}) {
    std::erase(cq->qps, qp);
    for (Completion& completion : cq->entries) {
      if (completion.send_queue_of == qp) completion.send_queue_of = nullptr;
    }
  }
  --qp->pd.qps;
  d.qps.erase(handle);
  return 0;
}

int post_recv(ibv_qp* handle, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Qp* qp = d.find(d.qps, handle);
  if (qp == nullptr) {
    *bad_wr = wr;
    return refuse(EINVAL, unknown_handle("post_recv", "queue pair"));
  }
  return qp->post_recv(wr, bad_wr);
}

}  // namespace weft::testing::soft_verbs
