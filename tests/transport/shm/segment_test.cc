// Segment: the error when /dev/shm is too small, and removing what a killed process
// left behind.
#include "transport/shm/segment.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "weft/error.h"

namespace weft::transport::shm {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

TEST(Segment, TooLargeForDevShmSaysByHowMuchAndIsNotAnInternalError) {
  const uint64_t free_bytes = shm_free_bytes();
  const uint64_t bytes = free_bytes + 1;  // short by one byte
  try {
    Segment::create("/weft-segtest-big." + std::to_string(getpid()), bytes, "the test segment",
                    "make it smaller");
    ADD_FAILURE() << "a segment larger than /dev/shm was created";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kState) << what;
    EXPECT_NE(what.find("(" + std::to_string(bytes) + " bytes) in /dev/shm"), std::string::npos)
        << what;
    EXPECT_NE(what.find("(" + std::to_string(free_bytes) + " bytes) is free"), std::string::npos)
        << what;
    EXPECT_NE(what.find("make it smaller"), std::string::npos) << what;
  }
}

TEST(Segment, ALaunchersSweepRemovesWhatAKilledProcessLeft) {
  const std::string mine = "/weft-segtest-live." + std::to_string(getpid());
  Segment kept = Segment::create(mine, 4096, "the test segment", "none");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Segment left = Segment::create("/weft-segtest-left." + std::to_string(getpid()), 4096,
                                   "the test segment", "none");
    _exit(0);  // no destructor: the segment stays in /dev/shm, as after a kill
  }
  int status = 0;
  waitpid(child, &status, 0);
  const std::string left = "/dev/shm/weft-segtest-left." + std::to_string(child);
  ASSERT_TRUE(exists(left));
  std::vector<std::string> removed = remove_segments_created_by(child);
  EXPECT_EQ(removed, std::vector<std::string>{left});
  EXPECT_FALSE(exists(left));
  EXPECT_TRUE(exists("/dev/shm" + mine)) << "another process's segment was removed";
}

}  // namespace
}  // namespace weft::transport::shm
