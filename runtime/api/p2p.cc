#include "weft/p2p.h"

#include "p2p/engine.h"
#include "runtime/api/argument_checks.h"
#include "runtime/api/prechecked_p2p.h"
#include "runtime/context.h"
#include "runtime/device_interface.h"
#include "weft/error.h"

namespace weft {
namespace {

using GroupPtr = std::shared_ptr<const p2p::GroupState>;
using runtime::group_rank;
using runtime::RankArgument;
using runtime::world_rank;

// A checked call: its resolved group and its peer as a group rank (or kAnySource).
struct Checked {
  const GroupPtr& group;
  int peer;
};

// Checks what every point-to-point call needs.
Checked validate(const char* op, const Tensor& tensor, RankArgument peer, bool any_allowed, int tag,
                 const Group& group, const char* peer_name) {
  runtime::Checker check(op, group);
  const int in_group = check.peer(peer, peer_name, any_allowed);
  check.tag(tag, any_allowed);
  check.tensor(tensor, "the tensor");
  return {check.group(), in_group};
}

// Waits for a blocking call's request; on timeout, abandons it so that weft never
// touches the caller's buffer after the call has returned.
void finish(const std::shared_ptr<p2p::RequestState>& r, Timeout timeout) {
  Timeout t = timeout.count() >= 0 ? timeout : r->group->timeout;
  try {
    r->engine->wait(*r, t);
  } catch (const TimeoutError& e) {
    r->engine->abandon(r,
                       std::string(e.what()) + " (timeout " + std::to_string(t.count()) + " ms)");
    // abandon() does nothing to a request that completed in the meantime.
    if (r->abandoned) r->engine->note_timed_out_waiting_for(r->peer_world);
    if (r->error) std::rethrow_exception(r->error);
  }
}

p2p::Engine& engine_of(const char* op) { return *runtime::context(op).engine; }

// GPUDirect RDMA (docs/ARCHITECTURE.md, "Verbs"): a device tensor of a message above the
// eager limit, to or from a named peer whose link takes device memory, goes to the
// engine unstaged; every other device message is staged through host memory.
bool moves_directly(p2p::Engine& engine, const GroupPtr& g, const Tensor& tensor, int peer) {
  return peer >= 0 && engine.moves_device_memory(g->world_ranks[peer], tensor.bytes());
}

// Device tensors' sends: the request keeps the host copy, if any, until it is dropped.
std::shared_ptr<p2p::RequestState> device_isend(const char* op, const GroupPtr& g,
                                                const Tensor& tensor, int dst, int tag,
                                                bool user_async, bool synchronous) {
  p2p::Engine& engine = engine_of(op);
  runtime::DeviceLayer& layer = runtime::device_layer();
  if (moves_directly(engine, g, tensor, dst)) {
    layer.await_current_stream(tensor);  // the adapter reads what the caller's work wrote
    return engine.isend_device(g, tensor, tensor.device().index, dst, tag, user_async, synchronous);
  }
  runtime::DeviceLayer::StagedMessage staged = layer.stage_send(tensor);
  auto r = engine.isend(g, staged.host, dst, tag, user_async, synchronous);
  r->staging = std::move(staged.keep);
  return r;
}

// Device tensors' receives: into a host buffer, which the request copies to the device
// before it reports completion (Request::wait, is_completed), unless the engine took the
// message straight into the tensor (RequestState::device).
std::shared_ptr<p2p::RequestState> device_irecv(const char* op, const GroupPtr& g,
                                                const Tensor& tensor, int src, int tag,
                                                bool user_async) {
  p2p::Engine& engine = engine_of(op);
  runtime::DeviceLayer& layer = runtime::device_layer();
  auto staged = std::make_shared<runtime::DeviceLayer::StagedMessage>(layer.stage_receive(tensor));
  std::shared_ptr<p2p::RequestState> r;
  if (moves_directly(engine, g, tensor, src)) {
    layer.await_current_stream(tensor);  // nothing the caller queued still reads it
    r = engine.irecv_device(g, staged->host, tensor.data(), tensor.device().index, src, tag,
                            user_async);
  } else {
    r = engine.irecv(g, staged->host, src, tag, user_async);
  }
  // The state owns this function, so it refers to the state by a plain pointer.
  p2p::RequestState* state = r.get();
  r->finish_on_device = [&layer, tensor, staged, state] {
    if (state->device < 0) layer.deliver(tensor, *staged, state->bytes);
  };
  r->staging = staged;
  return r;
}

// A probe's checks: a receive's, less the tensor.
Checked validate_probe(const char* op, RankArgument src, int tag, const Group& group) {
  runtime::Checker check(op, group);
  const int in_group = check.peer(src, "src", true);
  check.tag(tag, true);
  return {check.group(), in_group};
}

// The calls past their checks: what the public API and the MPI layer's plain messages
// (runtime/api/prechecked_p2p.h) share.
void send_resolved(const GroupPtr& g, const Tensor& tensor, int dst, int tag, Timeout timeout) {
  if (runtime::on_device(tensor)) [[unlikely]] {
    // A staged copy lives with the request, until the call returns.
    return finish(device_isend("send", g, tensor, dst, tag, false, false), timeout);
  }
  p2p::Engine& engine = *runtime::context("send").engine;
  if (engine.send_eagerly_now(*g, tensor, dst, tag)) return;
  finish(engine.isend(g, tensor, dst, tag, false), timeout);
}

RecvResult recv_resolved(const GroupPtr& g, const Tensor& tensor, int src, int tag,
                         Timeout timeout) {
  if (runtime::on_device(tensor)) [[unlikely]] {
    auto r = device_irecv("recv", g, tensor, src, tag, false);
    finish(r, timeout);
    r->finish_device_copy();
    if (r->error) std::rethrow_exception(r->error);
    return RecvResult{r->peer_world, r->tag, r->bytes, r->peer};
  }
  // The engine's blocking receive: no request for a message already waiting, one in
  // its own frame otherwise; a timeout withdraws it, as finish() does.
  return runtime::context("recv").engine->recv(g, tensor, src, tag,
                                               timeout.count() >= 0 ? timeout : g->timeout);
}

Request isend_resolved(const GroupPtr& g, const Tensor& tensor, int dst, int tag,
                       bool synchronous) {
  if (runtime::on_device(tensor)) [[unlikely]]
    return runtime::Handles::request(
        device_isend(synchronous ? "issend" : "isend", g, tensor, dst, tag, true, synchronous));
  p2p::Engine& engine = *runtime::context(synchronous ? "issend" : "isend").engine;
  // A small message the link takes now needs no request: what streams of small sends
  // cost per message is mostly the request's life cycle.
  if (!synchronous && engine.send_eagerly_now(*g, tensor, dst, tag)) {
    return runtime::Handles::sent(g->world_ranks[dst], dst, tag, tensor.bytes());
  }
  return runtime::Handles::request(engine.isend(g, tensor, dst, tag, true, synchronous));
}

Request irecv_resolved(const GroupPtr& g, const Tensor& tensor, int src, int tag) {
  if (runtime::on_device(tensor)) [[unlikely]]
    return runtime::Handles::request(device_irecv("irecv", g, tensor, src, tag, true));
  return runtime::Handles::request(
      runtime::context("irecv").engine->irecv(g, tensor, src, tag, true));
}

void send_to(const Tensor& tensor, RankArgument dst_rank, int tag, const Group& group,
             Timeout timeout) {
  auto [g, dst] = validate("send", tensor, dst_rank, false, tag, group, "dst");
  send_resolved(g, tensor, dst, tag, timeout);
}

RecvResult recv_from(const Tensor& tensor, RankArgument src_rank, int tag, const Group& group,
                     Timeout timeout) {
  auto [g, src] = validate("recv", tensor, src_rank, true, tag, group, "src");
  return recv_resolved(g, tensor, src, tag, timeout);
}

Request isend_to(const Tensor& tensor, RankArgument dst_rank, int tag, const Group& group,
                 bool synchronous) {
  const char* op = synchronous ? "issend" : "isend";
  auto [g, dst] = validate(op, tensor, dst_rank, false, tag, group, "dst");
  return isend_resolved(g, tensor, dst, tag, synchronous);
}

Request irecv_from(const Tensor& tensor, RankArgument src_rank, int tag, const Group& group) {
  auto [g, src] = validate("irecv", tensor, src_rank, true, tag, group, "src");
  return irecv_resolved(g, tensor, src, tag);
}

std::optional<ProbeResult> iprobe_from(RankArgument src_rank, int tag, const Group& group) {
  auto [g, src] = validate_probe("iprobe", src_rank, tag, group);
  return runtime::context("iprobe").engine->iprobe(*g, src, tag);
}

ProbeResult probe_from(RankArgument src_rank, int tag, const Group& group, Timeout timeout) {
  auto [g, src] = validate_probe("probe", src_rank, tag, group);
  Timeout t = timeout.count() >= 0 ? timeout : g->timeout;
  return runtime::context("probe").engine->probe(*g, src, tag, t);
}

MatchedMessage matched(const p2p::GroupState& g,
                       const std::shared_ptr<p2p::UnexpectedMessage>& message) {
  const transport::FrameHeader& h = message->header;
  return runtime::Handles::matched(
      ProbeResult{g.world_ranks[h.src], h.tag, h.msg_bytes, static_cast<DType>(h.dtype), h.src},
      message);
}

std::optional<MatchedMessage> improbe_from(RankArgument src_rank, int tag, const Group& group) {
  auto [g, src] = validate_probe("improbe", src_rank, tag, group);
  auto message = runtime::context("improbe").engine->iclaim(*g, src, tag);
  if (!message) return std::nullopt;
  return matched(*g, message);
}

MatchedMessage mprobe_from(RankArgument src_rank, int tag, const Group& group, Timeout timeout) {
  auto [g, src] = validate_probe("mprobe", src_rank, tag, group);
  Timeout t = timeout.count() >= 0 ? timeout : g->timeout;
  return matched(*g, runtime::context("mprobe").engine->claim(*g, src, tag, t));
}

}  // namespace

void send(const Tensor& tensor, int dst, int tag, const Group& group, Timeout timeout) {
  send_to(tensor, world_rank(dst), tag, group, timeout);
}
void send(const Tensor& tensor, GroupRank dst, int tag, const Group& group, Timeout timeout) {
  send_to(tensor, group_rank(dst), tag, group, timeout);
}

RecvResult recv(const Tensor& tensor, int src, int tag, const Group& group, Timeout timeout) {
  return recv_from(tensor, world_rank(src), tag, group, timeout);
}
RecvResult recv(const Tensor& tensor, GroupRank src, int tag, const Group& group, Timeout timeout) {
  return recv_from(tensor, group_rank(src), tag, group, timeout);
}

Request isend(const Tensor& tensor, int dst, int tag, const Group& group) {
  return isend_to(tensor, world_rank(dst), tag, group, false);
}
Request isend(const Tensor& tensor, GroupRank dst, int tag, const Group& group) {
  return isend_to(tensor, group_rank(dst), tag, group, false);
}

Request issend(const Tensor& tensor, int dst, int tag, const Group& group) {
  return isend_to(tensor, world_rank(dst), tag, group, true);
}
Request issend(const Tensor& tensor, GroupRank dst, int tag, const Group& group) {
  return isend_to(tensor, group_rank(dst), tag, group, true);
}

Request irecv(const Tensor& tensor, int src, int tag, const Group& group) {
  return irecv_from(tensor, world_rank(src), tag, group);
}
Request irecv(const Tensor& tensor, GroupRank src, int tag, const Group& group) {
  return irecv_from(tensor, group_rank(src), tag, group);
}

std::optional<ProbeResult> iprobe(int src, int tag, const Group& group) {
  return iprobe_from(world_rank(src), tag, group);
}
std::optional<ProbeResult> iprobe(GroupRank src, int tag, const Group& group) {
  return iprobe_from(group_rank(src), tag, group);
}

ProbeResult probe(int src, int tag, const Group& group, Timeout timeout) {
  return probe_from(world_rank(src), tag, group, timeout);
}
ProbeResult probe(GroupRank src, int tag, const Group& group, Timeout timeout) {
  return probe_from(group_rank(src), tag, group, timeout);
}

std::optional<MatchedMessage> improbe(int src, int tag, const Group& group) {
  return improbe_from(world_rank(src), tag, group);
}
std::optional<MatchedMessage> improbe(GroupRank src, int tag, const Group& group) {
  return improbe_from(group_rank(src), tag, group);
}

MatchedMessage mprobe(int src, int tag, const Group& group, Timeout timeout) {
  return mprobe_from(world_rank(src), tag, group, timeout);
}
MatchedMessage mprobe(GroupRank src, int tag, const Group& group, Timeout timeout) {
  return mprobe_from(group_rank(src), tag, group, timeout);
}

Request imrecv(const Tensor& tensor, MatchedMessage message, const Group& group) {
  runtime::Checker check("imrecv", group);
  check.tensor(tensor, "the tensor");
  const GroupPtr& g = check.group();
  auto queued =
      std::static_pointer_cast<p2p::UnexpectedMessage>(runtime::Handles::message(message));
  if (!queued) throw InvalidArgument("imrecv: the matched message is not valid");
  if (queued->header.comm != g->comm) {
    throw InvalidArgument("imrecv: the message was matched in another group");
  }
  if (runtime::on_device(tensor)) [[unlikely]] {
    throw InvalidArgument("imrecv: a device tensor cannot receive a matched message");
  }
  return runtime::Handles::request(
      runtime::context("imrecv").engine->receive_claimed(g, tensor, queued));
}

}  // namespace weft

namespace weft::runtime {

// The group's matching space: resolve_group's checks (the runtime is up, the group not
// destroyed) without the rest of a Checker's, which the caller has made.
static const GroupPtr& messages_of(const Group& group, const char* op) {
  return resolve_group(group, op)->messages;
}

void send_prechecked(const Tensor& tensor, int dst, int tag, const Group& group) {
  const GroupPtr& g = messages_of(group, "send");
  send_resolved(g, tensor, dst, tag, g->timeout);
}

RecvResult recv_prechecked(const Tensor& tensor, int src, int tag, const Group& group) {
  const GroupPtr& g = messages_of(group, "recv");
  return recv_resolved(g, tensor, src, tag, g->timeout);
}

Request isend_prechecked(const Tensor& tensor, int dst, int tag, const Group& group) {
  return isend_resolved(messages_of(group, "isend"), tensor, dst, tag, false);
}

Request irecv_prechecked(const Tensor& tensor, int src, int tag, const Group& group) {
  return irecv_resolved(messages_of(group, "irecv"), tensor, src, tag);
}

}  // namespace weft::runtime
