// The send side of a queue pair, which does what the adapters of both ends would: it
// checks the local gather list, reaches the remote queue pair (retrying while it is not
// ready, failing when it is gone), checks the remote keys, bounds and access, consumes
// the remote's posted receive, and moves the bytes with process_vm_writev/readv. A
// request that cannot go yet (no receive posted, peer not in RTR) waits at the head of
// the send queue, holding back those behind it as RC ordering demands, and is retried
// at every post and poll until it goes or its retries run out.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "tests/transport/ib/soft_verbs/completion_queue.h"
#include "tests/transport/ib/soft_verbs/qp_transitions.h"
#include "tests/transport/ib/soft_verbs/queue_pair.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace weft::testing::soft_verbs {
namespace {

constexpr uint8_t kRnrRetryForever = 7;

// The local ACK timeout: 4.096 us * 2^timeout (0: wait forever).
int64_t ack_timeout_ns(uint8_t timeout) {
  return timeout == 0 ? INT64_MAX / 16 : int64_t{4096} << timeout;
}

// The RNR NAK timer the responder's min_rnr_timer encodes (InfiniBand specification,
// table 45), in nanoseconds.
int64_t rnr_timer_ns(uint32_t code) {
  static const int32_t kMicroseconds[32] = {
      655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
      480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
      20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
  return int64_t{kMicroseconds[code % 32]} * 1000;
}

ibv_wc_opcode completion_opcode(ibv_wr_opcode opcode) {
  switch (opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ:
      return IBV_WC_RDMA_READ;
    default:
      return IBV_WC_SEND;
  }
}

const char* opcode_name(ibv_wr_opcode opcode) {
  switch (opcode) {
    case IBV_WR_SEND:
      return "SEND";
    case IBV_WR_SEND_WITH_IMM:
      return "SEND_WITH_IMM";
    case IBV_WR_RDMA_WRITE:
      return "RDMA_WRITE";
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      return "RDMA_WRITE_WITH_IMM";
    case IBV_WR_RDMA_READ:
      return "RDMA_READ";
    default:
      return "unmodelled opcode";
  }
}

// The outcome of a remote receive, written into its slot and published to its owner.
void finish_receive(QpHeader* peer, uint64_t index, ibv_wc_status status, ibv_wc_opcode opcode,
                    uint32_t byte_len, uint32_t imm_data, unsigned wc_flags, uint32_t src_qp) {
  RecvSlot* slot = recv_slot(peer, index);
  slot->status = status;
  slot->opcode = opcode;
  slot->byte_len = byte_len;
  slot->imm_data = imm_data;
  slot->wc_flags = wc_flags;
  slot->src_qp = src_qp;
  peer->rq_completed.store(index + 1, std::memory_order_release);
}

std::string check_send_request(const ibv_send_wr& wr, const ibv_qp_cap& cap,
                               uint8_t max_rd_atomic) {
  switch (wr.opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_RDMA_READ:
      break;
    default:
      return "opcode " + std::to_string(wr.opcode) +
             " is not modelled (SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ)";
  }
  if (wr.num_sge < 0 || wr.num_sge > static_cast<int>(cap.max_send_sge)) {
    return "num_sge " + std::to_string(wr.num_sge) + " exceeds max_send_sge " +
           std::to_string(cap.max_send_sge);
  }
  if (wr.send_flags & IBV_SEND_INLINE) {
    if (wr.opcode == IBV_WR_RDMA_READ) return "IBV_SEND_INLINE on an RDMA READ";
    uint64_t bytes = 0;
    for (int i = 0; i < wr.num_sge; ++i) bytes += wr.sg_list[i].length;
    if (bytes > cap.max_inline_data) {
      return std::to_string(bytes) + " inline bytes exceed max_inline_data " +
             std::to_string(cap.max_inline_data);
    }
  }
  if (wr.opcode == IBV_WR_RDMA_READ && max_rd_atomic == 0) {
    return "RDMA READ on a queue pair whose max_rd_atomic is 0";
  }
  return "";
}

SendWork copy_request(const ibv_send_wr& wr) {
  SendWork work;
  work.wr_id = wr.wr_id;
  work.opcode = wr.opcode;
  work.send_flags = wr.send_flags;
  work.imm_data = wr.imm_data;
  work.remote_addr = wr.wr.rdma.remote_addr;
  work.rkey = wr.wr.rdma.rkey;
  work.sges.assign(wr.sg_list, wr.sg_list + wr.num_sge);
  for (const ibv_sge& sge : work.sges) work.length += sge.length;
  work.is_inline = (wr.send_flags & IBV_SEND_INLINE) != 0;
  if (work.is_inline) {
    for (const ibv_sge& sge : work.sges) {
      const auto* bytes = reinterpret_cast<const std::byte*>(sge.addr);
      work.inline_data.insert(work.inline_data.end(), bytes, bytes + sge.length);
    }
  }
  return work;
}

}  // namespace

int Qp::post_send(ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  notice_remote_error();
  int refused = 0;
  for (; wr != nullptr; wr = wr->next) {
    const ibv_qp_state now_state = state();
    int error = EINVAL;
    std::string why = now_state == IBV_QPS_RTS || now_state == IBV_QPS_ERR
                          ? check_send_request(*wr, cap_, max_rd_atomic_)
                          : "the queue pair is in " + state_name(now_state) +
                                "; an RC queue pair sends only in RTS";
    if (why.empty() && sends_posted_ - sends_retired_ >= cap_.max_send_wr) {
      error = ENOMEM;
      why = "the send queue holds max_send_wr " + std::to_string(cap_.max_send_wr) +
            " requests whose completions were not polled (an unsignaled request is done only "
            "when a later completion is polled)";
    }
    if (!why.empty()) {
      refused = refuse(error, "post_send on " + name() + ": " + why);
      *bad_wr = wr;
      break;
    }
    SendWork work = copy_request(*wr);
    work.index = sends_posted_++;
    if (in_error_) {
      complete_send(work, IBV_WC_WR_FLUSH_ERR, "");
    } else {
      send_queue_.push_back(std::move(work));
    }
  }
  // What was posted before a refused request stays posted, and goes.
  carry_out_send_queue();
  return refused;
}

void Qp::carry_out_send_queue() {
  while (!send_queue_.empty() && !in_error_) {
    const Outcome outcome = carry_out(send_queue_.front());
    if (outcome.waiting) return;
    const SendWork work = std::move(send_queue_.front());
    send_queue_.pop_front();
    if (outcome.status == IBV_WC_SUCCESS) {
      complete_send(work, IBV_WC_SUCCESS, "");
      continue;
    }
    if (outcome.peer_fails) mark_peer_error();
    complete_send(work, outcome.status, outcome.why);
    enter_error();
  }
}

Qp::Outcome Qp::carry_out(SendWork& work) {
  const int64_t now = now_ns();
  if (!work.started) {
    work.started = true;
    work.retry_deadline_ns = now + (retry_cnt_ + 1) * ack_timeout_ns(timeout_);
  }
  if (!work.is_inline) {
    const int access = work.opcode == IBV_WR_RDMA_READ ? IBV_ACCESS_LOCAL_WRITE : 0;
    std::string why =
        check_local_sges(work.sges.data(), static_cast<int>(work.sges.size()), access);
    if (!why.empty()) return {false, IBV_WC_LOC_PROT_ERR, why, false};
  }
  if (work.length > kMaxMessageBytes) {
    return {false, IBV_WC_LOC_LEN_ERR,
            std::to_string(work.length) + " bytes exceed the port's max_msg_sz", false};
  }
  const Outcome reached = reach_peer(work, now);
  if (reached.waiting || reached.status != IBV_WC_SUCCESS) return reached;
  switch (work.opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      return write(work, now);
    case IBV_WR_RDMA_READ:
      return read(work);
    default:
      return send_message(work, now);
  }
}

Qp::Outcome Qp::reach_peer(const SendWork& work, int64_t now) {
  if (peer_ == nullptr) return {false, IBV_WC_RETRY_EXC_ERR, "no remote queue pair", false};
  if (peer_process_.exited()) {
    return {false, IBV_WC_RETRY_EXC_ERR,
            peer_name() + " belongs to a process that has exited: nothing acknowledges", false};
  }
  const uint32_t peer_state = peer_->state.load(std::memory_order_acquire);
  if (peer_state == kStateDestroyed) {
    return {false, IBV_WC_RETRY_EXC_ERR, peer_name() + " was destroyed", false};
  }
  if (peer_state == IBV_QPS_ERR) {
    return {false, IBV_WC_RETRY_EXC_ERR, peer_name() + " is in ERR and drops what arrives", false};
  }
  if (peer_state == IBV_QPS_RTR || peer_state == IBV_QPS_RTS) {
    const uint32_t dest = peer_->dest_qpn.load(std::memory_order_relaxed);
    if (dest != qpn()) {
      return {false, IBV_WC_RETRY_EXC_ERR,
              peer_name() + " is connected to QP " + std::to_string(dest) + ", not to " + name(),
              false};
    }
    if (peer_->ready_ns.load(std::memory_order_relaxed) > work.retry_deadline_ns) {
      return {false, IBV_WC_RETRY_EXC_ERR,
              peer_name() + " reached RTR only after the transport retries ran out", false};
    }
    if (!psn_checked_) {
      const uint32_t rq_psn = peer_->rq_psn.load(std::memory_order_relaxed);
      if (rq_psn != sq_psn_) {
        return {false, IBV_WC_RETRY_EXC_ERR,
                "sq_psn " + std::to_string(sq_psn_) + " here, but " + peer_name() +
                    " expects rq_psn " + std::to_string(rq_psn) +
                    ": it drops every packet as out of sequence",
                false};
      }
      psn_checked_ = true;
    }
    return {};
  }
  // RESET or INIT: the peer's adapter drops the packets, and ours sends them again
  // until it is ready or the retries run out.
  if (now >= work.retry_deadline_ns) {
    return {false, IBV_WC_RETRY_EXC_ERR,
            peer_name() + " did not reach RTR within the transport retries (timeout " +
                std::to_string(timeout_) + ", retry_cnt " + std::to_string(retry_cnt_) + ")",
            false};
  }
  return Outcome::retry_later();
}

Qp::Outcome Qp::take_receive(SendWork& work, int64_t now, uint64_t* taken) {
  const uint64_t word = peer_->rq_taken.load(std::memory_order_acquire);
  if (word & kReceivesClosed) {
    return {false, IBV_WC_RETRY_EXC_ERR, peer_name() + " is in ERR and drops what arrives", false};
  }
  const uint64_t posted = peer_->rq_posted.load(std::memory_order_acquire);
  if (word >= posted) {
    // Receiver not ready: the responder answers RNR NAK, and the requester tries again
    // after the responder's min_rnr_timer, rnr_retry times (7: for ever).
    if (work.rnr_deadline_ns == 0) {
      work.rnr_deadline_ns =
          rnr_retry_ == kRnrRetryForever
              ? INT64_MAX
              : now +
                    rnr_retry_ * rnr_timer_ns(peer_->min_rnr_timer.load(std::memory_order_relaxed));
    }
    if (now < work.rnr_deadline_ns) return Outcome::retry_later();
    return {false, IBV_WC_RNR_RETRY_EXC_ERR,
            "no receive was posted at " + peer_name() + " (receiver not ready; rnr_retry " +
                std::to_string(rnr_retry_) + ", its min_rnr_timer " +
                std::to_string(peer_->min_rnr_timer.load(std::memory_order_relaxed)) + ")",
            false};
  }
  if (work.rnr_deadline_ns != 0 && recv_slot(peer_, word)->posted_ns > work.rnr_deadline_ns) {
    return {false, IBV_WC_RNR_RETRY_EXC_ERR,
            "the receive at " + peer_name() + " was posted only after the RNR retries ran out",
            false};
  }
  uint64_t expected = word;
  if (!peer_->rq_taken.compare_exchange_strong(expected, word + 1, std::memory_order_acq_rel)) {
    return {false, IBV_WC_RETRY_EXC_ERR, peer_name() + " went to ERR", false};
  }
  *taken = word;
  return {};
}

Qp::Outcome Qp::check_remote_access(const SendWork& work, uint32_t rkey, int access) const {
  const std::string flag =
      access == IBV_ACCESS_REMOTE_WRITE ? "IBV_ACCESS_REMOTE_WRITE" : "IBV_ACCESS_REMOTE_READ";
  const std::string which = "rkey " + hex(rkey) + " at " + peer_name();
  const auto region = find_region(peer_regions_.as<RegionTableHeader>(), rkey, KeyKind::kRemote);
  std::string why;
  if (!region) {
    why = which + " names no memory region (never registered, deregistered, or an lkey)";
  } else if (region->pd_id != peer_->pd_id) {
    why = which + " names a region of another protection domain than the queue pair's";
  } else if ((region->access & access) == 0) {
    why = which + ": the region was registered without " + flag;
  } else if ((peer_->access_flags.load(std::memory_order_relaxed) & access) == 0) {
    why = peer_name() + " was not given " + flag + " in its qp_access_flags";
  } else if (!region->covers(work.remote_addr, work.length)) {
    why = "[" + hex(work.remote_addr) + ", +" + std::to_string(work.length) +
          ") is outside the region of " + which + ": [" + hex(region->addr) + ", +" +
          std::to_string(region->length) + ")";
  }
  if (why.empty()) return {};
  return {false, IBV_WC_REM_ACCESS_ERR, why, true};
}

std::vector<iovec> Qp::local_ranges(const SendWork& work) const {
  if (work.is_inline) {
    return {iovec{const_cast<std::byte*>(work.inline_data.data()), work.inline_data.size()}};
  }
  std::vector<iovec> ranges;
  for (const ibv_sge& sge : work.sges) {
    ranges.push_back(iovec{reinterpret_cast<void*>(sge.addr), sge.length});
  }
  return ranges;
}

// What a failed copy into or out of the peer's memory means for the request.
Qp::Outcome Qp::copy_failure(int error, const std::string& peer, const std::string& what) {
  const std::string because = std::string(": ") + std::strerror(error);
  if (error == ESRCH) return {false, IBV_WC_RETRY_EXC_ERR, peer + " has exited", false};
  if (error == EFAULT) {
    return {false, IBV_WC_REM_ACCESS_ERR,
            what + " is registered but not mapped in the process of " + peer, true};
  }
  return {false, IBV_WC_GENERAL_ERR,
          "the kernel refused to copy " + what + because +
              " (process_vm_writev/readv need ptrace permission over the peer process: Yama's "
              "ptrace_scope 2 or 3, or a seccomp profile, forbids it)",
          false};
}

Qp::Outcome Qp::send_message(SendWork& work, int64_t now) {
  uint64_t index = 0;
  Outcome outcome = take_receive(work, now, &index);
  if (outcome.waiting || outcome.status != IBV_WC_SUCCESS) return outcome;
  RecvSlot* slot = recv_slot(peer_, index);
  const SharedSge* sges = slot_sges(slot);
  const bool with_imm = work.opcode == IBV_WR_SEND_WITH_IMM;
  const ibv_wc_opcode opcode = IBV_WC_RECV;
  auto fail_receive = [&](ibv_wc_status at_receiver, ibv_wc_status here, const std::string& why) {
    finish_receive(peer_, index, at_receiver, opcode, 0, 0, 0, qpn());
    return Outcome{false, here, why, true};
  };
  // The responder checks its receive as its adapter would: keys, then room.
  std::vector<iovec> remote;
  uint64_t room = 0;
  uint64_t left = work.length;
  for (uint32_t i = 0; i < slot->num_sge; ++i) {
    const SharedSge& sge = sges[i];
    const auto region =
        find_region(peer_regions_.as<RegionTableHeader>(), sge.lkey, KeyKind::kLocal);
    if (!region || region->pd_id != peer_->pd_id ||
        (region->access & IBV_ACCESS_LOCAL_WRITE) == 0 || !region->covers(sge.addr, sge.length)) {
      return fail_receive(IBV_WC_LOC_PROT_ERR, IBV_WC_REM_OP_ERR,
                          "the receive (wr_id " + std::to_string(slot->wr_id) + ") at " +
                              peer_name() + " names memory it may not write through lkey " +
                              hex(sge.lkey) + " (its completion: IBV_WC_LOC_PROT_ERR)");
    }
    room += sge.length;
    const uint64_t take = std::min<uint64_t>(sge.length, left);
    if (take > 0) remote.push_back(iovec{reinterpret_cast<void*>(sge.addr), take});
    left -= take;
  }
  if (work.length > room) {
    return fail_receive(IBV_WC_LOC_LEN_ERR, IBV_WC_REM_INV_REQ_ERR,
                        "a " + std::to_string(work.length) + "-byte message for a receive of " +
                            std::to_string(room) + " bytes (wr_id " + std::to_string(slot->wr_id) +
                            ") at " + peer_name() + " (its completion: IBV_WC_LOC_LEN_ERR)");
  }
  if (const int error = copy_to_process(peer_->owner_pid, local_ranges(work), remote); error != 0) {
    // The receive is consumed, and fails at the receiver as a buffer it may not write.
    Outcome failed = copy_failure(error, peer_name(), "the receive buffer");
    finish_receive(peer_, index, IBV_WC_LOC_PROT_ERR, opcode, 0, 0, 0, qpn());
    if (failed.status == IBV_WC_REM_ACCESS_ERR) failed.status = IBV_WC_REM_OP_ERR;
    failed.peer_fails = true;
    return failed;
  }
  finish_receive(peer_, index, IBV_WC_SUCCESS, opcode, static_cast<uint32_t>(work.length),
                 with_imm ? work.imm_data : 0, with_imm ? IBV_WC_WITH_IMM : 0, qpn());
  return {};
}

Qp::Outcome Qp::write(SendWork& work, int64_t now) {
  if (!work.write_counted) {
    work.write_counted = true;
    if (device_.faults.corrupt_this_write()) {
      device_.report("fault injected: " + std::string(opcode_name(work.opcode)) + " wr_id " +
                     std::to_string(work.wr_id) + " of " + name() + " goes out with rkey " +
                     hex(work.rkey ^ 0x80) + " instead of " + hex(work.rkey));
      work.rkey ^= 0x80;  // an rkey turned lkey: it names nothing remotely
    }
  }
  // A zero-length RDMA touches no memory, and adapters check no key for it.
  if (work.length > 0) {
    const Outcome access = check_remote_access(work, work.rkey, IBV_ACCESS_REMOTE_WRITE);
    if (access.status != IBV_WC_SUCCESS) return access;
  }
  const bool with_imm = work.opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
  uint64_t index = 0;
  if (with_imm) {
    const Outcome receive = take_receive(work, now, &index);
    if (receive.waiting || receive.status != IBV_WC_SUCCESS) return receive;
  }
  if (work.length > 0) {
    const int error =
        copy_to_process(peer_->owner_pid, local_ranges(work),
                        {iovec{reinterpret_cast<void*>(work.remote_addr), work.length}});
    if (error != 0) {
      // The receiver goes to ERR (copy_failure says so where it must); the receive the
      // write took is flushed there.
      if (with_imm) {
        finish_receive(peer_, index, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV_RDMA_WITH_IMM, 0, 0, 0,
                       qpn());
      }
      return copy_failure(error, peer_name(), "the RDMA WRITE target");
    }
  }
  if (with_imm) {
    finish_receive(peer_, index, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
                   static_cast<uint32_t>(work.length), work.imm_data, IBV_WC_WITH_IMM, qpn());
  }
  return {};
}

Qp::Outcome Qp::read(const SendWork& work) {
  if (peer_->max_dest_rd_atomic.load(std::memory_order_relaxed) == 0) {
    return {false, IBV_WC_REM_INV_REQ_ERR,
            peer_name() + " accepts no RDMA READ (its max_dest_rd_atomic is 0)", true};
  }
  if (work.length == 0) return {};
  const Outcome access = check_remote_access(work, work.rkey, IBV_ACCESS_REMOTE_READ);
  if (access.status != IBV_WC_SUCCESS) return access;
  const int error =
      copy_from_process(peer_->owner_pid, local_ranges(work),
                        {iovec{reinterpret_cast<void*>(work.remote_addr), work.length}});
  if (error != 0) return copy_failure(error, peer_name(), "the RDMA READ source");
  return {};
}

void Qp::complete_send(const SendWork& work, ibv_wc_status status, const std::string& why) {
  if (status == IBV_WC_SUCCESS) {
    if ((work.send_flags & IBV_SEND_SIGNALED) == 0 && !signal_all_) return;
    if (device_.faults.drop_this_completion()) {
      device_.report("fault injected: the completion of " + std::string(opcode_name(work.opcode)) +
                     " wr_id " + std::to_string(work.wr_id) + " of " + name() + " is lost");
      return;
    }
  } else if (status != IBV_WC_WR_FLUSH_ERR) {
    device_.report(name() + ": " + opcode_name(work.opcode) + " wr_id " +
                   std::to_string(work.wr_id) + " completes with " + wc_status_name(status) + ": " +
                   why);
  }
  Completion completion;
  ibv_wc& wc = completion.wc;
  wc.wr_id = work.wr_id;
  wc.status = status;
  wc.opcode = completion_opcode(work.opcode);
  wc.byte_len = static_cast<uint32_t>(work.length);
  wc.qp_num = qpn();
  completion.send_queue_of = this;
  completion.send_index = work.index;
  send_cq.add(completion);
}

int post_send(ibv_qp* handle, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Qp* qp = d.find(d.qps, handle);
  if (qp == nullptr) {
    *bad_wr = wr;
    return refuse(EINVAL, unknown_handle("post_send", "queue pair"));
  }
  return qp->post_send(wr, bad_wr);
}

}  // namespace weft::testing::soft_verbs
