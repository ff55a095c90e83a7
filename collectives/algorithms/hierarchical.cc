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
//   reduce_scatter      the whole vector reduced to each host's leader, a reduce-scatter
//                       among the leaders in which each gets the blocks of its host's
//                       ranks, then the leader hands each rank its block.
//   barrier             each rank signals its host's leader, the leaders run a
//                       dissemination barrier, then each leader releases its host.
//
// docs/ALGORITHMS.md, "Hierarchical algorithms", has the costs.
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

// Where this rank is: its host, its index among the host's ranks, and those ranks.
struct Place {
  int host, local;
  const std::vector<int>& mine;
  int k() const { return static_cast<int>(mine.size()); }
};

Place place_of(const CollectiveSpec& spec) {
  const HostLayout& layout = *spec.hosts;
  const int host = layout.host_of[spec.rank];
  return {host, layout.local_index[spec.rank], layout.members[host]};
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
  const Place at = place_of(spec);
  // The host's reduction, at its leader (local rank 0), in the output.
  CollectiveSpec reduce = phase_spec(spec, CollectiveKind::kReduce, at.k(), at.local);
  run_phase(b, {&at.mine, Buffer::kInput, 0, 0}, reduce, binomial_reduce);
  // Between the leaders.
  if (at.local == 0) {
    all_reduce_among(spec, b, spec.hosts->with_local_index(0), at.host, 0, spec.count);
  }
  // Back to every rank of the host.
  CollectiveSpec broadcast = phase_spec(spec, CollectiveKind::kBroadcast, at.k(), at.local);
  run_phase(b, {&at.mine, Buffer::kOutput, 0, 0}, broadcast, binomial_broadcast);
}

void sliced_hierarchical_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const Place at = place_of(spec);
  const std::vector<Block> slices = even_blocks(spec.count, at.k());
  const Block& slice = slices[at.local];

  // Slice `local`, reduced over this host, into its place in the output.
  CollectiveSpec scatter = phase_spec(spec, CollectiveKind::kReduceScatter, at.k(), at.local);
  scatter.blocks = slices;
  run_phase(b, {&at.mine, Buffer::kInput, 0, slice.offset}, scatter, ring_reduce_scatter);
  // Slice `local` among the ranks holding it on the other hosts.
  all_reduce_among(spec, b, spec.hosts->with_local_index(at.local), at.host, slice.offset,
                   slice.count);
  // Every slice to every rank of the host.
  CollectiveSpec gather = phase_spec(spec, CollectiveKind::kAllGather, at.k(), at.local);
  gather.blocks = slices;
  run_phase(b, {&at.mine, Buffer::kOutput, slice.offset, 0}, gather, ring_all_gather);
}

void hierarchical_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const Place at = place_of(spec);
  const std::vector<int> heads = heads_for(layout, spec.root);
  const bool root = spec.rank == spec.root, head = spec.rank == heads[at.host];
  // The host's reduction at its head: the root's in its output, another head's in scratch.
  const Buffer held = root ? Buffer::kOutput : Buffer::kScratch;
  const Region partial = head && !root ? b.allocate_scratch(spec.count) : Region{};
  CollectiveSpec inside = phase_spec(spec, CollectiveKind::kReduce, at.k(), at.local);
  inside.root = layout.local_index[heads[at.host]];
  run_phase(b, {&at.mine, Buffer::kInput, 0, partial.offset, held}, inside, binomial_reduce);
  if (!head) return;
  // The heads' reductions, at the root.
  CollectiveSpec between = phase_spec(spec, CollectiveKind::kReduce, layout.hosts(), at.host);
  between.root = layout.host_of[spec.root];
  run_phase(b, {&heads, held, partial.offset, 0, Buffer::kOutput}, between, binomial_reduce);
}

void hierarchical_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const Place at = place_of(spec);
  const int k = at.k(), local = at.local;
  // Between hosts: the ranks of each local index gather their blocks (own block first).
  // Every host has every local index (a uniform layout), so this rank is the host-th.
  const std::vector<int> peers = layout.with_local_index(local);
  CollectiveSpec between = phase_spec(spec, CollectiveKind::kAllGather, layout.hosts(), at.host);
  for (int p : peers) between.blocks.push_back(spec.blocks[p]);
  run_phase(b, {&peers, Buffer::kInput, 0, 0}, between, ring_all_gather);
  // Inside the host, a ring passes each local index's blocks to the others.
  b.set_view(nullptr);
  auto group = [&](int index) {
    std::vector<Region> regions;
    for (int p : layout.with_local_index(index)) regions.push_back(out_block(spec.blocks[p]));
    return regions;
  };
  const int right = at.mine[mod(local + 1, k)], left = at.mine[mod(local - 1, k)];
  for (int s = 0; s < k - 1; ++s) {
    for (const Region& r : group(mod(local - s, k))) send_segments(b, right, r, spec.segment);
    for (const Region& r : group(mod(local - s - 1, k))) recv_segments(b, left, r, spec.segment);
  }
}

void hierarchical_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const Place at = place_of(spec);
  const std::vector<int> heads = heads_for(layout, spec.root);
  const uint64_t bytes = spec.count * spec.element_bytes();
  Generator tree = bytes < (256 << 10) ? binomial_broadcast : chain_broadcast;
  if (spec.rank == heads[at.host]) {
    CollectiveSpec between = phase_spec(spec, CollectiveKind::kBroadcast, layout.hosts(), at.host);
    between.root = layout.host_of[spec.root];
    run_phase(b, {&heads, Buffer::kOutput, 0, 0}, between, tree);
  }
  CollectiveSpec inside = phase_spec(spec, CollectiveKind::kBroadcast, at.k(), at.local);
  inside.root = layout.local_index[heads[at.host]];
  run_phase(b, {&at.mine, Buffer::kOutput, 0, 0}, inside, tree);
}

void hierarchical_reduce_scatter(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const Place at = place_of(spec);
  const int leader = at.mine[0];
  const Block& own = spec.blocks[spec.rank];
  uint64_t total = 0;  // elements of the input
  for (const Block& block : spec.blocks) total = std::max(total, block.offset + block.count);
  if (spec.rank != leader) {
    // Contribute the whole vector to the host's sum, then receive this rank's block.
    CollectiveSpec inside = phase_spec(spec, CollectiveKind::kReduce, at.k(), at.local);
    inside.count = total;
    run_phase(b, {&at.mine, Buffer::kInput, 0, 0, Buffer::kScratch}, inside, binomial_reduce);
    if (own.count > 0) b.recv(leader, output_region(0, own.count));
    return;
  }
  // The leaders' reduce-scatter needs each host's blocks side by side: lay the host's
  // sum out host by host (each host's ranks in order), unless the input already is.
  std::vector<Block> host_blocks(layout.hosts());
  std::vector<uint64_t> placed(spec.size);  // where each rank's block is in that layout
  uint64_t at_offset = 0;
  bool in_input_order = true;
  for (int h = 0; h < layout.hosts(); ++h) {
    host_blocks[h].offset = at_offset;
    for (int r : layout.members[h]) {
      const Block& block = spec.blocks[r];
      in_input_order = in_input_order && (block.count == 0 || block.offset == at_offset);
      placed[r] = at_offset;
      at_offset += block.count;
    }
    host_blocks[h].count = at_offset - host_blocks[h].offset;
  }
  in_input_order = in_input_order && total == at_offset;
  const Region sum = b.allocate_scratch(total);
  CollectiveSpec inside = phase_spec(spec, CollectiveKind::kReduce, at.k(), at.local);
  inside.count = total;
  run_phase(b, {&at.mine, Buffer::kInput, 0, sum.offset, Buffer::kScratch}, inside,
            binomial_reduce);
  Region by_host = sum;
  if (!in_input_order) {
    by_host = b.allocate_scratch(at_offset);
    for (int r = 0; r < spec.size; ++r) {
      const Block& block = spec.blocks[r];
      if (block.count > 0) {
        b.copy(by_host.sub(placed[r], block.count), sum.sub(block.offset, block.count));
      }
    }
  }
  // Among the leaders: each gets its host's blocks, reduced over every host.
  const std::vector<int> leaders = layout.with_local_index(0);
  const Region mine = b.allocate_scratch(host_blocks[at.host].count);
  CollectiveSpec between =
      phase_spec(spec, CollectiveKind::kReduceScatter, layout.hosts(), at.host);
  between.blocks = host_blocks;
  const bool halving = (layout.hosts() & (layout.hosts() - 1)) == 0 &&
                       at_offset * spec.element_bytes() < kRingFromBytes;
  run_phase(b, {&leaders, Buffer::kScratch, by_host.offset, mine.offset, Buffer::kScratch}, between,
            halving ? recursive_halving_reduce_scatter : ring_reduce_scatter);
  // Each rank of the host its block.
  for (int r : at.mine) {
    const Block& block = spec.blocks[r];
    if (block.count == 0) continue;
    const Region part = mine.sub(placed[r] - host_blocks[at.host].offset, block.count);
    if (r == leader) {
      b.copy(output_region(0, block.count), part);
    } else {
      b.send(r, part);
    }
  }
}

void hierarchical_barrier(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const HostLayout& layout = *spec.hosts;
  const Place at = place_of(spec);
  const Region nothing = scratch_region(0, 0);
  const int leader = at.mine[0];
  if (spec.rank != leader) {
    b.send(leader, nothing);
    b.recv(leader, nothing);
    return;
  }
  // Zero-byte messages order nothing through memory, so the order is spelled out: the
  // leaders' first signal waits for the whole host, the release for every round.
  std::vector<OpId> heard;
  for (int r : at.mine) {
    if (r != leader) heard.push_back(b.recv(r, nothing));
  }
  const std::vector<int> leaders = layout.with_local_index(0);
  const int hosts = layout.hosts(), h = at.host;
  std::vector<OpId> rounds;
  for (int distance = 1; distance < hosts; distance <<= 1) {
    if (rounds.empty()) {
      b.send(leaders[mod(h + distance, hosts)], nothing, heard);
    } else {
      b.send(leaders[mod(h + distance, hosts)], nothing, {rounds.back()});
    }
    rounds.push_back(b.recv(leaders[mod(h - distance, hosts)], nothing));
  }
  for (int r : at.mine) {
    if (r != leader) b.send(r, nothing, rounds);
  }
}

}  // namespace weft::collectives::algorithms
