#include "runtime/init/shm_peers.h"

#include "base/env.h"
#include "base/log.h"
#include "base/random_id.h"
#include "base/wire.h"
#include "transport/shm/cma.h"
#include "transport/shm/inbox.h"
#include "transport/shm/shm_link.h"
#include "weft/error.h"

namespace weft::runtime {
namespace {

// Segments of dead creators older than this are removed at start-up (see
// transport::shm::remove_orphaned_segments).
constexpr std::chrono::seconds kOrphanAge{600};

uint64_t power_of_two_at_least(uint64_t n) {
  uint64_t p = transport::shm::kLine;
  while (p < n) p <<= 1;
  return p;
}

std::string inbox_key(int rank) { return "shm/" + std::to_string(rank) + "/inbox"; }
std::string report_key(int rank) { return "shm/" + std::to_string(rank) + "/mapped"; }

uint64_t random_nonce() { return base::random_id() ^ 1; }

}  // namespace

ShmOptions shm_options_from_env(uint64_t eager_limit) {
  ShmOptions o;
  o.eager_limit = eager_limit;
  o.ring_bytes = base::env::get_bytes("WEFT_SHM_RING_BYTES", o.ring_bytes);
  o.single_copy_min_bytes =
      base::env::get_bytes("WEFT_SHM_SINGLE_COPY_BYTES", o.single_copy_min_bytes);
  return o;
}

ShmPeers::ShmPeers(const std::vector<PeerRecord>& records, int rank, uint64_t job_id,
                   const TransportChoice& transports, ShmOptions options)
    : records_(records), rank_(rank), options_(options) {
  if (!transports.shm) return;
  const base::HostIdentity& me = records[rank].host;
  std::vector<int> senders;
  for (int r = 0; r < static_cast<int>(records.size()); ++r) {
    if (r == rank) continue;
    if (!records[r].shm) {
      // Both sides skip the pair, so neither waits for the other's inbox.
      WEFT_LOG(INFO) << "rank " << rank << " -> rank " << r
                     << ": shared memory not used, since rank " << r
                     << "'s backend or WEFT_TRANSPORTS rules it out";
    } else if (records[r].host.shares_memory_with(me)) {
      locals_.emplace_back().rank = r;
      senders.push_back(r);
    } else if (records[r].host.boot_id == me.boot_id) {
      WEFT_LOG(INFO) << "rank " << rank << " -> rank " << r
                     << ": same host, but another IPC or PID namespace or /dev/shm (a "
                        "container?); shared memory cannot reach it";
    }
  }
  if (locals_.empty()) return;
  for (const std::string& path : transport::shm::remove_orphaned_segments(kOrphanAge)) {
    WEFT_LOG(INFO) << "removed " << path
                   << ", left by a weft process that no longer exists (killed while starting?)";
  }
  // Two eager frames with their headers must fit, or an eager send could never go.
  const uint64_t capacity = power_of_two_at_least(
      std::max(options.ring_bytes, 2 * (options.eager_limit + 2 * transport::shm::kLine)));
  // The creator's pid in the name tells whose a segment is (and whether it is alive).
  char name[96];
  std::snprintf(name, sizeof name, "/weft-%016llx-r%d.%lld",
                static_cast<unsigned long long>(job_id), rank,
                static_cast<long long>(records[rank].pid));
  size_t bytes = transport::shm::Inbox::bytes(static_cast<int>(senders.size()), capacity);
  try {
    inbox_ = std::make_shared<transport::shm::Segment>(
        transport::shm::Segment::create(name, bytes, "the shared-memory transport",
                                        "lower WEFT_SHM_RING_BYTES, or use WEFT_TRANSPORTS=tcp"));
  } catch (const Error& e) {
    throw Error(e.code(), "init_process_group (rank " + std::to_string(rank) + ", " +
                              std::to_string(locals_.size()) + " peers on this host): " + e.what());
  }
  probe_value_ = std::make_unique<uint64_t>(random_nonce());
  transport::shm::Inbox::format(inbox_->data(), rank, senders, capacity, *probe_value_,
                                records[rank].pid, reinterpret_cast<uint64_t>(probe_value_.get()));
  transport::shm::Inbox mine(inbox_->data(), inbox_->size(), "/dev/shm" + inbox_->name());
  for (Local& l : locals_) l.inbound = mine.ring_for(l.rank);
}

ShmPeers::~ShmPeers() = default;

void ShmPeers::map_peer(Local& peer, const std::string& name) {
  try {
    auto segment = std::make_shared<transport::shm::Segment>(transport::shm::Segment::open(name));
    transport::shm::Inbox inbox(segment->data(), segment->size(), "/dev/shm" + name);
    const transport::shm::SegmentHeader& h = inbox.header();
    if (h.owner_rank != peer.rank || h.pid != records_[peer.rank].pid) {
      throw Error(ErrorCode::kInternal, "/dev/shm" + name + " belongs to another process");
    }
    peer.outbound = inbox.ring_for(rank_);  // throws if it has no ring for this rank
    peer.inbox = std::move(segment);
    base::Failure refused =
        transport::shm::cma_probe(static_cast<pid_t>(h.pid), h.probe_address, h.nonce);
    peer.i_read_theirs = !refused;
    if (refused) peer.why_no_single_copy = refused.why();
  } catch (const Error& e) {
    peer.why_not = e.what();
  }
}

void ShmPeers::exchange(rendezvous::Store& store, base::Deadline deadline) {
  if (locals_.empty()) return;
  for (const std::string& path : transport::shm::remove_orphaned_segments(kOrphanAge)) {
    WEFT_LOG(INFO) << "removed " << path
                   << ", left by a weft process that no longer exists (killed while starting?)";
  }
  store.set(inbox_key(rank_), inbox_->name(), deadline);
  // The peers' keys in one batch each (Store::get_many), not one round trip per peer:
  // with 256 ranks on a host, 510 round trips per rank made most of init's time.
  std::vector<std::string> inbox_keys, report_keys;
  for (const Local& peer : locals_) {
    inbox_keys.push_back(inbox_key(peer.rank));
    report_keys.push_back(report_key(peer.rank));
  }
  const std::vector<std::string> names = store.get_many(inbox_keys, deadline);
  for (size_t i = 0; i < locals_.size(); ++i) map_peer(locals_[i], names[i]);
  base::WireWriter report;
  report.u32(static_cast<uint32_t>(locals_.size()));
  for (const Local& peer : locals_) {
    report.i64(peer.rank)
        .u8(peer.inbox != nullptr)
        .u8(peer.i_read_theirs)
        .str(peer.why_no_single_copy);
  }
  store.set(report_key(rank_), report.take(), deadline);
  const std::vector<std::string> reports = store.get_many(report_keys, deadline);
  for (size_t i = 0; i < locals_.size(); ++i) {
    Local& peer = locals_[i];
    const std::string& bytes = reports[i];
    std::string what = "shared-memory report of rank " + std::to_string(peer.rank);
    base::WireReader in(bytes, what.c_str());
    bool they_mapped = false;
    for (uint32_t n = in.u32(); n > 0; --n) {
      int64_t r = in.i64();
      bool mapped = in.u8() != 0, reads = in.u8() != 0;
      std::string why = in.str();
      if (r != rank_) continue;
      they_mapped = mapped;
      peer.they_read_mine = reads;
      peer.they_cannot_read_because = why;
    }
    peer.usable = peer.inbox && they_mapped;
    if (peer.inbox && !they_mapped) peer.why_not = "it could not map this rank's inbox";
    if (!peer.usable) {
      WEFT_LOG(INFO) << "rank " << rank_ << " -> rank " << peer.rank
                     << ": shared memory unavailable (" << peer.why_not << "); using tcp";
    }
  }
  // Every local peer has mapped it (or given up): the name is no longer needed.
  inbox_->unlink();
}

const ShmPeers::Local* ShmPeers::find(int peer) const {
  for (const Local& l : locals_) {
    if (l.rank == peer) return &l;
  }
  return nullptr;
}

bool ShmPeers::reaches(int peer) const {
  const Local* l = find(peer);
  return l != nullptr && l->usable;
}

std::unique_ptr<transport::Link> ShmPeers::make_link(int peer, base::Fd socket,
                                                     transport::LinkHandler& handler) {
  const Local* l = find(peer);
  if (l == nullptr || !l->usable) {
    throw Error(ErrorCode::kInternal, "no shared-memory link to rank " + std::to_string(peer));
  }
  transport::shm::ShmLinkOptions o;
  o.peer_pid = static_cast<pid_t>(records_[peer].pid);
  o.single_copy = l->they_read_mine;
  o.single_copy_min_bytes = options_.single_copy_min_bytes;
  o.no_single_copy_reason = l->they_cannot_read_because;
  return std::make_unique<transport::shm::ShmLink>(peer, std::move(socket), handler, inbox_,
                                                   l->inbound, l->inbox, l->outbound, o);
}

}  // namespace weft::runtime
