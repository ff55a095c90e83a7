// gloo_allreduce: Gloo's all_reduce (float32 sum over TCP) timed the way weft-bench times
// weft's, so that tools/bench/compare_gloo.sh can put the two side by side. A comparison
// tool only: it links the system Gloo, and nothing in weft depends on it.
//
//   weftrun -n 2 gloo_allreduce --store DIR [-b 8] [-e 4M] [-f 2] [-n 20] [-w 5]
//                               [-a ALGORITHM] [--host 127.0.0.1] [--json FILE]
//
// Rank and size come from RANK and WORLD_SIZE (weftrun sets them); the ranks meet through
// a Gloo FileStore in DIR (or $GLOO_STORE), which all ranks share and which must hold no
// keys from an earlier job: this Gloo has no TCP store.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gloo/allreduce.h"
#include "gloo/allreduce_bcube.h"
#include "gloo/allreduce_halving_doubling.h"
#include "gloo/allreduce_ring.h"
#include "gloo/allreduce_ring_chunked.h"
#include "gloo/barrier_all_to_all.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"

namespace {

// Gloo has two interfaces to all_reduce: the algorithm classes, which reduce in place and
// set up their buffers once, in the constructor; and the function `gloo::allreduce`,
// which takes its algorithm as an option, reduces out of place and sets up per call.
// Every one can be measured; docs/BENCHMARKS.md says which are fastest here.
//
// Gloo's TCP pairs normally hand each received message from the device's event-loop
// thread to the waiting caller. In "sync mode" the caller reads the socket itself,
// busy-polling, which saves that wake-up (the classes only: `gloo::allreduce` refuses
// sync pairs). Sync writes block, though, and two ranks that both write a message larger
// than the socket buffers deadlock, so the polling variant stops at kPollMaxBytes.
struct Algorithm {
  const char* name;
  const char* gloo_name;
  bool in_place;
  bool busy_poll = false;
};

constexpr uint64_t kPollMaxBytes = 64 << 10;

const Algorithm kAlgorithms[] = {
    {"ring", "gloo::AllreduceRing", true},
    {"ring_chunked", "gloo::AllreduceRingChunked", true},
    {"halving_doubling", "gloo::AllreduceHalvingDoubling", true},
    {"bcube", "gloo::AllreduceBcube", true},
    {"ring_poll", "gloo::AllreduceRing on busy-polling sync pairs", true, true},
    {"opts_ring", "gloo::allreduce, AllreduceOptions::RING", false},
    {"opts_bcube", "gloo::allreduce, AllreduceOptions::BCUBE", false},
};

const Algorithm* find_algorithm(const std::string& name) {
  for (const Algorithm& algorithm : kAlgorithms) {
    if (name == algorithm.name) return &algorithm;
  }
  return nullptr;
}

struct Options {
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 4ull << 20;
  uint64_t factor = 2;
  int iterations = 20;
  int warmup = 5;
  const Algorithm* algorithm = &kAlgorithms[0];
  std::string host = "127.0.0.1";
  std::string store;
  std::string json_path;
};

struct Row {
  uint64_t bytes;
  size_t count;
  double median_us, mean_us;
  uint64_t wrong;  // result elements that differ from the exact sum, all ranks together
};

int usage(const char* why) {
  if (why) std::fprintf(stderr, "gloo_allreduce: %s\n", why);
  std::fprintf(stderr,
               "usage: weftrun -n N gloo_allreduce --store DIR [-b BYTES] [-e BYTES] [-f N] "
               "[-n ITERS] [-w ITERS] [-a ALGORITHM] [--host ADDR] [--json FILE]\n"
               "  sizes accept K, M and G suffixes; DIR may also come from $GLOO_STORE\n"
               "  ALGORITHM (default %s):\n",
               kAlgorithms[0].name);
  for (const Algorithm& algorithm : kAlgorithms) {
    std::fprintf(stderr, "    %-17s %s, %s\n", algorithm.name, algorithm.gloo_name,
                 algorithm.in_place ? "in place" : "out of place");
  }
  std::fprintf(stderr, "  ring_poll measures sizes up to %llu bytes only\n",
               static_cast<unsigned long long>(kPollMaxBytes));
  return 2;
}

uint64_t parse_bytes(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  std::string suffix = end;
  uint64_t scale = 0;
  if (suffix.empty()) {
    scale = 1;
  } else if (suffix == "K" || suffix == "k") {
    scale = 1ull << 10;
  } else if (suffix == "M" || suffix == "m") {
    scale = 1ull << 20;
  } else if (suffix == "G" || suffix == "g") {
    scale = 1ull << 30;
  }
  if (end == text.c_str() || errno != 0 || scale == 0 || value > UINT64_MAX / scale) {
    throw std::invalid_argument(flag + " " + text + ": expected a byte count such as 4096 or 4M");
  }
  return value * scale;
}

int parse_count(const std::string& flag, const std::string& text, int min) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < min || value > 100000000) {
    throw std::invalid_argument(flag + " " + text + ": expected a count of at least " +
                                std::to_string(min));
  }
  return static_cast<int>(value);
}

int env_int(const char* name) {
  const char* text = std::getenv(name);
  if (!text) throw std::invalid_argument(std::string(name) + " is not set (run under weftrun)");
  return parse_count(name, text, 0);
}

// The inputs are small integers, so every partial sum is exact in float32 whatever order
// Gloo adds in, and the result can be compared exactly.
float input_value(int rank, size_t i) { return static_cast<float>((i + 3 * rank) % 13 + rank); }

float expected_value(int size, size_t i) {
  float sum = 0;
  for (int rank = 0; rank < size; ++rank) sum += input_value(rank, i);
  return sum;
}

// One size's buffers and Gloo's algorithm over them.
class Allreduce {
 public:
  Allreduce(const std::shared_ptr<gloo::Context>& context, const Algorithm& algorithm, size_t count)
      : context_(context), in_place_(algorithm.in_place), pristine_(count) {
    for (size_t i = 0; i < count; ++i) pristine_[i] = input_value(context->rank, i);
    in_ = pristine_;
    if (!in_place_) out_.resize(count);
    std::vector<float*> ptrs = {in_.data()};
    const int n = static_cast<int>(count);
    const std::string name = algorithm.name;
    if (name == "ring" || name == "ring_poll") {
      classic_ = std::make_unique<gloo::AllreduceRing<float>>(context, ptrs, n);
    } else if (name == "ring_chunked") {
      classic_ = std::make_unique<gloo::AllreduceRingChunked<float>>(context, ptrs, n);
    } else if (name == "halving_doubling") {
      classic_ = std::make_unique<gloo::AllreduceHalvingDoubling<float>>(context, ptrs, n);
    } else if (name == "bcube") {
      classic_ = std::make_unique<gloo::AllreduceBcube<float>>(context, ptrs, n);
    } else {
      options_ = std::make_unique<gloo::AllreduceOptions>(context);
      options_->setAlgorithm(name == "opts_ring" ? gloo::AllreduceOptions::Algorithm::RING
                                                 : gloo::AllreduceOptions::Algorithm::BCUBE);
      options_->setInput(in_.data(), count);
      options_->setOutput(out_.data(), count);
      options_->setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    }
  }

  // Runs before every call, outside the timing: reducing in place consumes the input.
  void prepare() {
    if (in_place_) std::copy(pristine_.begin(), pristine_.end(), in_.begin());
  }

  void run() {
    if (classic_) {
      classic_->run();
    } else {
      gloo::allreduce(*options_);
    }
  }

  // Runs once more on a fresh input and a poisoned output and counts the wrong elements.
  uint64_t check() {
    std::fill(out_.begin(), out_.end(), -1.0f);
    prepare();
    run();
    const std::vector<float>& result = in_place_ ? in_ : out_;
    uint64_t wrong = 0;
    for (size_t i = 0; i < result.size(); ++i) {
      if (result[i] != expected_value(context_->size, i)) ++wrong;
    }
    return wrong;
  }

 private:
  std::shared_ptr<gloo::Context> context_;
  bool in_place_;
  std::vector<float> pristine_, in_, out_;
  std::unique_ptr<gloo::Algorithm> classic_;
  std::unique_ptr<gloo::AllreduceOptions> options_;
};

// Element-wise reduction of a few numbers across ranks, for the timings and error counts.
template <typename T>
void reduce_across_ranks(const std::shared_ptr<gloo::Context>& context, std::vector<T>& values,
                         const gloo::ReductionFunction<T>* fn) {
  if (context->size == 1 || values.empty()) return;
  std::vector<T*> ptrs = {values.data()};
  gloo::AllreduceRing<T>(context, ptrs, static_cast<int>(values.size()), fn).run();
}

void barrier(const std::shared_ptr<gloo::Context>& context) {
  gloo::BarrierAllToAll(context).run();
}

Row measure(const std::shared_ptr<gloo::Context>& context, const Options& options, uint64_t bytes) {
  size_t count = bytes / sizeof(float);
  Allreduce allreduce(context, *options.algorithm, count);
  for (int i = 0; i < options.warmup; ++i) {
    allreduce.prepare();
    allreduce.run();
  }
  barrier(context);
  std::vector<double> us(options.iterations);
  for (int i = 0; i < options.iterations; ++i) {
    allreduce.prepare();
    auto start = std::chrono::steady_clock::now();
    allreduce.run();
    auto end = std::chrono::steady_clock::now();
    us[i] = std::chrono::duration<double, std::micro>(end - start).count();
  }
  // An iteration is finished when its slowest rank is.
  reduce_across_ranks(context, us, gloo::ReductionFunction<double>::max);
  std::vector<uint64_t> wrong = {allreduce.check()};
  reduce_across_ranks(context, wrong, gloo::ReductionFunction<uint64_t>::sum);

  Row row{bytes, count, 0, 0, wrong[0]};
  for (double t : us) row.mean_us += t / us.size();
  std::sort(us.begin(), us.end());
  size_t mid = us.size() / 2;
  row.median_us = us.size() % 2 ? us[mid] : (us[mid - 1] + us[mid]) / 2;
  return row;
}

void write_json(const Options& options, int size, const std::vector<Row>& rows) {
  std::ofstream out(options.json_path);
  out << "{\n  \"benchmark\": \"all_reduce\",\n  \"library\": \"gloo\",\n  \"algorithm\": \""
      << options.algorithm->name
      << "\",\n  \"in_place\": " << (options.algorithm->in_place ? "true" : "false")
      << ",\n  \"ranks\": " << size << ",\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    char line[256];
    std::snprintf(line, sizeof line,
                  "    {\"bytes\": %llu, \"count\": %zu, \"gloo_us\": %.3f, \"gloo_mean_us\": "
                  "%.3f, \"wrong\": %llu}%s\n",
                  static_cast<unsigned long long>(r.bytes), r.count, r.median_us, r.mean_us,
                  static_cast<unsigned long long>(r.wrong), i + 1 < rows.size() ? "," : "");
    out << line;
  }
  out << "  ]\n}\n";
  if (!out) throw std::runtime_error("cannot write " + options.json_path);
}

int run(const Options& options) {
  const int rank = env_int("RANK");
  const int size = env_int("WORLD_SIZE");
  if (size < 1 || rank >= size) throw std::invalid_argument("RANK must be below WORLD_SIZE");

  // FileStore wants the directory to exist; every rank may create it, the others find it.
  if (mkdir(options.store.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error("cannot create " + options.store + ": " + std::strerror(errno));
  }
  gloo::rendezvous::FileStore file_store(options.store);
  // Keys are scoped by the launcher's port, so two jobs that share a directory by
  // mistake do not read each other's addresses.
  const char* port = std::getenv("MASTER_PORT");
  gloo::rendezvous::PrefixStore store(std::string("gloo_allreduce.") + (port ? port : "0"),
                                      file_store);
  gloo::transport::tcp::attr attr;
  attr.hostname = options.host;
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  context->setTimeout(std::chrono::seconds(120));
  context->connectFullMesh(store, device);
  if (options.algorithm->busy_poll) {
    for (int peer = 0; peer < size; ++peer) {
      if (peer != rank) context->getPair(peer)->setSync(true, /*busyPoll=*/true);
    }
  }

  const Algorithm& algorithm = *options.algorithm;
  if (rank == 0) {
    std::printf("# gloo_allreduce: %d ranks, float32 sum, %s (%s, %s), tcp on %s\n", size,
                algorithm.name, algorithm.gloo_name,
                algorithm.in_place ? "in place" : "out of place", options.host.c_str());
    std::printf("# %d warm-up and %d timed iterations per size; the median and mean of the\n",
                options.warmup, options.iterations);
    std::printf("# per-iteration times of the slowest rank\n");
    std::printf("#%12s %10s %10s %10s %6s\n", "bytes", "count", "gloo_us", "mean_us", "wrong");
    std::fflush(stdout);
  }
  std::vector<Row> rows;
  uint64_t wrong = 0;
  for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes;
       bytes = bytes > options.max_bytes / options.factor ? options.max_bytes + 1
                                                          : bytes * options.factor) {
    if (bytes < sizeof(float)) continue;
    if (algorithm.busy_poll && bytes > kPollMaxBytes) break;
    Row row = measure(context, options, bytes / sizeof(float) * sizeof(float));
    wrong += row.wrong;
    rows.push_back(row);
    if (rank == 0) {
      std::printf(" %12llu %10zu %10.2f %10.2f %6llu\n", static_cast<unsigned long long>(row.bytes),
                  row.count, row.median_us, row.mean_us,
                  static_cast<unsigned long long>(row.wrong));
      std::fflush(stdout);
    }
  }
  if (rank == 0 && !options.json_path.empty()) write_json(options, size, rows);
  barrier(context);
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const char* store = std::getenv("GLOO_STORE")) options.store = store;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string flag = argv[i];
      if (flag == "-h" || flag == "--help") return usage(nullptr);
      if (i + 1 >= argc) return usage(("missing value after " + flag).c_str());
      std::string value = argv[++i];
      if (flag == "-b") {
        options.min_bytes = parse_bytes(flag, value);
      } else if (flag == "-e") {
        options.max_bytes = parse_bytes(flag, value);
      } else if (flag == "-f") {
        options.factor = parse_count(flag, value, 2);
      } else if (flag == "-n") {
        options.iterations = parse_count(flag, value, 1);
      } else if (flag == "-w") {
        options.warmup = parse_count(flag, value, 0);
      } else if (flag == "-a") {
        options.algorithm = find_algorithm(value);
        if (!options.algorithm) return usage(("unknown algorithm " + value).c_str());
      } else if (flag == "--host") {
        options.host = value;
      } else if (flag == "--store") {
        options.store = value;
      } else if (flag == "--json") {
        options.json_path = value;
      } else {
        return usage(("unknown option " + flag).c_str());
      }
    }
    if (options.store.empty()) return usage("no store directory (--store DIR or $GLOO_STORE)");
    if (options.min_bytes == 0 || options.min_bytes > options.max_bytes) {
      return usage("-b must be at least 1 and at most -e");
    }
    // The algorithm classes count elements in an int.
    if (options.max_bytes / sizeof(float) > INT32_MAX) return usage("-e is too large");
    return run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gloo_allreduce: %s\n", e.what());
    return 1;
  }
}
