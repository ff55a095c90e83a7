// A reliable-connected queue pair of the soft device. Its file in the fabric carries its
// state, its attributes and its posted receives; from RTR on it also maps its remote
// peer's file and memory-region table, and carries out its send work requests itself,
// straight into the peer's memory, as an adapter would (soft_verbs.h describes the
// model). One thread at a time, under Device::mutex.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "tests/transport/ib/soft_verbs/device.h"
#include "tests/transport/ib/soft_verbs/fabric.h"
#include "tests/transport/ib/soft_verbs/remote_memory.h"
#include "tests/transport/ib/soft_verbs/shared_layout.h"

namespace weft::testing::soft_verbs {

class Cq;

// A posted send work request, copied: the caller's list may be gone by the time it is
// carried out.
struct SendWork {
  uint64_t index = 0;  // its place in the send queue, counting from creation
  uint64_t wr_id = 0;
  ibv_wr_opcode opcode = IBV_WR_SEND;
  unsigned send_flags = 0;
  uint32_t imm_data = 0;
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  std::vector<ibv_sge> sges;
  bool is_inline = false;              // IBV_SEND_INLINE: no lkeys, the bytes below
  std::vector<std::byte> inline_data;  // taken at post time
  uint64_t length = 0;

  // How far its retries have gone.
  bool started = false;
  int64_t retry_deadline_ns = 0;  // the peer must be in RTR by then
  int64_t rnr_deadline_ns = 0;    // once it met no posted receive; INT64_MAX: rnr_retry 7
  bool write_counted = false;     // by the fault injection
};

class Qp {
 public:
  Qp(Device& device, Pd& pd, Cq& send_cq, Cq& recv_cq, const ibv_qp_init_attr& attr);
  ~Qp();

  // Gives it a number and a file in the fabric; 0 or an errno, with the reason reported.
  int create();
  int modify(const ibv_qp_attr& attr, int attr_mask);
  int post_send(ibv_send_wr* wr, ibv_send_wr** bad_wr);
  int post_recv(ibv_recv_wr* wr, ibv_recv_wr** bad_wr);
  // What a poll of `cq` moves: the send work requests waiting for their peer when it is
  // the send CQ, the receives the peer consumed when it is the receive CQ.
  void progress(const Cq& cq);
  // A completion of send work request `index` was polled: its slot and those of the
  // unsignaled requests before it are free again.
  void retire_sends_through(uint64_t index);
  // Marks it destroyed for its peer and removes its file.
  void destroy();

  ibv_qp ibv{};
  Pd& pd;
  Cq& send_cq;
  Cq& recv_cq;

  // What carrying out a send work request came to.
  struct Outcome {
    bool waiting = false;  // not yet: retried at the next post or poll
    ibv_wc_status status = IBV_WC_SUCCESS;
    std::string why;          // for an error
    bool peer_fails = false;  // the remote queue pair goes to ERR too

    static Outcome retry_later() {
      Outcome outcome;
      outcome.waiting = true;
      return outcome;
    }
  };

 private:
  uint32_t qpn() const { return ibv.qp_num; }
  ibv_qp_state state() const;
  std::string name() const;       // "QP 300"
  std::string peer_name() const;  // "QP 301 (pid 1234)"

  // modify()'s parts.
  std::string check_values(const ibv_qp_attr& attr, int attr_mask) const;
  int connect(const ibv_qp_attr& attr);  // the INIT -> RTR binding to the remote peer
  void reset();

  // Errors: the state ERR, set here or by the peer through the fabric.
  void notice_remote_error();
  void enter_error();
  void mark_peer_error();

  // The receive side.
  std::string check_local_sges(const ibv_sge* sges, int count, int need_access) const;
  void drain_receives();
  void deliver(RecvSlot* slot);
  void flush_receive(uint64_t wr_id);

  // The send side (send_path.cc).
  void carry_out_send_queue();
  Outcome carry_out(SendWork& work);
  Outcome reach_peer(const SendWork& work, int64_t now);
  Outcome take_receive(SendWork& work, int64_t now, uint64_t* taken);
  Outcome check_remote_access(const SendWork& work, uint32_t rkey, int access) const;
  Outcome send_message(SendWork& work, int64_t now);
  Outcome write(SendWork& work, int64_t now);
  Outcome read(const SendWork& work);
  static Outcome copy_failure(int error, const std::string& peer, const std::string& what);
  void complete_send(const SendWork& work, ibv_wc_status status, const std::string& why);
  std::vector<iovec> local_ranges(const SendWork& work) const;

  Device& device_;
  ibv_qp_cap cap_{};
  bool signal_all_ = false;

  MappedFile file_;
  QpHeader* shared_ = nullptr;

  // Attributes from modify_qp.
  uint32_t access_flags_ = 0;
  uint8_t timeout_ = 0, retry_cnt_ = 0, rnr_retry_ = 0, max_rd_atomic_ = 0;
  uint32_t sq_psn_ = 0;

  // The remote peer, from RTR.
  MappedFile peer_file_;
  QpHeader* peer_ = nullptr;
  MappedFile peer_regions_;
  PeerProcess peer_process_;
  bool psn_checked_ = false;

  std::deque<SendWork> send_queue_;  // posted and not yet carried out, in order
  uint64_t sends_posted_ = 0;
  uint64_t sends_retired_ = 0;
  uint64_t receives_polled_ = 0;
  bool in_error_ = false;            // ERR seen and flushed here
  uint64_t receives_closed_at_ = 0;  // rq_taken when the receive queue closed
};

}  // namespace weft::testing::soft_verbs
