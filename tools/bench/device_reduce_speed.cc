// device-reduce-speed: weft's device reduction kernel against a device-to-device copy of
// the same bytes, on one GPU.
//
//   device-reduce-speed [--min-bytes N] [--max-bytes N] [--reps N] [--device D]
//
// For each dtype and size (powers of four from --min-bytes, default 1M, to --max-bytes,
// default 1G) it times the kernel of all_reduce, dst = a op b (op sum, and max for the
// floating dtypes), and copy(dst, a), each queued --reps times on one stream and waited
// for once. The kernel reads two buffers and writes one where the copy reads one and
// writes one, so a kernel running at the speed of memory takes 1.5 times the copy's
// time. GB/s counts the bytes read and written (3 or 2 buffers), as the bandwidth
// figures of GPU data sheets do.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/env.h"
#include "cuda/device_runtime.h"
#include "tools/bench/typed_values.h"
#include "weft/error.h"
#include "weft/tensor.h"

namespace {

using Clock = std::chrono::steady_clock;
using weft::cuda::DeviceRuntime;

struct Options {
  uint64_t min_bytes = 1 << 20;
  uint64_t max_bytes = 1 << 30;
  int reps = 20;
  int device = 0;
};

int usage(const char* why) {
  if (why) std::fprintf(stderr, "device-reduce-speed: %s\n", why);
  std::fprintf(stderr,
               "usage: device-reduce-speed [--min-bytes N] [--max-bytes N] [--reps N] "
               "[--device D]\n  sizes accept K, M and G suffixes\n");
  return 2;
}

uint64_t parse_bytes(const std::string& flag, const char* text) {
  auto bytes = weft::base::env::parse_bytes(text);
  if (!bytes || *bytes == 0) {
    throw weft::InvalidArgument(flag + " " + text + ": expected a byte count such as 4M or 1G");
  }
  return *bytes;
}

// Device memory, freed at the end of the scope.
class DeviceMemory {
 public:
  DeviceMemory(DeviceRuntime& rt, uint64_t bytes, int device)
      : rt_(rt), device_(device), p_(rt.allocate_device(bytes, device)) {}
  ~DeviceMemory() { rt_.free_device(p_, device_); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return p_; }

 private:
  DeviceRuntime& rt_;
  int device_;
  void* p_;
};

// Fills device memory with integer values of `dtype` (no NaNs or denormals, whose
// handling is not what is being timed).
void fill(DeviceRuntime& rt, weft::cuda::Stream stream, weft::DType dtype, void* device_data,
          uint64_t bytes, int seed) {
  const uint64_t count = bytes / weft::dtype_size(dtype);
  std::vector<std::byte> host(bytes);
  for (uint64_t i = 0; i < count; ++i) {
    weft::bench::store(dtype, host.data(), i, static_cast<double>((i * 7 + seed) % 64));
  }
  rt.copy(device_data, host.data(), bytes, stream);
  rt.synchronize_stream(stream);
}

// Seconds per call: `reps` calls queued back to back and waited for once, the median
// of five such batches.
template <typename Queue>
double seconds_per_call(DeviceRuntime& rt, weft::cuda::Stream stream, int reps, Queue queue) {
  queue();
  rt.synchronize_stream(stream);
  std::vector<double> batches;
  for (int batch = 0; batch < 5; ++batch) {
    const auto start = Clock::now();
    for (int i = 0; i < reps; ++i) queue();
    rt.synchronize_stream(stream);
    batches.push_back(std::chrono::duration<double>(Clock::now() - start).count() / reps);
  }
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

void run(const Options& options) {
  DeviceRuntime& rt = weft::cuda::device_runtime();
  const int devices = rt.device_count();  // throws, saying why, without a usable device
  if (options.device >= devices) {
    throw weft::InvalidArgument("--device " + std::to_string(options.device) + ": only " +
                                std::to_string(devices) + " device(s)");
  }
  const int device = options.device;
  const weft::cuda::Stream stream = rt.create_stream(device);
  DeviceMemory a(rt, options.max_bytes, device), b(rt, options.max_bytes, device),
      dst(rt, options.max_bytes, device);

  std::printf("# device-reduce-speed: %s, device %d; reduce dst = a op b vs. copy(dst, a)\n",
              rt.describe().c_str(), device);
  std::printf(
      "# %d calls queued per batch, median of 5 batches; GB/s counts bytes read and "
      "written (3 buffers for reduce, 2 for copy); ratio 1.5 = the speed of memory\n",
      options.reps);
  std::printf("# %-9s %-4s %11s %11s %11s %7s %10s %10s\n", "dtype", "op", "bytes", "reduce_us",
              "copy_us", "ratio", "red_GB/s", "cpy_GB/s");
  const weft::DType dtypes[] = {
      weft::DType::kFloat32, weft::DType::kFloat16, weft::DType::kBFloat16, weft::DType::kFloat64,
      weft::DType::kInt8,    weft::DType::kUInt8,   weft::DType::kInt32,    weft::DType::kInt64};
  for (weft::DType dtype : dtypes) {
    fill(rt, stream, dtype, a.get(), options.max_bytes, 1);
    fill(rt, stream, dtype, b.get(), options.max_bytes, 2);
    const bool floating = dtype == weft::DType::kFloat32 || dtype == weft::DType::kFloat16 ||
                          dtype == weft::DType::kBFloat16 || dtype == weft::DType::kFloat64;
    std::vector<weft::ReduceOp> ops = {weft::ReduceOp::kSum};
    if (floating) ops.push_back(weft::ReduceOp::kMax);
    for (weft::ReduceOp op : ops) {
      for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= 4) {
        const void* inputs[] = {a.get(), b.get()};
        void* outputs[] = {dst.get()};
        weft::cuda::ReduceTask task;
        task.op = op;
        task.dtype = dtype;
        task.count = bytes / weft::dtype_size(dtype);
        task.inputs = inputs;
        task.outputs = outputs;
        const double reduce_s =
            seconds_per_call(rt, stream, options.reps, [&] { rt.reduce(task, stream); });
        const double copy_s = seconds_per_call(rt, stream, options.reps,
                                               [&] { rt.copy(dst.get(), a.get(), bytes, stream); });
        std::printf("  %-9s %-4s %11llu %11.2f %11.2f %7.2f %10.1f %10.1f\n",
                    weft::dtype_name(dtype), op == weft::ReduceOp::kSum ? "sum" : "max",
                    static_cast<unsigned long long>(bytes), reduce_s * 1e6, copy_s * 1e6,
                    reduce_s / copy_s, 3.0 * bytes / reduce_s / 1e9, 2.0 * bytes / copy_s / 1e9);
        std::fflush(stdout);
      }
    }
  }
  rt.destroy_stream(stream);
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
      } else if (flag == "--device") {
        options.device = std::max(0, std::atoi(value));
      } else {
        return usage(("unknown option " + flag).c_str());
      }
    }
    if (options.min_bytes > options.max_bytes) return usage("--min-bytes exceeds --max-bytes");
    run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "device-reduce-speed: %s\n", e.what());
    return 1;
  }
  return 0;
}
