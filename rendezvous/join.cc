#include "rendezvous/join.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "base/host_identity.h"
#include "base/log.h"
#include "base/random_id.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

const std::string kAbortKey = "abort";
// How many processes have given up on the join because of the abort: the store's host
// keeps the store up until the others have heard (await_abort_heard).
const std::string kAbortHeardKey = "abort/heard";
const std::string kJobKey = "job";  // "<world_size> <job_id>", set by rank 0
const std::string kJoinedKey = "joined";
const std::string kCompleteKey = "complete";
const std::string kNextRankKey = "next_rank";  // automatic ranks, in order of arrival

std::string record_key(int rank) { return "rank/" + std::to_string(rank) + "/record"; }
std::string claim_key(int rank) { return "rank/" + std::to_string(rank) + "/claims"; }
std::string owner_key(int rank) { return "rank/" + std::to_string(rank) + "/owner"; }

uint64_t draw_job_id() {
  return base::random_id() ^
         static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

[[noreturn]] void throw_aborted(Store& store, int rank, base::Deadline deadline) {
  const base::Deadline soon = deadline.min(base::Deadline::after(std::chrono::seconds(5)));
  std::string reason = store.get(kAbortKey, soon);
  store.add(kAbortHeardKey, 1, soon);
  throw JoinAborted("init_process_group (rank " + std::to_string(rank) +
                    "): the rendezvous was aborted: " + reason);
}

}  // namespace

void throw_if_aborted(Store& store, int rank, base::Deadline deadline) {
  if (store.check({kAbortKey}, deadline)) throw_aborted(store, rank, deadline);
}

void abort_join(Store& store, const std::string& reason, base::Deadline deadline) {
  try {
    store.set(kAbortKey, reason, deadline);
    store.add(kAbortHeardKey, 1, deadline);
  } catch (const Error& e) {
    WEFT_LOG(WARN) << "could not tell the other ranks that the rendezvous failed: " << e.what();
  }
}

void await_abort_heard(Store& store, int processes, base::Deadline deadline) {
  try {
    if (!store.check({kAbortKey}, deadline)) return;
    auto pause = std::chrono::milliseconds(1);
    while (store.add(kAbortHeardKey, 0, deadline) < processes && !deadline.expired()) {
      std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(pause, deadline.remaining()));
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  } catch (const Error&) {
    // Best effort: the store's host is failing anyway.
  }
}

namespace {

// Whether `owner` ("host:pid", as join_world records it) names a process of this host
// that no longer exists.
// `owner` is "host:pid", maybe followed by " at " and the addresses the rank advertised.
bool owner_is_gone(const std::string& owner_text) {
  const std::string owner = owner_text.substr(0, owner_text.find(' '));
  size_t colon = owner.rfind(':');
  if (colon == std::string::npos) return false;
  if (owner.substr(0, colon) != base::local_host_identity().hostname) return false;
  long pid = std::strtol(owner.c_str() + colon + 1, nullptr, 10);
  return pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

void refuse_leftover_job(Store& store, const std::string& where, base::Deadline deadline) {
  const std::string remedy = "; if no job uses it any more, remove it (or pick another group_name)";
  if (store.check({kAbortKey}, deadline)) {
    throw InvalidArgument("init_process_group(" + where + "): an earlier rendezvous of this " +
                          "group failed (" + store.get(kAbortKey, deadline) + ")" + remedy);
  }
  if (!store.check({kJobKey}, deadline)) return;
  int size = std::stoi(store.get(kJobKey, deadline));
  std::string owners, gone;
  for (int r = 0; r < size; ++r) {
    if (!store.check({owner_key(r)}, deadline)) continue;
    std::string owner = store.get(owner_key(r), deadline);
    if (r < 8) owners += (owners.empty() ? "" : ", ") + owner;
    if (owner_is_gone(owner) && gone.empty()) {
      gone = "rank " + std::to_string(r) + " (" + owner + ")";
    }
  }
  if (store.check({kCompleteKey}, deadline)) {
    throw InvalidArgument("init_process_group(" + where + "): this group already assembled a " +
                          "job of " + std::to_string(size) + " ranks (" + owners + ")" +
                          (gone.empty() ? "; it may still be running" : "; " + gone + " is gone") +
                          remedy);
  }
  if (!gone.empty()) {
    throw InvalidArgument("init_process_group(" + where + "): left over from a killed job: " +
                          gone + " joined this group and no longer exists" + remedy);
  }
}

int assign_rank(Store& store, int world_size, const std::string& self, base::Deadline deadline) {
  while (true) {
    int64_t next = store.add(kNextRankKey, 1, deadline) - 1;
    if (next >= world_size) {
      std::string reason = self + " found all " + std::to_string(world_size) +
                           " ranks taken: more processes were started than world_size";
      abort_join(store, reason, deadline);
      throw InvalidArgument("init_process_group: " + reason);
    }
    // A rank given explicitly to another process is skipped.
    if (!store.check({claim_key(static_cast<int>(next))}, deadline)) return static_cast<int>(next);
  }
}

namespace {

[[noreturn]] void throw_missing(Store& store, const std::string& me, int world_size) {
  base::Deadline d = base::Deadline::after(std::chrono::seconds(5));
  int64_t joined = store.add(kJoinedKey, 0, d);
  std::string missing, present;
  int shown = 0, listed = 0;
  for (int r = 0; r < world_size; ++r) {
    if (store.check({record_key(r)}, d)) {
      // Who joined, and from where: a rank on the wrong host or job shows up here.
      if (++listed <= 8 && store.check({owner_key(r)}, d)) {
        present += (present.empty() ? "" : ", ") + std::to_string(r) + " (" +
                   store.get(owner_key(r), d) + ")";
      }
      continue;
    }
    if (++shown <= 64) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  }
  if (shown > 64) missing += ", ... (" + std::to_string(shown) + " in all)";
  if (listed > 8) present += ", ...";
  throw TimeoutError("init_process_group (" + me + "): " + std::to_string(joined) + "/" +
                     std::to_string(world_size) + " ranks joined before the deadline; " +
                     "missing ranks: " + missing + (present.empty() ? "" : "; joined: " + present) +
                     " (" + store.describe() + ")");
}

// Polls until `done()` holds, failing on an abort or at the deadline.
template <typename Done>
void poll_until(Store& store, int rank, int world_size, const std::string& me,
                base::Deadline deadline, Done done) {
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    if (store.check({kAbortKey}, deadline)) throw_aborted(store, rank, deadline);
    if (done()) return;
    if (deadline.expired()) throw_missing(store, me, world_size);
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(pause, deadline.remaining()));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

}  // namespace

JoinResult join_world(Store& store, int rank, int world_size, const std::string& record,
                      const std::string& self, base::Deadline deadline) {
  const std::string me = "rank " + std::to_string(rank) + " (" + self + ")";
  JoinResult result;
  // A job that assembled here already is not this one (its ranks never join twice): the
  // store is another job's, which holds the port this job was told to meet at. Say so,
  // and leave that job alone.
  if (store.check({kCompleteKey}, deadline)) {
    int size = store.check({kJobKey}, deadline) ? std::stoi(store.get(kJobKey, deadline)) : -1;
    throw InvalidArgument("init_process_group (" + me + "): the " + store.describe() +
                          " belongs to another job, which assembled there with " +
                          std::to_string(size) +
                          " ranks: its port is in use by that job; choose another MASTER_PORT "
                          "(or group_name)");
  }
  // Everyone agrees with rank 0 on the world size before anyone counts as joined, so a
  // disagreement can never leave part of the job assembled.
  if (rank == 0) {
    result.job_id = draw_job_id();
    store.set(kJobKey, std::to_string(world_size) + " " + std::to_string(result.job_id), deadline);
  } else {
    poll_until(store, rank, world_size, me, deadline,
               [&] { return store.check({kJobKey}, deadline); });
    std::string job = store.get(kJobKey, deadline);
    int rank0_size = std::stoi(job);
    result.job_id = std::stoull(job.substr(job.find(' ') + 1));
    if (rank0_size != world_size) {
      std::string reason = me + " was started with world_size " + std::to_string(world_size) +
                           " but rank 0 with " + std::to_string(rank0_size);
      abort_join(store, reason, deadline);
      throw InvalidArgument("init_process_group: " + reason);
    }
  }

  // Claim the rank. A second claimer learns who holds it and aborts the whole job.
  if (store.add(claim_key(rank), 1, deadline) > 1) {
    std::string holder = "another process";
    try {
      holder =
          store.get(owner_key(rank), deadline.min(base::Deadline::after(std::chrono::seconds(2))));
    } catch (const Error&) {
    }
    std::string reason =
        "rank " + std::to_string(rank) + " was claimed twice: by " + holder + " and by " + self;
    abort_join(store, reason, deadline);
    throw InvalidArgument("init_process_group (rank " + std::to_string(rank) + "): " + reason);
  }
  store.set(owner_key(rank), self, deadline);
  store.set(record_key(rank), record, deadline);
  if (store.add(kJoinedKey, 1, deadline) == world_size) store.set(kCompleteKey, "1", deadline);
  WEFT_LOG(INFO) << me << " joined the rendezvous (" << store.describe() << ")";

  poll_until(store, rank, world_size, me, deadline,
             [&] { return store.check({kCompleteKey}, deadline); });
  std::vector<std::string> keys;
  for (int r = 0; r < world_size; ++r) keys.push_back(record_key(r));
  result.records = store.get_many(keys, deadline);
  return result;
}

}  // namespace weft::rendezvous
