#include "tests/transport/ib/soft_verbs/fabric.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace weft::testing::soft_verbs {
namespace {

constexpr char kAllocatorName[] = "qpn";
constexpr size_t kAllocatorBytes = 4096;
// The first number handed out, and how many there are: 24-bit numbers above the
// reserved ones.
constexpr uint32_t kFirstQpn = 0x100;
constexpr uint32_t kQpnCount = 0x1000000 - kFirstQpn;

// mkdir -p.
bool make_directories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

std::byte* map_whole(int fd, size_t bytes) {
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return data == MAP_FAILED ? nullptr : static_cast<std::byte*>(data);
}

}  // namespace

std::string fabric_directory() {
  const char* chosen = std::getenv("WEFT_TEST_SOFT_VERBS");
  if (chosen != nullptr && chosen[0] == '/') return chosen;
  const char* test_tmpdir = std::getenv("TEST_TMPDIR");
  if (test_tmpdir != nullptr && test_tmpdir[0] != '\0') {
    return std::string(test_tmpdir) + "/soft_verbs";
  }
  return "/tmp/weft-soft-verbs-" + std::to_string(getpgrp());
}

MappedFile MappedFile::create(const std::string& directory, size_t bytes) {
  static std::atomic<unsigned> made{0};
  MappedFile file;
  const std::string path =
      directory + "/.new." + std::to_string(getpid()) + "." + std::to_string(made.fetch_add(1));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return file;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int error = errno;
    close(fd);
    ::unlink(path.c_str());
    errno = error;
    return file;
  }
  file.data_ = map_whole(fd, bytes);
  const int error = errno;
  close(fd);
  if (file.data_ == nullptr) {
    ::unlink(path.c_str());
    errno = error;
    return file;
  }
  file.size_ = bytes;
  file.path_ = path;
  return file;
}

MappedFile MappedFile::open(const std::string& path, size_t min_bytes) {
  MappedFile file;
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return file;
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < min_bytes || st.st_size == 0) {
    close(fd);
    errno = EINVAL;
    return file;
  }
  file.data_ = map_whole(fd, static_cast<size_t>(st.st_size));
  const int error = errno;
  close(fd);
  if (file.data_ == nullptr) {
    errno = error;
    return file;
  }
  file.size_ = static_cast<size_t>(st.st_size);
  file.path_ = path;
  return file;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    other.data_ = nullptr;
    other.size_ = 0;
    other.path_.clear();
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

bool MappedFile::publish(const std::string& path) {
  const bool linked = link(path_.c_str(), path.c_str()) == 0;
  const int error = errno;
  ::unlink(path_.c_str());
  path_ = linked ? path : std::string();
  errno = error;
  return linked;
}

void MappedFile::unlink() {
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
}

std::unique_ptr<Fabric> Fabric::open(std::string* why) {
  auto fabric = std::make_unique<Fabric>();
  fabric->directory_ = fabric_directory();
  if (!make_directories(fabric->directory_)) {
    const int error = errno;
    *why = "cannot create the fabric directory " + fabric->directory_ + ": " + std::strerror(error);
    errno = error;
    return nullptr;
  }
  // Every process creates the allocator if it is not there yet; a file only ever grows
  // to the same size, zero-filled, so concurrent creators agree.
  const std::string allocator = fabric->path(kAllocatorName);
  const int fd = ::open(allocator.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate(fd, kAllocatorBytes) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    *why = "cannot create " + allocator + ": " + std::strerror(error);
    errno = error;
    return nullptr;
  }
  close(fd);
  fabric->allocator_ = MappedFile::open(allocator, kAllocatorBytes);
  if (!fabric->allocator_.valid()) {
    *why = "cannot map " + allocator + ": " + std::strerror(errno);
    return nullptr;
  }
  return fabric;
}

std::string Fabric::qp_path(uint32_t qpn) const { return path("qp." + std::to_string(qpn)); }

uint32_t Fabric::allocate_qpn() {
  auto* next = allocator_.as<std::atomic<uint32_t>>();
  return kFirstQpn + next->fetch_add(1, std::memory_order_relaxed) % kQpnCount;
}

}  // namespace weft::testing::soft_verbs
