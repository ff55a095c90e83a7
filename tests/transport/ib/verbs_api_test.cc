// The verbs table: libibverbs loaded at run time, with the reason when it cannot be (no
// library, a library without the symbols); the hook that puts a test's table in its
// place; and weft's own entries for the verbs the header defines inline, which must call
// through the context as the header does.
#include "transport/ib/verbs_api.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "transport/ib/own_verbs.h"

namespace {

using weft::transport::ib::load_system_verbs;
using weft::transport::ib::LoadedVerbs;
using weft::transport::ib::use_verbs_for_testing;
using weft::transport::ib::verbs_api;
using weft::transport::ib::VerbsApi;
namespace own = weft::transport::ib::own;

TEST(VerbsApi, SystemLibraryLoadsEveryEntryOrSaysWhy) {
  const LoadedVerbs loaded = load_system_verbs();
  if (!loaded.api) {
    EXPECT_EQ(loaded.why_not.rfind("libibverbs.so.1", 0), 0u) << loaded.why_not;
    return;
  }
  EXPECT_TRUE(loaded.why_not.empty()) << loaded.why_not;
  const VerbsApi& api = *loaded.api;
  for (const void* entry :
       {(void*)api.get_device_list, (void*)api.free_device_list, (void*)api.get_device_name,
        (void*)api.open_device, (void*)api.close_device, (void*)api.query_device,
        (void*)api.query_gid, (void*)api.alloc_pd, (void*)api.dealloc_pd, (void*)api.reg_mr,
        (void*)api.dereg_mr, (void*)api.create_comp_channel, (void*)api.destroy_comp_channel,
        (void*)api.create_cq, (void*)api.destroy_cq, (void*)api.create_qp, (void*)api.modify_qp,
        (void*)api.destroy_qp}) {
    EXPECT_NE(entry, nullptr);
  }
  // The inline verbs are weft's own functions, not symbols of the library.
  EXPECT_EQ(api.query_port, &own::query_port);
  EXPECT_EQ(api.query_gid_type, &own::query_gid_type);
  EXPECT_EQ(api.device_numa_node, &own::device_numa_node);
  EXPECT_EQ(api.poll_cq, &own::poll_cq);
  EXPECT_EQ(api.post_send, &own::post_send);
  EXPECT_EQ(api.post_recv, &own::post_recv);
}

// ibv_reg_dmabuf_mr is optional: rdma-core 34 added it, and a library without it still
// loads (device memory then takes another path, gpudirect.h). This machine's has it
// exactly when its header declares it, which the build requires.
TEST(VerbsApi, DmaBufRegistrationIsLoadedWhereTheLibraryHasIt) {
  const LoadedVerbs loaded = load_system_verbs();
  if (!loaded.api) GTEST_SKIP() << loaded.why_not;
  void* library = dlopen(weft::transport::ib::kLibibverbs, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr);
  const bool exported = dlsym(library, "ibv_reg_dmabuf_mr") != nullptr;
  dlclose(library);
  EXPECT_EQ(loaded.api->reg_dmabuf_mr != nullptr, exported);
}

TEST(VerbsApi, MissingLibraryIsAReason) {
  const LoadedVerbs loaded = load_system_verbs("libweft-test-no-such-library.so.1");
  EXPECT_FALSE(loaded.api);
  EXPECT_EQ(loaded.why_not.rfind("libweft-test-no-such-library.so.1 not loadable: ", 0), 0u)
      << loaded.why_not;
  EXPECT_NE(loaded.why_not.find("cannot open shared object file"), std::string::npos)
      << loaded.why_not;
}

TEST(VerbsApi, LibraryWithoutTheSymbolsIsAReason) {
  const LoadedVerbs loaded = load_system_verbs("libc.so.6");
  EXPECT_FALSE(loaded.api);
  EXPECT_EQ(loaded.why_not, "libc.so.6: symbol ibv_get_device_list missing");
}

TEST(VerbsApi, TestTableTakesTheSystemsPlaceUntilGivenBack) {
  VerbsApi fake;
  use_verbs_for_testing(&fake);
  EXPECT_EQ(verbs_api(nullptr), &fake);
  use_verbs_for_testing(nullptr);
  std::string why_not;
  const VerbsApi* system = verbs_api(&why_not);
  EXPECT_NE(system, &fake);
  if (system == nullptr) {
    EXPECT_FALSE(why_not.empty());
  }
  // Loaded once: the same table every time.
  EXPECT_EQ(verbs_api(nullptr), system);
}

TEST(OwnVerbs, QueryPortAsksTheContextsOwnQueryPort) {
  verbs_context extended{};
  extended.sz = sizeof extended;
  extended.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
  extended.query_port = [](ibv_context*, uint8_t port, ibv_port_attr* attr, size_t size) {
    if (size != sizeof(ibv_port_attr)) return EINVAL;
    attr->state = IBV_PORT_ACTIVE;
    attr->lid = port * 10;
    return 0;
  };
  ibv_port_attr attr{};
  ASSERT_EQ(own::query_port(&extended.context, 3, &attr), 0);
  EXPECT_EQ(attr.state, IBV_PORT_ACTIVE);
  EXPECT_EQ(attr.lid, 30);
}

TEST(OwnVerbs, DataPathCallsThroughTheContextsOps) {
  ibv_context context{};
  context.ops.poll_cq = [](ibv_cq*, int entries, ibv_wc* wc) {
    wc[0].wr_id = 42;
    return entries - 1;
  };
  context.ops.post_send = [](ibv_qp*, ibv_send_wr* wr, ibv_send_wr** bad) {
    *bad = wr;
    return 7;
  };
  context.ops.post_recv = [](ibv_qp*, ibv_recv_wr* wr, ibv_recv_wr** bad) {
    *bad = wr;
    return 8;
  };
  ibv_cq cq{};
  cq.context = &context;
  ibv_wc wc[4]{};
  EXPECT_EQ(own::poll_cq(&cq, 4, wc), 3);
  EXPECT_EQ(wc[0].wr_id, 42u);
  ibv_qp qp{};
  qp.context = &context;
  ibv_send_wr send{};
  ibv_send_wr* bad_send = nullptr;
  EXPECT_EQ(own::post_send(&qp, &send, &bad_send), 7);
  EXPECT_EQ(bad_send, &send);
  ibv_recv_wr recv{};
  ibv_recv_wr* bad_recv = nullptr;
  EXPECT_EQ(own::post_recv(&qp, &recv, &bad_recv), 8);
  EXPECT_EQ(bad_recv, &recv);
}

TEST(OwnVerbs, GidTypeOfADeviceSysfsDoesNotKnowIsAnError) {
  ibv_device device{};
  std::strcpy(device.name, "weft_test_none");
  ibv_context context{};
  context.device = &device;
  ibv_gid_type type{};
  errno = 0;
  EXPECT_EQ(own::query_gid_type(&context, 1, 0, &type), -1);
  EXPECT_EQ(errno, ENOENT);
}

TEST(OwnVerbs, NumaNodeOfADeviceSysfsDoesNotKnowIsUnknown) {
  ibv_device device{};
  std::strcpy(device.name, "weft_test_none");
  EXPECT_EQ(own::device_numa_node(&device), -1);
}

}  // namespace
