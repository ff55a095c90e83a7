#include "tests/transport/ib/soft_verbs/completion_queue.h"

#include <algorithm>
#include <cerrno>

#include "tests/transport/ib/soft_verbs/queue_pair.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace weft::testing::soft_verbs {

void Cq::add(const Completion& completion) {
  entries.push_back(completion);
  if (entries.size() > capacity && !overrun) {
    overrun = true;
    device().report("completion queue overrun: " + std::to_string(entries.size()) +
                    " completions in a CQ of " + std::to_string(capacity) +
                    " (poll it more often, or size it for every outstanding work request)");
  }
}

int Cq::poll(int max, ibv_wc* out) {
  for (Qp* qp : qps) qp->progress(*this);
  if (overrun) {
    errno = EOVERFLOW;
    return -1;
  }
  const int count = std::min<int>(max, static_cast<int>(entries.size()));
  for (int i = 0; i < count; ++i) {
    const Completion& completion = entries.front();
    out[i] = completion.wc;
    if (completion.send_queue_of != nullptr) {
      completion.send_queue_of->retire_sends_through(completion.send_index);
    }
    entries.pop_front();
  }
  return count;
}

ibv_cq* create_cq(ibv_context* context_handle, int cqe, void* cq_context,
                  ibv_comp_channel* channel_handle, int comp_vector) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Context* context = d.find(d.contexts, context_handle);
  if (context == nullptr)
    return refuse_null<ibv_cq>(EINVAL, unknown_handle("create_cq", "context"));
  Channel* channel = nullptr;
  if (channel_handle != nullptr) {
    channel = d.find(d.channels, channel_handle);
    if (channel == nullptr) {
      return refuse_null<ibv_cq>(EINVAL, unknown_handle("create_cq", "completion channel"));
    }
  }
  if (cqe < 1 || cqe > kMaxCqe) {
    return refuse_null<ibv_cq>(EINVAL, "create_cq: cqe " + std::to_string(cqe) +
                                           " is outside [1, " + std::to_string(kMaxCqe) + "]");
  }
  if (comp_vector != 0) {
    return refuse_null<ibv_cq>(EINVAL, "create_cq: softib0 has one completion vector, 0");
  }
  auto cq = std::make_unique<Cq>();
  cq->context = context;
  cq->channel = channel;
  cq->capacity = static_cast<size_t>(cqe);
  cq->ibv.context = context_handle;
  cq->ibv.channel = channel_handle;
  cq->ibv.cq_context = cq_context;
  cq->ibv.handle = d.next_handle++;
  cq->ibv.cqe = cqe;
  ++context->cqs;
  if (channel != nullptr) {
    ++channel->cqs;
    ++channel->ibv.refcnt;
  }
  ibv_cq* handle = &cq->ibv;
  d.cqs.emplace(handle, std::move(cq));
  return handle;
}

int destroy_cq(ibv_cq* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Cq* cq = d.find(d.cqs, handle);
  if (cq == nullptr) return refuse(EINVAL, unknown_handle("destroy_cq", "completion queue"));
  if (!cq->qps.empty()) {
    return refuse(EBUSY, "destroy_cq: " + std::to_string(cq->qps.size()) +
                             " queue pairs still use the completion queue");
  }
  --cq->context->cqs;
  if (cq->channel != nullptr) {
    --cq->channel->cqs;
    --cq->channel->ibv.refcnt;
  }
  d.cqs.erase(handle);
  return 0;
}

int poll_cq(ibv_cq* handle, int num_entries, ibv_wc* wc) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Cq* cq = d.find(d.cqs, handle);
  if (cq == nullptr) {
    refuse(EINVAL, unknown_handle("poll_cq", "completion queue"));
    return -1;
  }
  if (num_entries < 0) {
    refuse(EINVAL, "poll_cq: num_entries < 0");
    return -1;
  }
  return cq->poll(num_entries, wc);
}

}  // namespace weft::testing::soft_verbs
