#include "tests/transport/ib/soft_verbs/dma_buf.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace weft::testing::soft_verbs {
namespace {

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

struct Mapping {
  uint64_t begin = 0, end = 0, offset = 0, inode = 0;
  unsigned major = 0, minor = 0;
};

bool parse(const std::string& line, Mapping* m) {
  return std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64,
                     &m->begin, &m->end, &m->offset, &m->major, &m->minor, &m->inode) == 6;
}

}  // namespace

std::string dma_buf_mismatch(int fd, uint64_t offset, uint64_t length, uint64_t iova) {
  struct stat file {};
  if (::fstat(fd, &file) != 0) return "fd " + std::to_string(fd) + ": " + std::strerror(errno);
  if (length == 0) return "";
  if (iova + length < iova) return "the range wraps around the address space";
  std::ifstream maps("/proc/self/maps");
  if (!maps) return "cannot read /proc/self/maps";
  // The mappings are in address order: walk those that cover the range, each of which
  // must map the file at the offset the range's position asks for.
  uint64_t at = iova;
  const uint64_t last = iova + length;
  for (std::string line; at < last && std::getline(maps, line);) {
    Mapping m;
    if (!parse(line, &m) || m.end <= at) continue;
    if (m.begin > at) break;  // a hole
    const bool same_file =
        m.inode == file.st_ino && m.major == major(file.st_dev) && m.minor == minor(file.st_dev);
    if (!same_file || m.offset + (at - m.begin) != offset + (at - iova)) {
      return "[" + hex(at) + ", " + hex(m.end) + ") does not map the dma-buf at offset " +
             std::to_string(offset + (at - iova));
    }
    at = m.end;
  }
  if (at < last) return hex(at) + " is not mapped in this process";
  return "";
}

}  // namespace weft::testing::soft_verbs
