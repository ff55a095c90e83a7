#include "runtime/init/ib_peers.h"

#include <algorithm>
#include <cstring>

#include "base/env.h"
#include "base/log.h"
#include "base/numa_node.h"
#include "base/wire.h"
#include "transport/ib/devices.h"
#include "transport/ib/gid_choice.h"
#include "transport/ib/link_wire.h"
#include "transport/ib/port_choice.h"
#include "weft/error.h"

namespace weft::runtime {
namespace {

using transport::ib::EndpointAddress;
using transport::ib::PortAddress;

std::string port_key(int rank) { return "ib/" + std::to_string(rank) + "/port"; }
std::string qps_key(int rank) { return "ib/" + std::to_string(rank) + "/qps"; }
std::string ready_key(int rank) { return "ib/" + std::to_string(rank) + "/ready"; }

// A rank's port as published: its address, or why it has none.
struct PortRecord {
  bool usable = false;
  std::string why_not;
  PortAddress address;

  std::string encode() const {
    base::WireWriter w;
    w.u8(usable).str(why_not).str(address.device).u8(address.port).u8(address.ethernet);
    w.u8(address.roce_v2).u32(address.lid).u32(static_cast<uint32_t>(address.gid_index));
    w.u8(static_cast<uint8_t>(address.mtu));
    w.str(std::string_view(reinterpret_cast<const char*>(address.gid.raw), sizeof address.gid.raw));
    return w.take();
  }
  static PortRecord decode(const std::string& bytes, int rank) {
    const std::string what = "verbs port record of rank " + std::to_string(rank);
    base::WireReader in(bytes, what.c_str());
    PortRecord r;
    r.usable = in.u8() != 0;
    r.why_not = in.str();
    r.address.device = in.str();
    r.address.port = in.u8();
    r.address.ethernet = in.u8() != 0;
    r.address.roce_v2 = in.u8() != 0;
    r.address.lid = static_cast<uint16_t>(in.u32());
    r.address.gid_index = static_cast<int>(in.u32());
    r.address.mtu = static_cast<ibv_mtu>(in.u8());
    const std::string gid = in.str();
    if (gid.size() != sizeof r.address.gid.raw) {
      throw Error(ErrorCode::kInternal,
                  what + ": a GID of " + std::to_string(gid.size()) + " bytes");
    }
    std::memcpy(r.address.gid.raw, gid.data(), gid.size());
    return r;
  }
};

uint64_t prefix_of(const ibv_gid& gid) {
  uint64_t prefix;
  std::memcpy(&prefix, gid.raw, sizeof prefix);
  return prefix;
}

// Why two usable ports cannot reach each other; "" when they share a fabric. The same
// answer whichever is `a`, so both ranks of a pair decide alike.
std::string no_common_fabric(const PortAddress& a, const PortAddress& b) {
  if (a.ethernet != b.ethernet) return "one port is InfiniBand, the other RoCE";
  if (!a.ethernet) {
    if (prefix_of(a.gid) != prefix_of(b.gid)) return "the InfiniBand subnet prefixes differ";
    return "";
  }
  if (a.roce_v2 != b.roce_v2) return "one port speaks RoCE v1, the other RoCE v2";
  // RoCE v2 over IPv4 is routed between subnets, as TCP is.
  if (a.roce_v2 && transport::ib::is_ipv4_mapped(a.gid) && transport::ib::is_ipv4_mapped(b.gid)) {
    return "";
  }
  if (prefix_of(a.gid) != prefix_of(b.gid)) return "their GIDs are in different subnets";
  return "";
}

std::string encode_endpoints(const std::vector<std::pair<int, EndpointAddress>>& endpoints) {
  base::WireWriter w;
  w.u32(static_cast<uint32_t>(endpoints.size()));
  for (const auto& [peer, a] : endpoints) {
    w.i64(peer).u32(a.qpn).u32(a.psn).u64(a.sleep_address).u32(a.sleep_rkey);
    w.u32(a.receives).u32(a.buffer_bytes);
  }
  return w.take();
}

// The endpoint `owner` made for `rank`, from its published list.
std::optional<EndpointAddress> endpoint_for(const std::string& bytes, int owner, int rank) {
  const std::string what = "verbs queue pairs of rank " + std::to_string(owner);
  base::WireReader in(bytes, what.c_str());
  for (uint32_t n = in.u32(); n > 0; --n) {
    const int64_t peer = in.i64();
    EndpointAddress a;
    a.qpn = in.u32();
    a.psn = in.u32();
    a.sleep_address = in.u64();
    a.sleep_rkey = in.u32();
    a.receives = in.u32();
    a.buffer_bytes = in.u32();
    if (peer == rank) return a;
  }
  return std::nullopt;
}

// The rank's index among the ranks of its host, counted as the host layouts of groups
// count hosts (one machine and network namespace), so that the ranks of a host take
// the ports near them in turn.
int local_index(const std::vector<PeerRecord>& records, int rank) {
  int index = 0;
  for (int r = 0; r < rank; ++r) {
    index += records[r].host.shares_network_with(records[rank].host) ? 1 : 0;
  }
  return index;
}

}  // namespace

IbOptions ib_options_from_env() {
  IbOptions o;
  const uint64_t bytes = base::env::get_bytes("WEFT_IB_EAGER_BYTES", o.endpoint.buffer_bytes);
  if (bytes < transport::ib::kMinBufferBytes || bytes > (uint64_t{1} << 30)) {
    throw InvalidArgument("WEFT_IB_EAGER_BYTES=" + *base::env::get("WEFT_IB_EAGER_BYTES") +
                          ": expected a size in [" +
                          std::to_string(transport::ib::kMinBufferBytes) + ", 1G]");
  }
  o.endpoint.buffer_bytes = static_cast<uint32_t>(bytes);
  o.endpoint.receives = static_cast<uint32_t>(
      base::env::get_int("WEFT_IB_RECV_BUFFERS", o.endpoint.receives, 4, 4096));
  o.registrations.keep = base::env::get_int("WEFT_IB_REG_CACHE", 0, 0, 1) == 1;
  o.registrations.entries = static_cast<size_t>(base::env::get_int(
      "WEFT_IB_REG_CACHE_ENTRIES", static_cast<int64_t>(o.registrations.entries), 1, 1 << 20));
  o.registrations.bytes = base::env::get_bytes("WEFT_IB_REG_CACHE_BYTES", o.registrations.bytes);
  return o;
}

IbPeers::IbPeers(const std::vector<PeerRecord>& records, int rank, IbOptions options)
    : records_(records), rank_(rank), options_(options) {}

IbPeers::~IbPeers() = default;

IbPeers::Pair* IbPeers::find(int peer) {
  for (Pair& p : pairs_) {
    if (p.rank == peer) return &p;
  }
  return nullptr;
}

const IbPeers::Pair* IbPeers::find(int peer) const {
  return const_cast<IbPeers*>(this)->find(peer);
}

void IbPeers::open_port() {
  const transport::ib::ProbeOptions probe = transport::ib::ProbeOptions::from_env();
  const transport::ib::VerbsReport report = transport::ib::probe_verbs_devices(probe);
  if (!report.usable()) {
    no_port_ = report.why_none;
    return;
  }
  std::string why;
  const transport::ib::VerbsApi* api = transport::ib::verbs_api(&why);
  const base::NumaPlacement numa = base::calling_thread_numa_placement();
  const transport::ib::PortChoice choice =
      transport::ib::choose_port(report, {numa.node, local_index(records_, rank_)});
  for (const transport::ib::PortRef& ref : choice.order) {
    const transport::ib::DeviceReport& d = report.devices[ref.device];
    const transport::ib::PortReport& p = d.ports[ref.port];
    try {
      context_ = transport::ib::VerbsContext::open(*api, d.name, static_cast<uint8_t>(p.port),
                                                   p.gid.index, options_.registrations);
    } catch (const Error& e) {
      no_port_ += (no_port_.empty() ? "" : "; ") + std::string(e.what());
      continue;
    }
    WEFT_LOG(INFO) << "rank " << rank_ << ": verbs port " << transport::ib::port_label(report, ref)
                   << ", since " << choice.why << " (this rank: " << numa.how << ")"
                   << (no_port_.empty() ? "" : "; the ports before it failed: " + no_port_);
    no_port_.clear();
    return;
  }
}

void IbPeers::exchange(rendezvous::Store& store, base::Deadline deadline,
                       const std::vector<bool>& connected_at_init,
                       const std::vector<bool>& shm_reaches) {
  using Verbs = PeerRecord::Verbs;
  const PeerRecord& me = records_[rank_];
  for (int r = 0; r < static_cast<int>(records_.size()); ++r) {
    const PeerRecord& them = records_[r];
    if (r == rank_ || !connected_at_init[r] || shm_reaches[r]) continue;
    if (me.ib == Verbs::kNo || them.ib == Verbs::kNo) continue;
    const bool asked = me.ib == Verbs::kAsked || them.ib == Verbs::kAsked;
    const bool elsewhere = !them.host.shares_network_with(me.host);
    if (!asked && !elsewhere) continue;
    Pair& p = pairs_.emplace_back();
    p.rank = r;
    // Peers on other hosts are what verbs are for; anything else is worth saying.
    p.reason = me.ib == Verbs::kAsked ? "WEFT_TRANSPORTS names ib"
               : !elsewhere           ? "rank " + std::to_string(r) + "'s WEFT_TRANSPORTS names ib"
                                      : "";
  }
  if (pairs_.empty()) return;

  // Step 2.
  open_port();
  PortRecord mine;
  mine.usable = context_ != nullptr;
  mine.why_not = no_port_;
  if (context_) mine.address = context_->address();
  store.set(port_key(rank_), mine.encode(), deadline);
  std::vector<std::string> keys;
  for (const Pair& p : pairs_) keys.push_back(port_key(p.rank));
  const std::vector<std::string> ports = store.get_many(keys, deadline);

  // Step 3.
  std::vector<PortRecord> theirs;
  int usable = 0;
  for (size_t i = 0; i < pairs_.size(); ++i) {
    Pair& p = pairs_[i];
    theirs.push_back(PortRecord::decode(ports[i], p.rank));
    const PortRecord& t = theirs.back();
    if (!mine.usable) {
      p.reason = "this rank has no usable verbs port: " + mine.why_not;
    } else if (!t.usable) {
      p.reason = "rank " + std::to_string(p.rank) + " has no usable verbs port: " + t.why_not;
    } else if (std::string why = no_common_fabric(mine.address, t.address); !why.empty()) {
      p.reason = "no common fabric with rank " + std::to_string(p.rank) + " (" +
                 mine.address.name() + " here, " + t.address.name() + " there): " + why;
    } else {
      p.usable = true;
      ++usable;
      continue;
    }
    WEFT_LOG(INFO) << "rank " << rank_ << " -> rank " << p.rank << ": verbs not used, since "
                   << p.reason;
  }

  // Step 4.
  std::vector<std::pair<int, EndpointAddress>> published;
  if (usable > 0) {
    context_->create_completion_queues(
        uint64_t{transport::ib::IbEndpoint::send_queue_depth(options_.endpoint)} * usable,
        uint64_t{transport::ib::IbEndpoint::receive_queue_depth(options_.endpoint)} * usable);
    for (Pair& p : pairs_) {
      if (!p.usable) continue;
      p.endpoint = std::make_unique<transport::ib::IbEndpoint>(context_, options_.endpoint);
      published.emplace_back(p.rank, p.endpoint->address());
    }
  }
  store.set(qps_key(rank_), encode_endpoints(published), deadline);
  keys.clear();
  std::vector<const PortRecord*> ports_of;
  for (size_t i = 0; i < pairs_.size(); ++i) {
    if (!pairs_[i].usable) continue;
    keys.push_back(qps_key(pairs_[i].rank));
    ports_of.push_back(&theirs[i]);
  }
  if (keys.empty()) return;
  const std::vector<std::string> lists = store.get_many(keys, deadline);
  size_t next = 0;
  for (Pair& p : pairs_) {
    if (!p.usable) continue;
    const size_t i = next++;
    std::optional<EndpointAddress> remote = endpoint_for(lists[i], p.rank, rank_);
    if (!remote) {
      throw Error(ErrorCode::kInternal, "init_process_group (rank " + std::to_string(rank_) +
                                            "): rank " + std::to_string(p.rank) +
                                            " made no verbs queue pair for this rank");
    }
    p.endpoint->connect(ports_of[i]->address, *remote);
  }
  store.set(ready_key(rank_), "1", deadline);
  keys.clear();
  for (const Pair& p : pairs_) {
    if (p.usable) keys.push_back(ready_key(p.rank));
  }
  store.wait(keys, deadline);
}

bool IbPeers::reaches(int peer) const {
  const Pair* p = find(peer);
  return p != nullptr && p->usable;
}

std::string IbPeers::reason(int peer) const {
  const Pair* p = find(peer);
  return p != nullptr ? p->reason : std::string();
}

std::unique_ptr<transport::Link> IbPeers::make_link(int peer, base::Fd socket,
                                                    transport::LinkHandler& handler) {
  Pair* p = find(peer);
  if (p == nullptr || !p->usable || !p->endpoint) {
    throw Error(ErrorCode::kInternal, "no verbs link to rank " + std::to_string(peer));
  }
  return std::make_unique<transport::ib::IbLink>(peer, std::move(socket), handler,
                                                 std::move(p->endpoint), options_.link);
}

}  // namespace weft::runtime
