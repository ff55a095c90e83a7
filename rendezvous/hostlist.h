// Slurm hostlists, as in SLURM_STEP_NODELIST and SLURM_JOB_NODELIST: the compact form
// Slurm uses to name the hosts of a job, e.g. "node[01-03,7],gpu5,rack[1-2]-n[3-4]".
//
// A hostlist is a comma-separated list of items. Each item is literal text with any
// number of bracket groups in it; a bracket group is a comma-separated list of numbers
// ("7") and inclusive ranges ("01-03"). Commas inside brackets do not split items. An
// item expands to the cartesian product of its groups, the first group varying slowest:
//   "node[01-03,7],gpu5,rack[1-2]-n[3-4]"
//     -> node01 node02 node03 node7 gpu5 rack1-n3 rack1-n4 rack2-n3 rack2-n4
// Numbers keep the zero padding of the range's lower bound: "[08-10]" gives 08 09 10,
// "[8-10]" gives 8 9 10. Hosts are listed in the order written; duplicates are kept.
//
// Malformed lists are an InvalidArgument naming the variable they came from (`what`)
// and the fault: "SLURM_STEP_NODELIST 'node[1-': '[' at offset 4 is never closed".
// Faults are unbalanced or nested brackets, an empty item, an empty or non-numeric
// range, a range whose lower bound exceeds its upper bound, whitespace or control
// characters, and a list naming more than kMaxHosts hosts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace weft::rendezvous {

// The most hosts a hostlist may name; more is taken for a malformed list.
inline constexpr size_t kMaxHosts = 1000000;

// Every host `list` names, in order.
std::vector<std::string> expand_hostlist(const std::string& list,
                                         const std::string& what = "SLURM_STEP_NODELIST");

// How many hosts `list` names, without expanding it: accepts exactly the lists
// expand_hostlist() accepts, and returns the size of its expansion.
size_t count_hosts(const std::string& list, const std::string& what = "SLURM_STEP_NODELIST");

// The first host `list` names, without expanding the rest. The whole list is still
// checked, so it accepts exactly the lists expand_hostlist() accepts.
std::string first_host(const std::string& list, const std::string& what = "SLURM_STEP_NODELIST");

}  // namespace weft::rendezvous
