// FileStore: every operation, binary values, many processes adding at once, the last
// user removing the file, and files that are not ours.
#include "rendezvous/file_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace {

using namespace std::chrono_literals;
using weft::base::Deadline;
using weft::rendezvous::FileStore;

weft::base::Deadline soon() { return weft::base::Deadline::after(10s); }

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(FileStore, SetGetAddCheckDelete) {
  std::string path = temp_path("ops");
  FileStore store(path, soon());
  store.set("a", std::string("x\0y\n z", 6), soon());
  EXPECT_EQ(store.get("a", soon()), std::string("x\0y\n z", 6));
  EXPECT_EQ(store.add("n", 5, soon()), 5);
  EXPECT_EQ(store.add("n", -2, soon()), 3);
  EXPECT_TRUE(store.check({"a", "n"}, soon()));
  EXPECT_FALSE(store.check({"a", "missing"}, soon()));
  EXPECT_TRUE(store.delete_key("a", soon()));
  EXPECT_FALSE(store.delete_key("a", soon()));
  EXPECT_THROW(store.get("a", weft::base::Deadline::after(50ms)), weft::TimeoutError);
  store.release();
  EXPECT_FALSE(exists(path));
}

TEST(FileStore, ProcessesAddingAtOnceLoseNothingAndTheLastOneOutRemovesTheFile) {
  std::string path = temp_path("many");
  constexpr int kProcesses = 6, kAdds = 50;
  FileStore parent(path, soon());
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t child = fork();
    if (child == 0) {
      int status = 0;
      try {
        FileStore store(path, soon());
        for (int i = 0; i < kAdds; ++i) store.add("count", 1, soon());
        store.set("done/" + std::to_string(p), "1", soon());
      } catch (const std::exception& e) {
        fprintf(stderr, "child %d: %s\n", p, e.what());
        status = 1;
      }
      _exit(status);
    }
    children.push_back(child);
  }
  std::vector<std::string> done;
  for (int p = 0; p < kProcesses; ++p) done.push_back("done/" + std::to_string(p));
  parent.wait(done, soon());
  for (pid_t child : children) {
    int status = -1;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(parent.add("count", 0, soon()), kProcesses * kAdds);
  EXPECT_TRUE(exists(path));  // the parent still uses it
  parent.release();
  EXPECT_FALSE(exists(path));
}

TEST(FileStore, AProcessArrivingAfterTheLastOneLeftStartsAFreshFile) {
  std::string path = temp_path("fresh");
  {
    FileStore first(path, soon());
    first.set("old", "1", soon());
  }
  EXPECT_FALSE(exists(path));
  FileStore second(path, soon());
  EXPECT_FALSE(second.check({"old"}, soon()));
}

TEST(FileStore, AFileThatIsNotARendezvousFileIsRefusedNamingIt) {
  std::string path = temp_path("foreign");
  std::ofstream(path) << "some user data\n";
  try {
    FileStore store(path, soon());
    ADD_FAILURE() << "a foreign file was adopted";
  } catch (const weft::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a weft rendezvous file"), std::string::npos);
  }
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "some user data");  // untouched
  unlink(path.c_str());
}

TEST(FileStore, ARelativePathIsRefused) {
  EXPECT_THROW(FileStore("relative/path", soon()), weft::InvalidArgument);
}

}  // namespace
