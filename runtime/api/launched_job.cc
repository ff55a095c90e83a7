// launched_job: the launcher detection of env:// (rendezvous/launcher_detection.h),
// public for frameworks that run their own rendezvous.
#include "rendezvous/launcher_detection.h"
#include "weft/process_group.h"

namespace weft {

std::optional<LaunchedJob> launched_job() {
  auto launched = rendezvous::detect_launcher();
  if (!launched) return std::nullopt;
  LaunchedJob job;
  job.launcher = launched->launcher;
  job.rank = launched->rank;
  job.world_size = launched->world_size;
  job.local_rank = launched->local_rank;
  job.store_host = launched->store_host;
  job.store_port = launched->store_port;
  return job;
}

}  // namespace weft
