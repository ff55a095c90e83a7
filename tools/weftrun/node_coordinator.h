// NodeCoordinator: how the weftruns of a job spread over several hosts end it together.
// Each talks to the job's store (hosted by node 0's weftrun) under keys of its own:
//  - a node whose job fails locally (a rank fails, --timeout, a signal) posts a
//    NodeFailure; every other node sees it on its next poll and stops its ranks;
//  - every node beats a heartbeat while it runs and marks itself done at the end;
//    node 0 keeps the store up until every node that joined is done, or its heartbeat
//    has stopped (its host or its weftrun was lost);
//  - at the end every weftrun names the same root cause: the first posted failure of a
//    rank killed by a signal weftrun did not send (such a death is never the effect of a
//    peer's failure, while "lost the connection" exits often are), else the first posted.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rendezvous/store.h"

namespace weft::weftrun {

struct NodeFailure {
  int node = 0;
  std::string host;         // that weftrun's host name
  std::string description;  // "rank 3 (pid 77) was killed by signal 9 (Killed)"
  int exit_code = 1;        // the exit status weftrun returns for it
  bool killed = false;      // a rank killed by a signal weftrun did not send

  std::string encode() const;
  // Throws InvalidArgument on bytes encode() did not write.
  static NodeFailure decode(const std::string& bytes);
};

// The failure every node reports as the job's root cause (see above); `failures` in
// posting order, not empty.
const NodeFailure& root_cause(const std::vector<NodeFailure>& failures);

// "node 1 (host-b): rank 3 (pid 77) was killed by signal 9 (Killed)"
std::string describe_node_failure(const NodeFailure& failure);

class NodeCoordinator {
 public:
  // `store` reaches the job's store; `node` is this weftrun's node of `nnodes`.
  NodeCoordinator(std::unique_ptr<rendezvous::Store> store, int node, int nnodes, std::string host);

  // Tells the other nodes this one runs.
  void join();
  void post_failure(const NodeFailure& failure);
  // Failures posted by any node since the last call (one store request when there are
  // none), and a heartbeat at most once per kHeartbeatInterval. Throws
  // rendezvous::StoreLost when node 0's store has gone.
  std::vector<NodeFailure> poll();
  // Every failure posted so far, in posting order.
  const std::vector<NodeFailure>& failures() const { return failures_; }
  // Marks this node done.
  void finish();
  // Node 0: waits until every node that joined is done (nodes that never joined get
  // `late_join` to appear). Returns a line for each node given up on.
  std::vector<std::string> wait_for_nodes(std::chrono::milliseconds late_join);

  static constexpr std::chrono::seconds kHeartbeatInterval{1};
  // A node whose heartbeat has not moved for this long is lost.
  static constexpr std::chrono::seconds kHeartbeatTimeout{15};

 private:
  std::unique_ptr<rendezvous::Store> store_;
  int node_;
  int nnodes_;
  std::string host_;
  int64_t heartbeats_ = 0;
  std::chrono::steady_clock::time_point last_heartbeat_{};
  std::vector<NodeFailure> failures_;
};

}  // namespace weft::weftrun
