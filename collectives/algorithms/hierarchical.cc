// Hierarchical algorithms for groups that span hosts (CollectiveSpec::hosts): each is a
// sequence of phases, and each phase is an existing algorithm run on a subset of the
// ranks and a part of the buffers through a ScheduleBuilder::View. Inside a host the
// messages travel over shared memory; between hosts only one rank per host (leader
// forms) or one rank per host and slice (sliced forms) sends, so the slow links carry
// each byte as few times as the inter-host algorithm needs, and the inter-host rounds
// are those of a group of `hosts` ranks, not of the whole group.
//
//   leader all_reduce   reduce to each host's leader (binomial), all_reduce among the
//                       leaders, broadcast from each leader (binomial)
//   sliced all_reduce   (same ranks on every host) reduce-scatter inside each host, so
//                       that local rank i holds slice i reduced over its host; all_reduce
//                       of slice i among the local ranks i of every host; all-gather
//                       inside each host. Every rank drives the network with 1/k of the
//                       data, as NCCL's and Open MPI's han designs do.
//   broadcast           from the root to one rank per host (the root on its own host,
//                       the leader elsewhere: the host's head), then inside each host.
//   reduce              inside each host to its head, then among the heads to the root.
//   all_gather          (same ranks on every host) among the ranks of each local index
//                       across hosts (a ring), then inside each host a ring that passes
//                       each local index's blocks on.
//
// docs/ALGORITHMS.md, "Hierarchical algorithms", has the costs.
#include <algorithm>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {
namespace {

// Inter-host phases carry whole vectors (or slices) between hosts: the latency-bound
// algorithm for small ones, the bandwidth-optimal ring for the rest, as the flat table
// chooses (algorithm_table.cc).
constexpr uint64_t kRingFromBytes = 32 << 10;

// `spec` for a subset of `size` ranks, this rank being `rank` among them.
CollectiveSpec phase_spec(const CollectiveSpec& spec, CollectiveKind kind, int size, int rank) {
  CollectiveSpec phase = spec;
  phase.kind = kind;
  phase.size = size;
  phase.rank = rank;
  phase.root = 0;
  phase.hosts = nullptr;
  phase.blocks.clear();
  phase.recv_blocks.clear();
  phase.input_in_output = -1;
  phase.output_in_input = false;
  return phase;
}

// Runs `generate` for `phase` with its peers and buffers seen through `view`.
void run_phase(ScheduleBuilder& b, const ScheduleBuilder::View& view, const CollectiveSpec& phase,
               Generator generate) {
  b.set_view(&view);
  generate(phase, b);
  b.set_view(nullptr);
}

// all_reduce of `count` elements among `ranks`, in place in the output at `offset`. The
// algorithm is chosen by the whole vector's size, not the part's: in the sliced form
// every rank of a host runs this at once, so the host's link carries all of it.
void all_reduce_among(const CollectiveSpec& spec, ScheduleBuilder& b, const std::vector<int>& ranks,
                      int me, uint64_t offset, uint64_t count) {
  if (ranks.size() < 2 || count == 0) return;
  CollectiveSpec phase =
      phase_spec(spec, CollectiveKind::kAllReduce, static_cast<int>(ranks.size()), me);
  phase.count = count;
  phase.input_in_output = 0;
  const bool ring = ranks.size() == 2 || spec.count * spec.element_bytes() >= kRingFromBytes;
  run_phase(b, {&ranks, Buffer::kOutput, offset, offset}, phase,
            ring ? ring_all_reduce : recursive_doubling_all_reduce);
}

// The rank of each host that talks to the other hosts in a rooted collective: the root
// on its host, the leader elsewhere.
std::vector<int> heads_for(const HostLayout& layout, int root) {
  std::vector<int> heads;
  for (int h = 0; h < layout.hosts(); ++h) {
    heads.push_back(h == layout.host_of[root] ? root : layout.members[h][0]);
  }
  return heads;
}

}  // namespace

void hierarchical_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const int host = layout.host_of[spec.rank], local = layout.local_index[spec.rank];
  const std::vector<int>& mine = layout.members[host];
  const int k = static_cast<int>(mine.size());

  // The host's reduction, at its leader (local rank 0), in the output.
  CollectiveSpec reduce = phase_spec(spec, CollectiveKind::kReduce, k, local);
  run_phase(b, {&mine, Buffer::kInput, 0, 0}, reduce, binomial_reduce);
  // Between the leaders.
  if (local == 0) {
    all_reduce_among(spec, b, layout.with_local_index(0), host, 0, spec.count);
  }
  // Back to every rank of the host.
  CollectiveSpec broadcast = phase_spec(spec, CollectiveKind::kBroadcast, k, local);
  run_phase(b, {&mine, Buffer::kOutput, 0, 0}, broadcast, binomial_broadcast);
}

void sliced_hierarchical_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const int host = layout.host_of[spec.rank], local = layout.local_index[spec.rank];
  const std::vector<int>& mine = layout.members[host];
  const int k = static_cast<int>(mine.size());
  const std::vector<Block> slices = even_blocks(spec.count, k);
  const Block& slice = slices[local];

  // Slice `local`, reduced over this host, into its place in the output.
  CollectiveSpec scatter = phase_spec(spec, CollectiveKind::kReduceScatter, k, local);
  scatter.blocks = slices;
  run_phase(b, {&mine, Buffer::kInput, 0, slice.offset}, scatter, ring_reduce_scatter);
  // Slice `local` among the ranks holding it on the other hosts.
  all_reduce_among(spec, b, layout.with_local_index(local), host, slice.offset, slice.count);
  // Every slice to every rank of the host.
  CollectiveSpec gather = phase_spec(spec, CollectiveKind::kAllGather, k, local);
  gather.blocks = slices;
  run_phase(b, {&mine, Buffer::kOutput, slice.offset, 0}, gather, ring_all_gather);
}

void hierarchical_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const int host = layout.host_of[spec.rank], local = layout.local_index[spec.rank];
  const int root_host = layout.host_of[spec.root];
  const std::vector<int> heads = heads_for(layout, spec.root);
  const bool root = spec.rank == spec.root, head = spec.rank == heads[host];
  // The host's reduction at its head: the root's in its output, another head's in scratch.
  const Region partial = head && !root ? b.allocate_scratch(spec.count) : Region{};
  const std::vector<int>& mine = layout.members[host];
  CollectiveSpec inside =
      phase_spec(spec, CollectiveKind::kReduce, static_cast<int>(mine.size()), local);
  inside.root = layout.local_index[heads[host]];
  run_phase(b,
            {&mine, Buffer::kInput, 0, partial.offset, root ? Buffer::kOutput : Buffer::kScratch},
            inside, binomial_reduce);
  if (!head) return;
  // The heads' reductions, at the root.
  CollectiveSpec between = phase_spec(spec, CollectiveKind::kReduce, layout.hosts(), host);
  between.root = root_host;
  const Buffer held = root ? Buffer::kOutput : Buffer::kScratch;
  run_phase(b, {&heads, held, partial.offset, 0, Buffer::kOutput}, between, binomial_reduce);
}

void hierarchical_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const int host = layout.host_of[spec.rank], local = layout.local_index[spec.rank];
  const std::vector<int>& mine = layout.members[host];
  const int k = static_cast<int>(mine.size());
  // Between hosts: the ranks of each local index gather their blocks (own block first).
  const std::vector<int> peers = layout.with_local_index(local);
  CollectiveSpec between =
      phase_spec(spec, CollectiveKind::kAllGather, static_cast<int>(peers.size()), host);
  for (int p : peers) between.blocks.push_back(spec.blocks[p]);
  between.rank = static_cast<int>(std::find(peers.begin(), peers.end(), spec.rank) - peers.begin());
  run_phase(b, {&peers, Buffer::kInput, 0, 0}, between, ring_all_gather);
  // Inside the host, a ring passes each local index's blocks to the others.
  b.set_view(nullptr);
  auto group = [&](int index) {
    std::vector<Region> regions;
    for (int p : layout.with_local_index(index)) regions.push_back(out_block(spec.blocks[p]));
    return regions;
  };
  const int right = mine[mod(local + 1, k)], left = mine[mod(local - 1, k)];
  for (int s = 0; s < k - 1; ++s) {
    for (const Region& r : group(mod(local - s, k))) send_segments(b, right, r, spec.segment);
    for (const Region& r : group(mod(local - s - 1, k))) recv_segments(b, left, r, spec.segment);
  }
}

void hierarchical_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const int host = layout.host_of[spec.rank], local = layout.local_index[spec.rank];
  const int root_host = layout.host_of[spec.root];
  const std::vector<int> heads = heads_for(layout, spec.root);
  const uint64_t bytes = spec.count * spec.element_bytes();
  Generator tree = bytes < (256 << 10) ? binomial_broadcast : chain_broadcast;
  if (spec.rank == heads[host]) {
    CollectiveSpec between = phase_spec(spec, CollectiveKind::kBroadcast, layout.hosts(), host);
    between.root = root_host;
    run_phase(b, {&heads, Buffer::kOutput, 0, 0}, between, tree);
  }
  const std::vector<int>& mine = layout.members[host];
  CollectiveSpec inside =
      phase_spec(spec, CollectiveKind::kBroadcast, static_cast<int>(mine.size()), local);
  inside.root = layout.local_index[heads[host]];
  run_phase(b, {&mine, Buffer::kOutput, 0, 0}, inside, tree);
}

}  // namespace weft::collectives::algorithms
