#include "tests/transport/ib/soft_verbs/device_list.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace weft::testing::soft_verbs {
namespace {

bool is_name(const std::string& name) {
  return !name.empty() && name.size() <= 63 &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '_' || c == '-' || c == '.';
         });
}

std::optional<int> numa_node(const std::string& text) {
  if (text == "-1") return -1;
  if (text.empty() || text.size() > 4 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  const int node = std::stoi(text);
  return node <= 1023 ? std::optional<int>(node) : std::nullopt;
}

}  // namespace

std::optional<std::vector<DeviceSpec>> parse_device_list(const std::string& text,
                                                         std::string* why) {
  if (text.empty()) return std::vector<DeviceSpec>{{"softib0", -1}};
  std::vector<DeviceSpec> devices;
  std::stringstream in(text + ",");  // so that a trailing comma leaves an empty entry
  std::string entry;
  while (std::getline(in, entry, ',')) {
    auto fail = [&](const std::string& what) {
      *why = "WEFT_TEST_SOFT_VERBS_DEVICES=" + text + ": " + what +
             " (expected NAME[:NUMA],... such as softib0:0,softib1:1)";
      return std::nullopt;
    };
    const size_t colon = entry.find(':');
    DeviceSpec device;
    device.name = entry.substr(0, colon);
    if (!is_name(device.name)) return fail("'" + entry + "' does not start with a device name");
    if (colon != std::string::npos) {
      const auto node = numa_node(entry.substr(colon + 1));
      if (!node) return fail("'" + entry + "': the NUMA node is not an integer in [-1, 1023]");
      device.numa_node = *node;
    }
    for (const DeviceSpec& d : devices) {
      if (d.name == device.name) return fail(device.name + " is listed twice");
    }
    devices.push_back(device);
    if (devices.size() > static_cast<size_t>(kMaxDevices)) {
      return fail("more than " + std::to_string(kMaxDevices) + " devices");
    }
  }
  return devices;
}

}  // namespace weft::testing::soft_verbs
