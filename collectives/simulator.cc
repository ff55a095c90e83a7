#include "collectives/simulator.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>

#include "collectives/schedule_run.h"
#include "weft/error.h"

namespace weft::collectives {

uint64_t SimulationReport::max_bytes_sent() const {
  return bytes_sent.empty() ? 0 : *std::max_element(bytes_sent.begin(), bytes_sent.end());
}

uint64_t SimulationReport::max_messages_sent() const {
  return messages_sent.empty() ? 0 : *std::max_element(messages_sent.begin(), messages_sent.end());
}

namespace {

struct Posted {
  int rank;
  OpId op;
  int ready_round;
  int ready_inter_host_round;
};

struct VirtualRank {
  Schedule schedule;
  std::unique_ptr<ScheduleRun> run;
  std::vector<std::byte> scratch;
  Buffers buffers;
  std::vector<int> finish_round;             // per op
  std::vector<int> finish_inter_host_round;  // per op: the inter-host messages before it
};

class Simulation {
 public:
  Simulation(const Algorithm& algorithm, const std::vector<CollectiveSpec>& specs,
             const std::vector<Buffers>& buffers)
      : specs_(specs), ranks_(specs.size()) {
    report_.bytes_sent.assign(specs.size(), 0);
    report_.messages_sent.assign(specs.size(), 0);
    report_.scratch_bytes.assign(specs.size(), 0);
    if (hosts() != nullptr) report_.inter_host_bytes_sent.assign(hosts()->hosts(), 0);
    for (size_t r = 0; r < specs.size(); ++r) {
      VirtualRank& v = ranks_[r];
      v.schedule = build_schedule(algorithm, specs[r]);
      v.run = std::make_unique<ScheduleRun>(v.schedule);
      v.scratch.resize(v.schedule.scratch_count * specs[r].element_bytes());
      report_.scratch_bytes[r] = v.scratch.size();
      v.buffers = buffers[r];
      v.buffers.scratch = v.scratch.data();
      v.finish_round.assign(v.schedule.ops.size(), 0);
      v.finish_inter_host_round.assign(v.schedule.ops.size(), 0);
    }
  }

  SimulationReport run() {
    // Every pass starts what each rank can start; matching happens as messages arrive.
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t r = 0; r < ranks_.size(); ++r) progress |= step(static_cast<int>(r));
    }
    for (size_t r = 0; r < ranks_.size(); ++r) {
      if (!ranks_[r].run->done()) {
        throw Error(ErrorCode::kInternal,
                    "simulated schedules deadlock: rank " + std::to_string(r) + " has " +
                        std::to_string(ranks_[r].run->unfinished()) + " operations unfinished");
      }
    }
    for (const VirtualRank& v : ranks_) {
      for (int round : v.finish_round) report_.rounds = std::max(report_.rounds, round);
      for (int round : v.finish_inter_host_round) {
        report_.inter_host_rounds = std::max(report_.inter_host_rounds, round);
      }
    }
    return report_;
  }

 private:
  // The layout the simulated group runs on (the specs agree on it); null for one host.
  const HostLayout* hosts() const { return specs_.empty() ? nullptr : specs_[0].hosts; }

  static int ready_round(const VirtualRank& v, const std::vector<int>& finish, OpId id) {
    const Op& op = v.schedule.ops[id];
    int round = 0;
    for (uint32_t d = op.deps_begin; d < op.deps_end; ++d) {
      round = std::max(round, finish[v.schedule.deps[d]]);
    }
    return round;
  }

  bool step(int rank) {
    VirtualRank& v = ranks_[rank];
    ready_.clear();
    v.run->take_ready(ready_);
    if (ready_.empty()) return false;
    for (size_t i = 0; i < ready_.size(); ++i) {
      OpId id = ready_[i];
      const Op& op = v.schedule.ops[id];
      int round = ready_round(v, v.finish_round, id);
      int inter_host_round = ready_round(v, v.finish_inter_host_round, id);
      if (op.type == OpType::kReduce || op.type == OpType::kCopy) {
        run_local_op(op, specs_[rank], v.buffers);
        v.finish_round[id] = round;
        v.finish_inter_host_round[id] = inter_host_round;
        v.run->finished(id);
        v.run->take_ready(ready_);
        continue;
      }
      int from = op.type == OpType::kSend ? rank : op.peer;
      int to = op.type == OpType::kSend ? op.peer : rank;
      if (op.peer < 0 || op.peer >= static_cast<int>(ranks_.size()) || op.peer == rank) {
        throw Error(ErrorCode::kInternal, "simulated rank " + std::to_string(rank) +
                                              " addresses invalid peer " + std::to_string(op.peer));
      }
      Channel& c = channels_[static_cast<int64_t>(from) * ranks_.size() + to];
      (op.type == OpType::kSend ? c.sends : c.recvs).push_back({rank, id, round, inter_host_round});
      match(c, from, to);
    }
    return true;
  }

  struct Channel {
    std::deque<Posted> sends, recvs;
  };

  void match(Channel& c, int from, int to) {
    while (!c.sends.empty() && !c.recvs.empty()) {
      Posted s = c.sends.front(), r = c.recvs.front();
      c.sends.pop_front();
      c.recvs.pop_front();
      VirtualRank& sender = ranks_[from];
      VirtualRank& receiver = ranks_[to];
      const Op& send = sender.schedule.ops[s.op];
      const Op& recv = receiver.schedule.ops[r.op];
      const uint64_t size = specs_[from].element_bytes();
      if (send.a.count != recv.dst.count) {
        throw Error(ErrorCode::kInternal,
                    "simulated message from rank " + std::to_string(from) + " to rank " +
                        std::to_string(to) + " has " + std::to_string(send.a.count) +
                        " elements but the receive expects " + std::to_string(recv.dst.count));
      }
      if (send.a.count > 0) {
        std::memcpy(receiver.buffers.address(recv.dst, size), sender.buffers.address(send.a, size),
                    send.a.count * size);
      }
      report_.bytes_sent[from] += send.a.count * size;
      report_.messages_sent[from] += 1;
      int round = std::max(s.ready_round, r.ready_round) + 1;
      sender.finish_round[s.op] = round;
      receiver.finish_round[r.op] = round;
      const bool crosses = hosts() != nullptr && hosts()->host_of[from] != hosts()->host_of[to];
      if (crosses) {
        report_.inter_host_bytes_sent[hosts()->host_of[from]] += send.a.count * size;
        ++report_.inter_host_messages;
      }
      int inter_host_round =
          std::max(s.ready_inter_host_round, r.ready_inter_host_round) + (crosses ? 1 : 0);
      sender.finish_inter_host_round[s.op] = inter_host_round;
      receiver.finish_inter_host_round[r.op] = inter_host_round;
      sender.run->finished(s.op);
      receiver.run->finished(r.op);
    }
  }

  const std::vector<CollectiveSpec>& specs_;
  std::vector<VirtualRank> ranks_;
  std::unordered_map<int64_t, Channel> channels_;
  std::vector<OpId> ready_;
  SimulationReport report_;
};

}  // namespace

SimulationReport simulate(const Algorithm& algorithm, const std::vector<CollectiveSpec>& specs,
                          const std::vector<Buffers>& buffers) {
  SimulationReport report = Simulation(algorithm, specs, buffers).run();
  for (size_t r = 0; r < specs.size(); ++r) finish_average(specs[r], buffers[r]);
  return report;
}

}  // namespace weft::collectives
