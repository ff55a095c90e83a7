// Which soft devices a process has: WEFT_TEST_SOFT_VERBS_DEVICES, a comma-separated
// list of NAME[:NUMA] ("softib0:0,softib1:1"), so that tests of the choice between
// devices (the NUMA node nearest a rank, rails) have several to choose from. Unset or
// empty: softib0 alone, on no known NUMA node.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace weft::testing::soft_verbs {

// At most this many devices: device k's GIDs end in k + 1 (soft_verbs.h).
inline constexpr int kMaxDevices = 16;

struct DeviceSpec {
  std::string name;
  int numa_node = -1;  // -1: unknown, as the kernel writes it
};

// NAME: letters, digits, '_', '-' and '.', at most 63 characters (IBV_SYSFS_NAME_MAX),
// each name once; NUMA: an integer in [-1, 1023], -1 when left out. nullopt, with the
// reason in *why, for anything else, an empty entry, or more than kMaxDevices.
std::optional<std::vector<DeviceSpec>> parse_device_list(const std::string& text, std::string* why);

}  // namespace weft::testing::soft_verbs
