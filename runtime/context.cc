#include "runtime/context.h"

#include <atomic>

#include "runtime/init/job_services.h"
#include "weft/error.h"

namespace weft::runtime {
std::atomic<Context*> g_context{nullptr};

Context::Context() = default;
Context::~Context() = default;

void throw_not_initialized(const char* op) {
  throw Error(ErrorCode::kState,
              std::string(op) + ": weft is not initialized; call init_process_group first");
}

bool has_context() { return g_context.load(std::memory_order_acquire) != nullptr; }

void install_context(std::unique_ptr<Context> context) {
  g_context.store(context.release(), std::memory_order_release);
}

std::unique_ptr<Context> remove_context() {
  return std::unique_ptr<Context>(g_context.exchange(nullptr, std::memory_order_acq_rel));
}

const std::shared_ptr<const GroupRecord>& resolve_group(const Group& group, const char* op) {
  Context& c = context(op);
  const std::shared_ptr<const GroupRecord>& record = Handles::record(group);
  if (!record) return c.world;
  if (record->destroyed.load(std::memory_order_relaxed)) [[unlikely]] {
    throw InvalidArgument(std::string(op) + " (rank " + std::to_string(c.rank) + "): group " +
                          record->name() + " has been destroyed");
  }
  return record;
}

const collectives::HostLayout* host_layout_of(const Context& c,
                                              const std::vector<int>& world_ranks) {
  if (c.host_keys.empty()) return nullptr;  // a world of one
  std::vector<uint64_t> keys;
  keys.reserve(world_ranks.size());
  for (int w : world_ranks) keys.push_back(c.host_keys[w]);
  return collectives::host_layout(keys);
}

std::shared_ptr<const GroupRecord> make_group_record(
    uint32_t comm, std::string name, std::vector<int> world_ranks, int rank, Timeout timeout,
    std::shared_ptr<collectives::SharedArena> arena, const collectives::HostLayout* hosts) {
  auto collectives_space = p2p::make_group_state(comm + 1, name, world_ranks, rank, timeout);
  auto messages =
      p2p::make_group_state(comm, std::move(name), std::move(world_ranks), rank, timeout);
  return std::make_shared<const GroupRecord>(std::move(messages), std::move(collectives_space),
                                             std::move(arena), hosts);
}

}  // namespace weft::runtime
