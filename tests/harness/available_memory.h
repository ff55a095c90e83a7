// What the kernel says a test may still allocate (MemAvailable in /proc/meminfo), so that
// tests that move gigabytes skip on a small machine instead of being killed.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace weft::testing {

// In bytes; 0 when /proc/meminfo cannot be read.
inline uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib << 10;
    meminfo.ignore(64, '\n');
  }
  return 0;
}

}  // namespace weft::testing
