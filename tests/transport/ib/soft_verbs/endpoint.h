// For the soft device's own tests: one end of an RC connection (a context, a protection
// domain, one CQ for both queues, a queue pair and a registered buffer), the calls a
// test makes on it, and a way for the processes of a test to tell each other where
// they are. Set-up failures are gtest failures.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "transport/ib/verbs_api.h"

namespace weft::testing {

inline constexpr int kAllAccess =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

// The attribute bits each step of the state machine requires.
inline constexpr int kInitMask =
    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
inline constexpr int kRtrMask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
inline constexpr int kRtsMask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;

struct EndpointOptions {
  int device = 0;  // its index in the device list (WEFT_TEST_SOFT_VERBS_DEVICES)
  size_t buffer_bytes = 4096;
  int buffer_access = kAllAccess;
  int qp_access = kAllAccess;
  uint32_t max_send_wr = 16;
  uint32_t max_recv_wr = 16;
  uint32_t max_inline_data = 64;
  int cqe = 64;
  bool signal_all = false;
  uint8_t rnr_retry = 7;
  uint8_t min_rnr_timer = 12;  // 0.64 ms
  uint8_t timeout = 17;        // 0.54 s a try: a peer on a loaded host has time to reach RTR
  uint8_t retry_cnt = 7;
  uint32_t sq_psn = 100;  // and the rq_psn the peer is told to expect
};

// What the other end needs to connect and to reach the buffer.
struct EndpointAddress {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint64_t addr = 0;
  uint32_t rkey = 0;

  std::string text() const;
  static EndpointAddress parse(const std::string& text);
};

class Endpoint {
 public:
  explicit Endpoint(const EndpointOptions& options = {});
  ~Endpoint();  // destroys it all, expecting every call to succeed
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  EndpointAddress address() const;
  // RESET -> INIT -> RTR -> RTS towards `peer`, asserting each step.
  void connect(const EndpointAddress& peer);
  // The three steps alone; each returns modify_qp's answer.
  int to_init();
  int to_rtr(const EndpointAddress& peer);
  int to_rts();
  // The attributes of each step, for a test to spoil.
  ibv_qp_attr init_attributes() const;
  ibv_qp_attr rtr_attributes(const EndpointAddress& peer) const;
  ibv_qp_attr rts_attributes() const;
  int modify(ibv_qp_attr attr, int attr_mask);

  // A receive into buffer[offset, offset + length).
  int post_recv(uint64_t wr_id, size_t offset, size_t length);
  // A request whose local side is buffer[offset, offset + length); signaled unless
  // `flags` says otherwise.
  int post_send(ibv_wr_opcode opcode, uint64_t wr_id, size_t offset, size_t length,
                uint64_t remote_addr = 0, uint32_t rkey = 0, uint32_t imm = 0,
                unsigned flags = IBV_SEND_SIGNALED);
  // Polls until `count` completions came or `timeout` passed; returns what came.
  std::vector<ibv_wc> poll(size_t count,
                           std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Polls for `duration`, returning whatever came meanwhile.
  std::vector<ibv_wc> poll_for(std::chrono::milliseconds duration);

  const transport::ib::VerbsApi& api;
  EndpointOptions options;
  ibv_context* context = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
  ibv_mr* mr = nullptr;
  std::vector<uint8_t> buffer;
};

// Where the processes of one test meet: a fabric directory of its own, and beside it a
// directory for the messages the ranks exchange.
class TestRoom {
 public:
  // In the test process: a fresh room named after the running test. In a rank (which
  // runs the test's code before run_ranks too): the room its parent made.
  static TestRoom for_current_test();
  // In a rank: the room its parent made (from WEFT_TEST_SOFT_VERBS).
  static TestRoom of_this_rank();

  // run_ranks options that put the ranks in this room, with the soft device installed
  // from the environment.
  RunOptions rank_options() const;

  std::string fabric() const { return path_ + "/fabric"; }
  // Files in the fabric directory, sorted.
  std::vector<std::string> fabric_files() const;

  // Publishes `value` under `name`, for the other ranks.
  void put(const std::string& name, const std::string& value) const;
  // Waits (10 s at most) until `name` is published and returns its value.
  std::string get(const std::string& name) const;

 private:
  std::string path_;
};

// In rank `rank` of two: publishes `me`, connects it to the other rank's endpoint
// (RESET to RTS) and returns that one's address.
EndpointAddress connect_to_other_rank(const TestRoom& room, int rank, Endpoint& me);

// "IBV_WC_SUCCESS wr_id 3 opcode 128 byte_len 16 ..." for failure messages.
std::string describe(const ibv_wc& wc);

}  // namespace weft::testing
