// FileStore: a Store kept in one file that every process of the job can open, on a local
// disk or a shared file system (NFS). Each call takes an fcntl write lock on the whole
// file, reads it, changes it and writes it back; waits poll with a growing pause, so
// nothing relies on inotify, which network file systems do not deliver.
//
// Processes leave with release(): the last one out removes the file, so a finished job
// leaves nothing behind. A process that opens the path while the last one removes it
// notices (the path no longer names the file it locked) and starts a fresh file.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "rendezvous/store.h"

namespace weft::rendezvous {

class FileStore : public Store {
 public:
  // Opens or creates `path` and counts this process as a user. Throws InvalidArgument
  // naming the path when it cannot be created or is not a weft rendezvous file.
  FileStore(std::string path, base::Deadline deadline);
  // Releases this process's use, if release() was not called.
  ~FileStore() override;

  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  void set(const std::string& key, const std::string& value, base::Deadline deadline) override;
  std::string get(const std::string& key, base::Deadline deadline) override;
  int64_t add(const std::string& key, int64_t delta, base::Deadline deadline) override;
  void wait(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool check(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool delete_key(const std::string& key, base::Deadline deadline) override;
  std::string describe() const override { return "rendezvous file " + path_; }

  // This process is done with the file; the last user removes it. Idempotent.
  void release();

  const std::string& path() const { return path_; }

 private:
  using Entries = std::map<std::string, std::string>;

  // Runs `change` on the file's entries under the lock and writes them back if it
  // returns true. TimeoutError when the lock cannot be had by `deadline`.
  template <typename Change>
  void update(const char* op, base::Deadline deadline, Change change);
  // Locks the file behind path_, reopening when the path was removed or replaced.
  void lock(const char* op, base::Deadline deadline);
  void unlock();
  Entries read_entries(const char* op);
  void write_entries(const Entries& entries, const char* op);
  // Polls `ready` (called under the lock) until it holds or `deadline` passes.
  template <typename Ready>
  void poll(const std::vector<std::string>& keys, base::Deadline deadline, Ready ready);

  std::string path_;
  std::mutex mutex_;  // fcntl locks are per process: threads take turns here first
  int fd_ = -1;
  bool released_ = false;
};

}  // namespace weft::rendezvous
