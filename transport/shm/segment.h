// Segment: a named POSIX shared-memory object in /dev/shm, mapped into this process.
// The creator reserves its pages up front (so a full /dev/shm is an error at start-up,
// not a SIGBUS in the middle of a transfer) and unlinks the name as soon as every peer
// has mapped it: from then on the memory lives exactly as long as the mappings, and a
// crash leaves nothing behind in /dev/shm.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::transport::shm {

class Segment {
 public:
  // Creates and maps `name` ("/weft-..."), `bytes` long and zero-filled. Throws
  // weft::Error naming the free space of /dev/shm when it cannot hold the segment, with
  // `purpose` ("the shared-memory transport") and `remedy` (the setting that shrinks
  // it) in the message.
  static Segment create(const std::string& name, size_t bytes, const std::string& purpose,
                        const std::string& remedy);
  // Maps an existing segment whole. Throws weft::Error if it cannot be opened.
  static Segment open(const std::string& name);

  Segment() = default;
  Segment(Segment&& other) noexcept { *this = std::move(other); }
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();  // unmaps; the creator also unlinks a name not yet unlinked

  // Removes the name from /dev/shm; the mapping stays valid.
  void unlink();

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  void release();  // unmaps, and unlinks what this process created and still names

  std::string name_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  bool owner_ = false;
  bool linked_ = false;
};

// Bytes available to unprivileged writers in the file system behind /dev/shm.
uint64_t shm_free_bytes();

// Removes weft segments ("/dev/shm/weft-*.PID") whose creator no longer exists and that
// are older than `min_age`: what a process killed between creating a segment and
// unlinking it (during init_process_group or new_group) left behind. The age keeps a
// segment of a live job whose creator runs in another PID namespace safe while that
// job starts. Returns the names removed.
std::vector<std::string> remove_orphaned_segments(std::chrono::seconds min_age);

// Removes the weft segments that process `pid` created, for a launcher that has just
// reaped it: a rank killed while it held a segment not yet unlinked (its arena or its
// inbox during set-up) would otherwise leave it in /dev/shm until a later job's sweep
// above. Returns the names removed.
std::vector<std::string> remove_segments_created_by(int pid);

}  // namespace weft::transport::shm
