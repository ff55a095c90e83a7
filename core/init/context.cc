#include "core/init/context.h"

#include <atomic>

#include "weft/error.h"

namespace weft::core {
namespace {

// Set once per init/destroy; read on every operation, hence atomic rather than locked.
std::atomic<Context*> g_context{nullptr};

}  // namespace

Context& context(const char* op) {
  Context* c = g_context.load(std::memory_order_acquire);
  if (c == nullptr) {
    throw Error(ErrorCode::kState,
                std::string(op) + ": weft is not initialized; call init_process_group first");
  }
  return *c;
}

bool has_context() { return g_context.load(std::memory_order_acquire) != nullptr; }

void install_context(std::unique_ptr<Context> context) {
  g_context.store(context.release(), std::memory_order_release);
}

std::unique_ptr<Context> remove_context() {
  return std::unique_ptr<Context>(g_context.exchange(nullptr, std::memory_order_acq_rel));
}

std::shared_ptr<const detail::GroupState> resolve_group(const Group& group, const char* op) {
  Context& c = context(op);
  return group.state() ? group.state() : c.world;
}

}  // namespace weft::core
