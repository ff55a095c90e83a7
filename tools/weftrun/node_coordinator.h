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
//  - when that failure is a rank's, every node also posts how each of its ranks ended
//    (by itself, or stopped by weftrun), so that all of them can follow the ranks'
//    timeout reports (rendezvous/launcher_reports.h) to a rank that stopped responding
//    (tools/weftrun/silent_rank.h) from the same facts, and name the same one.
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
  int rank = -1;            // the failed rank's world rank; -1: not a rank's failure

  std::string encode() const;
  // Throws InvalidArgument on bytes encode() did not write.
  static NodeFailure decode(const std::string& bytes);
};

// The failure every node reports as the job's root cause (see above); `failures` in
// posting order, not empty.
const NodeFailure& root_cause(const std::vector<NodeFailure>& failures);

// "node 1 (host-b): rank 3 (pid 77) was killed by signal 9 (Killed)"
std::string describe_node_failure(const NodeFailure& failure);

// How a rank of the job ended, as its node posted it, with its timeout report.
struct RankEnd {
  bool stopped_by_weftrun = false;
  std::string where;  // "host:pid"
  std::optional<int> waited_for;
};

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
  // Posts how world rank `rank` of this node ended; before finish(), so that the store
  // is still up for the other nodes to read it.
  void post_rank_end(int rank, bool stopped_by_weftrun, const std::string& where);
  // Every rank's end (waiting for the nodes that have not posted theirs yet) and timeout
  // report, by world rank; nullopt when some rank's end has not come by `deadline` (its
  // node was lost).
  std::optional<std::vector<RankEnd>> rank_ends(int world_size, base::Deadline deadline);
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
