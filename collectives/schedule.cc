#include "collectives/schedule.h"

#include <algorithm>

namespace weft::collectives {

Region ScheduleBuilder::viewed(Region r) const {
  if (view_ == nullptr) return r;
  switch (r.buffer) {
    case Buffer::kInput:
      return {view_->input, view_->input_offset + r.offset, r.count};
    case Buffer::kOutput:
      return {view_->output, view_->output_offset + r.offset, r.count};
    case Buffer::kScratch:
      break;
  }
  return r;
}

OpId ScheduleBuilder::send(int peer, Region src, std::span<const OpId> after) {
  src = viewed(src);
  return add({.type = OpType::kSend, .peer = viewed_peer(peer), .dst = {}, .a = src, .b = {}},
             after, {src}, {});
}

OpId ScheduleBuilder::recv(int peer, Region dst, std::span<const OpId> after) {
  dst = viewed(dst);
  return add({.type = OpType::kRecv, .peer = viewed_peer(peer), .dst = dst, .a = {}, .b = {}},
             after, {}, {dst});
}

OpId ScheduleBuilder::reduce(Region dst, Region a, Region b) {
  dst = viewed(dst), a = viewed(a), b = viewed(b);
  return add({.type = OpType::kReduce, .dst = dst, .a = a, .b = b}, {}, {a, b}, {dst});
}

OpId ScheduleBuilder::copy(Region dst, Region src) {
  dst = viewed(dst), src = viewed(src);
  return add({.type = OpType::kCopy, .dst = dst, .a = src, .b = {}}, {}, {src}, {dst});
}

Region ScheduleBuilder::allocate_scratch(uint64_t count) {
  Region r = scratch_region(schedule_.scratch_count, count);
  schedule_.scratch_count += count;
  return r;
}

Schedule ScheduleBuilder::finish() && {
  Schedule& s = schedule_;
  const size_t n = s.ops.size();
  s.dependency_counts.resize(n);
  s.dependents_begin.assign(n + 1, 0);
  for (OpId i = 0; i < n; ++i) {
    s.dependency_counts[i] = s.ops[i].deps_end - s.ops[i].deps_begin;
    for (uint32_t d = s.ops[i].deps_begin; d < s.ops[i].deps_end; ++d) {
      ++s.dependents_begin[s.deps[d] + 1];
    }
  }
  for (size_t i = 0; i < n; ++i) s.dependents_begin[i + 1] += s.dependents_begin[i];
  s.dependents.resize(s.deps.size());
  std::vector<uint32_t> fill(s.dependents_begin.begin(), s.dependents_begin.end() - 1);
  for (OpId i = 0; i < n; ++i) {
    for (uint32_t d = s.ops[i].deps_begin; d < s.ops[i].deps_end; ++d) {
      s.dependents[fill[s.deps[d]]++] = i;
    }
  }
  // Channels, numbered in order of first use: (peer, direction) -> channel.
  std::map<int64_t, uint32_t> channel_ids;
  std::vector<std::vector<OpId>> channels;
  s.channel_of.assign(n, 0);
  for (OpId i = 0; i < n; ++i) {
    const Op& op = s.ops[i];
    if (op.type != OpType::kSend && op.type != OpType::kRecv) continue;
    int64_t key = int64_t{op.peer} * 2 + (op.type == OpType::kSend ? 0 : 1);
    auto [it, added] = channel_ids.emplace(key, static_cast<uint32_t>(channels.size()));
    if (added) channels.emplace_back();
    s.channel_of[i] = it->second;
    channels[it->second].push_back(i);
  }
  s.channel_begin.assign(1, 0);
  for (const auto& c : channels) {
    s.channel_ops.insert(s.channel_ops.end(), c.begin(), c.end());
    s.channel_begin.push_back(static_cast<uint32_t>(s.channel_ops.size()));
  }
  return std::move(schedule_);
}

void ScheduleBuilder::alias(Buffer inner, Buffer outer, uint64_t offset) {
  aliased_ = true;
  inner_ = inner;
  outer_ = outer;
  alias_offset_ = offset;
}

Region ScheduleBuilder::memory_of(Region r) const {
  if (aliased_ && r.buffer == inner_) return {outer_, alias_offset_ + r.offset, r.count};
  return r;
}

void ScheduleBuilder::split(Accesses& accesses, uint64_t at) {
  auto it = accesses.upper_bound(at);
  if (it == accesses.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Access tail = it->second;
  it->second.end = at;
  accesses.emplace(at, std::move(tail));
}

void ScheduleBuilder::track(Region region, bool write, OpId op, std::vector<OpId>& deps) {
  if (region.count == 0) return;
  Region r = memory_of(region);
  Accesses& accesses = accesses_[static_cast<int>(r.buffer)];
  uint64_t begin = r.offset, end = r.offset + r.count;
  split(accesses, begin);
  split(accesses, end);
  auto first = accesses.lower_bound(begin);
  auto last = accesses.lower_bound(end);
  for (auto it = first; it != last; ++it) {
    if (it->second.writer >= 0) deps.push_back(static_cast<OpId>(it->second.writer));
    if (write) deps.insert(deps.end(), it->second.readers.begin(), it->second.readers.end());
  }
  if (write) {
    // The write supersedes every earlier access to the range: one entry now covers it.
    accesses.erase(first, last);
    accesses.emplace(begin, Access{.end = end, .writer = op, .readers = {}});
    return;
  }
  // Reads also cover the gaps no operation has touched yet.
  uint64_t at = begin;
  for (auto it = accesses.lower_bound(begin); at < end;) {
    if (it == accesses.end() || it->first > at) {
      uint64_t gap_end = it == accesses.end() ? end : std::min(end, it->first);
      it = accesses.emplace_hint(it, at, Access{.end = gap_end, .writer = -1, .readers = {}});
    }
    it->second.readers.push_back(op);
    at = it->second.end;
    ++it;
  }
}

OpId ScheduleBuilder::add(Op op, std::span<const OpId> after, std::initializer_list<Region> reads,
                          std::initializer_list<Region> writes) {
  OpId id = static_cast<OpId>(schedule_.ops.size());
  std::vector<OpId> deps(after.begin(), after.end());
  for (const Region& r : reads) track(r, false, id, deps);
  for (const Region& r : writes) track(r, true, id, deps);
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  // An op that reads and writes one region (a reduce in place) does not wait for itself.
  if (!deps.empty() && deps.back() == id) deps.pop_back();
  op.deps_begin = static_cast<uint32_t>(schedule_.deps.size());
  schedule_.deps.insert(schedule_.deps.end(), deps.begin(), deps.end());
  op.deps_end = static_cast<uint32_t>(schedule_.deps.size());
  schedule_.ops.push_back(op);
  return id;
}

}  // namespace weft::collectives
