// Slurm hostlists (SLURM_STEP_NODELIST, SLURM_JOB_NODELIST): whatever the launcher's
// environment holds. Checks that a list is either refused with a weft::Error or names
// at most kMaxHosts hosts, that count_hosts() and first_host() accept exactly what
// expand_hostlist() accepts, the one with the expansion's size and the other naming its
// first host, and that the expanded hosts, written back as a plain comma-separated
// list, expand to themselves. Lists naming more than kMaxExpanded hosts are counted
// and not expanded: the expansion of a large list is the same code as a small one's,
// and expanding lists of up to a million hosts made the fuzzer slow (850 executions/s)
// and its memory grow past libFuzzer's limit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rendezvous/hostlist.h"
#include "tests/fuzz/fuzz_check.h"
#include "weft/error.h"

using weft::rendezvous::count_hosts;
using weft::rendezvous::expand_hostlist;
using weft::rendezvous::first_host;

namespace {
constexpr size_t kMaxExpanded = 512;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string list(reinterpret_cast<const char*>(data), size);
  size_t count = 0;
  bool counted = false;
  try {
    count = count_hosts(list, "fuzz");
    counted = true;
  } catch (const weft::Error&) {
  }
  std::string first;
  bool got_first = false;
  try {
    first = first_host(list, "fuzz");
    got_first = true;
  } catch (const weft::Error&) {
  }
  FUZZ_CHECK(counted == got_first, "first_host and count_hosts disagree on acceptance");
  if (!counted) return 0;
  FUZZ_CHECK(count > 0, "an accepted list names no host");
  FUZZ_CHECK(count <= weft::rendezvous::kMaxHosts, "more than kMaxHosts hosts");
  if (count > kMaxExpanded) return 0;
  std::vector<std::string> hosts;
  try {
    hosts = expand_hostlist(list, "fuzz");
  } catch (const weft::Error&) {
    FUZZ_CHECK(false, "expand_hostlist refuses a list count_hosts accepts");
  }
  FUZZ_CHECK(hosts.size() == count, "count_hosts is not the size of the expansion");
  FUZZ_CHECK(first == hosts.front(), "first_host is not the first expanded host");
  std::string plain;
  for (const auto& h : hosts) {
    FUZZ_CHECK(!h.empty(), "an empty host name");
    FUZZ_CHECK(h.find_first_of(",[]") == std::string::npos, "a host name holds , [ or ]");
    plain += (plain.empty() ? "" : ",") + h;
  }
  FUZZ_CHECK(expand_hostlist(plain, "fuzz") == hosts, "the expansion does not expand to itself");
  return 0;
}
