// Context: the process group this process has joined (there is at most one), as the
// public functions use it. Created by init_process_group, torn down by
// destroy_process_group. How the job was joined (the rendezvous store, its server,
// multicast discovery) is runtime/init's business: the context only holds it, so the
// API files never see the rendezvous layer.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "base/deadline.h"
#include "collectives/arena/shared_arena.h"
#include "collectives/background.h"
#include "collectives/schedule_cache.h"
#include "collectives/scratch_pool.h"
#include "p2p/engine.h"
#include "runtime/group_record.h"
#include "weft/group.h"

namespace weft::runtime {

struct JobServices;  // runtime/init/job_services.h

struct Context {
  Context();
  ~Context();

  int rank = 0;
  int world_size = 1;
  Timeout timeout{};
  uint64_t job_id = 0;
  // By world rank: whether the link to that peer is shared memory.
  std::vector<bool> shares_memory;
  // By world rank: equal for ranks on one host (one machine and network namespace), for
  // the groups' host layouts (collectives/host_layout.h).
  std::vector<uint64_t> host_keys;
  collectives::SharedArena::Options arena_options;  // how arena waits spin, as the engine's
  // Declared in construction order and destroyed in reverse, so the job's store (and its
  // server) outlives the engine.
  std::unique_ptr<JobServices> job;
  std::unique_ptr<p2p::Engine> engine;
  std::shared_ptr<const GroupRecord> world;
  // Comm ids of new groups in a job without a store (a world of one); each group takes
  // two, and 0 and 1 are the world's. Jobs with a store draw them from it.
  std::atomic<uint32_t> next_comm{2};
  collectives::ScratchPool scratch;
  collectives::ScheduleCache schedules;
  // Destroyed before the engine, so no asynchronous collective outlives it.
  collectives::Background background;
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

// The record behind a Group handle; the world's for a default-constructed one. Throws
// InvalidArgument naming `op` for a destroyed group.
const std::shared_ptr<const GroupRecord>& resolve_group(const Group& group, const char* op);

// The first of `count` consecutive comm ids no other group of the job has, drawn from
// the job's store (runtime/init/job_services.cc); the caller shares them with the
// other members.
// The host layout of the group of `world_ranks` (null on one host, or with one rank per
// host), from the host identities every rank published at init.
const collectives::HostLayout* host_layout_of(const Context& c,
                                              const std::vector<int>& world_ranks);

uint64_t take_fresh_comm_ids(Context& c, uint64_t count, base::Deadline deadline);

}  // namespace weft::runtime
