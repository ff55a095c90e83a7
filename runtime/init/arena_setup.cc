#include "runtime/init/arena_setup.h"

#include <unistd.h>

#include <cstdio>

#include "base/env.h"
#include "base/log.h"
#include "runtime/context.h"
#include "runtime/init/job_services.h"
#include "weft/error.h"

namespace weft::runtime {
namespace {

std::string key(uint32_t comm, const std::string& what) {
  return "arena/" + std::to_string(comm) + "/" + what;
}

}  // namespace

uint64_t arena_buffer_bytes_from_env() {
  static const uint64_t bytes = base::env::get_bytes("WEFT_SHM_ARENA_BYTES", 512 << 10) / 64 * 64;
  return bytes;
}

std::shared_ptr<collectives::SharedArena> establish_arena(Context& c, uint32_t comm,
                                                          const std::vector<int>& members,
                                                          int member, base::Deadline deadline) {
  const int n = static_cast<int>(members.size());
  const uint64_t buffer_bytes = arena_buffer_bytes_from_env();
  if (n < 2 || buffer_bytes == 0 || !c.job || !c.job->store) return nullptr;
  rendezvous::Store& store = *c.job->store;

  // Step 1.
  bool reaches_all = true;
  for (int w : members) {
    if (w != c.rank && !c.shares_memory[w]) reaches_all = false;
  }
  store.set(key(comm, "ok/" + std::to_string(member)), reaches_all ? "1" : "0", deadline);
  std::vector<std::string> ok_keys;
  for (int m = 0; m < n; ++m) ok_keys.push_back(key(comm, "ok/" + std::to_string(m)));
  const std::vector<std::string> oks = store.get_many(ok_keys, deadline);
  for (int m = 0; m < n; ++m) {
    if (oks[m] != "1") {
      if (member == 0) {
        WEFT_LOG(INFO) << "group of " << n << " ranks: no shared-memory collectives, since rank "
                       << members[m] << " does not share memory with every other member";
      }
      return nullptr;
    }
  }

  // Step 2.
  collectives::ArenaLayout layout{n, buffer_bytes};
  transport::shm::Segment segment;
  std::string failure;
  if (member == 0) {
    char name[96];
    std::snprintf(name, sizeof name, "/weft-%016llx-a%u.%d",
                  static_cast<unsigned long long>(c.job_id), comm, static_cast<int>(getpid()));
    try {
      segment = transport::shm::Segment::create(
          name, layout.total_bytes(), "the group's shared-memory arena",
          "lower WEFT_SHM_ARENA_BYTES (0 turns the arena off)");
      collectives::SharedArena::initialize_header(segment.data(), layout);
    } catch (const Error& e) {
      failure = e.what();
    }
    store.set(key(comm, "name"), failure.empty() ? segment.name() : "", deadline);
  } else {
    std::string name = store.get(key(comm, "name"), deadline);
    if (name.empty()) {
      failure = "rank " + std::to_string(members[0]) + " could not create it";
    } else {
      try {
        segment = transport::shm::Segment::open(name);
        collectives::SharedArena::check_header(segment.data(), layout, name);
      } catch (const Error& e) {
        failure = e.what();
      }
      store.set(key(comm, "mapped/" + std::to_string(member)), failure.empty() ? "1" : failure,
                deadline);
    }
  }

  // Step 3.
  if (member == 0) {
    if (failure.empty()) {
      std::vector<std::string> mapped_keys;
      for (int m = 1; m < n; ++m) mapped_keys.push_back(key(comm, "mapped/" + std::to_string(m)));
      const std::vector<std::string> reports = store.get_many(mapped_keys, deadline);
      for (int m = 1; m < n && failure.empty(); ++m) {
        if (reports[m - 1] != "1")
          failure = "rank " + std::to_string(members[m]) + ": " + reports[m - 1];
      }
    }
    if (segment.data() != nullptr) segment.unlink();
    store.set(key(comm, "outcome"), failure.empty() ? "1" : failure, deadline);
  } else if (failure.empty()) {
    std::string outcome = store.get(key(comm, "outcome"), deadline);
    if (outcome != "1") failure = outcome;
  }
  if (!failure.empty()) {
    WEFT_LOG(WARN) << "group of " << n << " ranks: no shared-memory collectives ("
                   << layout.total_bytes() << "-byte arena, WEFT_SHM_ARENA_BYTES=" << buffer_bytes
                   << " per buffer): " << failure;
    return nullptr;
  }
  WEFT_LOG(INFO) << "group of " << n << " ranks: shared-memory collectives in a "
                 << layout.total_bytes() << "-byte arena (" << buffer_bytes
                 << "-byte buffers, two per rank)";
  return std::make_shared<collectives::SharedArena>(std::move(segment), layout, member, members,
                                                    c.arena_options);
}

}  // namespace weft::runtime
