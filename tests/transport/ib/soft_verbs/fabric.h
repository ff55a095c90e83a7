// The fabric: the directory through which the processes of one test reach each other's
// queue pairs and memory regions, its files, and the allocator of queue pair numbers.
// Plain files in an ordinary directory, never /dev/shm: Bazel's TEST_TMPDIR is removed
// after the test, and so is everything a test left there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace weft::testing::soft_verbs {

// Where the fabric of this process is: $WEFT_TEST_SOFT_VERBS when it is an absolute
// path, else $TEST_TMPDIR/soft_verbs, else /tmp/weft-soft-verbs-<process group id>
// (the processes a test forks or a launcher starts share its process group).
std::string fabric_directory();

// A file of the fabric mapped MAP_SHARED. Unmapped on destruction; the file stays until
// unlink().
class MappedFile {
 public:
  // A new zero-filled file of `bytes` in `directory`, mapped, under a temporary name that
  // nobody looks for: publish() gives it its real name once its contents are written,
  // so no other process ever maps it half-made. Invalid, with errno set, on failure.
  static MappedFile create(const std::string& directory, size_t bytes);
  // Maps an existing file whole. Invalid, with errno set (ENOENT when there is none),
  // when it cannot, or when it is shorter than `min_bytes`.
  static MappedFile open(const std::string& path, size_t min_bytes);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Links the file under `path`; false with errno set (EEXIST: the name is taken). The
  // temporary name goes either way.
  bool publish(const std::string& path);
  // Removes its name; the mapping stays valid.
  void unlink();

  bool valid() const { return data_ != nullptr; }
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(data_);
  }

 private:
  void release();

  std::byte* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;  // its current name; empty once unlinked
};

class Fabric {
 public:
  // Creates the directory (and its parents) if needed, and maps the allocator of queue
  // pair numbers. nullptr with errno set, and the reason in *why, on failure.
  static std::unique_ptr<Fabric> open(std::string* why);

  const std::string& directory() const { return directory_; }
  std::string path(const std::string& name) const { return directory_ + "/" + name; }
  // "qp.<qpn>": the file of a queue pair, named by its number in decimal.
  std::string qp_path(uint32_t qpn) const;

  // A queue pair number no other live queue pair of the fabric has: 24 bits, never 0
  // or 1 (which verbs reserves for special queue pairs).
  uint32_t allocate_qpn();

 private:
  std::string directory_;
  MappedFile allocator_;
};

}  // namespace weft::testing::soft_verbs
