// GroupRecord: what a weft::Group handle refers to: the group's point-to-point
// matching space, its collectives' state, and whether destroy_group has retired it.
// Immutable once handed out, but for the collectives' tag counter and that flag.
//
// Handles: the constructors of weft::Group and weft::Request that take internal state
// are private to the public API; the runtime makes and reads handles through Handles.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "base/operation.h"
#include "collectives/collective_group.h"
#include "p2p/group_state.h"
#include "p2p/request_state.h"
#include "weft/group.h"
#include "weft/p2p.h"
#include "weft/request.h"

namespace weft::runtime {

struct GroupRecord {
  GroupRecord(std::shared_ptr<const p2p::GroupState> messages,
              std::shared_ptr<const p2p::GroupState> collectives_space,
              std::shared_ptr<collectives::SharedArena> arena, const collectives::HostLayout* hosts)
      : messages(std::move(messages)),
        collectives(std::move(collectives_space), std::move(arena), hosts) {}

  const std::string& name() const { return messages->name; }
  int rank() const { return messages->rank; }
  int size() const { return messages->size(); }
  Timeout timeout() const { return messages->timeout; }
  const std::vector<int>& world_ranks() const { return messages->world_ranks; }

  std::shared_ptr<const p2p::GroupState> messages;  // point-to-point: comm id `comm`
  collectives::CollectiveGroup collectives;         // comm id `comm + 1`
  mutable std::atomic<bool> destroyed{false};
};

// A group with comm ids `comm` (point-to-point) and `comm + 1` (collectives), the
// shared-memory arena `arena` (null: none) and the host layout `hosts` (null: none,
// host_layout_of in runtime/context.h).
std::shared_ptr<const GroupRecord> make_group_record(
    uint32_t comm, std::string name, std::vector<int> world_ranks, int rank, Timeout timeout,
    std::shared_ptr<collectives::SharedArena> arena, const collectives::HostLayout* hosts);

struct Handles {
  static Group group(std::shared_ptr<const GroupRecord> record) { return Group(std::move(record)); }
  // Null for a default-constructed Group (the world).
  static const std::shared_ptr<const GroupRecord>& record(const Group& group) {
    return group.record_;
  }
  static Request request(std::shared_ptr<base::Operation> state) {
    return Request(std::move(state));
  }
  // A send the link took at once (Engine::send_eagerly_now): complete, with no operation.
  static Request sent(int dst_world, int dst_group, int tag, uint64_t bytes) {
    return Request(Request::Sent{dst_world, dst_group, tag, bytes});
  }
  // Null for an empty handle, and for a sent() one.
  static base::Operation* operation(const Request& request) { return request.state_.get(); }
  static MatchedMessage matched(const ProbeResult& found, std::shared_ptr<void> message) {
    MatchedMessage m;
    m.found_ = found;
    m.message_ = std::move(message);
    return m;
  }
  static const std::shared_ptr<void>& message(const MatchedMessage& matched) {
    return matched.message_;
  }
};

}  // namespace weft::runtime
