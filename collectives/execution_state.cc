#include "collectives/execution_state.h"

#include <cstdlib>
#include <string>

#include "weft/error.h"

namespace weft::collectives {
namespace {

bool same_blocks(const std::vector<Block>& a, const std::vector<Block>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].offset != b[i].offset || a[i].count != b[i].count) return false;
  }
  return true;
}

}  // namespace

ExecutionState::~ExecutionState() { std::free(scratch_); }

bool ExecutionState::repeats(const CollectiveSpec& spec) const {
  // Everything the algorithm's choice and the schedule depend on (collective_spec.h);
  // the op only reaches the kernels, which read it from the call itself.
  const CollectiveSpec& s = spec_;
  return algorithm_ != nullptr && s.kind == spec.kind && s.dtype == spec.dtype &&
         s.size == spec.size && s.rank == spec.rank && s.root == spec.root &&
         s.count == spec.count && s.input_in_output == spec.input_in_output &&
         s.output_in_input == spec.output_in_input && s.variable_counts == spec.variable_counts &&
         s.shared_arena == spec.shared_arena && s.segment == spec.segment &&
         same_blocks(s.blocks, spec.blocks) && same_blocks(s.recv_blocks, spec.recv_blocks) &&
         s.hosts == spec.hosts;
}

void ExecutionState::remember(const CollectiveSpec& spec, const Algorithm& algorithm, bool empty,
                              std::shared_ptr<const Schedule> schedule) {
  spec_ = spec;  // the block vectors keep their capacity
  algorithm_ = &algorithm;
  empty_ = empty;
  schedule_ = std::move(schedule);
}

std::byte* ExecutionState::scratch(uint64_t bytes) {
  if (bytes == 0 || bytes > kMaxScratchBytes) return nullptr;
  if (bytes > scratch_bytes_) {
    const uint64_t rounded = (bytes + 63) / 64 * 64;
    void* data = std::aligned_alloc(64, rounded);
    if (data == nullptr) {
      throw Error(ErrorCode::kInternal,
                  "cannot allocate " + std::to_string(rounded) + " bytes of collective scratch");
    }
    std::free(scratch_);
    scratch_ = static_cast<std::byte*>(data);
    scratch_bytes_ = rounded;
  }
  return scratch_;
}

namespace {

struct ThreadState {
  std::unique_ptr<ExecutionState> state;  // made on the thread's first collective
  bool taken = false;
};
thread_local ThreadState thread_state;

}  // namespace

ExecutionStateLease::ExecutionStateLease() {
  ThreadState& mine = thread_state;
  if (mine.taken) [[unlikely]] {
    own_ = std::make_unique<ExecutionState>();
    state_ = own_.get();
    return;
  }
  if (mine.state == nullptr) [[unlikely]]
    mine.state = std::make_unique<ExecutionState>();
  mine.taken = true;
  state_ = mine.state.get();
}

ExecutionStateLease::~ExecutionStateLease() {
  if (own_ == nullptr) thread_state.taken = false;
}

}  // namespace weft::collectives
