#include "tools/bench/collectives.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <span>

#include "collectives/reduce/reduce_kernels.h"
#include "cuda/device_runtime.h"
#include "tools/bench/allocation_counter.h"
#include "tools/bench/device_buffers.h"
#include "tools/bench/nccl_baseline.h"
#include "tools/bench/typed_values.h"
#include "weft/cuda.h"

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
  // The least device memory traffic (bytes read plus bytes written), in units of the
  // size, when the n ranks' buffers are all on one device: every input must be read
  // and every output written at least once.
  double (*traffic)(int n);
};

double ring_factor(int n) { return 2.0 * (n - 1) / n; }
double spread_factor(int n) { return static_cast<double>(n - 1) / n; }
double one(int) { return 1.0; }
double read_all_write_all(int n) { return 2.0 * n; }  // all_reduce, all_to_all
double read_all_write_one(int n) { return n + 1.0; }  // reduce, all_gather, reduce_scatter
double read_one_write_all(int n) { return n; }        // broadcast: read once, n - 1 writes
double read_one_write_one(int) { return 2.0; }        // gather, scatter

const Collective kCollectives[] = {
    {"all_reduce", Which::kAllReduce, Shape::kVector, true, false, ring_factor, read_all_write_all},
    {"broadcast", Which::kBroadcast, Shape::kVector, false, true, one, read_one_write_all},
    {"reduce", Which::kReduce, Shape::kVector, true, true, one, read_all_write_one},
    {"all_gather", Which::kAllGather, Shape::kGathered, false, false, spread_factor,
     read_all_write_one},
    {"gather", Which::kGather, Shape::kGathered, false, true, spread_factor, read_one_write_one},
    {"scatter", Which::kScatter, Shape::kScattered, false, true, spread_factor, read_one_write_one},
    {"reduce_scatter", Which::kReduceScatter, Shape::kScattered, true, false, spread_factor,
     read_all_write_one},
    {"all_to_all", Which::kAllToAll, Shape::kScattered, false, false, spread_factor,
     read_all_write_all},
};

// -d cuda: the device this rank uses and the bound its memory bandwidth sets.
struct DeviceYardstick {
  int device = 0;
  double bandwidth = 0;  // bytes read plus written per second, device to device
  bool shared = false;   // every rank on one host sees this one device alone
};

// Measured on every rank (each on its own device); `shared` is agreed by all.
DeviceYardstick measure_yardstick(uint64_t max_bytes) {
  DeviceYardstick y;
  y.device = bench_device();
  y.bandwidth = device_copy_bandwidth(y.device, std::clamp<uint64_t>(max_bytes, 64 << 20, 1 << 30));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  uint64_t mine[2] = {std::hash<std::string>{}(host), static_cast<uint64_t>(cuda::device_count())};
  std::vector<uint64_t> all(2 * get_world_size());
  all_gather(view(std::span(mine)), view(all));
  y.shared = true;
  for (int r = 0; r < get_world_size(); ++r) {
    if (all[2 * r] != mine[0] || all[2 * r + 1] != 1) y.shared = false;
  }
  return y;
}

const Collective& find(const std::string& name) {
  for (const Collective& c : kCollectives) {
    if (name == c.name) return c;
  }
  throw InvalidArgument("weft-bench: unknown collective " + name);
}

// The two buffers of a call: `big` (the larger one) and `small` (the per-rank one; as
// large as `big` for all_to_all), in host memory or, with -d cuda, their device twins.
struct Operands {
  Buffer& big_host;
  Buffer& small_host;
  DeviceTwin* big_device = nullptr;
  DeviceTwin* small_device = nullptr;

  Tensor big(uint64_t offset = 0, uint64_t count = ~uint64_t{0}) const {
    return big_device ? big_device->tensor(offset, count) : big_host.tensor(offset, count);
  }
  Tensor small() const { return small_device ? small_device->tensor() : small_host.tensor(); }
};

// One call of the collective; in place uses big's own slice.
struct Call {
  const Collective& c;
  int root;
  ReduceOp op;
  uint64_t part;  // elements per rank (the whole vector for kVector shapes)

  int rank;

  void operator()(const Operands& b, bool in_place) const {
    Tensor big = b.big(), small = b.small();
    Tensor slice = b.big(rank * part, part);
    switch (c.which) {
      case Which::kAllReduce:
        in_place ? all_reduce(big, op) : all_reduce(small, big, op);
        return;
      case Which::kBroadcast:
        broadcast(in_place ? big : small, root);
        return;
      case Which::kReduce:
        in_place ? reduce(big, root, op) : reduce(small, big, root, op);
        return;
      case Which::kAllGather:
        all_gather(in_place ? slice : small, big);
        return;
      case Which::kGather:
        gather(in_place && rank == root ? slice : small, big, root);
        return;
      case Which::kScatter:
        scatter(big, in_place && rank == root ? slice : small, root);
        return;
      case Which::kReduceScatter:
        reduce_scatter(big, in_place ? slice : small, op);
        return;
      case Which::kAllToAll:
        all_to_all(big, in_place ? big : small);
        return;
    }
  }
};

double datum(int q, uint64_t i) { return static_cast<double>((q * 13 + i) % 100); }

// Fills the buffers for a checked call and counts the wrong elements after it.
uint64_t checked_call(const Call& call, const Operands& operands, bool in_place) {
  Buffer& big = operands.big_host;
  Buffer& small = operands.small_host;
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
  if (operands.big_device) {
    operands.big_device->upload(big);
    operands.small_device->upload(small);
  }
  call(operands, in_place);
  if (operands.big_device) {
    operands.big_device->download(big);
    operands.small_device->download(small);
  }
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

struct Timing {
  double us;                      // per call
  double allocs;                  // heap allocations per call
  double p50_us, p99_us, max_us;  // of single calls, each the slowest rank's
};

// Microseconds and allocations per call over the timed calls, the slowest and the most
// allocating rank's, and the spread of single calls.
Timing time_calls(const Call& call, const Operands& operands, bool in_place, int warmup,
                  int iterations) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) call(operands, in_place);
  // The mean and the allocations from one batch timed as a whole, so that reading the
  // clock (tens of nanoseconds) does not add to calls of a microsecond or less.
  barrier();
  const uint64_t allocations_before = allocations();
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < iterations; ++i) call(operands, in_place);
  const double mean =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iterations;
  // Then as many calls again, each timed on its own, for the spread; one all_reduce
  // takes every rank's worst of everything. Sized before, so recording allocates nothing.
  std::vector<double> times(iterations + 2);
  times[iterations] = mean;
  times[iterations + 1] = double(allocations() - allocations_before) / iterations;
  barrier();
  Clock::time_point last = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    call(operands, in_place);
    const Clock::time_point now = Clock::now();
    times[i] = std::chrono::duration<double, std::micro>(now - last).count();
    last = now;
  }
  all_reduce(view(times), ReduceOp::kMax);
  Timing timing{times[iterations], times[iterations + 1], 0, 0, 0};
  times.resize(iterations);
  std::sort(times.begin(), times.end());
  // Nearest rank: the smallest time at least q of the calls did not exceed.
  auto percentile = [&](double q) {
    const size_t rank = static_cast<size_t>(std::ceil(q * iterations));
    return times[std::max<size_t>(rank, 1) - 1];
  };
  timing.p50_us = percentile(0.5);
  timing.p99_us = percentile(0.99);
  timing.max_us = times.back();
  return timing;
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
  std::optional<DeviceYardstick> yardstick;
  if (options.on_device) yardstick = measure_yardstick(options.max_bytes);
  const bool bounded = yardstick && yardstick->shared;
  std::unique_ptr<NcclBaseline> nccl;
  std::string no_nccl;
  if (options.compare_nccl) {
    if (!yardstick) throw InvalidArgument("--compare nccl needs device buffers (-d cuda)");
    nccl = NcclBaseline::connect(yardstick->device, no_nccl);
  }
  if (rank == 0) {
    std::printf("# weft-bench %s: %d ranks, %d iterations after %d warm-up, check %s\n", c.name, n,
                options.iterations, options.warmup, options.check ? "on" : "off");
    std::printf("# busbw = algbw x %.4f\n", c.busbw_factor(n));
    if (yardstick) {
      std::printf(
          "# device buffers on cuda:%d (%s); device memory bandwidth %.1f GB/s (read + "
          "write, device-to-device copy, best of 5)\n",
          yardstick->device, cuda::device_runtime().describe().c_str(), yardstick->bandwidth / 1e9);
      if (bounded) {
        std::printf(
            "# bound us = %.0f x size / bandwidth: the least device memory traffic of "
            "%s when all %d ranks share this one device; x bound = oop us / bound us\n",
            c.traffic(n), c.name, n);
      } else {
        std::printf("# no bound column: the ranks do not all share one device\n");
      }
    }
    if (options.compare_nccl) {
      if (nccl) {
        std::printf(
            "# nccl us: NCCL's out-of-place call in the same run, each call waited for; "
            "weft/nccl = oop us / nccl us\n");
      } else {
        std::printf("# NCCL not compared: %s\n", no_nccl.c_str());
      }
    }
    std::printf(
        "# allocs/op: heap allocations per call over the timed calls, the larger of "
        "out-of-place and in-place, on the rank that made the most\n"
        "# p50/p99/max us: single out-of-place calls, each the slowest rank's time\n");
    std::printf("%12s %12s %9s %6s %5s  %10s %8s %8s %6s  %10s %8s %8s %6s %9s %9s %9s %9s%s%s\n",
                "size", "count", "type", "redop", "root", "oop us", "algbw", "busbw", "#wrong",
                "ip us", "algbw", "busbw", "#wrong", "allocs/op", "p50 us", "p99 us", "max us",
                bounded ? "   bound us  x bound" : "", nccl ? "    nccl us weft/nccl" : "");
  }
  for (DType d : options.dtypes) {
    for (ReduceOp op : c.reduces ? options.ops : std::vector<ReduceOp>{ReduceOp::kSum}) {
      if (c.reduces && !collectives::reduce::op_supports(op, d)) continue;
      for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes;
           bytes = bytes * options.factor) {
        const uint64_t esize = dtype_size(d);
        uint64_t total = bytes / esize;
        if (c.shape != Shape::kVector) total = total / n * n;  // whole parts per rank
        const uint64_t part = c.shape == Shape::kVector ? total : total / n;
        Buffer big(d, total), small(d, c.which == Which::kAllToAll ? total : part);
        std::optional<DeviceTwin> big_device, small_device;
        if (yardstick) {
          big_device.emplace(big, yardstick->device);
          small_device.emplace(small, yardstick->device);
        }
        const Operands operands{big, small, big_device ? &*big_device : nullptr,
                                small_device ? &*small_device : nullptr};
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
                          0,
                          0,
                          0,
                          0};
        for (bool in_place : {false, true}) {
          const Timing timing =
              time_calls(call, operands, in_place, options.warmup, options.iterations);
          const double us = timing.us;
          row.allocs_per_op = std::max(row.allocs_per_op, timing.allocs);
          if (!in_place) {
            row.oop_p50_us = timing.p50_us;
            row.oop_p99_us = timing.p99_us;
            row.oop_max_us = timing.max_us;
          }
          uint64_t wrong = options.check ? checked_call(call, operands, in_place) : 0;
          std::vector<uint64_t> all_wrong{wrong};
          all_reduce(view(all_wrong));
          double algbw = row.bytes / us / 1e3;  // GB/s
          (in_place ? row.ip_us : row.oop_us) = us;
          (in_place ? row.ip_algbw : row.oop_algbw) = algbw;
          (in_place ? row.ip_busbw : row.oop_busbw) = algbw * c.busbw_factor(n);
          (in_place ? row.ip_wrong : row.oop_wrong) = all_wrong[0];
        }
        if (bounded) row.bound_us = c.traffic(n) * row.bytes / yardstick->bandwidth * 1e6;
        if (nccl) {
          row.nccl_us = nccl->time(c.name, operands.big(), operands.small(), call.root, op,
                                   options.warmup, options.iterations)
                            .value_or(0);
        }
        if (rank == 0) {
          char bound[96] = "";
          int at = 0;
          if (bounded) {
            at = std::snprintf(bound, sizeof bound, " %10.2f %8.3f", row.bound_us,
                               row.oop_us / row.bound_us);
          }
          if (nccl && row.nccl_us > 0) {
            std::snprintf(bound + at, sizeof bound - at, " %10.2f %8.3f", row.nccl_us,
                          row.oop_us / row.nccl_us);
          } else if (nccl) {
            std::snprintf(bound + at, sizeof bound - at, " %10s %8s", "-", "-");
          }
          std::printf(
              "%12llu %12llu %9s %6s %5d  %10.2f %8.3f %8.3f %6llu  %10.2f %8.3f %8.3f %6llu "
              "%9.2f %9.2f %9.2f %9.2f%s\n",
              static_cast<unsigned long long>(row.bytes),
              static_cast<unsigned long long>(row.count), dtype_name(d), row.redop, row.root,
              row.oop_us, row.oop_algbw, row.oop_busbw,
              static_cast<unsigned long long>(row.oop_wrong), row.ip_us, row.ip_algbw, row.ip_busbw,
              static_cast<unsigned long long>(row.ip_wrong), row.allocs_per_op, row.oop_p50_us,
              row.oop_p99_us, row.oop_max_us, bound);
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
    char line[1024];
    std::snprintf(
        line, sizeof line,
        "    {\"bytes\": %llu, \"count\": %llu, \"type\": \"%s\", \"redop\": \"%s\", "
        "\"root\": %d, \"oop_us\": %.3f, \"ip_us\": %.3f, \"oop_algbw\": %.4f, "
        "\"oop_busbw\": %.4f, \"ip_algbw\": %.4f, \"ip_busbw\": %.4f, "
        "\"oop_wrong\": %llu, \"ip_wrong\": %llu, \"bound_us\": %.3f, \"nccl_us\": %.3f, "
        "\"allocs_per_op\": %.3f, \"oop_p50_us\": %.3f, \"oop_p99_us\": %.3f, "
        "\"oop_max_us\": %.3f}%s\n",
        static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.count),
        dtype_name(r.dtype), r.redop, r.root, r.oop_us, r.ip_us, r.oop_algbw, r.oop_busbw,
        r.ip_algbw, r.ip_busbw, static_cast<unsigned long long>(r.oop_wrong),
        static_cast<unsigned long long>(r.ip_wrong), r.bound_us, r.nccl_us, r.allocs_per_op,
        r.oop_p50_us, r.oop_p99_us, r.oop_max_us, i + 1 < rows.size() ? "," : "");
    out << line;
  }
  out << "  ]\n}\n";
  if (!out) throw Error(ErrorCode::kInternal, "cannot write " + path);
}

}  // namespace weft::bench
