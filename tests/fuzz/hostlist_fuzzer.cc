// Slurm hostlists (SLURM_STEP_NODELIST, SLURM_JOB_NODELIST): whatever the launcher's
// environment holds. Checks that a list is either refused with a weft::Error or
// expanded within kMaxHosts, that first_host() accepts exactly what expand_hostlist()
// accepts and names its first host, and that the expanded hosts, written back as a
// plain comma-separated list, expand to themselves.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rendezvous/hostlist.h"
#include "tests/fuzz/fuzz_check.h"
#include "weft/error.h"

using weft::rendezvous::expand_hostlist;
using weft::rendezvous::first_host;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string list(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> hosts;
  bool expanded = false;
  try {
    hosts = expand_hostlist(list, "fuzz");
    expanded = true;
  } catch (const weft::Error&) {
  }
  std::string first;
  bool got_first = false;
  try {
    first = first_host(list, "fuzz");
    got_first = true;
  } catch (const weft::Error&) {
  }
  FUZZ_CHECK(expanded == got_first, "first_host and expand_hostlist disagree on acceptance");
  if (!expanded) return 0;
  FUZZ_CHECK(!hosts.empty(), "an accepted list names no host");
  FUZZ_CHECK(hosts.size() <= weft::rendezvous::kMaxHosts, "more than kMaxHosts hosts");
  FUZZ_CHECK(first == hosts.front(), "first_host is not the first expanded host");
  // Writing large expansions back costs more than it finds.
  if (hosts.size() > 4096) return 0;
  std::string plain;
  for (const auto& h : hosts) {
    FUZZ_CHECK(!h.empty(), "an empty host name");
    FUZZ_CHECK(h.find_first_of(",[]") == std::string::npos, "a host name holds , [ or ]");
    plain += (plain.empty() ? "" : ",") + h;
  }
  FUZZ_CHECK(expand_hostlist(plain, "fuzz") == hosts, "the expansion does not expand to itself");
  return 0;
}
