// Context: the process group this process has joined (there is at most one). Created
// by init_process_group, torn down by destroy_process_group.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/collectives/arena/shared_arena.h"
#include "core/collectives/background.h"
#include "core/collectives/schedule_cache.h"
#include "core/collectives/scratch_pool.h"
#include "core/p2p/engine.h"
#include "core/p2p/group_state.h"
#include "rendezvous/multicast_discovery.h"
#include "rendezvous/store.h"
#include "rendezvous/tcp_store_server.h"
#include "weft/group.h"

namespace weft::core {

struct Context {
  int rank = 0;
  int world_size = 1;
  Timeout timeout{};
  uint64_t job_id = 0;
  // By world rank: whether the link to that peer is shared memory.
  std::vector<bool> shares_memory;
  SharedArena::Options arena_options;  // how arena waits spin, as the engine's
  // Declared in construction order; destroyed in reverse, so the store server outlives
  // the clients and the engine.
  // Multicast init: keeps announcing this member while the job lives, so that a late
  // extra process learns at once that the job is full.
  std::unique_ptr<rendezvous::MulticastDiscovery> discovery;
  std::unique_ptr<rendezvous::TcpStoreServer> store_server;  // rank 0, unless launched
  std::unique_ptr<rendezvous::Store> store_connection;
  std::unique_ptr<rendezvous::Store> store;  // the job's namespace in store_connection
  std::unique_ptr<Engine> engine;
  std::shared_ptr<const detail::GroupState> world;
  // Comm ids of new groups in a job without a store (a world of one); each group takes
  // two, and 0 and 1 are the world's. Jobs with a store draw them from it.
  std::atomic<uint32_t> next_comm{2};
  ScratchPool scratch;
  ScheduleCache schedules;
  // Destroyed before the engine, so no asynchronous collective outlives it.
  Background background;
};

// Set once per init/destroy; read on every operation, hence atomic rather than locked.
extern std::atomic<Context*> g_context;
[[noreturn]] void throw_not_initialized(const char* op);

// The current context. Throws Error(kState) naming `op` when weft is not initialized.
inline Context& context(const char* op) {
  Context* c = g_context.load(std::memory_order_acquire);
  if (c == nullptr) [[unlikely]]
    throw_not_initialized(op);
  return *c;
}
bool has_context();
void install_context(std::unique_ptr<Context> context);
std::unique_ptr<Context> remove_context();

// The state behind a Group handle; the world for a default-constructed one.
const std::shared_ptr<const detail::GroupState>& resolve_group(const Group& group, const char* op);

}  // namespace weft::core
