// The multi-GPU collectives (weft/multigpu.h) over a fake runtime of four devices.
#include "weft/multigpu.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/cuda/fake_device_buffers.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

constexpr uint64_t kCount = 3000;

// `gpus` float32 tensors of kCount elements, on devices 0..gpus-1.
struct LocalTensors {
  std::vector<std::unique_ptr<FakeDeviceTensor>> owned;
  std::vector<Tensor> tensors;
  LocalTensors(FakeDeviceRuntime& fake, int gpus) {
    for (int g = 0; g < gpus; ++g) {
      owned.push_back(std::make_unique<FakeDeviceTensor>(fake, kCount, DType::kFloat32, g));
      tensors.push_back(owned.back()->tensor());
    }
  }
  float* data(int g) const { return owned[g]->as<float>(); }
  void fill(int rank) const {
    for (size_t g = 0; g < owned.size(); ++g) {
      for (uint64_t i = 0; i < kCount; ++i) data(g)[i] = static_cast<float>(rank * 10 + g + i % 5);
    }
  }
};

TEST(MultiGpu, AllReduceLeavesTheFullSumInEveryTensorOfEveryProcess) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices(4);
    init_process_group();
    LocalTensors local(fake, 4);
    local.fill(rank);
    all_reduce_multigpu(local.tensors);
    // Sum over ranks r and gpus g of (10 r + g + i % 5) = 8 (i % 5) + 40 + 12.
    for (int g = 0; g < 4; ++g) {
      for (uint64_t i : {0u, 1u, 2999u}) EXPECT_EQ(local.data(g)[i], 8.0f * (i % 5) + 52.0f);
    }
    destroy_process_group();
  }));
}

TEST(MultiGpu, AverageDividesByTheTensorsOfTheGroupWhateverEachProcessHas) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices(4);
    init_process_group();
    LocalTensors local(fake, rank == 0 ? 1 : 3);  // four tensors in all
    for (size_t g = 0; g < local.tensors.size(); ++g) {
      for (uint64_t i = 0; i < kCount; ++i) local.data(g)[i] = 2.0f;
    }
    local.data(0)[0] = rank == 0 ? 6.0f : 2.0f;  // element 0 sums to 12
    all_reduce_multigpu(local.tensors, ReduceOp::kAvg);
    EXPECT_EQ(local.data(0)[0], 3.0f);
    EXPECT_EQ(local.data(static_cast<int>(local.tensors.size()) - 1)[1], 2.0f);
    destroy_process_group();
  }));
}

TEST(MultiGpu, BroadcastReduceAndAllGather) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices(4);
    init_process_group();
    {
      LocalTensors local(fake, 2);
      local.fill(rank);
      broadcast_multigpu(local.tensors, 1);
      for (int g = 0; g < 2; ++g) EXPECT_EQ(local.data(g)[7], 10.0f + 7 % 5);  // rank 1's gpu 0
    }
    {
      LocalTensors local(fake, 2);
      local.fill(rank);
      reduce_multigpu(local.tensors, 0, ReduceOp::kMax);
      if (rank == 0)
        EXPECT_EQ(local.data(0)[4], 10.0f + 1 + 4);
      else
        EXPECT_EQ(local.data(0)[4], 10.0f + 4);           // not the root: unchanged
      EXPECT_EQ(local.data(1)[4], rank * 10.0f + 1 + 4);  // never the result's place
    }
    {
      LocalTensors inputs(fake, 2);
      inputs.fill(rank);
      // outputs[i]: 4 tensors on the device of inputs[i].
      std::vector<std::unique_ptr<FakeDeviceTensor>> owned;
      std::vector<std::vector<Tensor>> outputs(2);
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 4; ++j) {
          owned.push_back(std::make_unique<FakeDeviceTensor>(fake, kCount, DType::kFloat32, i));
          outputs[i].push_back(owned.back()->tensor());
        }
      }
      all_gather_multigpu(outputs, inputs.tensors);
      for (int i = 0; i < 2; ++i) {
        for (int k = 0; k < 2; ++k) {
          for (int j = 0; j < 2; ++j) {
            // outputs[i][k * 2 + j] is rank k's input j.
            EXPECT_EQ(owned[i * 4 + k * 2 + j]->as<float>()[3], k * 10.0f + j + 3);
          }
        }
      }
    }
    destroy_process_group();
  }));
}

// A root is a world rank, as in every collective, or GroupRank{r}; a process outside
// the group takes no part.
TEST(MultiGpu, RootsAreWorldRanksAndNonMembersTakeNoPart) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices(4);
    init_process_group();
    Group pair = new_group({2, 1});
    LocalTensors local(fake, 2);
    local.fill(rank);
    broadcast_multigpu(local.tensors, 1, pair);  // world rank 1's gpu 0
    for (int g = 0; g < 2; ++g) {
      EXPECT_EQ(local.data(g)[7], rank == 0 ? g + 7 % 5 : 10.0f + 7 % 5) << "gpu " << g;
    }
    local.fill(rank);
    reduce_multigpu(local.tensors, GroupRank{0}, ReduceOp::kMax, pair);  // world rank 2
    EXPECT_EQ(local.data(0)[4], rank == 2 ? 20.0f + 1 + 4 : rank * 10.0f + 4);
    if (pair.is_member()) {
      EXPECT_NE(refusal_of([&] {
                  broadcast_multigpu(local.tensors, 0, pair);
                }).find("root 0 (world rank) is not a member of the group"),
                std::string::npos);
    }
    destroy_process_group();
  }));
}

TEST(MultiGpu, BadListsAreRefusedNamingTheTensor) {
  expect_all_succeeded(run_ranks(1, [](int) {
    FakeDeviceRuntime& fake = use_fake_devices(4);
    init_process_group();
    FakeDeviceTensor a(fake, 8, DType::kFloat32, 0), b(fake, 8, DType::kFloat32, 0);
    FakeDeviceTensor c(fake, 9, DType::kFloat32, 1);
    std::vector<Tensor> same_device{a.tensor(), b.tensor()};
    EXPECT_EQ(refusal_of([&] { all_reduce_multigpu(same_device); }),
              "all_reduce_multigpu (rank 0 of group world): tensors[1] is on cuda:0, as an "
              "earlier one is; each must be on a different device");
    std::vector<Tensor> counts{a.tensor(), c.tensor()};
    EXPECT_EQ(refusal_of([&] { broadcast_multigpu(counts, 0); }),
              "broadcast_multigpu (rank 0 of group world): tensors[1] has 9 elements, expected 8 "
              "(the count of the first tensor)");
    EXPECT_EQ(refusal_of([&] { reduce_multigpu({}, 0); }),
              "reduce_multigpu (rank 0 of group world): tensors is empty (pass one tensor per "
              "local GPU)");
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing
