// What one process holds of the soft device: its fabric, its memory-region table, its
// faults, and every verbs object it created, by the handle the caller holds, so that a
// handle that was never created, or was destroyed, is refused with a clear error
// instead of being followed. The verbs entry points lock `mutex` for their whole call.
#pragma once

#include <infiniband/verbs.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tests/transport/ib/soft_verbs/fabric.h"
#include "tests/transport/ib/soft_verbs/faults.h"
#include "tests/transport/ib/soft_verbs/memory_regions.h"

namespace weft::testing::soft_verbs {

class Cq;
class Qp;

// The device a process has when WEFT_TEST_SOFT_VERBS_DEVICES does not list others, and
// the prefix of the device's messages on stderr.
inline constexpr char kDeviceName[] = "softib0";
inline constexpr uint8_t kPort = 1;
inline constexpr int kGidTableLength = 2;
inline constexpr ibv_mtu kActiveMtu = IBV_MTU_4096;
// Device limits (ibv_device_attr).
inline constexpr int kMaxQpWr = 16384;
inline constexpr int kMaxSge = 16;
inline constexpr int kMaxCqe = 65536;
inline constexpr int kMaxRdAtomic = 16;
inline constexpr uint32_t kMaxInlineData = 256;
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 31;

// One device of the process's list (device_list.h). Its GIDs and node GUID follow from
// its index, so that every process of a test sees the same device alike.
struct SoftDevice {
  ibv_device ibv{};
  int index = 0;
  int numa_node = -1;
};

struct Context {
  ibv_context ibv{};
  const SoftDevice* device = nullptr;
  int pds = 0, cqs = 0, channels = 0;
};

struct Pd {
  ibv_pd ibv{};
  Context* context = nullptr;
  uint32_t id = 0;
  int regions = 0, qps = 0;
};

struct Mr {
  ibv_mr ibv{};
  Pd* pd = nullptr;
  uint32_t index = 0;  // in the process's region table
};

// A completion channel whose fd never becomes readable (soft_verbs.h says why).
struct Channel {
  ibv_comp_channel ibv{};
  int cqs = 0;
};

class Device {
 public:
  ~Device();

  std::mutex mutex;

  // Opened with the first context, closed with the last.
  std::unique_ptr<Fabric> fabric;
  std::unique_ptr<LocalRegions> regions;
  Faults faults;
  bool faults_chosen = false;  // by set_soft_verbs_faults, or read from the environment

  std::map<const ibv_context*, std::unique_ptr<Context>> contexts;
  std::map<const ibv_pd*, std::unique_ptr<Pd>> pds;
  std::map<const ibv_mr*, std::unique_ptr<Mr>> mrs;
  std::map<const ibv_comp_channel*, std::unique_ptr<Channel>> channels;
  std::map<const ibv_cq*, std::unique_ptr<Cq>> cqs;
  std::map<const ibv_qp*, std::unique_ptr<Qp>> qps;
  uint32_t next_pd_id = 1;
  uint32_t next_handle = 1;

  // Why the last call was refused or the last work request failed; also written to
  // stderr, as "softib0: ...", where a failing test shows it.
  std::string last_error;
  void report(const std::string& what);

  // The object behind a handle of this process; nullptr for one it does not know.
  template <typename Object, typename Handle>
  static Object* find(std::map<const Handle*, std::unique_ptr<Object>>& objects,
                      const Handle* handle) {
    auto it = objects.find(handle);
    return it == objects.end() ? nullptr : it->second.get();
  }
};

// The process's device state. Never destroyed: objects a process leaves behind at exit
// stay as the kernel would leave them until the process is gone.
Device& device();

// Reports `why` and returns `error` with errno set to it: how the verbs that answer an
// errno value refuse.
int refuse(int error, const std::string& why);
template <typename T>
T* refuse_null(int error, const std::string& why) {
  refuse(error, why);
  return nullptr;
}

// "CALL: unknown KIND (never created in this process, or destroyed)".
std::string unknown_handle(const char* call, const char* kind);

// The devices of this process, from WEFT_TEST_SOFT_VERBS_DEVICES, read on first use;
// nullptr, with the reason reported, when it does not parse.
const std::vector<SoftDevice>* soft_devices();

// The GIDs of the port of device `device` (its index in the list): 0
// fe80::5eef:ff:fe00:<device + 1> (IB/RoCE v1), 1 ::ffff:127.0.0.<device + 1> (RoCE v2).
ibv_gid port_gid(int device, int index);
// Whether `gid` is a GID of some device of the list: one a queue pair can be reached by.
bool is_fabric_gid(const ibv_gid& gid);

// "0x1f00", for messages.
std::string hex(uint64_t value);

// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the host.
int64_t now_ns();

}  // namespace weft::testing::soft_verbs
