// slow-calls: times every one of many small all_reduce calls from the moment the job
// starts, and names the calls that took longer than a threshold. weft-bench reports a
// batch's p50, p99 and max after its warm-up; stalls that come from where the ranks
// run (two ranks on one core, a third task taking a rank's core) tend to come early
// and rarely, so they are counted here over every call of many short jobs
// (tools/bench/slow_calls.sh runs the jobs and sums them; docs/BENCHMARKS.md, "The
// slowest calls").
//
//   weftrun -n 2 slow-calls [--calls N] [--bytes B] [--over-us T]
//
// Each rank prints one line per call slower than T (default 500) microseconds, with
// its time since init_process_group returned, then a summary:
//   slow-calls rank R: N calls of B bytes, K over T us, K2 over 1000 us, max M us
// The first call is left out of the counts: it includes the ranks' different arrival
// times from init, not a stall.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int calls = 3000;
  uint64_t bytes = 8;
  double over_us = 500;
};

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: weftrun -n 2 slow-calls [--calls N] [--bytes B] [--over-us T]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    const char* value = argv[++i];
    if (arg == "--calls") {
      o.calls = std::atoi(value);
    } else if (arg == "--bytes") {
      o.bytes = std::strtoull(value, nullptr, 10);
    } else if (arg == "--over-us") {
      o.over_us = std::atof(value);
    } else {
      usage();
    }
  }
  if (o.calls < 2 || o.bytes < 4 || o.over_us <= 0) usage();
  return o;
}

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  weft::init_process_group();
  const Clock::time_point start = Clock::now();
  const int rank = weft::get_rank();
  std::vector<float> values(options.bytes / sizeof(float), 1.0f);
  const weft::Tensor tensor(values.data(), values.size(), weft::DType::kFloat32);
  int slow = 0;
  int over_ms = 0;
  double max_us = 0;
  for (int call = 0; call < options.calls; ++call) {
    const Clock::time_point before = Clock::now();
    weft::all_reduce(tensor);
    const double us = micros(Clock::now() - before);
    if (call == 0) continue;
    max_us = std::max(max_us, us);
    if (us <= options.over_us) continue;
    ++slow;
    over_ms += us > 1000 ? 1 : 0;
    std::printf("slow-calls rank %d: call %d, %.2f ms after init, took %.0f us\n", rank, call,
                micros(before - start) / 1000, us);
  }
  std::printf(
      "slow-calls rank %d: %d calls of %llu bytes, %d over %.0f us, %d over 1000 us, max "
      "%.0f us\n",
      rank, options.calls - 1, static_cast<unsigned long long>(options.bytes), slow,
      options.over_us, over_ms, max_us);
  weft::destroy_process_group();
  return 0;
}
