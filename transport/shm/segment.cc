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

// Sizes in MiB with one decimal, rounded up for what is needed and down for what is
// free, so that a shortfall never reads "needs 1 MiB, 1 MiB free".
std::string mib(uint64_t bytes, bool round_up) {
  const uint64_t tenths = ((bytes * 10) + (round_up ? (1 << 20) - 1 : 0)) >> 20;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}
std::string needed(uint64_t bytes) { return mib(bytes, true); }
std::string available(uint64_t bytes) { return mib(bytes, false); }

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
    // Not weft's fault, nor the caller's: the machine's /dev/shm is too small now.
    throw Error(ErrorCode::kState, purpose + " needs " + needed(bytes) + " (" +
                                       std::to_string(bytes) + " bytes) in /dev/shm and only " +
                                       available(free_bytes) + " (" + std::to_string(free_bytes) +
                                       " bytes) is free; enlarge /dev/shm (docker run "
                                       "--shm-size), " +
                                       remedy);
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
    throw Error(error == ENOSPC ? ErrorCode::kState : ErrorCode::kInternal,
                "cannot reserve " + needed(bytes) + " for shared-memory segment /dev/shm" + name +
                    ": " + std::strerror(error) + " (" + available(shm_free_bytes()) +
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

namespace {

// The creator's pid of a weft segment's name ("weft-...-r3.1234": 1234); 0 if the name
// is not a weft segment's.
long creator_of(const std::string& name) {
  if (name.rfind("weft-", 0) != 0) return 0;
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return 0;
  char* end = nullptr;
  long pid = std::strtol(name.c_str() + dot + 1, &end, 10);
  return pid > 0 && *end == '\0' ? pid : 0;
}

// Unlinks every segment in /dev/shm whose name and creator `doomed` accepts.
template <typename Doomed>
std::vector<std::string> remove_segments_if(Doomed doomed) {
  std::vector<std::string> removed;
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return removed;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    long pid = creator_of(name);
    if (pid == 0 || !doomed("/dev/shm/" + name, pid)) continue;
    if (shm_unlink(("/" + name).c_str()) == 0) removed.push_back("/dev/shm/" + name);
  }
  closedir(dir);
  return removed;
}

}  // namespace

std::vector<std::string> remove_orphaned_segments(std::chrono::seconds min_age) {
  const time_t now = time(nullptr);
  return remove_segments_if([&](const std::string& path, long pid) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || now - st.st_mtime < min_age.count()) return false;
    return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;  // not alive, and ours
  });
}

std::vector<std::string> remove_segments_created_by(int pid) {
  return remove_segments_if([pid](const std::string&, long creator) { return creator == pid; });
}

}  // namespace weft::transport::shm
