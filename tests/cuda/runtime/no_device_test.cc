// The built-in runtime where no device can be used: a build without CUDA, or the CUDA
// build on a machine without a GPU or driver. Calls fail with Error(kState) and say
// why, rather than crashing or reporting a bug; on a machine with a GPU (CUDA build)
// there is nothing to check and the tests skip.
#include <gtest/gtest.h>

#include <string>

#include "cuda/device_runtime.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

DeviceRuntime& rt() { return built_in_device_runtime(); }

#ifdef WEFT_TEST_CUDA_BUILD
constexpr bool kCudaBuild = true;
#else
constexpr bool kCudaBuild = false;
#endif
constexpr const char* kNoCudaSupport =
    "this build of weft has no CUDA support: rebuild with bazel build --config=cuda";

// Why a call failed: the build, or CUDA's own reason naming the call.
void expect_unavailable(const Error& e, const std::string& call) {
  EXPECT_EQ(e.code(), ErrorCode::kState) << e.what();
  const std::string message = e.what();
  if (kCudaBuild) {
    EXPECT_EQ(message.rfind("CUDA is unavailable: " + call, 0), 0u) << message;
  } else {
    EXPECT_EQ(message, kNoCudaSupport);
  }
}

bool device_present() {
  try {
    return rt().device_count() > 0;
  } catch (const Error&) {
    return false;
  }
}

TEST(NoDeviceTest, DeviceCountThrowsStateErrorNamingTheCause) {
  if (device_present()) GTEST_SKIP() << "a CUDA device is present: " << rt().describe();
  try {
    rt().device_count();
    FAIL() << "device_count() returned without a device";
  } catch (const Error& e) {
    expect_unavailable(e, "cudaGetDeviceCount: ");
    // CUDA's reason itself follows the call's name.
    EXPECT_GT(std::string(e.what()).size(), std::string("CUDA is unavailable: x: ").size() + 8);
  }
}

TEST(NoDeviceTest, CallsThatNeedADeviceThrowStateErrors) {
  if (device_present()) GTEST_SKIP() << "a CUDA device is present: " << rt().describe();
  const auto expect_refused = [](auto call, const std::string& name) {
    try {
      call();
      ADD_FAILURE() << name << " returned without a device";
    } catch (const Error& e) {
      SCOPED_TRACE(name);
      expect_unavailable(e, "");
    }
  };
  expect_refused([] { rt().allocate_device(16, 0); }, "allocate_device");
  expect_refused([] { rt().allocate_pinned(16); }, "allocate_pinned");
  expect_refused([] { rt().create_stream(0); }, "create_stream");
  expect_refused([] { rt().create_event(0); }, "create_event");
  expect_refused([] { rt().synchronize_stream(Stream{}); }, "synchronize_stream");
}

TEST(NoDeviceTest, BuildWithoutCudaRefusesEverything) {
  if (kCudaBuild) GTEST_SKIP() << "this is the CUDA build";
  char byte = 0;
  EXPECT_EQ(rt().check_pointer(&byte, 1, 0), kNoCudaSupport);
  EXPECT_NE(rt().describe().find(kNoCudaSupport), std::string::npos);
  const auto expect_refused = [](auto call) {
    try {
      call();
      ADD_FAILURE() << "returned";
    } catch (const Error& e) {
      expect_unavailable(e, "");
    }
  };
  expect_refused([&] { rt().allocation_of(&byte, 0); });
  expect_refused([&] { rt().export_memory(&byte, 0); });
  expect_refused([] { rt().open_memory(IpcMemHandle{}, 0); });
  expect_refused([&] { rt().copy(&byte, &byte, 1, Stream{}); });
  expect_refused([] { rt().reduce(ReduceTask{}, Stream{}); });
  expect_refused([] { rt().event_done(Event{}); });
}

}  // namespace
}  // namespace weft::cuda
