// init_process_group through a store the program gives (weft::Store), as a framework
// with a store of its own joins weft: here a store kept in a directory of files, one
// file per key, shared by the rank processes. The job assembles and computes through it;
// the store's failures, a missing peer and bad arguments are reported, never waited out.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "tests/runtime/init_checks.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::expect_init_error;
using weft::testing::is_rank_process;
using weft::testing::run_ranks;
using weft::testing::RunOptions;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// A weft::Store over a directory: one file per key, named by the key with every byte
// other than [A-Za-z0-9_-] escaped as %XX (so keys may hold '/', and no key's file starts
// with '.'). A value is written to a temporary file and renamed into place, so a reader
// sees the whole value or none; add() holds an flock on ".lock" while it reads and writes.
// Every process opens its own instance over the same directory.
class DirectoryStore : public weft::Store {
 public:
  explicit DirectoryStore(std::string dir) : dir_(std::move(dir)) {}

  void set(const std::string& key, const std::string& value) override { write(key, value); }

  std::string get(const std::string& key, weft::Timeout timeout) override {
    wait({key}, timeout);
    std::optional<std::string> value = read(key);
    if (!value) throw std::runtime_error(describe() + ": key " + key + " vanished");
    return *value;
  }

  int64_t add(const std::string& key, int64_t delta) override {
    // A descriptor of its own per call: flock excludes other open files, also this
    // process's other threads.
    int fd = open((dir_ + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw_errno(describe() + ": open .lock");
    if (flock(fd, LOCK_EX) != 0) {
      close(fd);
      throw_errno(describe() + ": flock .lock");
    }
    try {
      std::optional<std::string> old = read(key);
      int64_t value = (old ? std::stoll(*old) : 0) + delta;
      write(key, std::to_string(value));
      close(fd);  // releases the lock
      return value;
    } catch (...) {
      close(fd);
      throw;
    }
  }

  void wait(const std::vector<std::string>& keys, weft::Timeout timeout) override {
    const Clock::time_point deadline = deadline_after(timeout);
    while (true) {
      std::string missing;
      for (const auto& key : keys) {
        if (!exists(key)) missing += (missing.empty() ? "" : ", ") + key;
      }
      if (missing.empty()) return;
      if (Clock::now() >= deadline) {
        throw weft::TimeoutError(describe() + ": waited " + std::to_string(timeout.count()) +
                                 " ms; missing keys: " + missing);
      }
      std::this_thread::sleep_for(1ms);
    }
  }

  bool check(const std::vector<std::string>& keys) override {
    for (const auto& key : keys) {
      if (!exists(key)) return false;
    }
    return true;
  }

  bool delete_key(const std::string& key) override {
    if (unlink(path(key).c_str()) == 0) return true;
    if (errno == ENOENT) return false;
    throw_errno(describe() + ": unlink " + key);
  }

  std::string describe() const override { return "directory store " + dir_; }

 protected:
  const std::string dir_;

 private:
  // now + timeout, or the end of time for a timeout too long to add.
  static Clock::time_point deadline_after(weft::Timeout timeout) {
    const Clock::time_point now = Clock::now();
    if (timeout >= std::chrono::duration_cast<weft::Timeout>(Clock::time_point::max() - now)) {
      return Clock::time_point::max();
    }
    return now + timeout;
  }

  std::string path(const std::string& key) const {
    static const char* hex = "0123456789ABCDEF";
    std::string name;
    for (unsigned char ch : key) {
      if (std::isalnum(ch) || ch == '_' || ch == '-') {
        name += static_cast<char>(ch);
      } else {
        name += {'%', hex[ch >> 4], hex[ch & 15]};
      }
    }
    return dir_ + "/" + (name.empty() ? "%" : name);
  }

  bool exists(const std::string& key) const { return access(path(key).c_str(), F_OK) == 0; }

  std::optional<std::string> read(const std::string& key) const {
    int fd = open(path(key).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return std::nullopt;
      throw_errno(describe() + ": open " + key);
    }
    std::string value;
    char buf[4096];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        close(fd);
        throw_errno(describe() + ": read " + key);
      }
      if (n == 0) break;
      value.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return value;
  }

  void write(const std::string& key, const std::string& value) {
    static std::atomic<uint64_t> serial{0};
    const std::string temp =
        dir_ + "/.tmp." + std::to_string(getpid()) + "." + std::to_string(serial++);
    int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw_errno(describe() + ": create " + temp);
    size_t done = 0;
    while (done < value.size()) {
      ssize_t n = ::write(fd, value.data() + done, value.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        close(fd);
        unlink(temp.c_str());
        throw_errno(describe() + ": write " + temp);
      }
      done += static_cast<size_t>(n);
    }
    close(fd);
    if (rename(temp.c_str(), path(key).c_str()) != 0) {
      unlink(temp.c_str());
      throw_errno(describe() + ": rename to " + key);
    }
  }
};

// A store whose every set fails, as a framework's store does when its backing is broken.
class BurningStore : public DirectoryStore {
 public:
  using DirectoryStore::DirectoryStore;
  void set(const std::string&, const std::string&) override {
    throw std::runtime_error("disk on fire");
  }
  std::string describe() const override { return "burning store " + dir_; }
};

constexpr const char* kDirVar = "GIVEN_STORE_TEST_DIR";

// A fresh directory for one test's store: made by the test process (under TEST_TMPDIR)
// and removed when the test ends; its rank processes find it through kDirVar.
class ScratchDir {
 public:
  ScratchDir() {
    if (is_rank_process()) {
      const char* dir = std::getenv(kDirVar);
      path_ = dir ? dir : "";
      return;
    }
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp ? tmp : "/tmp") + "/given_store.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    path_ = pattern;
    owner_ = true;
  }
  ~ScratchDir() {
    if (owner_) std::filesystem::remove_all(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  RunOptions options() const {
    RunOptions o;
    o.launcher_store = false;  // the ranks meet in the directory, not in a TCP store
    o.env = {{kDirVar, path_}};
    o.timeout = std::chrono::seconds(120);
    return o;
  }
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path_)) ++n;
    return n;
  }

 private:
  std::string path_;
  bool owner_ = false;
};

TEST(GivenStore, ThreeRanksJoinThroughADirectoryStoreAndComputeTogether) {
  ScratchDir dir;
  auto ranks = run_ranks(
      3,
      [&](int rank) {
        ASSERT_FALSE(dir.path().empty());
        auto store = std::make_shared<DirectoryStore>(dir.path());
        weft::init_process_group(store, 3, rank, "auto", 60s);
        EXPECT_TRUE(weft::is_initialized());
        EXPECT_EQ(weft::get_rank(), rank);
        EXPECT_EQ(weft::get_world_size(), 3);
        EXPECT_GE(store.use_count(), 2) << "weft keeps the store while the job lives";

        std::vector<float> sum(4099, static_cast<float>(rank + 1));
        weft::all_reduce(weft::view(sum));
        for (size_t i = 0; i < sum.size(); ++i) {
          ASSERT_EQ(sum[i], 6.0f) << "element " << i;
        }

        std::vector<float> data(1027);
        for (size_t i = 0; i < data.size(); ++i) {
          data[i] = rank == 2 ? 0.5f * static_cast<float>(i) + 2.0f : -1.0f - rank;
        }
        weft::broadcast(weft::view(data), 2);
        for (size_t i = 0; i < data.size(); ++i) {
          ASSERT_EQ(data[i], 0.5f * static_cast<float>(i) + 2.0f) << "element " << i;
        }

        weft::destroy_process_group();
        EXPECT_FALSE(weft::is_initialized());
        EXPECT_EQ(store.use_count(), 1) << "weft let go of the store at destroy_process_group";
      },
      dir.options());
  expect_all_succeeded(ranks);
  // The rendezvous went through the directory.
  EXPECT_GT(dir.entries(), 0u);
}

TEST(GivenStore, AFailingStoreIsReportedNamingItAndItsError) {
  ScratchDir dir;
  expect_all_succeeded(run_ranks(
      1,
      [&](int) {
        auto store = std::make_shared<BurningStore>(dir.path());
        auto start = Clock::now();
        try {
          weft::init_process_group(store, 2, 0, "auto", 30s);
          ADD_FAILURE() << "init_process_group succeeded";
          weft::destroy_process_group();
        } catch (const weft::Error& e) {
          const std::string what = e.what();
          EXPECT_NE(what.find("disk on fire"), std::string::npos) << what;
          EXPECT_NE(what.find(store->describe()), std::string::npos) << what;
        }
        EXPECT_LT(Clock::now() - start, 5s) << "the failure waited for the timeout";
        EXPECT_FALSE(weft::is_initialized());
      },
      dir.options()));
}

TEST(GivenStore, ARankWithoutPeersTimesOut) {
  ScratchDir dir;
  expect_all_succeeded(run_ranks(
      1,
      [&](int) {
        auto store = std::make_shared<DirectoryStore>(dir.path());
        auto start = Clock::now();
        expect_init_error<weft::TimeoutError>(
            [&] { weft::init_process_group(store, 2, 0, "auto", 2000ms); },
            {"1/2 ranks joined", "missing ranks: 1", store->describe()});
        auto took = Clock::now() - start;
        EXPECT_GE(took, 1900ms);
        EXPECT_LT(took, 15s);
        EXPECT_FALSE(weft::is_initialized());
      },
      dir.options()));
}

TEST(GivenStore, BadArgumentsAreRefused) {
  ScratchDir dir;
  auto store = std::make_shared<DirectoryStore>(dir.path());
  expect_init_error<weft::InvalidArgument>(
      [&] { weft::init_process_group(store, 2, -1, "auto", 5s); }, {"rank -1"});
  expect_init_error<weft::InvalidArgument>(
      [&] { weft::init_process_group(nullptr, 2, 0, "auto", 5s); }, {"store is null"});
  // A bad argument is this process's alone: nothing waits for other ranks to hear of it.
  auto start = Clock::now();
  expect_init_error<weft::InvalidArgument>(
      [&] { weft::init_process_group(store, 2, 0, "infiniband", 5s); },
      {"backend 'infiniband' is not supported"});
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_FALSE(weft::is_initialized());
  EXPECT_EQ(dir.entries(), 0u) << "a refused init wrote to the store";
}

}  // namespace
