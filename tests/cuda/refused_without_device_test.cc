// Device tensors with the runtime weft was built with, on a machine without a GPU (the
// build without --config=cuda, or CUDA without a driver or device): refused with the
// reason, never crashing. On a machine with a GPU the test skips.
#include <gtest/gtest.h>

#include <string>

#include "cuda/device_runtime.h"
#include "tests/harness/multiprocess.h"
#include "weft/cuda.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

TEST(NoDevice, ADeviceTensorIsRefusedSayingWhy) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "a CUDA device is present; see tools/gpu_check.sh";
  const std::string reason = cuda::unavailable_reason();
  EXPECT_FALSE(reason.empty());
  expect_all_succeeded(run_ranks(1, [reason](int) {
    init_process_group();
    float x = 0;
    try {
      all_reduce(cuda::device_tensor(&x, 1, DType::kFloat32, 0));
      ADD_FAILURE() << "a device tensor was accepted without a device";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()),
                "all_reduce (rank 0 of group world): input is on cuda:0, but " + reason);
    }
    try {
      send(cuda::device_tensor(&x, 1, DType::kFloat32, 0), 0);
      ADD_FAILURE() << "a device tensor was accepted without a device";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("send (rank 0 of group world): the tensor is on cuda:0"),
                std::string::npos);
    }
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing
