#include "tests/collectives/sim_job.h"

#include <algorithm>

#include "tools/bench/typed_values.h"

namespace weft::collectives::testing {
namespace {

int32_t value(int rank, uint64_t i) { return static_cast<int32_t>((rank * 31 + i * 7) % 17) - 8; }

bool reduces(const SimCase& c) {
  return c.kind == CollectiveKind::kAllReduce || c.kind == CollectiveKind::kReduce ||
         c.kind == CollectiveKind::kReduceScatter;
}

// Element i of rank r's input: for reductions, the data of weft-bench's checks, whose
// reduction bench::reduced_value() gives; otherwise a pattern that tells blocks apart.
int32_t input(const SimCase& c, int rank, uint64_t i) {
  if (!reduces(c)) return value(rank, i);
  return static_cast<int32_t>(bench::input_value(DType::kInt32, c.op, rank, i));
}

// The reduction over all ranks of element i, for i < elements.
std::vector<int32_t> reduced(const SimCase& c, uint64_t elements) {
  std::vector<int32_t> v(elements);
  for (uint64_t i = 0; i < elements; ++i) {
    v[i] = static_cast<int32_t>(bench::reduced_value(DType::kInt32, c.op, c.size, i));
  }
  return v;
}

uint64_t contribution(const SimCase& c, int r) { return c.count + (c.variable ? r % 3 : 0); }

}  // namespace

SimResult run_sim(const Algorithm& algorithm, const SimCase& c) {
  const int n = c.size;
  std::vector<CollectiveSpec> specs(n);
  std::vector<std::vector<int32_t>> in(n), out(n);
  std::vector<Buffers> buffers(n);
  std::vector<Block> blocks(n);
  uint64_t total = 0;
  for (int r = 0; r < n; ++r) {
    blocks[r] = {total, contribution(c, r)};
    total += blocks[r].count;
  }
  std::vector<std::vector<int32_t>> expected(n);
  std::vector<int32_t> reference =
      reduces(c) ? reduced(c, c.kind == CollectiveKind::kReduceScatter ? total : c.count)
                 : std::vector<int32_t>();
  for (int r = 0; r < n; ++r) {
    CollectiveSpec& s = specs[r];
    s.kind = c.kind;
    s.op = c.op;
    s.dtype = DType::kInt32;
    s.size = n;
    s.rank = r;
    s.root = c.root;
    s.count = c.count;
    s.segment = c.segment;
    s.variable_counts = c.variable;
    s.hosts = c.hosts;
    uint64_t in_count = 0, out_count = 0;
    switch (c.kind) {
      case CollectiveKind::kBarrier:
        break;
      case CollectiveKind::kBroadcast:
        out_count = c.count;
        s.input_in_output = 0;
        for (uint64_t i = 0; i < c.count; ++i) expected[r].push_back(value(c.root, i));
        break;
      case CollectiveKind::kAllReduce:
      case CollectiveKind::kReduce:
        in_count = out_count = c.count;
        if (c.kind == CollectiveKind::kAllReduce || r == c.root) {
          for (uint64_t i = 0; i < c.count; ++i) expected[r].push_back(reference[i]);
        } else {
          for (uint64_t i = 0; i < c.count; ++i) expected[r].push_back(input(c, r, i));
        }
        if (c.in_place) s.input_in_output = 0;
        break;
      case CollectiveKind::kAllGather:
      case CollectiveKind::kGather:
        s.blocks = blocks;
        in_count = blocks[r].count;
        out_count = total;
        if (c.kind == CollectiveKind::kAllGather || r == c.root) {
          for (int q = 0; q < n; ++q) {
            for (uint64_t i = 0; i < blocks[q].count; ++i) expected[r].push_back(value(q, i));
          }
        }
        if (c.in_place) s.input_in_output = static_cast<int64_t>(blocks[r].offset);
        break;
      case CollectiveKind::kScatter:
        s.blocks = blocks;
        in_count = total;
        out_count = blocks[r].count;
        for (uint64_t i = 0; i < blocks[r].count; ++i) {
          expected[r].push_back(value(c.root, blocks[r].offset + i));
        }
        break;
      case CollectiveKind::kReduceScatter:
        s.blocks = blocks;
        in_count = total;
        out_count = blocks[r].count;
        for (uint64_t i = 0; i < blocks[r].count; ++i) {
          expected[r].push_back(reference[blocks[r].offset + i]);
        }
        if (c.in_place) s.output_in_input = true;
        break;
      case CollectiveKind::kAllToAll:
        s.blocks = std::vector<Block>(n);
        s.recv_blocks = std::vector<Block>(n);
        for (int q = 0; q < n; ++q) {
          s.blocks[q] = {q * c.count, c.count};
          s.recv_blocks[q] = s.blocks[q];
          for (uint64_t i = 0; i < c.count; ++i) {
            expected[r].push_back(value(q, r * c.count + i));
          }
        }
        in_count = out_count = n * c.count;
        if (c.in_place) s.input_in_output = 0;
        break;
    }
    // Inputs carry input(c, r, i) at element i; scatter's root input is the whole vector.
    in[r].resize(std::max<uint64_t>(in_count, 1));
    for (uint64_t i = 0; i < in_count; ++i) in[r][i] = input(c, r, i);
    out[r].assign(std::max<uint64_t>(out_count, 1), -12345);
    if (c.kind == CollectiveKind::kBroadcast) {
      for (uint64_t i = 0; i < out_count && r == c.root; ++i) out[r][i] = value(r, i);
    }
    bool reduce_at_other = c.kind == CollectiveKind::kReduce && r != c.root;
    if (reduce_at_other) out[r].assign(out[r].size(), -12345);
    buffers[r].input = reinterpret_cast<std::byte*>(in[r].data());
    buffers[r].output = reinterpret_cast<std::byte*>(out[r].data());
    if (c.in_place && s.input_in_output >= 0) {
      // The input lies in the output: put the rank's data there.
      for (uint64_t i = 0; i < in_count; ++i) out[r][s.input_in_output + i] = input(c, r, i);
      buffers[r].input = reinterpret_cast<std::byte*>(out[r].data() + s.input_in_output);
    }
    if (c.in_place && s.output_in_input) {
      buffers[r].output = reinterpret_cast<std::byte*>(in[r].data() + blocks[r].offset);
    }
  }
  SimResult result;
  result.report = simulate(algorithm, specs, buffers);
  for (int r = 0; r < n && result.mismatch.empty(); ++r) {
    const int32_t* got = c.kind == CollectiveKind::kReduce && r != c.root
                             ? reinterpret_cast<const int32_t*>(buffers[r].input)
                             : reinterpret_cast<const int32_t*>(buffers[r].output);
    for (size_t i = 0; i < expected[r].size(); ++i) {
      if (got[i] != expected[r][i]) {
        result.mismatch = "rank " + std::to_string(r) + " element " + std::to_string(i) + ": got " +
                          std::to_string(got[i]) + ", expected " + std::to_string(expected[r][i]);
        break;
      }
    }
  }
  return result;
}

}  // namespace weft::collectives::testing
