// The entries of the system's VerbsApi that are weft's own functions: verbs the header
// defines as inline code rather than as functions the library exports, and the GID type
// and the device's NUMA node as the kernel publishes them. None of them names a symbol
// of libibverbs, so libweft links without it.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>

namespace weft::transport::ib::own {

// The library's exported ibv_query_port (the compatibility entry the header's inline
// code falls back to), as load_system_verbs found it.
using ExportedQueryPort = int (*)(ibv_context* context, uint8_t port, _compat_ibv_port_attr* attr);
void set_exported_query_port(ExportedQueryPort exported);

// The header's ibv_query_port: the context's own query_port when it has one, else the
// exported function.
int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr);

// /sys/class/infiniband/DEVICE/ports/PORT/gid_attrs/types/INDEX: "RoCE v2" or
// "IB/RoCE v1". 0, or -1 with errno set (ENOENT for an index without a GID).
int query_gid_type(ibv_context* context, uint8_t port, int index, ibv_gid_type* type);

// /sys/class/infiniband/DEVICE/device/numa_node: the node of the PCI device behind it.
// -1 when the kernel does not know (it writes -1 itself on machines without NUMA
// information), or the file is missing or unreadable (a software device has none).
int device_numa_node(ibv_device* device);

// The header's inline data path, calling through the context's ops.
int poll_cq(ibv_cq* cq, int num_entries, ibv_wc* wc);
int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);
int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);

}  // namespace weft::transport::ib::own
