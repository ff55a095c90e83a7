#include "tools/weftrun/silent_rank.h"

namespace weft::weftrun {
namespace {

// Where the reports starting at `rank` end: the first rank without one; nullopt for a
// circle or a rank outside the job.
std::optional<int> end_of_chain(const std::vector<RankOutcome>& outcomes, int rank) {
  const int size = static_cast<int>(outcomes.size());
  std::vector<bool> seen(outcomes.size(), false);
  while (outcomes[static_cast<size_t>(rank)].waited_for) {
    seen[static_cast<size_t>(rank)] = true;
    rank = *outcomes[static_cast<size_t>(rank)].waited_for;
    if (rank < 0 || rank >= size || seen[static_cast<size_t>(rank)]) return std::nullopt;
  }
  return rank;
}

}  // namespace

std::optional<SilentRank> find_silent_rank(const std::vector<RankOutcome>& outcomes,
                                           int first_failure) {
  const int size = static_cast<int>(outcomes.size());
  if (first_failure < 0 || first_failure >= size ||
      !outcomes[static_cast<size_t>(first_failure)].waited_for) {
    return std::nullopt;
  }
  std::optional<int> silent = end_of_chain(outcomes, first_failure);
  if (!silent || !outcomes[static_cast<size_t>(*silent)].stopped_by_weftrun) return std::nullopt;
  SilentRank found;
  found.rank = *silent;
  for (int r = 0; r < size; ++r) {
    if (outcomes[static_cast<size_t>(r)].waited_for && end_of_chain(outcomes, r) == silent) {
      found.waiters.push_back(r);
    }
  }
  return found;
}

std::string describe_ranks(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) text += i + 1 == ranks.size() ? " and " : ", ";
    text += std::to_string(ranks[i]);
  }
  return text;
}

std::string describe_silent_rank(const SilentRank& silent, const std::string& where) {
  return "rank " + std::to_string(silent.rank) + " (" + where +
         ") stopped responding: " + describe_ranks(silent.waiters) + " timed out waiting for it";
}

}  // namespace weft::weftrun
