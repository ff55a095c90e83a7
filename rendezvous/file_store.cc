#include "rendezvous/file_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "base/hex.h"

namespace weft::rendezvous {
namespace {

// The first line of every rendezvous file: what it is, and the format's version.
const std::string kHeader = "weft rendezvous file 1\n";
// How many processes use the file. In memory its key starts with a NUL, which the
// PrefixStore keys of callers never do; on disk it is the one key not hex-coded.
const std::string kUsersKey("\0users", 6);
const std::string kUsersOnDisk = "users";

std::string errno_text() { return std::strerror(errno); }

}  // namespace

FileStore::FileStore(std::string path, base::Deadline deadline) : path_(std::move(path)) {
  if (path_.empty() || path_[0] != '/') {
    throw InvalidArgument("init_process_group(file://" + path_ +
                          "): the path must be absolute, as in file:///shared/dir/job");
  }
  update("open", deadline, [](Entries& entries) {
    std::string& users = entries[kUsersKey];
    users = std::to_string((users.empty() ? 0 : std::stoll(users)) + 1);
    return true;
  });
}

FileStore::~FileStore() {
  try {
    release();
  } catch (const Error&) {
  }
  if (fd_ >= 0) close(fd_);
}

void FileStore::release() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (released_) return;
  released_ = true;
  lock("release", base::Deadline::after(std::chrono::seconds(30)));
  Entries entries = read_entries("release");
  int64_t users = entries.count(kUsersKey) ? std::stoll(entries[kUsersKey]) - 1 : 0;
  if (users <= 0) {
    // Removed while locked: a process that locks this file next sees that the path no
    // longer names it and starts afresh.
    unlink(path_.c_str());
  } else {
    entries[kUsersKey] = std::to_string(users);
    write_entries(entries, "release");
  }
  unlock();
}

void FileStore::lock(const char* op, base::Deadline deadline) {
  auto pause = std::chrono::microseconds(100);
  while (true) {
    if (fd_ < 0) {
      fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (fd_ < 0) {
        throw InvalidArgument("init_process_group(file://" + path_ + "): cannot open it for " + op +
                              ": " + errno_text());
      }
    }
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    if (fcntl(fd_, F_SETLK, &whole) == 0) {
      struct stat locked {
      }, named{};
      if (fstat(fd_, &locked) == 0 && stat(path_.c_str(), &named) == 0 &&
          locked.st_ino == named.st_ino && locked.st_dev == named.st_dev) {
        return;
      }
      close(fd_);  // the last user removed it meanwhile: open what the path names now
      fd_ = -1;
      continue;
    }
    if (errno != EACCES && errno != EAGAIN && errno != EINTR) {
      throw Error(ErrorCode::kInvalidArgument,
                  "init_process_group(file://" + path_ + "): cannot lock it for " + op + ": " +
                      errno_text() + " (the file system must support fcntl locks)");
    }
    if (deadline.expired()) {
      throw TimeoutError("init_process_group(file://" + path_ + "): could not lock the file for " +
                         op + " before the deadline; another process holds its lock");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20'000));
  }
}

void FileStore::unlock() {
  struct flock whole {};
  whole.l_type = F_UNLCK;
  whole.l_whence = SEEK_SET;
  fcntl(fd_, F_SETLK, &whole);
}

FileStore::Entries FileStore::read_entries(const char* op) {
  std::string text;
  char buffer[65536];
  for (off_t at = 0;;) {
    ssize_t n = pread(fd_, buffer, sizeof buffer, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kPeer, "init_process_group(file://" + path_ + "): reading it for " +
                                        op + ": " + errno_text());
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  Entries entries;
  if (text.empty()) return entries;  // just created
  auto not_ours = [&](const std::string& why) {
    return InvalidArgument("init_process_group(file://" + path_ +
                           "): the file exists and is not a weft rendezvous file (" + why +
                           "); choose another path or remove it");
  };
  if (text.compare(0, kHeader.size(), kHeader) != 0) throw not_ours("no weft header");
  for (size_t at = kHeader.size(); at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) throw not_ours("a line without its end");
    std::string line = text.substr(at, end - at);
    at = end + 1;
    size_t space = line.find(' ');
    if (space == std::string::npos) throw not_ours("a line without a value");
    std::string stored_key = line.substr(0, space), key, value;
    if (stored_key == kUsersOnDisk) {
      key = kUsersKey;
    } else if (!base::hex_decode(stored_key, key)) {
      throw not_ours("a malformed key");
    }
    if (!base::hex_decode(line.substr(space + 1), value)) throw not_ours("a malformed value");
    entries[key] = value;
  }
  return entries;
}

void FileStore::write_entries(const Entries& entries, const char* op) {
  std::string text = kHeader;
  for (const auto& [key, value] : entries) {
    text += (key == kUsersKey ? kUsersOnDisk : base::hex_encode(key)) + " " +
            base::hex_encode(value) + "\n";
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorCode::kPeer, "init_process_group(file://" + path_ + "): writing it for " +
                                        op + ": " + errno_text());
    }
    done += static_cast<size_t>(n);
  }
  if (ftruncate(fd_, static_cast<off_t>(text.size())) != 0) {
    throw Error(ErrorCode::kPeer, "init_process_group(file://" + path_ + "): truncating it for " +
                                      op + ": " + errno_text());
  }
}

template <typename Change>
void FileStore::update(const char* op, base::Deadline deadline, Change change) {
  std::lock_guard<std::mutex> guard(mutex_);
  lock(op, deadline);
  try {
    Entries entries = read_entries(op);
    if (change(entries)) write_entries(entries, op);
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
}

void FileStore::set(const std::string& key, const std::string& value, base::Deadline deadline) {
  update("set", deadline, [&](Entries& entries) {
    entries[key] = value;
    return true;
  });
}

int64_t FileStore::add(const std::string& key, int64_t delta, base::Deadline deadline) {
  int64_t result = 0;
  update("add", deadline, [&](Entries& entries) {
    std::string& value = entries[key];
    result = (value.empty() ? 0 : std::stoll(value)) + delta;
    value = std::to_string(result);
    return true;
  });
  return result;
}

bool FileStore::check(const std::vector<std::string>& keys, base::Deadline deadline) {
  bool all = true;
  update("check", deadline, [&](Entries& entries) {
    for (const auto& k : keys) all = all && entries.count(k) > 0;
    return false;
  });
  return all;
}

bool FileStore::delete_key(const std::string& key, base::Deadline deadline) {
  bool existed = false;
  update("delete_key", deadline, [&](Entries& entries) {
    existed = entries.erase(key) > 0;
    return existed;
  });
  return existed;
}

template <typename Ready>
void FileStore::poll(const std::vector<std::string>& keys, base::Deadline deadline, Ready ready) {
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    bool done = false;
    update("wait", deadline, [&](Entries& entries) {
      done = ready(entries);
      return false;
    });
    if (done) return;
    if (deadline.expired()) {
      std::string names;
      for (const auto& k : keys) names += (names.empty() ? "" : ", ") + k;
      throw TimeoutError("rendezvous: keys " + names + " not set in " + describe() +
                         " before the deadline");
    }
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(pause, deadline.remaining()));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

std::string FileStore::get(const std::string& key, base::Deadline deadline) {
  std::string value;
  poll({key}, deadline, [&](Entries& entries) {
    auto it = entries.find(key);
    if (it == entries.end()) return false;
    value = it->second;
    return true;
  });
  return value;
}

void FileStore::wait(const std::vector<std::string>& keys, base::Deadline deadline) {
  poll(keys, deadline, [&](Entries& entries) {
    for (const auto& k : keys) {
      if (!entries.count(k)) return false;
    }
    return true;
  });
}

}  // namespace weft::rendezvous
