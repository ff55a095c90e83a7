// VerbsApi: the libibverbs functions weft calls, as a table of pointers filled at run
// time. libweft links nothing of rdma-core: a program built with weft must start on a
// machine without it, where load_system_verbs() says why there are no verbs instead.
// Everything above this file calls verbs through a table, never by name, which is
// also the seam a test uses to put a device of its own in place of the system's
// (use_verbs_for_testing).
//
// The types are those of <infiniband/verbs.h>. Most entries are the library's exported
// functions. A few of the header's verbs are not functions the library exports: the
// data path (ibv_poll_cq, ibv_post_send, ibv_post_recv) is static inline code calling
// through the context's ops, and ibv_query_port is a macro over an inline wrapper that
// asks the context first. For those the system table holds weft's own functions with the
// same signature, doing what the inline code does; a test's table holds its own.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace weft::transport::ib {

struct VerbsApi {
  ibv_device** (*get_device_list)(int* num_devices) = nullptr;
  void (*free_device_list)(ibv_device** list) = nullptr;
  const char* (*get_device_name)(ibv_device* device) = nullptr;
  ibv_context* (*open_device)(ibv_device* device) = nullptr;
  int (*close_device)(ibv_context* context) = nullptr;
  int (*query_device)(ibv_context* context, ibv_device_attr* attr) = nullptr;
  // weft's own in the system table: the header's inline ibv_query_port.
  int (*query_port)(ibv_context* context, uint8_t port, ibv_port_attr* attr) = nullptr;
  int (*query_gid)(ibv_context* context, uint8_t port, int index, ibv_gid* gid) = nullptr;
  // weft's own: whether a GID is RoCE v2 or IB/RoCE v1 (IBV_GID_TYPE_ROCE_V1 stands for
  // both; the port's link layer tells them apart). The system table reads what the
  // kernel publishes in sysfs, which every version of rdma-core reads too. 0, or -1
  // with errno set.
  int (*query_gid_type)(ibv_context* context, uint8_t port, int index,
                        ibv_gid_type* type) = nullptr;
  // weft's own: the NUMA node the device is attached to, -1 when unknown, for taking the
  // port nearest a rank. The system table reads what the kernel publishes in sysfs, as
  // hwloc does. A test's table may leave it null: every device's node is then unknown.
  int (*device_numa_node)(ibv_device* device) = nullptr;
  ibv_pd* (*alloc_pd)(ibv_context* context) = nullptr;
  int (*dealloc_pd)(ibv_pd* pd) = nullptr;
  // The exported ibv_reg_mr, which the header's macro calls unless the access flags ask
  // for IBV_ACCESS_OPTIONAL_RANGE (weft does not).
  ibv_mr* (*reg_mr)(ibv_pd* pd, void* addr, size_t length, int access) = nullptr;
  int (*dereg_mr)(ibv_mr* mr) = nullptr;
  // Optional: null where libibverbs predates it (rdma-core 34 added it). GPUDirect RDMA
  // by dma-buf registers device memory through it (gpudirect.h); without it device
  // memory takes another path, and nothing else needs it.
  ibv_mr* (*reg_dmabuf_mr)(ibv_pd* pd, uint64_t offset, size_t length, uint64_t iova, int fd,
                           int access) = nullptr;
  ibv_comp_channel* (*create_comp_channel)(ibv_context* context) = nullptr;
  int (*destroy_comp_channel)(ibv_comp_channel* channel) = nullptr;
  ibv_cq* (*create_cq)(ibv_context* context, int cqe, void* cq_context, ibv_comp_channel* channel,
                       int comp_vector) = nullptr;
  int (*destroy_cq)(ibv_cq* cq) = nullptr;
  ibv_qp* (*create_qp)(ibv_pd* pd, ibv_qp_init_attr* attr) = nullptr;
  int (*modify_qp)(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask) = nullptr;
  int (*destroy_qp)(ibv_qp* qp) = nullptr;
  // weft's own in the system table: the header's inline data path.
  int (*poll_cq)(ibv_cq* cq, int num_entries, ibv_wc* wc) = nullptr;
  int (*post_send)(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) = nullptr;
  int (*post_recv)(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) = nullptr;
};

// The library's name as the dynamic loader finds it (its soname, so that the
// development package's unversioned link is not needed).
inline constexpr char kLibibverbs[] = "libibverbs.so.1";

struct LoadedVerbs {
  std::optional<VerbsApi> api;  // empty when the library cannot be used
  std::string why_not;          // then why: "libibverbs.so.1 not loadable: <dlerror>",
                                // "libibverbs.so.1: symbol ibv_query_gid missing"
};

// Opens `library` (RTLD_NOW | RTLD_LOCAL) and looks up every exported function of the
// table. A table that loads keeps its library open for the life of the process; one
// that does not closes it again. Takes the name so that a test can ask for a library
// that is not there.
LoadedVerbs load_system_verbs(const char* library = kLibibverbs);

// The table in use: a test's (use_verbs_for_testing), or else the system's, loaded on
// the first call (once per process, thread-safe). nullptr when the system's cannot be
// loaded, with the reason in *why_not if it is not null.
const VerbsApi* verbs_api(std::string* why_not);

// Makes `api` the table verbs_api() returns, until called again; nullptr goes back to
// the system's. `api` must outlive its use.
void use_verbs_for_testing(const VerbsApi* api);

}  // namespace weft::transport::ib
