// The system libraries weft builds against through Bazel local repositories
// (WORKSPACE): they link, and they answer. hwloc must see this machine's cores;
// libibverbs must list RDMA devices, of which there may be none.
#include <gtest/gtest.h>
#include <hwloc.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>

namespace {

TEST(SystemLibraries, HwlocSeesTheCores) {
  hwloc_topology_t topology;
  ASSERT_EQ(hwloc_topology_init(&topology), 0);
  ASSERT_EQ(hwloc_topology_load(topology), 0);
  int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  int pus = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
  EXPECT_GE(cores, 1);
  EXPECT_GE(pus, cores);
  hwloc_topology_destroy(topology);
}

TEST(SystemLibraries, IbverbsListsDevices) {
  int count = -1;
  ibv_device** devices = ibv_get_device_list(&count);
  // Without RDMA support in the kernel there is no list (ENOSYS) rather than an empty
  // one; either way, no devices and no crash.
  if (devices == nullptr) {
    EXPECT_LE(count, 0);
    GTEST_SKIP() << "libibverbs found no RDMA subsystem on this machine: " << std::strerror(errno);
  }
  EXPECT_GE(count, 0);
  ibv_free_device_list(devices);
}

}  // namespace
