#include "transport/shm/segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>

#include "weft/error.h"

namespace weft::transport::shm {
namespace {

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

[[noreturn]] void fail(const std::string& what, int error) {
  throw Error(ErrorCode::kInternal, what + ": " + std::strerror(error));
}

std::byte* map(int fd, size_t bytes, const std::string& name) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fail("cannot map shared-memory segment " + name, errno);
  return static_cast<std::byte*>(p);
}

}  // namespace

uint64_t shm_free_bytes() {
  struct statvfs st {};
  if (statvfs("/dev/shm", &st) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

Segment Segment::create(const std::string& name, size_t bytes, const std::string& purpose,
                        const std::string& remedy) {
  uint64_t free_bytes = shm_free_bytes();
  if (bytes > free_bytes) {
    throw Error(ErrorCode::kInternal,
                purpose + " needs " + mib(bytes) + " in /dev/shm and only " + mib(free_bytes) +
                    " is free; enlarge /dev/shm (docker run --shm-size), " + remedy);
  }
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot create shared-memory segment /dev/shm" + name, errno);
  Segment s;
  s.name_ = name;
  s.owner_ = true;
  s.linked_ = true;
  // Reserving the pages now turns a /dev/shm that fills up later into this error rather
  // than a SIGBUS when a page is first touched.
  int error = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (error != 0) {
    ::close(fd);
    s.unlink();
    throw Error(ErrorCode::kInternal, "cannot reserve " + mib(bytes) +
                                          " for shared-memory segment /dev/shm" + name + ": " +
                                          std::strerror(error) + " (" + mib(shm_free_bytes()) +
                                          " free in /dev/shm)");
  }
  try {
    s.data_ = map(fd, bytes, name);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  s.size_ = bytes;
  return s;
}

Segment Segment::open(const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) fail("cannot open shared-memory segment /dev/shm" + name, errno);
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    int e = errno;
    ::close(fd);
    fail("cannot size shared-memory segment /dev/shm" + name, e);
  }
  Segment s;
  s.name_ = name;
  try {
    s.data_ = map(fd, static_cast<size_t>(st.st_size), name);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  s.size_ = static_cast<size_t>(st.st_size);
  return s;
}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    release();
    name_ = std::move(other.name_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owner_ = std::exchange(other.owner_, false);
    linked_ = std::exchange(other.linked_, false);
  }
  return *this;
}

Segment::~Segment() { release(); }

void Segment::release() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  if (owner_ && linked_) unlink();
}

void Segment::unlink() {
  if (!linked_) return;
  shm_unlink(name_.c_str());
  linked_ = false;
}

}  // namespace weft::transport::shm

namespace weft::transport::shm {

std::vector<std::string> remove_orphaned_segments(std::chrono::seconds min_age) {
  std::vector<std::string> removed;
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return removed;
  const time_t now = time(nullptr);
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.rfind("weft-", 0) != 0) continue;
    size_t dot = name.rfind('.');
    if (dot == std::string::npos) continue;
    char* end = nullptr;
    long pid = std::strtol(name.c_str() + dot + 1, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    struct stat st {};
    std::string path = "/dev/shm/" + name;
    if (stat(path.c_str(), &st) != 0 || now - st.st_mtime < min_age.count()) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours
    if (shm_unlink(("/" + name).c_str()) == 0) removed.push_back(path);
  }
  closedir(dir);
  return removed;
}

}  // namespace weft::transport::shm
