// FakeVerbs: a VerbsApi over devices described in the test, installed in place of the
// system's for its lifetime (use_verbs_for_testing), so that the probe, WEFT_IB_HCA and
// the GID choice are tested on hosts without RDMA. It answers the calls that find
// devices; the others fail with ENOSYS. One at a time per process.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "transport/ib/verbs_api.h"

namespace weft::testing {

struct FakeCalls;

struct FakeGid {
  std::array<uint8_t, 16> raw{};
  ibv_gid_type type = IBV_GID_TYPE_ROCE_V1;
};

// ::ffff:a.b.c.d, RoCE v2.
FakeGid roce_v2_ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d);
// fe80::`last`, or 2001:db8::`last` when `link_local` is false.
FakeGid ipv6_gid(ibv_gid_type type, uint8_t last, bool link_local = true);

struct FakePort {
  ibv_port_state state = IBV_PORT_ACTIVE;
  uint8_t link_layer = IBV_LINK_LAYER_ETHERNET;
  uint16_t lid = 0;
  int gid_table = 8;          // entries; those past `gids` are zero
  std::vector<FakeGid> gids;  // from index 0; an all-zero one is an empty slot
};

struct FakeDevice {
  std::string name;
  std::vector<FakePort> ports;
  bool open_fails = false;  // ibv_open_device fails with EACCES
  int numa_node = -1;       // what device_numa_node answers
};

class FakeVerbs {
 public:
  explicit FakeVerbs(std::vector<FakeDevice> devices);
  ~FakeVerbs();  // gives the system's table back
  FakeVerbs(const FakeVerbs&) = delete;
  FakeVerbs& operator=(const FakeVerbs&) = delete;

  const transport::ib::VerbsApi& api() const { return api_; }
  // ibv_get_device_list answers nullptr with this errno instead of the devices.
  void fail_device_list(int error) { list_error_ = error; }
  // Contexts opened and not closed again, and device lists not freed.
  int open_contexts() const { return open_contexts_; }
  int open_lists() const { return open_lists_; }
  // Calls of ibv_get_device_list: how often the devices were probed.
  int probes() const { return probes_; }

 private:
  friend struct FakeCalls;
  static FakeVerbs* current;

  std::vector<FakeDevice> devices_;
  std::vector<ibv_device> ibv_devices_;
  std::vector<ibv_context> contexts_;
  transport::ib::VerbsApi api_;
  int list_error_ = 0;
  int open_contexts_ = 0;
  int open_lists_ = 0;
  int probes_ = 0;
};

}  // namespace weft::testing
