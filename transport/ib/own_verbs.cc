#include "transport/ib/own_verbs.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace weft::transport::ib::own {
namespace {

std::atomic<ExportedQueryPort> exported_query_port{nullptr};

}  // namespace

void set_exported_query_port(ExportedQueryPort exported) {
  exported_query_port.store(exported, std::memory_order_release);
}

int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) {
  // As ___ibv_query_port in <infiniband/verbs.h> does: every provider of rdma-core
  // fills the extended context's query_port; the exported function serves the others.
  verbs_context* extended = verbs_get_ctx_op(context, query_port);
  if (extended != nullptr) return extended->query_port(context, port, attr, sizeof(*attr));
  std::memset(attr, 0, sizeof(*attr));
  ExportedQueryPort exported = exported_query_port.load(std::memory_order_acquire);
  if (exported == nullptr) {
    errno = ENOSYS;
    return ENOSYS;
  }
  return exported(context, port, reinterpret_cast<_compat_ibv_port_attr*>(attr));
}

int query_gid_type(ibv_context* context, uint8_t port, int index, ibv_gid_type* type) {
  const std::string path = std::string("/sys/class/infiniband/") + context->device->name +
                           "/ports/" + std::to_string(port) + "/gid_attrs/types/" +
                           std::to_string(index);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[32] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  const int read_errno = errno;
  close(fd);
  if (n <= 0) {
    errno = n < 0 ? read_errno : ENOENT;
    return -1;
  }
  if (std::strncmp(text, "RoCE v2", 7) == 0) {
    *type = IBV_GID_TYPE_ROCE_V2;
  } else if (std::strncmp(text, "IB/RoCE v1", 10) == 0) {
    *type = IBV_GID_TYPE_ROCE_V1;
  } else {
    errno = EPROTO;
    return -1;
  }
  return 0;
}

int device_numa_node(ibv_device* device) {
  std::ifstream in(std::string("/sys/class/infiniband/") + device->name + "/device/numa_node");
  int node = -1;
  if (!(in >> node) || node < 0) return -1;
  return node;
}

int poll_cq(ibv_cq* cq, int num_entries, ibv_wc* wc) { return ibv_poll_cq(cq, num_entries, wc); }

int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  return ibv_post_send(qp, wr, bad_wr);
}

int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  return ibv_post_recv(qp, wr, bad_wr);
}

}  // namespace weft::transport::ib::own
