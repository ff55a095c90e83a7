#include "tools/weftrun/job.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/host_identity.h"
#include "base/log.h"
#include "base/socket.h"
#include "tools/weftrun/exit_report.h"
#include "tools/weftrun/output_relay.h"
#include "tools/weftrun/silent_rank.h"
#include "transport/shm/segment.h"
#include "weft/error.h"

namespace weft::weftrun {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kKillDelay = std::chrono::seconds(3);
// How long output may still arrive after the last rank exited: a rank's descendant may
// hold its pipe open forever, and weftrun must not wait for that.
constexpr auto kOutputLinger = std::chrono::seconds(1);
// How soon after a rank's failing exit a rank killed by a signal still counts as the
// first failure (see is_root_cause_of_first_failure).
constexpr auto kRootCauseWindow = std::chrono::milliseconds(250);
constexpr size_t kReadChunk = 64 * 1024;
constexpr uint64_t kSignalTag = ~uint64_t{0};
// How often a node of a job on several hosts looks for the others' failures.
constexpr int kNodePollMs = 100;
// How long node 0 waits at the end for a node that never joined.
constexpr auto kLateJoin = std::chrono::seconds(10);

void write_all(int fd, std::string_view bytes, bool* broken) {
  while (!bytes.empty() && !*broken) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      // Someone left the shared stdout non-blocking; wait rather than drop output.
      pollfd writable{fd, POLLOUT, 0};
      poll(&writable, 1, -1);
    } else {
      // Nobody reads weftrun's output any more; the ranks must still be supervised.
      *broken = true;
    }
  }
}

}  // namespace

void report(const std::string& line) {
  std::string text = line + "\n";
  bool broken = false;
  write_all(STDERR_FILENO, text, &broken);
}

namespace {

struct OutputStream {
  base::Fd fd;  // empty once the rank's end is closed
  int target = STDOUT_FILENO;
  LineRelay relay;
};

struct Rank {
  pid_t pid = -1;
  bool running = false;
  int wait_status = 0;
  bool stopped_by_weftrun = false;      // weftrun sent it SIGTERM or SIGKILL
  std::array<OutputStream, 2> streams;  // stdout, stderr
};

enum class Cause { kNone, kRankFailed, kTimedOut, kSignalled, kOtherNodeFailed };
enum class Stopping { kNo, kGrace, kTerminated, kKilled };

class Job {
 public:
  Job(const Options& options, JobSignals& signals, std::vector<LaunchUnit> units, JobRole role)
      : options_(options), signals_(signals), units_(std::move(units)), role_(std::move(role)) {}

  int run();

 private:
  bool start_ranks();
  void start_unit(LaunchUnit& unit);
  void poll_other_nodes(Clock::time_point now);
  void post_failure(const std::string& description, int exit_code, bool killed, int rank = -1);
  std::optional<std::vector<RankEnd>> share_rank_ends();
  void post_rank_failure(int index);
  int finish_with_other_nodes(int local_status);
  void supervise();
  bool finished(Clock::time_point now) const;
  int next_timeout_ms(Clock::time_point now) const;
  void handle_signals();
  void reap_ranks();
  void on_rank_exit(int index, int wait_status);
  void read_stream(int index, int which);
  void close_stream(int index, int which);
  bool is_root_cause_of_first_failure(const Rank& rank, Clock::time_point now) const;
  void report_silent_rank();
  void handle_deadlines(Clock::time_point now);
  void begin_grace(Clock::time_point now);
  void terminate_running(Clock::time_point now);
  void kill_running();
  void signal_running(int signal_number);
  void emit(int target, const std::string& bytes);
  void watch(int fd, uint64_t tag);
  int finish();

  const Options& options_;
  JobSignals& signals_;
  std::vector<LaunchUnit> units_;
  JobRole role_;
  Clock::time_point next_poll_{};
  bool store_lost_ = false;
  base::Fd epoll_;
  std::vector<Rank> ranks_;
  std::unordered_map<pid_t, int> rank_of_pid_;
  int running_ = 0;
  int open_streams_ = 0;
  std::array<bool, 3> target_broken_{};

  Cause cause_ = Cause::kNone;
  int first_failure_ = -1;
  Clock::time_point first_failure_at_;
  int received_signal_ = 0;
  int interrupts_ = 0;

  Stopping stopping_ = Stopping::kNo;
  std::optional<Clock::time_point> job_deadline_;
  Clock::time_point grace_end_;
  Clock::time_point kill_at_;
  std::optional<Clock::time_point> linger_end_;
};

void Job::watch(int fd, uint64_t tag) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = tag;
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0) {
    throw Error(ErrorCode::kInternal, std::string("weftrun: epoll_ctl: ") + std::strerror(errno));
  }
}

void Job::emit(int target, const std::string& bytes) {
  if (bytes.empty() || target_broken_[target]) return;
  write_all(target, bytes, &target_broken_[target]);
  if (!target_broken_[target]) return;
  // Whoever read weftrun's output has gone (`weftrun ... | head`). Closing the ranks'
  // pipes too gives them the EPIPE/SIGPIPE they would get without weftrun in between,
  // instead of letting them write into the void forever.
  for (size_t r = 0; r < ranks_.size(); ++r) {
    for (int which = 0; which < 2; ++which) {
      if (ranks_[r].streams[static_cast<size_t>(which)].target == target) {
        close_stream(static_cast<int>(r), which);
      }
    }
  }
}

int Job::run() {
  epoll_ = base::Fd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_) {
    throw Error(ErrorCode::kInternal, std::string("weftrun: epoll: ") + std::strerror(errno));
  }
  watch(signals_.fd(), kSignalTag);
  if (options_.timeout) job_deadline_ = Clock::now() + *options_.timeout;
  if (!start_ranks()) return kCannotExecuteExitCode;
  supervise();
  return finish();
}

// False when not even the first unit could be started; the program is the same for
// every unit, so there is nothing more to try.
bool Job::start_ranks() {
  ranks_.resize(units_.size());
  std::vector<int> own_cpus;
  bool binding = false;
  for (const auto& unit : units_) binding = binding || !unit.cpus.empty();
  // posix_spawn children inherit the calling thread's CPU mask: bind this thread for
  // each spawn, and give it back its own mask after.
  if (binding) own_cpus = calling_thread_cpus();
  for (size_t r = 0; r < units_.size(); ++r) {
    LaunchUnit& unit = units_[r];
    Rank& rank = ranks_[r];
    rank.streams[0].relay = LineRelay(unit.prefix);
    rank.streams[0].target = STDOUT_FILENO;
    rank.streams[1].relay = LineRelay(unit.prefix);
    rank.streams[1].target = STDERR_FILENO;
    SpawnedRank spawned;
    try {
      if (!unit.cpus.empty()) bind_calling_thread(unit.cpus);
      spawned = spawn_rank(unit.request);
    } catch (const std::exception& e) {  // SpawnError, or a binding the kernel refused
      if (binding) bind_calling_thread(own_cpus);
      std::string name = role_.unit + " " + std::to_string(unit.index);
      if (r == 0) {
        report(std::string("weftrun: ") + e.what());
        post_failure(name + " could not be started: " + e.what(), kCannotExecuteExitCode, false);
        return false;
      }
      report("weftrun: " + name + ": " + e.what());
      rank.wait_status = exit_status_with_code(kCannotExecuteExitCode);
      cause_ = Cause::kRankFailed;
      first_failure_ = static_cast<int>(r);
      ranks_.resize(r + 1);
      post_failure(name + " could not be started: " + e.what(), kCannotExecuteExitCode, false);
      begin_grace(Clock::now());
      return true;
    }
    rank.pid = spawned.pid;
    rank.running = true;
    ++running_;
    rank_of_pid_[spawned.pid] = static_cast<int>(r);
    rank.streams[0].fd = std::move(spawned.stdout_pipe);
    rank.streams[1].fd = std::move(spawned.stderr_pipe);
    for (int which = 0; which < 2; ++which) {
      watch(rank.streams[which].fd.get(), static_cast<uint64_t>(r) << 1 | which);
      ++open_streams_;
    }
    WEFT_LOG(INFO) << "weftrun: " << role_.unit << " " << unit.index << " is pid " << spawned.pid
                   << (unit.binding.empty() ? "" : ", bound to " + unit.binding);
  }
  if (binding) bind_calling_thread(own_cpus);
  return true;
}

bool Job::finished(Clock::time_point now) const {
  if (running_ > 0) return false;
  return open_streams_ == 0 || (linger_end_ && now >= *linger_end_);
}

int Job::next_timeout_ms(Clock::time_point now) const {
  std::optional<Clock::time_point> next;
  auto consider = [&next](Clock::time_point t) {
    if (!next || t < *next) next = t;
  };
  if (job_deadline_) consider(*job_deadline_);
  if (stopping_ == Stopping::kGrace) consider(grace_end_);
  if (stopping_ == Stopping::kTerminated) consider(kill_at_);
  if (linger_end_) consider(*linger_end_);
  if (!next) return -1;
  if (*next <= now) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
  return static_cast<int>(std::min<int64_t>(ms, 60 * 60 * 1000));
}

void Job::supervise() {
  std::array<epoll_event, 64> events;
  for (;;) {
    Clock::time_point now = Clock::now();
    handle_deadlines(now);
    poll_other_nodes(now);
    if (finished(now)) return;
    int timeout_ms = next_timeout_ms(now);
    if (role_.coordinator != nullptr && !store_lost_) {
      timeout_ms = timeout_ms < 0 ? kNodePollMs : std::min(timeout_ms, kNodePollMs);
    }
    int n = epoll_wait(epoll_.get(), events.data(), static_cast<int>(events.size()), timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kInternal,
                  std::string("weftrun: epoll_wait: ") + std::strerror(errno));
    }
    for (int i = 0; i < n; ++i) {
      uint64_t tag = events[static_cast<size_t>(i)].data.u64;
      if (tag == kSignalTag) {
        handle_signals();
      } else {
        read_stream(static_cast<int>(tag >> 1), static_cast<int>(tag & 1));
      }
    }
  }
}

void Job::read_stream(int index, int which) {
  OutputStream& stream = ranks_[static_cast<size_t>(index)].streams[static_cast<size_t>(which)];
  if (!stream.fd) return;  // closed earlier in this batch of events
  char buffer[kReadChunk];
  ssize_t n = read(stream.fd.get(), buffer, sizeof buffer);
  if (n > 0) {
    std::string out;
    stream.relay.feed(std::string_view(buffer, static_cast<size_t>(n)), &out);
    emit(stream.target, out);
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    close_stream(index, which);
  }
}

void Job::close_stream(int index, int which) {
  OutputStream& stream = ranks_[static_cast<size_t>(index)].streams[static_cast<size_t>(which)];
  if (!stream.fd) return;
  std::string out;
  stream.relay.finish(&out);
  emit(stream.target, out);
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, stream.fd.get(), nullptr);
  stream.fd.reset();
  --open_streams_;
}

void Job::handle_signals() {
  while (int signal_number = signals_.take()) {
    if (signal_number == SIGCHLD) {
      reap_ranks();
      continue;
    }
    if (!JobSignals::is_forwarded(signal_number)) continue;
    if (signal_number == SIGINT && interrupts_++ > 0) {
      report("weftrun: second SIGINT; killing " + std::to_string(running_) + " rank(s)");
      kill_running();
      continue;
    }
    report("weftrun: received signal " + describe_signal(signal_number) + "; forwarding it to " +
           std::to_string(running_) + " rank(s)");
    if (cause_ == Cause::kNone) {
      cause_ = Cause::kSignalled;
      received_signal_ = signal_number;
      post_failure("weftrun received signal " + describe_signal(signal_number), 128 + signal_number,
                   false);
    }
    signal_running(signal_number);
    begin_grace(Clock::now());
  }
}

void Job::reap_ranks() {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    auto found = rank_of_pid_.find(pid);
    if (found != rank_of_pid_.end()) on_rank_exit(found->second, status);
  }
}

void Job::on_rank_exit(int index, int wait_status) {
  Rank& rank = ranks_[static_cast<size_t>(index)];
  rank.running = false;
  rank.wait_status = wait_status;
  rank_of_pid_.erase(rank.pid);
  --running_;
  // A rank killed while it held a shared-memory segment not yet unlinked leaves it.
  for (const std::string& path : transport::shm::remove_segments_created_by(rank.pid)) {
    WEFT_LOG(INFO) << "weftrun: removed " << path << ", left by pid " << rank.pid;
  }
  WEFT_LOG(INFO) << "weftrun: " << role_.unit << " " << units_[static_cast<size_t>(index)].index
                 << " (pid " << rank.pid << ") " << describe_wait_status(wait_status);
  Clock::time_point now = Clock::now();
  bool killed = WIFSIGNALED(wait_status) && !rank.stopped_by_weftrun;
  if (is_failure(wait_status) && cause_ == Cause::kNone) {
    cause_ = Cause::kRankFailed;
    first_failure_ = index;
    first_failure_at_ = now;
    post_rank_failure(index);
    begin_grace(now);
  } else if (cause_ == Cause::kRankFailed && is_root_cause_of_first_failure(rank, now)) {
    first_failure_ = index;
    post_rank_failure(index);
  } else if (cause_ == Cause::kOtherNodeFailed && killed) {
    // Killed here while another node's failure was on its way: it may be what the other
    // node's ranks lost their connections to.
    post_rank_failure(index);
  }
  if (running_ == 0) linger_end_ = now + kOutputLinger;
}

// A killed rank's sockets close before the kernel reports its death, so a peer that
// exits with "lost the connection" can reach weftrun first. Naming that peer would hide
// the rank that was really lost (often to the OOM killer, with no output of its own).
bool Job::is_root_cause_of_first_failure(const Rank& rank, Clock::time_point now) const {
  const Rank& first = ranks_[static_cast<size_t>(first_failure_)];
  return WIFSIGNALED(rank.wait_status) && !rank.stopped_by_weftrun && first.pid >= 0 &&
         WIFEXITED(first.wait_status) && now - first_failure_at_ <= kRootCauseWindow;
}

void Job::handle_deadlines(Clock::time_point now) {
  if (job_deadline_ && now >= *job_deadline_) {
    job_deadline_.reset();
    if (running_ > 0) {
      report("weftrun: job timed out after " + format_seconds(*options_.timeout) + " s; stopping " +
             std::to_string(running_) + " " + role_.unit + "(s)");
      if (cause_ == Cause::kNone) {
        cause_ = Cause::kTimedOut;
        post_failure("timed out after " + format_seconds(*options_.timeout) + " s (--timeout)",
                     kTimeoutExitCode, false);
      }
      if (stopping_ == Stopping::kNo || stopping_ == Stopping::kGrace) terminate_running(now);
    }
  }
  if (stopping_ == Stopping::kGrace && now >= grace_end_) terminate_running(now);
  if (stopping_ == Stopping::kTerminated && now >= kill_at_) kill_running();
}

void Job::begin_grace(Clock::time_point now) {
  if (stopping_ != Stopping::kNo) return;
  stopping_ = Stopping::kGrace;
  grace_end_ = now + options_.grace;
}

void Job::terminate_running(Clock::time_point now) {
  signal_running(SIGTERM);
  for (auto& rank : ranks_) {
    if (rank.running) rank.stopped_by_weftrun = true;
  }
  stopping_ = Stopping::kTerminated;
  kill_at_ = now + kKillDelay;
}

void Job::kill_running() {
  signal_running(SIGKILL);
  for (auto& rank : ranks_) {
    if (rank.running) rank.stopped_by_weftrun = true;
  }
  stopping_ = Stopping::kKilled;
}

// The whole process group, so whatever a rank started goes with it. A rank not yet
// reaped still owns its pid, so the group id cannot belong to anyone else.
void Job::signal_running(int signal_number) {
  for (const auto& rank : ranks_) {
    if (rank.running) kill(-rank.pid, signal_number);
  }
}

int Job::finish() {
  for (size_t r = 0; r < ranks_.size(); ++r) {
    close_stream(static_cast<int>(r), 0);
    close_stream(static_cast<int>(r), 1);
  }
  int status = 0;
  switch (cause_) {
    case Cause::kNone:
    case Cause::kOtherNodeFailed:
      break;
    case Cause::kTimedOut:
      status = kTimeoutExitCode;
      break;
    case Cause::kSignalled:
      status = 128 + received_signal_;
      break;
    case Cause::kRankFailed: {
      const Rank& first = ranks_[static_cast<size_t>(first_failure_)];
      FirstFailure failure;
      failure.unit = role_.unit;
      failure.rank = units_[static_cast<size_t>(first_failure_)].index;
      failure.pid = first.pid;
      failure.wait_status = first.wait_status;
      failure.world_size = static_cast<int>(units_.size());
      for (size_t r = 0; r < ranks_.size(); ++r) {
        if (static_cast<int>(r) == first_failure_) continue;
        if (ranks_[r].stopped_by_weftrun) {
          ++failure.stopped;
        } else if (is_failure(ranks_[r].wait_status)) {
          ++failure.failed_after;
        }
      }
      std::string text = describe_first_failure(failure);
      if (role_.coordinator != nullptr) {
        text.insert(std::string("weftrun: ").size(), "node " + std::to_string(role_.node) + ": ");
      }
      report(text);
      report_silent_rank();
      status = exit_code_of(first.wait_status);
      break;
    }
  }
  return role_.coordinator == nullptr ? status : finish_with_other_nodes(status);
}

// A rank that failed by itself (crashed, exited non-zero) is named by the first-failure
// line; a rank that stopped responding fails nobody by itself, and is found from the
// ranks that timed out waiting for it.
void Job::report_silent_rank() {
  if (!role_.waited_for) return;
  std::vector<RankOutcome> outcomes(ranks_.size());
  for (size_t r = 0; r < ranks_.size(); ++r) {
    outcomes[r].stopped_by_weftrun = ranks_[r].stopped_by_weftrun;
    // A rank that never started posted nothing.
    if (ranks_[r].pid < 0) continue;
    try {
      outcomes[r].waited_for = role_.waited_for(units_[r].index);
    } catch (const Error& e) {
      WEFT_LOG(INFO) << "weftrun: cannot read what rank " << units_[r].index
                     << " timed out waiting for: " << e.what();
      return;
    }
  }
  std::optional<SilentRank> silent = find_silent_rank(outcomes, first_failure_);
  if (!silent) return;
  const Rank& rank = ranks_[static_cast<size_t>(silent->rank)];
  std::vector<int> waiters;
  for (int w : silent->waiters) waiters.push_back(units_[static_cast<size_t>(w)].index);
  silent->rank = units_[static_cast<size_t>(silent->rank)].index;
  silent->waiters = waiters;
  report("weftrun: the job failed; its root cause: " +
         describe_silent_rank(
             *silent, base::local_host_identity().hostname + ":" + std::to_string(rank.pid)));
}

// In a job on several hosts, when a rank's failure may be a timeout: every node posts
// how its ranks ended, and reads every node's, before any node marks itself done (node
// 0's store stays up until then). Every node then decides from the same facts.
std::optional<std::vector<RankEnd>> Job::share_rank_ends() {
  if (store_lost_) return std::nullopt;
  NodeCoordinator& nodes = *role_.coordinator;
  nodes.poll();
  bool may_be_silence = false;
  for (const auto& failure : nodes.failures()) {
    may_be_silence = may_be_silence || (failure.rank >= 0 && !failure.killed);
  }
  if (!may_be_silence || role_.unit != "rank") return std::nullopt;
  const std::string host = base::local_host_identity().hostname;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    nodes.post_rank_end(units_[r].index, ranks_[r].stopped_by_weftrun,
                        host + ":" + std::to_string(ranks_[r].pid));
  }
  // The other nodes stop their ranks within the grace period and the kill delay of
  // hearing of the failure; a node that takes much longer is lost.
  return nodes.rank_ends(role_.world_size,
                         base::Deadline::after(options_.grace + kKillDelay + kLateJoin));
}

// This node's end in a job on several hosts: node 0 keeps the store up until the other
// nodes are done; every node then names the job's root cause and returns its status.
int Job::finish_with_other_nodes(int local_status) {
  NodeCoordinator& nodes = *role_.coordinator;
  std::vector<std::string> lost;
  std::optional<std::vector<RankEnd>> ends;
  try {
    try {
      ends = share_rank_ends();
    } catch (const Error& e) {
      // Only the naming of a silent rank is lost; this node must still mark itself done.
      WEFT_LOG(INFO) << "weftrun: node " << role_.node
                     << ": cannot share how the ranks ended: " << e.what();
    }
    nodes.finish();
    if (role_.node == 0) lost = nodes.wait_for_nodes(kLateJoin);
    nodes.poll();
  } catch (const Error& e) {
    if (!store_lost_) report("weftrun: node " + std::to_string(role_.node) + ": " + e.what());
  }
  for (const auto& line : lost) report("weftrun: " + line);
  if (!nodes.failures().empty()) {
    const NodeFailure& cause = root_cause(nodes.failures());
    std::optional<SilentRank> silent;
    if (ends && !cause.killed && cause.rank >= 0) {
      std::vector<RankOutcome> outcomes;
      for (const RankEnd& end : *ends) outcomes.push_back({end.waited_for, end.stopped_by_weftrun});
      silent = find_silent_rank(outcomes, cause.rank);
    }
    if (silent) {
      report("weftrun: the job failed; its root cause: " +
             describe_silent_rank(*silent, (*ends)[static_cast<size_t>(silent->rank)].where) +
             " (first failure: " + describe_node_failure(cause) + ")");
    } else {
      report("weftrun: the job failed; its root cause: " + describe_node_failure(cause));
    }
    return cause.exit_code;
  }
  if (store_lost_) return 1;
  if (!lost.empty()) return local_status == 0 ? 1 : local_status;
  return local_status;
}

void Job::post_failure(const std::string& description, int exit_code, bool killed, int rank) {
  if (role_.coordinator == nullptr || store_lost_) return;
  NodeFailure failure;
  failure.rank = rank;
  failure.node = role_.node;
  failure.host = base::local_host_identity().hostname;
  failure.description = description;
  failure.exit_code = exit_code;
  failure.killed = killed;
  try {
    role_.coordinator->post_failure(failure);
  } catch (const Error& e) {
    report("weftrun: node " + std::to_string(role_.node) +
           ": could not tell the other nodes of the failure: " + e.what());
  }
}

void Job::post_rank_failure(int index) {
  const Rank& rank = ranks_[static_cast<size_t>(index)];
  post_failure(
      role_.unit + " " + std::to_string(units_[static_cast<size_t>(index)].index) + " (pid " +
          std::to_string(rank.pid) + ") " + describe_wait_status(rank.wait_status),
      exit_code_of(rank.wait_status), WIFSIGNALED(rank.wait_status) && !rank.stopped_by_weftrun,
      role_.unit == "rank" ? units_[static_cast<size_t>(index)].index : -1);
}

// Another node's failure ends the job here too: this node's ranks get the grace period
// to notice by themselves, as after a local failure.
void Job::poll_other_nodes(Clock::time_point now) {
  if (role_.coordinator == nullptr || store_lost_ || now < next_poll_) return;
  next_poll_ = now + std::chrono::milliseconds(kNodePollMs);
  std::string node = "weftrun: node " + std::to_string(role_.node) + ": ";
  try {
    for (const auto& failure : role_.coordinator->poll()) {
      if (failure.node == role_.node || cause_ != Cause::kNone) continue;
      cause_ = Cause::kOtherNodeFailed;
      report(node + "stopping " + std::to_string(running_) +
             " rank(s): " + describe_node_failure(failure));
      begin_grace(now);
    }
  } catch (const Error& e) {
    store_lost_ = true;
    if (cause_ != Cause::kNone) return;
    cause_ = Cause::kOtherNodeFailed;
    report(node + "lost the job's store at " + role_.store + " (node 0's weftrun): " + e.what() +
           "; stopping " + std::to_string(running_) + " rank(s)");
    begin_grace(now);
  }
}
}  // namespace

int run_units(const Options& options, JobSignals& signals, std::vector<LaunchUnit> units,
              JobRole role) {
  Job job(options, signals, std::move(units), std::move(role));
  return job.run();
}

}  // namespace weft::weftrun
