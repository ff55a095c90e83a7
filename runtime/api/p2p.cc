#include "weft/p2p.h"

#include "p2p/engine.h"
#include "runtime/api/argument_checks.h"
#include "runtime/context.h"
#include "runtime/device_interface.h"
#include "weft/error.h"

namespace weft {
namespace {

using GroupPtr = std::shared_ptr<const p2p::GroupState>;

// Checks what every point-to-point call needs and returns the resolved group.
const GroupPtr& validate(const char* op, const Tensor& tensor, int peer, bool any_allowed, int tag,
                         const Group& group, const char* peer_name) {
  runtime::Checker check(op, group);
  check.peer(peer, peer_name, any_allowed);
  check.tag(tag, any_allowed);
  check.tensor(tensor, "the tensor");
  return check.group();
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
    if (r->error) std::rethrow_exception(r->error);
  }
}

p2p::Engine& engine_of(const char* op) { return *runtime::context(op).engine; }

// Device tensors' asynchronous forms: the request keeps the host copy until it is
// dropped, and a receive's request copies the message to the device before it reports
// completion (Request::wait, is_completed).
Request staged_isend(const GroupPtr& g, const Tensor& tensor, int dst, int tag, bool synchronous) {
  runtime::DeviceLayer::StagedMessage staged = runtime::device_layer().stage_send(tensor);
  auto r = engine_of(synchronous ? "issend" : "isend")
               .isend(g, staged.host, dst, tag, true, synchronous);
  r->staging = std::move(staged.keep);
  return runtime::Handles::request(r);
}

Request staged_irecv(const GroupPtr& g, const Tensor& tensor, int src, int tag) {
  runtime::DeviceLayer& layer = runtime::device_layer();
  auto staged = std::make_shared<runtime::DeviceLayer::StagedMessage>(layer.stage_receive(tensor));
  auto r = engine_of("irecv").irecv(g, staged->host, src, tag, true);
  // The state owns this function, so it refers to the state by a plain pointer.
  p2p::RequestState* state = r.get();
  r->finish_on_device = [&layer, tensor, staged, state] {
    layer.deliver(tensor, *staged, state->bytes);
  };
  r->staging = staged;
  return runtime::Handles::request(r);
}

// A probe's checks: a receive's, less the tensor.
const GroupPtr& validate_probe(const char* op, int src, int tag, const Group& group) {
  runtime::Checker check(op, group);
  check.peer(src, "src", true);
  check.tag(tag, true);
  return check.group();
}

}  // namespace

void send(const Tensor& tensor, int dst, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate("send", tensor, dst, false, tag, group, "dst");
  if (runtime::on_device(tensor)) [[unlikely]] {
    // The staged copy lives until the call returns, after which weft never reads it.
    runtime::DeviceLayer::StagedMessage staged = runtime::device_layer().stage_send(tensor);
    return finish(engine_of("send").isend(g, staged.host, dst, tag, false), timeout);
  }
  p2p::Engine& engine = *runtime::context("send").engine;
  if (engine.send_eagerly_now(*g, tensor, dst, tag)) return;
  finish(engine.isend(g, tensor, dst, tag, false), timeout);
}

RecvResult recv(const Tensor& tensor, int src, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate("recv", tensor, src, true, tag, group, "src");
  if (runtime::on_device(tensor)) [[unlikely]] {
    runtime::DeviceLayer& layer = runtime::device_layer();
    runtime::DeviceLayer::StagedMessage staged = layer.stage_receive(tensor);
    auto r = engine_of("recv").irecv(g, staged.host, src, tag, false);
    finish(r, timeout);
    layer.deliver(tensor, staged, r->bytes);
    return RecvResult{r->peer, r->tag, r->bytes};
  }
  // The engine's blocking receive: no request for a message already waiting, one in
  // its own frame otherwise; a timeout withdraws it, as finish() does.
  return runtime::context("recv").engine->recv(g, tensor, src, tag,
                                               timeout.count() >= 0 ? timeout : g->timeout);
}

Request isend(const Tensor& tensor, int dst, int tag, const Group& group) {
  const GroupPtr& g = validate("isend", tensor, dst, false, tag, group, "dst");
  if (runtime::on_device(tensor)) [[unlikely]]
    return staged_isend(g, tensor, dst, tag, false);
  return runtime::Handles::request(
      runtime::context("isend").engine->isend(g, tensor, dst, tag, true));
}

Request issend(const Tensor& tensor, int dst, int tag, const Group& group) {
  const GroupPtr& g = validate("issend", tensor, dst, false, tag, group, "dst");
  if (runtime::on_device(tensor)) [[unlikely]]
    return staged_isend(g, tensor, dst, tag, true);
  return runtime::Handles::request(
      runtime::context("issend").engine->isend(g, tensor, dst, tag, true, true));
}

Request irecv(const Tensor& tensor, int src, int tag, const Group& group) {
  const GroupPtr& g = validate("irecv", tensor, src, true, tag, group, "src");
  if (runtime::on_device(tensor)) [[unlikely]]
    return staged_irecv(g, tensor, src, tag);
  return runtime::Handles::request(
      runtime::context("irecv").engine->irecv(g, tensor, src, tag, true));
}

std::optional<ProbeResult> iprobe(int src, int tag, const Group& group) {
  const GroupPtr& g = validate_probe("iprobe", src, tag, group);
  return runtime::context("iprobe").engine->iprobe(*g, src, tag);
}

ProbeResult probe(int src, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate_probe("probe", src, tag, group);
  Timeout t = timeout.count() >= 0 ? timeout : g->timeout;
  return runtime::context("probe").engine->probe(*g, src, tag, t);
}

namespace {

MatchedMessage matched(const std::shared_ptr<p2p::UnexpectedMessage>& message) {
  const transport::FrameHeader& h = message->header;
  return runtime::Handles::matched(
      ProbeResult{h.src, h.tag, h.msg_bytes, static_cast<DType>(h.dtype)}, message);
}

}  // namespace

std::optional<MatchedMessage> improbe(int src, int tag, const Group& group) {
  const GroupPtr& g = validate_probe("improbe", src, tag, group);
  auto message = runtime::context("improbe").engine->iclaim(*g, src, tag);
  if (!message) return std::nullopt;
  return matched(message);
}

MatchedMessage mprobe(int src, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate_probe("mprobe", src, tag, group);
  Timeout t = timeout.count() >= 0 ? timeout : g->timeout;
  return matched(runtime::context("mprobe").engine->claim(*g, src, tag, t));
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
