#include "weft/p2p.h"

#include "core/api/argument_checks.h"
#include "core/init/context.h"
#include "core/p2p/engine.h"
#include "weft/error.h"

namespace weft {
namespace {

using GroupPtr = std::shared_ptr<const detail::GroupState>;

// Checks what every point-to-point call needs and returns the resolved group.
const GroupPtr& validate(const char* op, const Tensor& tensor, int peer, bool any_allowed, int tag,
                         const Group& group, const char* peer_name) {
  core::Checker check(op, group);
  check.peer(peer, peer_name, any_allowed);
  check.tag(tag, any_allowed);
  check.tensor(tensor, "the tensor");
  return check.group();
}

// Waits for a blocking call's request; on timeout, abandons it so that weft never
// touches the caller's buffer after the call has returned.
void finish(const std::shared_ptr<detail::RequestState>& r, Timeout timeout) {
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

// A probe's checks: a receive's, less the tensor.
const GroupPtr& validate_probe(const char* op, int src, int tag, const Group& group) {
  core::Checker check(op, group);
  check.peer(src, "src", true);
  check.tag(tag, true);
  return check.group();
}

}  // namespace

void send(const Tensor& tensor, int dst, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate("send", tensor, dst, false, tag, group, "dst");
  core::Engine& engine = *core::context("send").engine;
  if (engine.send_eagerly_now(*g, tensor, dst, tag)) return;
  finish(engine.isend(g, tensor, dst, tag, false), timeout);
}

int recv(const Tensor& tensor, int src, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate("recv", tensor, src, true, tag, group, "src");
  auto r = core::context("recv").engine->irecv(g, tensor, src, tag, false);
  finish(r, timeout);
  return r->peer;
}

Request isend(const Tensor& tensor, int dst, int tag, const Group& group) {
  const GroupPtr& g = validate("isend", tensor, dst, false, tag, group, "dst");
  return Request(core::context("isend").engine->isend(g, tensor, dst, tag, true));
}

Request issend(const Tensor& tensor, int dst, int tag, const Group& group) {
  const GroupPtr& g = validate("issend", tensor, dst, false, tag, group, "dst");
  return Request(core::context("issend").engine->isend(g, tensor, dst, tag, true, true));
}

Request irecv(const Tensor& tensor, int src, int tag, const Group& group) {
  const GroupPtr& g = validate("irecv", tensor, src, true, tag, group, "src");
  return Request(core::context("irecv").engine->irecv(g, tensor, src, tag, true));
}

std::optional<ProbeResult> iprobe(int src, int tag, const Group& group) {
  const GroupPtr& g = validate_probe("iprobe", src, tag, group);
  return core::context("iprobe").engine->iprobe(*g, src, tag);
}

ProbeResult probe(int src, int tag, const Group& group, Timeout timeout) {
  const GroupPtr& g = validate_probe("probe", src, tag, group);
  Timeout t = timeout.count() >= 0 ? timeout : g->timeout;
  return core::context("probe").engine->probe(*g, src, tag, t);
}

}  // namespace weft
