// Which rank a hung job waited for. A rank that stops responding (stopped, deadlocked,
// stuck in a system call) fails nobody by itself: its peers time out waiting for it,
// and the first of them to exit would be reported as the first failure. Each rank that
// times out posts the rank it waited for (rendezvous/launcher_reports.h); this follows
// those reports to the rank at their end, which is the root cause when it never ended
// by itself but had to be stopped by weftrun.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace weft::weftrun {

struct RankOutcome {
  std::optional<int> waited_for;    // the rank it reported timing out waiting for
  bool stopped_by_weftrun = false;  // it was still running when weftrun stopped the job
};

struct SilentRank {
  int rank = -1;
  std::vector<int> waiters;  // the ranks whose waits led to it, ascending
};

// `outcomes` by rank. Follows the reports from `first_failure` (the rank whose failure
// ended the job): it waited for b, which (if it timed out too) waited for c, and so on,
// to the first rank with no report of its own. That rank is silent when weftrun had to
// stop it. nullopt when the first failure posted no report (it did not fail by timing
// out: a report another rank posted, say from a timed receive the program retried, is
// no cause of this failure), when the rank at the end ended by itself (its own failure
// is then the one to report), or when the reports go round in a circle (ranks that all
// timed out waiting for each other) or name no rank of the job.
std::optional<SilentRank> find_silent_rank(const std::vector<RankOutcome>& outcomes,
                                           int first_failure);

// "ranks 0, 1 and 3" / "rank 0"
std::string describe_ranks(const std::vector<int>& ranks);

// "rank 2 (host:77) stopped responding: ranks 0, 1 and 3 timed out waiting for it",
// `where` being "host:77".
std::string describe_silent_rank(const SilentRank& silent, const std::string& where);

}  // namespace weft::weftrun
