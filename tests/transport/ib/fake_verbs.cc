#include "tests/transport/ib/fake_verbs.h"

#include <cerrno>
#include <cstring>

namespace weft::testing {

FakeVerbs* FakeVerbs::current = nullptr;

namespace {

template <typename T>
T* unsupported() {
  errno = ENOSYS;
  return nullptr;
}

}  // namespace

FakeGid roce_v2_ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  FakeGid gid;
  gid.raw[10] = gid.raw[11] = 0xff;
  gid.raw[12] = a;
  gid.raw[13] = b;
  gid.raw[14] = c;
  gid.raw[15] = d;
  gid.type = IBV_GID_TYPE_ROCE_V2;
  return gid;
}

FakeGid ipv6_gid(ibv_gid_type type, uint8_t last, bool link_local) {
  FakeGid gid;
  gid.raw[0] = link_local ? 0xfe : 0x20;
  gid.raw[1] = link_local ? 0x80 : 0x01;
  if (!link_local) {
    gid.raw[2] = 0x0d;
    gid.raw[3] = 0xb8;
  }
  gid.raw[15] = last;
  gid.type = type;
  return gid;
}

// The table's functions: plain functions, as the table holds, reaching the fake that is
// installed.
struct FakeCalls {
  static FakeVerbs& fake() { return *FakeVerbs::current; }
  static const FakeDevice& device_of(ibv_context* context) {
    return fake().devices_[context - fake().contexts_.data()];
  }
  static const FakePort* port_of(ibv_context* context, uint8_t port) {
    const FakeDevice& device = device_of(context);
    return port >= 1 && port <= device.ports.size() ? &device.ports[port - 1] : nullptr;
  }

  static ibv_device** get_device_list(int* count) {
    FakeVerbs& f = fake();
    ++f.probes_;
    if (f.list_error_ != 0) {
      errno = f.list_error_;
      return nullptr;
    }
    auto** list = new ibv_device*[f.ibv_devices_.size() + 1];
    for (size_t i = 0; i < f.ibv_devices_.size(); ++i) list[i] = &f.ibv_devices_[i];
    list[f.ibv_devices_.size()] = nullptr;
    if (count != nullptr) *count = static_cast<int>(f.ibv_devices_.size());
    ++f.open_lists_;
    return list;
  }
  static void free_device_list(ibv_device** list) {
    delete[] list;
    --fake().open_lists_;
  }
  static const char* get_device_name(ibv_device* device) { return device->name; }
  static int device_numa_node(ibv_device* device) {
    return fake().devices_[device - fake().ibv_devices_.data()].numa_node;
  }
  static ibv_context* open_device(ibv_device* device) {
    FakeVerbs& f = fake();
    const size_t index = device - f.ibv_devices_.data();
    if (f.devices_[index].open_fails) {
      errno = EACCES;
      return nullptr;
    }
    ++f.open_contexts_;
    return &f.contexts_[index];
  }
  static int close_device(ibv_context*) {
    --fake().open_contexts_;
    return 0;
  }
  static int query_device(ibv_context* context, ibv_device_attr* attr) {
    *attr = {};
    attr->phys_port_cnt = static_cast<uint8_t>(device_of(context).ports.size());
    return 0;
  }
  static int query_port(ibv_context* context, uint8_t number, ibv_port_attr* attr) {
    const FakePort* port = port_of(context, number);
    if (port == nullptr) return EINVAL;
    *attr = {};
    attr->state = port->state;
    attr->link_layer = port->link_layer;
    attr->lid = port->lid;
    attr->gid_tbl_len = port->gid_table;
    return 0;
  }
  static int query_gid(ibv_context* context, uint8_t number, int index, ibv_gid* gid) {
    const FakePort* port = port_of(context, number);
    if (port == nullptr || index < 0 || index >= port->gid_table) {
      errno = EINVAL;
      return -1;
    }
    std::memset(gid, 0, sizeof *gid);
    if (static_cast<size_t>(index) < port->gids.size()) {
      std::memcpy(gid->raw, port->gids[index].raw.data(), sizeof gid->raw);
    }
    return 0;
  }
  static int query_gid_type(ibv_context* context, uint8_t number, int index, ibv_gid_type* type) {
    const FakePort* port = port_of(context, number);
    if (port == nullptr || index < 0 || static_cast<size_t>(index) >= port->gids.size()) {
      errno = ENOENT;
      return -1;
    }
    *type = port->gids[index].type;
    return 0;
  }
};

FakeVerbs::FakeVerbs(std::vector<FakeDevice> devices) : devices_(std::move(devices)) {
  ibv_devices_.resize(devices_.size());
  contexts_.resize(devices_.size());
  for (size_t i = 0; i < devices_.size(); ++i) {
    ibv_devices_[i] = {};
    std::strncpy(ibv_devices_[i].name, devices_[i].name.c_str(), sizeof ibv_devices_[i].name - 1);
    contexts_[i] = {};
    contexts_[i].device = &ibv_devices_[i];
  }
  api_.get_device_list = FakeCalls::get_device_list;
  api_.free_device_list = FakeCalls::free_device_list;
  api_.get_device_name = FakeCalls::get_device_name;
  api_.open_device = FakeCalls::open_device;
  api_.close_device = FakeCalls::close_device;
  api_.query_device = FakeCalls::query_device;
  api_.query_port = FakeCalls::query_port;
  api_.query_gid = FakeCalls::query_gid;
  api_.query_gid_type = FakeCalls::query_gid_type;
  api_.device_numa_node = FakeCalls::device_numa_node;
  // What moves data is not faked yet: every call fails as a device without it would.
  api_.alloc_pd = [](ibv_context*) { return unsupported<ibv_pd>(); };
  api_.dealloc_pd = [](ibv_pd*) { return ENOSYS; };
  api_.reg_mr = [](ibv_pd*, void*, size_t, int) { return unsupported<ibv_mr>(); };
  api_.dereg_mr = [](ibv_mr*) { return ENOSYS; };
  api_.create_comp_channel = [](ibv_context*) { return unsupported<ibv_comp_channel>(); };
  api_.destroy_comp_channel = [](ibv_comp_channel*) { return ENOSYS; };
  api_.create_cq = [](ibv_context*, int, void*, ibv_comp_channel*, int) {
    return unsupported<ibv_cq>();
  };
  api_.destroy_cq = [](ibv_cq*) { return ENOSYS; };
  api_.create_qp = [](ibv_pd*, ibv_qp_init_attr*) { return unsupported<ibv_qp>(); };
  api_.modify_qp = [](ibv_qp*, ibv_qp_attr*, int) { return ENOSYS; };
  api_.destroy_qp = [](ibv_qp*) { return ENOSYS; };
  api_.poll_cq = [](ibv_cq*, int, ibv_wc*) { return -ENOSYS; };
  api_.post_send = [](ibv_qp*, ibv_send_wr*, ibv_send_wr**) { return ENOSYS; };
  api_.post_recv = [](ibv_qp*, ibv_recv_wr*, ibv_recv_wr**) { return ENOSYS; };
  current = this;
  transport::ib::use_verbs_for_testing(&api_);
}

FakeVerbs::~FakeVerbs() {
  transport::ib::use_verbs_for_testing(nullptr);
  current = nullptr;
}

}  // namespace weft::testing
