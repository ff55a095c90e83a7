#include "core/init/context.h"

#include <atomic>

#include "weft/error.h"

namespace weft::core {
std::atomic<Context*> g_context{nullptr};

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

const std::shared_ptr<const detail::GroupState>& resolve_group(const Group& group, const char* op) {
  Context& c = context(op);
  if (!group.state()) return c.world;
  if (group.state()->destroyed.load(std::memory_order_relaxed)) [[unlikely]] {
    throw InvalidArgument(std::string(op) + " (rank " + std::to_string(c.rank) + "): group " +
                          group.state()->name + " has been destroyed");
  }
  return group.state();
}

}  // namespace weft::core
