// A completion queue: the completions of the queue pairs that name it, in the order
// they were made. Send completions are made when the work request is carried out (at
// post time, or at a later poll when it had to wait); receive completions are made when
// a poll of the queue pair's receive CQ collects what its remote peer wrote into the
// fabric. Holding more completions than its size is an overrun, which poll_cq reports.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "tests/transport/ib/soft_verbs/device.h"

namespace weft::testing::soft_verbs {

struct Completion {
  ibv_wc wc{};
  // For a send completion: the queue pair (cleared when it is destroyed) and the work
  // request's place in its send queue, whose slots up to it polling frees.
  Qp* send_queue_of = nullptr;
  uint64_t send_index = 0;
};

class Cq {
 public:
  ibv_cq ibv{};
  Context* context = nullptr;
  Channel* channel = nullptr;
  size_t capacity = 0;
  std::deque<Completion> entries;
  std::vector<Qp*> qps;  // those whose send or receive completions come here
  bool overrun = false;

  void add(const Completion& completion);
  // Makes progress on every queue pair of the CQ, then hands out up to `max` completions;
  // -1 with errno EOVERFLOW once the CQ has overrun.
  int poll(int max, ibv_wc* out);
};

}  // namespace weft::testing::soft_verbs
