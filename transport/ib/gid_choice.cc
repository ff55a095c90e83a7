#include "transport/ib/gid_choice.h"

#include <algorithm>
#include <iterator>

#include "base/env.h"

namespace weft::transport::ib {
namespace {

bool is_zero(const ibv_gid& gid) {
  return std::all_of(std::begin(gid.raw), std::end(gid.raw), [](uint8_t b) { return b == 0; });
}

}  // namespace

std::optional<int> gid_index_from_env() {
  const int64_t index = base::env::get_int("WEFT_IB_GID_INDEX", -1, 0, 255);
  if (index < 0) return std::nullopt;
  return static_cast<int>(index);
}

bool is_ipv4_mapped(const ibv_gid& gid) {
  return std::all_of(gid.raw, gid.raw + 10, [](uint8_t b) { return b == 0; }) &&
         gid.raw[10] == 0xff && gid.raw[11] == 0xff;
}

GidChoice choose_gid(const VerbsApi& api, ibv_context* context, uint8_t port,
                     const ibv_port_attr& attr, std::optional<int> forced) {
  const bool ethernet = attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  GidChoice choice;
  int v2_ipv4 = -1, v2 = -1;
  bool forced_present = false, first_present = false;
  for (int i = 0; i < attr.gid_tbl_len; ++i) {
    ibv_gid gid{};
    if (api.query_gid(context, port, i, &gid) != 0 || is_zero(gid)) continue;
    ++choice.populated;
    if (i == 0) first_present = true;
    if (forced && *forced == i) forced_present = true;
    ibv_gid_type type{};
    if (!ethernet || api.query_gid_type(context, port, i, &type) != 0) continue;
    if (type != IBV_GID_TYPE_ROCE_V2) continue;
    if (v2 < 0) v2 = i;
    if (v2_ipv4 < 0 && is_ipv4_mapped(gid)) v2_ipv4 = i;
  }
  if (forced) {
    const std::string setting = "WEFT_IB_GID_INDEX=" + std::to_string(*forced);
    if (forced_present) {
      choice.index = *forced;
      choice.how = setting;
    } else if (*forced >= attr.gid_tbl_len) {
      choice.why_not = setting + ", but the port's GID table has " +
                       std::to_string(attr.gid_tbl_len) + " entries";
    } else {
      choice.why_not = setting + ", but that GID is empty";
    }
  } else if (!ethernet) {
    if (first_present) {
      choice.index = 0;
      choice.how = "GID 0 (InfiniBand)";
    } else {
      choice.why_not = "GID 0 is empty";
    }
  } else if (v2_ipv4 >= 0) {
    choice.index = v2_ipv4;
    choice.how = "RoCE v2, IPv4-mapped";
  } else if (v2 >= 0) {
    choice.index = v2;
    choice.how = "RoCE v2, IPv6";
  } else {
    choice.why_not = "no RoCE v2 GID (WEFT_IB_GID_INDEX chooses another)";
  }
  return choice;
}

}  // namespace weft::transport::ib
