// The device, its port and GIDs, contexts, protection domains, memory regions and
// completion channels.
#include "tests/transport/ib/soft_verbs/device.h"

#include <endian.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/transport/ib/soft_verbs/completion_queue.h"
#include "tests/transport/ib/soft_verbs/device_list.h"
#include "tests/transport/ib/soft_verbs/dma_buf.h"
#include "tests/transport/ib/soft_verbs/queue_pair.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace weft::testing::soft_verbs {
namespace {

constexpr uint64_t kNodeGuid = 0x02005eeffe000001;
constexpr int kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                           IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

std::vector<SoftDevice> make_devices(const std::vector<DeviceSpec>& specs) {
  std::vector<SoftDevice> devices(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    SoftDevice& d = devices[i];
    d.index = static_cast<int>(i);
    d.numa_node = specs[i].numa_node;
    d.ibv.node_type = IBV_NODE_CA;
    d.ibv.transport_type = IBV_TRANSPORT_IB;
    const char* name = specs[i].name.c_str();
    std::snprintf(d.ibv.name, sizeof d.ibv.name, "%s", name);
    std::snprintf(d.ibv.dev_name, sizeof d.ibv.dev_name, "soft_uverbs%zu", i);
    std::snprintf(d.ibv.dev_path, sizeof d.ibv.dev_path,
                  "/sys/class/infiniband_verbs/soft_uverbs%zu", i);
    std::snprintf(d.ibv.ibdev_path, sizeof d.ibv.ibdev_path, "/sys/class/infiniband/%s", name);
  }
  return devices;
}

// The list's device behind `device`; nullptr for a handle it did not give out.
const SoftDevice* soft_device_of(const ibv_device* device) {
  const std::vector<SoftDevice>* devices = soft_devices();
  if (devices == nullptr) return nullptr;
  for (const SoftDevice& d : *devices) {
    if (&d.ibv == device) return &d;
  }
  return nullptr;
}

const SoftDevice* device_of(Device& d, ibv_context* handle) {
  Context* context = d.find(d.contexts, handle);
  return context == nullptr ? nullptr : context->device;
}

// The first context of the process opens the fabric and the region table, and arms the
// faults the environment asks for (unless the test chose its own).
bool open_process_state(Device& d) {
  if (!d.faults_chosen) {
    const char* spec = std::getenv("WEFT_TEST_SOFT_VERBS_FAULT");
    std::string why;
    const auto plan = parse_fault_plan(spec ? spec : "", &why);
    if (!plan) {
      refuse(EINVAL, "WEFT_TEST_SOFT_VERBS_FAULT: " + why);
      return false;
    }
    d.faults.arm(*plan);
    d.faults_chosen = true;
  }
  if (d.fabric) return true;
  std::string why;
  d.fabric = Fabric::open(&why);
  if (!d.fabric) {
    refuse(errno, why);
    return false;
  }
  d.regions = LocalRegions::create(*d.fabric);
  if (!d.regions) {
    const int error = errno;
    d.fabric.reset();
    refuse(error, "cannot create the memory-region table in " + fabric_directory() + ": " +
                      std::strerror(error));
    return false;
  }
  // Remote peers read and write this process's registered memory with
  // process_vm_readv/writev, which Yama's ptrace_scope 1 allows only to declared
  // tracers (without Yama this is a harmless no-op).
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  return true;
}

}  // namespace

Device::~Device() = default;

void Device::report(const std::string& what) {
  last_error = what;
  std::fprintf(stderr, "%s: %s\n", kDeviceName, what.c_str());
}

int refuse(int error, const std::string& why) {
  device().report(why);
  errno = error;
  return error;
}

std::string unknown_handle(const char* call, const char* kind) {
  return std::string(call) + ": unknown " + kind + " (never created in this process, or destroyed)";
}

Device& device() {
  static Device* const process_device = new Device();
  return *process_device;
}

const std::vector<SoftDevice>* soft_devices() {
  // Never destroyed: handles to these outlive every static of the process.
  static const std::vector<SoftDevice>* const devices = []() -> std::vector<SoftDevice>* {
    const char* text = std::getenv("WEFT_TEST_SOFT_VERBS_DEVICES");
    std::string why;
    const auto specs = parse_device_list(text ? text : "", &why);
    if (!specs) {
      refuse(EINVAL, why);
      return nullptr;
    }
    return new std::vector<SoftDevice>(make_devices(*specs));
  }();
  return devices;
}

ibv_gid port_gid(int device, int index) {
  ibv_gid gid{};
  const auto last = static_cast<uint8_t>(device + 1);
  if (index == 0) {
    const uint8_t link_local[16] = {0xfe, 0x80, 0, 0,    0,    0, 0, 0,
                                    0x5e, 0xef, 0, 0xff, 0xfe, 0, 0, last};
    std::memcpy(gid.raw, link_local, sizeof gid.raw);
  } else if (index == 1) {
    const uint8_t loopback_v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, last};
    std::memcpy(gid.raw, loopback_v4, sizeof gid.raw);
  }
  return gid;
}

bool is_fabric_gid(const ibv_gid& gid) {
  const std::vector<SoftDevice>* devices = soft_devices();
  if (devices == nullptr) return false;
  for (const SoftDevice& d : *devices) {
    for (int i = 0; i < kGidTableLength; ++i) {
      const ibv_gid known = port_gid(d.index, i);
      if (std::memcmp(known.raw, gid.raw, sizeof gid.raw) == 0) return true;
    }
  }
  return false;
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

ibv_device** get_device_list(int* num_devices) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  const std::vector<SoftDevice>* devices = soft_devices();
  if (devices == nullptr) {
    errno = EINVAL;  // the reason was reported when the list was read
    return nullptr;
  }
  auto** list = new ibv_device*[devices->size() + 1];
  for (size_t i = 0; i < devices->size(); ++i) {
    // The list is const for the process; the verbs signature is not.
    list[i] = const_cast<ibv_device*>(&(*devices)[i].ibv);
  }
  list[devices->size()] = nullptr;
  if (num_devices != nullptr) *num_devices = static_cast<int>(devices->size());
  return list;
}

void free_device_list(ibv_device** list) { delete[] list; }

const char* get_device_name(ibv_device* device) { return device->name; }

int device_numa_node(ibv_device* dev) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  const SoftDevice* soft = soft_device_of(dev);
  return soft == nullptr ? -1 : soft->numa_node;
}

ibv_context* open_device(ibv_device* dev) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  const SoftDevice* soft = soft_device_of(dev);
  if (soft == nullptr) {
    return refuse_null<ibv_context>(ENODEV, "open_device: not a device of the soft list");
  }
  if (!open_process_state(d)) return nullptr;
  auto context = std::make_unique<Context>();
  context->device = soft;
  context->ibv.device = dev;
  context->ibv.cmd_fd = -1;
  context->ibv.async_fd = -1;
  context->ibv.num_comp_vectors = 1;
  // The header's inline data path calls through these; they lead to the same code.
  context->ibv.ops.poll_cq = poll_cq;
  context->ibv.ops.post_send = post_send;
  context->ibv.ops.post_recv = post_recv;
  ibv_context* handle = &context->ibv;
  d.contexts.emplace(handle, std::move(context));
  return handle;
}

int close_device(ibv_context* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Context* context = d.find(d.contexts, handle);
  if (context == nullptr) {
    refuse(EINVAL, unknown_handle("close_device", "context"));
    return -1;
  }
  if (context->pds + context->cqs + context->channels != 0) {
    refuse(EBUSY, "close_device: the context still has " + std::to_string(context->pds) +
                      " protection domains, " + std::to_string(context->cqs) +
                      " completion queues and " + std::to_string(context->channels) +
                      " completion channels");
    return -1;
  }
  d.contexts.erase(handle);
  if (d.contexts.empty()) {
    d.regions.reset();
    d.fabric.reset();
  }
  return 0;
}

int query_device(ibv_context* handle, ibv_device_attr* attr) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  const SoftDevice* soft = device_of(d, handle);
  if (soft == nullptr) return refuse(EINVAL, unknown_handle("query_device", "context"));
  *attr = {};
  std::snprintf(attr->fw_ver, sizeof attr->fw_ver, "soft 1.0");
  attr->node_guid = htobe64(kNodeGuid + static_cast<uint64_t>(soft->index));
  attr->sys_image_guid = htobe64(kNodeGuid + static_cast<uint64_t>(soft->index));
  attr->max_mr_size = uint64_t{1} << 40;
  attr->page_size_cap = 4096;
  attr->max_qp = 1 << 16;
  attr->max_qp_wr = kMaxQpWr;
  attr->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
  attr->max_sge = kMaxSge;
  attr->max_sge_rd = kMaxSge;
  attr->max_cq = 1 << 16;
  attr->max_cqe = kMaxCqe;
  attr->max_mr = 8192;
  attr->max_pd = 1 << 16;
  attr->max_qp_rd_atom = kMaxRdAtomic;
  attr->max_qp_init_rd_atom = kMaxRdAtomic;
  attr->max_res_rd_atom = kMaxRdAtomic * (1 << 16);
  attr->atomic_cap = IBV_ATOMIC_NONE;
  attr->max_pkeys = 1;
  attr->local_ca_ack_delay = 16;
  attr->phys_port_cnt = 1;
  return 0;
}

int query_port(ibv_context* handle, uint8_t port, ibv_port_attr* attr) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  const SoftDevice* soft = device_of(d, handle);
  if (soft == nullptr) return refuse(EINVAL, unknown_handle("query_port", "context"));
  if (port != kPort) {
    return refuse(EINVAL, std::string("query_port: ") + soft->ibv.name + " has port 1 only");
  }
  *attr = {};
  attr->state = IBV_PORT_ACTIVE;
  attr->max_mtu = kActiveMtu;
  attr->active_mtu = kActiveMtu;
  attr->gid_tbl_len = kGidTableLength;
  attr->port_cap_flags = 0;
  attr->max_msg_sz = static_cast<uint32_t>(kMaxMessageBytes);
  attr->pkey_tbl_len = 1;
  attr->lid = 0;  // RoCE: addressed by GID
  attr->max_vl_num = 1;
  attr->active_width = 2;   // 4X
  attr->active_speed = 32;  // EDR
  attr->phys_state = 5;     // LinkUp
  attr->link_layer = IBV_LINK_LAYER_ETHERNET;
  return 0;
}

int query_gid(ibv_context* handle, uint8_t port, int index, ibv_gid* gid) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  const SoftDevice* soft = device_of(d, handle);
  if (soft == nullptr || port != kPort || index < 0 || index >= kGidTableLength) {
    refuse(EINVAL,
           "query_gid: no GID " + std::to_string(index) + " on port " + std::to_string(port));
    return -1;
  }
  *gid = port_gid(soft->index, index);
  return 0;
}

int query_gid_type(ibv_context* handle, uint8_t port, int index, ibv_gid_type* type) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  if (d.find(d.contexts, handle) == nullptr || port != kPort || index < 0 ||
      index >= kGidTableLength) {
    errno = ENOENT;
    return -1;
  }
  *type = index == 0 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2;
  return 0;
}

ibv_pd* alloc_pd(ibv_context* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Context* context = d.find(d.contexts, handle);
  if (context == nullptr) return refuse_null<ibv_pd>(EINVAL, unknown_handle("alloc_pd", "context"));
  auto pd = std::make_unique<Pd>();
  pd->context = context;
  pd->id = d.next_pd_id++;
  pd->ibv.context = handle;
  pd->ibv.handle = d.next_handle++;
  ++context->pds;
  ibv_pd* pd_handle = &pd->ibv;
  d.pds.emplace(pd_handle, std::move(pd));
  return pd_handle;
}

int dealloc_pd(ibv_pd* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Pd* pd = d.find(d.pds, handle);
  if (pd == nullptr) return refuse(EINVAL, unknown_handle("dealloc_pd", "protection domain"));
  if (pd->regions + pd->qps != 0) {
    return refuse(EBUSY, "dealloc_pd: the protection domain still has " +
                             std::to_string(pd->regions) + " memory regions and " +
                             std::to_string(pd->qps) + " queue pairs");
  }
  --pd->context->pds;
  d.pds.erase(handle);
  return 0;
}

namespace {

// What reg_mr and reg_dmabuf_mr share, `call` naming the one made: registers [addr, addr
// + length) with the device's lock held.
ibv_mr* register_region(Device& d, const char* call, ibv_pd* pd_handle, void* addr, size_t length,
                        int access) {
  const std::string name = call;
  Pd* pd = d.find(d.pds, pd_handle);
  if (pd == nullptr) return refuse_null<ibv_mr>(EINVAL, unknown_handle(call, "protection domain"));
  if ((access & ~kAllAccess) != 0) {
    return refuse_null<ibv_mr>(
        EINVAL, name + ": access flags " + std::to_string(access) + " are not ones softib0 knows");
  }
  // As the verbs specification demands: memory others may write must be locally writable.
  if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) != 0 &&
      (access & IBV_ACCESS_LOCAL_WRITE) == 0) {
    return refuse_null<ibv_mr>(
        EINVAL, name + ": IBV_ACCESS_REMOTE_WRITE requires IBV_ACCESS_LOCAL_WRITE as well");
  }
  if (addr == nullptr && length != 0) {
    return refuse_null<ibv_mr>(EFAULT, name + ": a null address");
  }
  Region region;
  region.addr = reinterpret_cast<uint64_t>(addr);
  region.length = length;
  region.access = static_cast<uint32_t>(access);
  region.pd_id = pd->id;
  const auto keys = d.regions->add(region);
  if (!keys) return refuse_null<ibv_mr>(ENOMEM, name + ": the process has 8192 regions already");
  auto mr = std::make_unique<Mr>();
  mr->pd = pd;
  mr->index = keys->index;
  mr->ibv.context = pd_handle->context;
  mr->ibv.pd = pd_handle;
  mr->ibv.addr = addr;
  mr->ibv.length = length;
  mr->ibv.handle = d.next_handle++;
  mr->ibv.lkey = keys->lkey;
  mr->ibv.rkey = keys->rkey;
  ++pd->regions;
  ibv_mr* handle = &mr->ibv;
  d.mrs.emplace(handle, std::move(mr));
  return handle;
}

}  // namespace

ibv_mr* reg_mr(ibv_pd* pd_handle, void* addr, size_t length, int access) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  return register_region(d, "reg_mr", pd_handle, addr, length, access);
}

ibv_mr* reg_dmabuf_mr(ibv_pd* pd_handle, uint64_t offset, size_t length, uint64_t iova, int fd,
                      int access) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  if (d.find(d.pds, pd_handle) == nullptr)
    return refuse_null<ibv_mr>(EINVAL, unknown_handle("reg_dmabuf_mr", "protection domain"));
  if (std::string why = dma_buf_mismatch(fd, offset, length, iova); !why.empty()) {
    return refuse_null<ibv_mr>(EINVAL, "reg_dmabuf_mr: " + why);
  }
  return register_region(d, "reg_dmabuf_mr", pd_handle, reinterpret_cast<void*>(iova), length,
                         access);
}

int dereg_mr(ibv_mr* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Mr* mr = d.find(d.mrs, handle);
  if (mr == nullptr) return refuse(EINVAL, unknown_handle("dereg_mr", "memory region"));
  d.regions->remove(mr->index);  // its keys name nothing from now on, here and remotely
  --mr->pd->regions;
  d.mrs.erase(handle);
  return 0;
}

ibv_comp_channel* create_comp_channel(ibv_context* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Context* context = d.find(d.contexts, handle);
  if (context == nullptr) {
    return refuse_null<ibv_comp_channel>(EINVAL, unknown_handle("create_comp_channel", "context"));
  }
  const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return refuse_null<ibv_comp_channel>(errno, "create_comp_channel: eventfd failed");
  }
  auto channel = std::make_unique<Channel>();
  channel->ibv.context = handle;
  channel->ibv.fd = fd;
  ++context->channels;
  ibv_comp_channel* channel_handle = &channel->ibv;
  d.channels.emplace(channel_handle, std::move(channel));
  return channel_handle;
}

int destroy_comp_channel(ibv_comp_channel* handle) {
  Device& d = device();
  std::lock_guard lock(d.mutex);
  Channel* channel = d.find(d.channels, handle);
  if (channel == nullptr) return refuse(EINVAL, unknown_handle("destroy_comp_channel", "channel"));
  if (channel->cqs != 0) {
    return refuse(EBUSY, "destroy_comp_channel: " + std::to_string(channel->cqs) +
                             " completion queues still use it");
  }
  close(channel->ibv.fd);
  d.contexts.at(handle->context)->channels--;
  d.channels.erase(handle);
  return 0;
}

}  // namespace weft::testing::soft_verbs
