// weft-bench's device mode (-d cuda) over the fake device runtime: every collective's
// timed and checked calls on device buffers, and the bandwidth bound it prints when
// the ranks share one device.
#include <gtest/gtest.h>

#include <string>

#include "cuda/device_runtime.h"
#include "tests/cuda/fake_device_buffers.h"
#include "tests/harness/multiprocess.h"
#include "tools/bench/collectives.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

TEST(DeviceBench, EveryCollectiveChecksOutOnDeviceBuffers) {
  expect_all_succeeded(run_ranks(2, [](int) {
    install_fake_device_runtime(1);  // one device, shared by both ranks
    init_process_group();
    for (const char* name : {"all_reduce", "broadcast", "reduce", "all_gather", "gather", "scatter",
                             "reduce_scatter", "all_to_all"}) {
      bench::CollectiveOptions options;
      options.collective = name;
      options.min_bytes = 64;
      options.max_bytes = 64 << 10;
      options.factor = 32;
      options.iterations = 2;
      options.warmup = 1;
      options.on_device = true;
      for (const bench::CollectiveRow& row : bench::run_collective_benchmark(options)) {
        EXPECT_EQ(row.oop_wrong + row.ip_wrong, 0u) << name << " at " << row.bytes << " bytes";
        EXPECT_GT(row.bound_us, 0.0) << name;
      }
    }
    destroy_process_group();
  }));
}

// Without NCCL able to run (a build without CUDA, or no GPU for it), --compare nccl
// says why in the table and measures weft alone; every rank agrees, nobody hangs.
TEST(DeviceBench, CompareNcclWithoutAGpuMeasuresWeftAlone) {
  if (cuda::built_in_device_runtime().describe().find("cuda:0") != std::string::npos) {
    GTEST_SKIP() << "a real GPU is present: NCCL would run on the fake's host memory";
  }
  expect_all_succeeded(run_ranks(2, [](int) {
    install_fake_device_runtime(1);
    init_process_group();
    bench::CollectiveOptions options;
    options.collective = "all_reduce";
    options.min_bytes = options.max_bytes = 4096;
    options.iterations = 2;
    options.on_device = true;
    options.compare_nccl = true;
    for (const bench::CollectiveRow& row : bench::run_collective_benchmark(options)) {
      EXPECT_EQ(row.oop_wrong + row.ip_wrong, 0u);
      EXPECT_EQ(row.nccl_us, 0.0);
    }
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing
