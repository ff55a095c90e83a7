// Which GID of a port weft would address it by. InfiniBand ports are reached by LID and
// GID 0. A RoCE (Ethernet) port has one GID per IP address and RoCE version, and the
// index of each differs between hosts, so weft picks by kind rather than by number: the
// first RoCE v2 GID holding an IPv4 address (::ffff:a.b.c.d), which routes across
// subnets and is what most RoCE fabrics are set up for; else the first RoCE v2 GID
// (IPv6). WEFT_IB_GID_INDEX forces one index on every port instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "transport/ib/verbs_api.h"

namespace weft::transport::ib {

struct GidChoice {
  int index = -1;       // -1: none
  std::string how;      // "RoCE v2, IPv4-mapped", "WEFT_IB_GID_INDEX=3", ...
  std::string why_not;  // when there is none
  int populated = 0;    // GIDs in the port's table that are not zero
};

// WEFT_IB_GID_INDEX: nullopt when unset; InvalidArgument naming it when it is not an
// integer in [0, 255] (the index a queue pair's address takes is 8 bits).
std::optional<int> gid_index_from_env();

// Reads the port's GID table (`attr.gid_tbl_len` entries) and chooses; `forced` is
// WEFT_IB_GID_INDEX.
GidChoice choose_gid(const VerbsApi& api, ibv_context* context, uint8_t port,
                     const ibv_port_attr& attr, std::optional<int> forced);

// Whether `gid` holds an IPv4 address, ::ffff:a.b.c.d.
bool is_ipv4_mapped(const ibv_gid& gid);

}  // namespace weft::transport::ib
