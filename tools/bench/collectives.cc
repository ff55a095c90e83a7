#include "tools/bench/collectives.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "core/reduce/reduce_kernels.h"
#include "tools/bench/typed_values.h"

namespace weft::bench {
namespace {

enum class Shape { kVector, kGathered, kScattered };
enum class Which {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kGather,
  kScatter,
  kReduceScatter,
  kAllToAll
};

struct Collective {
  const char* name;
  Which which;
  Shape shape;
  bool reduces, rooted;
  double (*busbw_factor)(int n);
};

double ring_factor(int n) { return 2.0 * (n - 1) / n; }
double spread_factor(int n) { return static_cast<double>(n - 1) / n; }
double one(int) { return 1.0; }

const Collective kCollectives[] = {
    {"all_reduce", Which::kAllReduce, Shape::kVector, true, false, ring_factor},
    {"broadcast", Which::kBroadcast, Shape::kVector, false, true, one},
    {"reduce", Which::kReduce, Shape::kVector, true, true, one},
    {"all_gather", Which::kAllGather, Shape::kGathered, false, false, spread_factor},
    {"gather", Which::kGather, Shape::kGathered, false, true, spread_factor},
    {"scatter", Which::kScatter, Shape::kScattered, false, true, spread_factor},
    {"reduce_scatter", Which::kReduceScatter, Shape::kScattered, true, false, spread_factor},
    {"all_to_all", Which::kAllToAll, Shape::kScattered, false, false, spread_factor},
};

const Collective& find(const std::string& name) {
  for (const Collective& c : kCollectives) {
    if (name == c.name) return c;
  }
  throw InvalidArgument("weft-bench: unknown collective " + name);
}

// One call of the collective on `big` (the larger buffer) and `small` (the per-rank
// one; as large as `big` for all_to_all); in place uses big's own slice.
struct Call {
  const Collective& c;
  int root;
  ReduceOp op;
  uint64_t part;  // elements per rank (the whole vector for kVector shapes)

  int rank;

  void operator()(Buffer& big, Buffer& small, bool in_place) const {
    Tensor slice = big.tensor(rank * part, part);
    switch (c.which) {
      case Which::kAllReduce:
        in_place ? all_reduce(big.tensor(), op) : all_reduce(small.tensor(), big.tensor(), op);
        return;
      case Which::kBroadcast:
        broadcast(in_place ? big.tensor() : small.tensor(), root);
        return;
      case Which::kReduce:
        in_place ? reduce(big.tensor(), root, op) : reduce(small.tensor(), big.tensor(), root, op);
        return;
      case Which::kAllGather:
        all_gather(in_place ? slice : small.tensor(), big.tensor());
        return;
      case Which::kGather:
        gather(in_place && rank == root ? slice : small.tensor(), big.tensor(), root);
        return;
      case Which::kScatter:
        scatter(big.tensor(), in_place && rank == root ? slice : small.tensor(), root);
        return;
      case Which::kReduceScatter:
        reduce_scatter(big.tensor(), in_place ? slice : small.tensor(), op);
        return;
      case Which::kAllToAll:
        all_to_all(big.tensor(), in_place ? big.tensor() : small.tensor());
        return;
    }
  }
};

double datum(int q, uint64_t i) { return static_cast<double>((q * 13 + i) % 100); }

// Fills the buffers for a checked call and counts the wrong elements after it.
uint64_t checked_call(const Call& call, Buffer& big, Buffer& small, bool in_place) {
  const int n = get_world_size(), r = get_rank();
  const DType d = big.dtype;
  const uint64_t part = call.part;
  const uint64_t total = big.tensor().count();
  const Which which = call.c.which;
  ReduceOp op = call.op;
  // Inputs.
  if (which == Which::kAllReduce || which == Which::kReduce) {
    Buffer& in = in_place ? big : small;
    for (uint64_t i = 0; i < total; ++i) in.set(i, input_value(d, op, r, i));
  } else if (which == Which::kReduceScatter) {
    for (uint64_t i = 0; i < total; ++i) big.set(i, input_value(d, op, r, i));
  } else if (which == Which::kBroadcast) {
    Buffer& b = in_place ? big : small;
    for (uint64_t i = 0; i < total; ++i) b.set(i, r == call.root ? datum(call.root, i) : 0);
  } else if (which == Which::kAllGather || which == Which::kGather) {
    for (uint64_t i = 0; i < part; ++i) {
      (in_place ? big : small).set((in_place ? r * part : 0) + i, datum(r, i));
    }
  } else {  // scatter, all_to_all
    for (uint64_t i = 0; i < total; ++i) big.set(i, datum(r, i));
  }
  call(big, small, in_place);
  // Results.
  uint64_t wrong = 0;
  auto expect = [&](const Buffer& b, uint64_t at, double want) {
    if (!matches(d, op, b.get(at), want)) ++wrong;
  };
  if (which == Which::kAllReduce || (which == Which::kReduce && r == call.root)) {
    for (uint64_t i = 0; i < total; ++i) expect(big, i, reduced_value(d, op, n, i));
  } else if (which == Which::kReduceScatter) {
    const Buffer& out = in_place ? big : small;
    uint64_t at = in_place ? r * part : 0;
    for (uint64_t i = 0; i < part; ++i) expect(out, at + i, reduced_value(d, op, n, r * part + i));
  } else if (which == Which::kBroadcast) {
    for (uint64_t i = 0; i < total; ++i) expect(in_place ? big : small, i, datum(call.root, i));
  } else if (which == Which::kAllGather || (which == Which::kGather && r == call.root)) {
    for (uint64_t i = 0; i < total; ++i) expect(big, i, datum(i / part, i % part));
  } else if (which == Which::kScatter) {
    bool here = in_place && r == call.root;
    for (uint64_t i = 0; i < part; ++i) {
      expect(here ? big : small, (here ? r * part : 0) + i, datum(call.root, r * part + i));
    }
  } else if (which == Which::kAllToAll) {
    const Buffer& out = in_place ? big : small;
    for (uint64_t i = 0; i < total; ++i) expect(out, i, datum(i / part, r * part + i % part));
  }
  return wrong;
}

// Microseconds per call, the slowest rank's.
double time_calls(const Call& call, Buffer& big, Buffer& small, bool in_place, int warmup,
                  int iterations) {
  for (int i = 0; i < warmup; ++i) call(big, small, in_place);
  barrier();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) call(big, small, in_place);
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
      iterations;
  std::vector<double> slowest{us};
  all_reduce(view(slowest), ReduceOp::kMax);
  return slowest[0];
}

}  // namespace

bool is_benchmarked_collective(const std::string& name) {
  for (const Collective& c : kCollectives) {
    if (name == c.name) return true;
  }
  return false;
}

std::vector<CollectiveRow> run_collective_benchmark(const CollectiveOptions& options) {
  const Collective& c = find(options.collective);
  const int n = get_world_size(), rank = get_rank();
  if (c.rooted && (options.root < 0 || options.root >= n)) {
    throw InvalidArgument("weft-bench: root " + std::to_string(options.root) + " is outside [0, " +
                          std::to_string(n) + ")");
  }
  std::vector<CollectiveRow> rows;
  if (rank == 0) {
    std::printf("# weft-bench %s: %d ranks, %d iterations after %d warm-up, check %s\n", c.name, n,
                options.iterations, options.warmup, options.check ? "on" : "off");
    std::printf("# busbw = algbw x %.4f\n", c.busbw_factor(n));
    std::printf("%12s %12s %9s %6s %5s  %10s %8s %8s %6s  %10s %8s %8s %6s\n", "size", "count",
                "type", "redop", "root", "oop us", "algbw", "busbw", "#wrong", "ip us", "algbw",
                "busbw", "#wrong");
  }
  for (DType d : options.dtypes) {
    for (ReduceOp op : c.reduces ? options.ops : std::vector<ReduceOp>{ReduceOp::kSum}) {
      if (c.reduces && !core::op_supports(op, d)) continue;
      for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes;
           bytes = bytes * options.factor) {
        const uint64_t esize = dtype_size(d);
        uint64_t total = bytes / esize;
        if (c.shape != Shape::kVector) total = total / n * n;  // whole parts per rank
        const uint64_t part = c.shape == Shape::kVector ? total : total / n;
        Buffer big(d, total), small(d, c.which == Which::kAllToAll ? total : part);
        Call call{c, c.rooted ? options.root : -1, op, part, rank};
        CollectiveRow row{total * esize,
                          total,
                          d,
                          c.reduces ? reduce_op_name(op) : "none",
                          call.root,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0};
        for (bool in_place : {false, true}) {
          double us = time_calls(call, big, small, in_place, options.warmup, options.iterations);
          uint64_t wrong = options.check ? checked_call(call, big, small, in_place) : 0;
          std::vector<uint64_t> all_wrong{wrong};
          all_reduce(view(all_wrong));
          double algbw = row.bytes / us / 1e3;  // GB/s
          (in_place ? row.ip_us : row.oop_us) = us;
          (in_place ? row.ip_algbw : row.oop_algbw) = algbw;
          (in_place ? row.ip_busbw : row.oop_busbw) = algbw * c.busbw_factor(n);
          (in_place ? row.ip_wrong : row.oop_wrong) = all_wrong[0];
        }
        if (rank == 0) {
          std::printf(
              "%12llu %12llu %9s %6s %5d  %10.2f %8.3f %8.3f %6llu  %10.2f %8.3f %8.3f %6llu\n",
              static_cast<unsigned long long>(row.bytes),
              static_cast<unsigned long long>(row.count), dtype_name(d), row.redop, row.root,
              row.oop_us, row.oop_algbw, row.oop_busbw,
              static_cast<unsigned long long>(row.oop_wrong), row.ip_us, row.ip_algbw, row.ip_busbw,
              static_cast<unsigned long long>(row.ip_wrong));
          std::fflush(stdout);
        }
        rows.push_back(row);
        if (options.factor <= 1) break;
      }
    }
  }
  return rows;
}

void write_collective_json(const std::string& path, const CollectiveOptions& options,
                           const std::vector<CollectiveRow>& rows) {
  std::ofstream out(path);
  out << "{\n  \"benchmark\": \"" << options.collective << "\",\n  \"ranks\": " << get_world_size()
      << ",\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const CollectiveRow& r = rows[i];
    char line[768];
    std::snprintf(line, sizeof line,
                  "    {\"bytes\": %llu, \"count\": %llu, \"type\": \"%s\", \"redop\": \"%s\", "
                  "\"root\": %d, \"oop_us\": %.3f, \"ip_us\": %.3f, \"oop_algbw\": %.4f, "
                  "\"oop_busbw\": %.4f, \"ip_algbw\": %.4f, \"ip_busbw\": %.4f, "
                  "\"oop_wrong\": %llu, \"ip_wrong\": %llu}%s\n",
                  static_cast<unsigned long long>(r.bytes),
                  static_cast<unsigned long long>(r.count), dtype_name(r.dtype), r.redop, r.root,
                  r.oop_us, r.ip_us, r.oop_algbw, r.oop_busbw, r.ip_algbw, r.ip_busbw,
                  static_cast<unsigned long long>(r.oop_wrong),
                  static_cast<unsigned long long>(r.ip_wrong), i + 1 < rows.size() ? "," : "");
    out << line;
  }
  out << "  ]\n}\n";
  if (!out) throw Error(ErrorCode::kInternal, "cannot write " + path);
}

}  // namespace weft::bench
