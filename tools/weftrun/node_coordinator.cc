#include "tools/weftrun/node_coordinator.h"

#include <map>
#include <thread>

#include "rendezvous/launcher_reports.h"
#include "weft/error.h"

namespace weft::weftrun {
namespace {

using Clock = std::chrono::steady_clock;

// Apart from the ranks' own keys, which live under their group names.
const std::string kPrefix = "weftrun.launcher/";
const std::string kFailureCount = kPrefix + "failures";

std::string failure_key(int64_t n) { return kPrefix + "failure/" + std::to_string(n); }
std::string joined_key(int node) { return kPrefix + "joined/" + std::to_string(node); }
std::string done_key(int node) { return kPrefix + "done/" + std::to_string(node); }
std::string heartbeat_key(int node) { return kPrefix + "heartbeat/" + std::to_string(node); }
std::string rank_end_key(int rank) { return kPrefix + "rank_end/" + std::to_string(rank); }

// Store calls are local or one hop away; a store that takes longer is as good as lost.
base::Deadline soon() { return base::Deadline::after(std::chrono::seconds(10)); }

}  // namespace

std::string NodeFailure::encode() const {
  return std::to_string(node) + "\n" + std::to_string(exit_code) + "\n" + (killed ? "1" : "0") +
         "\n" + std::to_string(rank) + "\n" + host + "\n" + description;
}

NodeFailure NodeFailure::decode(const std::string& bytes) {
  NodeFailure failure;
  size_t at = 0;
  auto field = [&]() {
    size_t end = bytes.find('\n', at);
    if (end == std::string::npos) throw InvalidArgument("weftrun: malformed failure record");
    std::string text = bytes.substr(at, end - at);
    at = end + 1;
    return text;
  };
  try {
    failure.node = std::stoi(field());
    failure.exit_code = std::stoi(field());
    failure.killed = field() == "1";
    failure.rank = std::stoi(field());
  } catch (const std::logic_error&) {
    throw InvalidArgument("weftrun: malformed failure record");
  }
  failure.host = field();
  failure.description = bytes.substr(at);
  return failure;
}

const NodeFailure& root_cause(const std::vector<NodeFailure>& failures) {
  for (const auto& failure : failures) {
    if (failure.killed) return failure;
  }
  return failures.front();
}

std::string describe_node_failure(const NodeFailure& failure) {
  return "node " + std::to_string(failure.node) + " (" + failure.host + "): " + failure.description;
}

NodeCoordinator::NodeCoordinator(std::unique_ptr<rendezvous::Store> store, int node, int nnodes,
                                 std::string host)
    : store_(std::move(store)), node_(node), nnodes_(nnodes), host_(std::move(host)) {}

void NodeCoordinator::join() {
  store_->set(joined_key(node_), host_, soon());
  store_->set(heartbeat_key(node_), "0", soon());
  last_heartbeat_ = Clock::now();
}

void NodeCoordinator::post_failure(const NodeFailure& failure) {
  int64_t n = store_->add(kFailureCount, 1, soon());
  store_->set(failure_key(n), failure.encode(), soon());
}

std::vector<NodeFailure> NodeCoordinator::poll() {
  Clock::time_point now = Clock::now();
  if (now - last_heartbeat_ >= kHeartbeatInterval) {
    store_->set(heartbeat_key(node_), std::to_string(++heartbeats_), soon());
    last_heartbeat_ = now;
  }
  int64_t posted = store_->add(kFailureCount, 0, soon());
  std::vector<NodeFailure> fresh;
  for (int64_t n = static_cast<int64_t>(failures_.size()) + 1; n <= posted; ++n) {
    // The count moves before the record is written; get() waits the moment between.
    fresh.push_back(NodeFailure::decode(store_->get(failure_key(n), soon())));
    failures_.push_back(fresh.back());
  }
  return fresh;
}

void NodeCoordinator::post_rank_end(int rank, bool stopped_by_weftrun, const std::string& where) {
  store_->set(rank_end_key(rank), (stopped_by_weftrun ? "stopped\n" : "ended\n") + where, soon());
}

std::optional<std::vector<RankEnd>> NodeCoordinator::rank_ends(int world_size,
                                                               base::Deadline deadline) {
  std::vector<RankEnd> ends(static_cast<size_t>(world_size));
  for (int r = 0; r < world_size; ++r) {
    RankEnd& end = ends[static_cast<size_t>(r)];
    std::string value;
    try {
      value = store_->get(rank_end_key(r), deadline);
    } catch (const TimeoutError&) {
      return std::nullopt;
    }
    size_t newline = value.find('\n');
    end.stopped_by_weftrun = value.compare(0, newline, "stopped") == 0;
    end.where = newline == std::string::npos ? "" : value.substr(newline + 1);
    // A rank's report is posted before its error reaches the program, so before the
    // rank ended and its end was posted.
    const std::string report = rendezvous::timed_out_waiting_key(r);
    if (store_->check({report}, soon())) {
      end.waited_for = rendezvous::parse_waited_for(store_->get(report, soon()));
    }
  }
  return ends;
}

void NodeCoordinator::finish() { store_->set(done_key(node_), "1", soon()); }

std::vector<std::string> NodeCoordinator::wait_for_nodes(std::chrono::milliseconds late_join) {
  struct Watch {
    std::string beat;
    Clock::time_point moved;
  };
  std::map<int, Watch> watched;
  Clock::time_point start = Clock::now();
  std::vector<std::string> given_up;
  std::vector<int> pending;
  for (int k = 0; k < nnodes_; ++k) {
    if (k != node_) pending.push_back(k);
  }
  while (!pending.empty()) {
    Clock::time_point now = Clock::now();
    std::vector<int> still;
    for (int k : pending) {
      if (store_->check({done_key(k)}, soon())) continue;
      std::string name = "node " + std::to_string(k);
      if (!store_->check({joined_key(k)}, soon())) {
        if (now - start < late_join) {
          still.push_back(k);
        } else {
          given_up.push_back(name + " never joined the job");
        }
        continue;
      }
      std::string beat = store_->get(heartbeat_key(k), soon());
      auto [it, inserted] = watched.emplace(k, Watch{beat, now});
      if (!inserted && it->second.beat != beat) it->second = Watch{beat, now};
      if (now - it->second.moved >= kHeartbeatTimeout) {
        given_up.push_back(name + " (" + store_->get(joined_key(k), soon()) +
                           ") stopped answering: its weftrun or its host was lost");
        continue;
      }
      still.push_back(k);
    }
    pending.swap(still);
    if (!pending.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return given_up;
}

}  // namespace weft::weftrun
