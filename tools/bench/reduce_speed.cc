// reduce-speed: the element-wise sum kernel against memcpy of the same bytes.
//
//   reduce-speed [--min-bytes N] [--max-bytes N] [--reps N]
//
// For each dtype and size (powers of four from --min-bytes, default 4K, to --max-bytes,
// default 64M) it times reduce_elements(sum, dst, a, b) and memcpy(dst, a) on the same
// buffers. A reduction reads two buffers and writes one where memcpy reads one and
// writes one: 3 streams of memory traffic against 2, or 4 against 3 when each written
// line is first read into the cache (memcpy may bypass the cache for large copies).
// Once the buffers outgrow the caches, a ratio of 1.33 to 1.5 therefore means the
// kernel runs at the speed of memory. GB/s is 10^9 bytes of one buffer per second.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/env.h"
#include "collectives/reduce/reduce_kernels.h"
#include "weft/error.h"
#include "weft/tensor.h"

namespace {

using Clock = std::chrono::steady_clock;

// Keeps the compiler from dropping or merging copies whose result nothing reads.
void clobber_memory() { asm volatile("" ::: "memory"); }

struct Options {
  uint64_t min_bytes = 4 << 10;
  uint64_t max_bytes = 64 << 20;
  int reps = 15;
};

int usage(const char* why) {
  if (why) std::fprintf(stderr, "reduce-speed: %s\n", why);
  std::fprintf(stderr,
               "usage: reduce-speed [--min-bytes N] [--max-bytes N] [--reps N]\n"
               "  sizes accept K, M and G suffixes\n");
  return 2;
}

uint64_t parse_bytes(const std::string& flag, const char* text) {
  auto bytes = weft::base::env::parse_bytes(text);
  if (!bytes || *bytes == 0) {
    throw weft::InvalidArgument(flag + " " + text + ": expected a byte count such as 4K or 64M");
  }
  return *bytes;
}

// Fills a buffer with ordinary values of the dtype (small integers), touching every
// page: first-touch page faults would otherwise land in the first timed runs, and
// denormals or NaNs would time the slow paths of some CPUs instead of the kernel.
void fill(weft::DType dtype, void* data, uint64_t bytes, int seed) {
  const uint64_t count = bytes / weft::dtype_size(dtype);
  for (uint64_t i = 0; i < count; ++i) {
    const float value = static_cast<float>((i * 7 + seed) % 64);
    switch (dtype) {
      case weft::DType::kFloat32:
        static_cast<float*>(data)[i] = value;
        break;
      case weft::DType::kFloat64:
        static_cast<double*>(data)[i] = value;
        break;
      case weft::DType::kFloat16:
        static_cast<weft::float16*>(data)[i] = weft::collectives::reduce::float_to_float16(value);
        break;
      case weft::DType::kBFloat16:
        static_cast<weft::bfloat16*>(data)[i] = weft::collectives::reduce::float_to_bfloat16(value);
        break;
      case weft::DType::kInt32:
        static_cast<int32_t*>(data)[i] = static_cast<int32_t>(value);
        break;
      default:
        throw weft::InvalidArgument("reduce-speed: no fill for this dtype");
    }
  }
}

// Seconds per call of `body`: calls are batched so that a batch lasts about a
// millisecond (the clock's cost and granularity vanish), and the figure is the median
// batch, since a descheduled process stalls a batch on a shared machine.
class Timer {
 public:
  explicit Timer(int calls_per_batch) : calls_per_batch_(calls_per_batch) {}

  template <typename Body>
  void batch(Body body) {
    const auto start = Clock::now();
    for (int i = 0; i < calls_per_batch_; ++i) {
      body();
      clobber_memory();
    }
    batches_.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                       calls_per_batch_);
  }

  double median() {
    std::sort(batches_.begin(), batches_.end());
    return batches_[batches_.size() / 2];
  }

 private:
  int calls_per_batch_;
  std::vector<double> batches_;
};

template <typename Body>
int calls_for_a_millisecond(Body body) {
  body();  // warm the caches and the branch predictors
  const auto start = Clock::now();
  body();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<int>(std::clamp(1e-3 / std::max(seconds, 1e-9), 1.0, 100000.0));
}

void run(const Options& options) {
  const weft::DType dtypes[] = {weft::DType::kFloat32, weft::DType::kFloat16,
                                weft::DType::kBFloat16, weft::DType::kInt32, weft::DType::kFloat64};
  // 64-byte alignment, as large tensors from any allocator have.
  const uint64_t capacity = (options.max_bytes + 63) / 64 * 64;
  auto* a = static_cast<unsigned char*>(std::aligned_alloc(64, capacity));
  auto* b = static_cast<unsigned char*>(std::aligned_alloc(64, capacity));
  auto* dst = static_cast<unsigned char*>(std::aligned_alloc(64, capacity));
  if (!a || !b || !dst) throw weft::Error(weft::ErrorCode::kInternal, "out of memory");
  std::memset(dst, 0, capacity);

  std::printf("# reduce-speed: reduce_elements(sum, dst, a, b) vs. memcpy(dst, a), %d batches\n",
              options.reps);
  std::printf("# %-9s %10s %11s %11s %7s %10s %10s\n", "dtype", "bytes", "reduce_us", "memcpy_us",
              "ratio", "red_GB/s", "cpy_GB/s");
  for (weft::DType dtype : dtypes) {
    fill(dtype, a, capacity, 1);
    fill(dtype, b, capacity, 2);
    for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= 4) {
      const uint64_t count = bytes / weft::dtype_size(dtype);
      auto reduce = [&] {
        weft::collectives::reduce::reduce_elements(weft::ReduceOp::kSum, dtype, dst, a, b, count);
      };
      auto copy = [&] { std::memcpy(dst, a, bytes); };
      Timer reduce_timer(calls_for_a_millisecond(reduce));
      Timer copy_timer(calls_for_a_millisecond(copy));
      // Alternating batches let both see the same machine conditions.
      for (int rep = 0; rep < options.reps; ++rep) {
        reduce_timer.batch(reduce);
        copy_timer.batch(copy);
      }
      const double reduce_s = reduce_timer.median();
      const double copy_s = copy_timer.median();
      std::printf("  %-9s %10llu %11.2f %11.2f %7.2f %10.2f %10.2f\n", weft::dtype_name(dtype),
                  static_cast<unsigned long long>(bytes), reduce_s * 1e6, copy_s * 1e6,
                  reduce_s / copy_s, bytes / reduce_s / 1e9, bytes / copy_s / 1e9);
      std::fflush(stdout);
    }
  }
  std::free(a);
  std::free(b);
  std::free(dst);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      if (flag == "-h" || flag == "--help") return usage(nullptr);
      if (i + 1 >= argc) return usage(("missing value after " + flag).c_str());
      const char* value = argv[++i];
      if (flag == "--min-bytes") {
        options.min_bytes = parse_bytes(flag, value);
      } else if (flag == "--max-bytes") {
        options.max_bytes = parse_bytes(flag, value);
      } else if (flag == "--reps") {
        options.reps = std::max(1, std::atoi(value));
      } else {
        return usage(("unknown option " + flag).c_str());
      }
    }
    if (options.min_bytes > options.max_bytes) return usage("--min-bytes exceeds --max-bytes");
    run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reduce-speed: %s\n", e.what());
    return 1;
  }
  return 0;
}
