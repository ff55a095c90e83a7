// weft-bench: benchmarks that compare weft with a baseline measured in the same run,
// and the nccl-tests-style tables of the collectives.
//
//   weftrun -n 2 weft-bench pingpong [--min-bytes N] [--max-bytes N] [--iters N]
//                                    [--window N] [--json FILE]
//   weftrun -n N weft-bench COLLECTIVE [-b BYTES] [-e BYTES] [-f FACTOR] [-n ITERS]
//                                      [-w WARMUP] [-c 0|1] [-o OP|all] [-d TYPE|all]
//                                      [-d cuda|cpu] [--compare nccl] [-r ROOT]
//                                      [--json FILE]
//
// Both print weft's heap allocations per operation beside its times (allocs/rt and
// allocs/msg for pingpong, allocs/op for the collectives), counted by
// allocation_counter.h over the timed calls.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "base/env.h"
#include "tools/bench/collectives.h"
#include "tools/bench/pingpong.h"
#include "weft/weft.h"

namespace {

int usage(const char* why) {
  if (why) std::fprintf(stderr, "weft-bench: %s\n", why);
  std::fprintf(stderr,
               "usage: weftrun -n 2 weft-bench pingpong [--min-bytes N] [--max-bytes N] "
               "[--iters N] [--window N] [--json FILE]\n"
               "       weftrun -n N weft-bench COLLECTIVE [-b BYTES] [-e BYTES] [-f FACTOR] "
               "[-n ITERS] [-w WARMUP] [-c 0|1] [-o OP|all] [-d TYPE|all] [-d cuda|cpu] "
               "[--compare nccl] [-r ROOT] [--json FILE]\n"
               "  COLLECTIVE: all_reduce, broadcast, reduce, all_gather, gather, scatter, "
               "reduce_scatter, all_to_all\n"
               "  OP: sum, prod, min, max, avg, band, bor, bxor; TYPE: int8, uint8, int32, "
               "uint32, int64, uint64, half, bfloat16, float, double (or the dtype names)\n"
               "  -d cuda: device buffers (one GPU per rank by LOCAL_RANK), with the bound the "
               "device memory bandwidth sets; --compare nccl adds NCCL's times (libnccl.so.2, "
               "loaded at run time; comparison only)\n"
               "  sizes accept K, M and G suffixes; --json writes the rows for tools\n"
               "       weft-bench --version   prints weft's version\n");
  return 2;
}

uint64_t parse_bytes(const char* flag, const char* text) {
  auto bytes = weft::base::env::parse_bytes(text);
  if (!bytes) {
    throw weft::InvalidArgument(std::string(flag) + " " + text +
                                ": expected a byte count such as 65536, 64K, 4M or 1G");
  }
  return *bytes;
}

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || n < 1 || n > 100000000) {
    throw weft::InvalidArgument(std::string(flag) + " " + text + ": expected a positive count");
  }
  return static_cast<int>(n);
}

void write_json(const std::string& path, const std::vector<weft::bench::PingPongRow>& rows) {
  std::ofstream out(path);
  out << "{\n  \"benchmark\": \"pingpong\",\n  \"baseline\": \"raw TCP socket\",\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    char line[512];
    std::snprintf(line, sizeof line,
                  "    {\"bytes\": %llu, \"weft_us\": %.3f, \"baseline_us\": %.3f, "
                  "\"weft_gbps\": %.4f, \"baseline_gbps\": %.4f, \"wrong\": %llu, "
                  "\"allocs_per_round_trip\": %.3f, \"window_allocs_per_message\": %.3f}%s\n",
                  static_cast<unsigned long long>(r.bytes), r.weft_us, r.baseline_us, r.weft_gbps,
                  r.baseline_gbps, static_cast<unsigned long long>(r.wrong),
                  r.allocs_per_round_trip, r.window_allocs_per_message,
                  i + 1 < rows.size() ? "," : "");
    out << line;
  }
  out << "  ]\n}\n";
  if (!out) throw weft::Error(weft::ErrorCode::kInternal, "cannot write " + path);
}

std::vector<weft::DType> parse_dtypes(const std::string& text) {
  static const std::pair<const char*, weft::DType> names[] = {
      {"int8", weft::DType::kInt8},       {"uint8", weft::DType::kUInt8},
      {"int32", weft::DType::kInt32},     {"int", weft::DType::kInt32},
      {"uint32", weft::DType::kUInt32},   {"int64", weft::DType::kInt64},
      {"uint64", weft::DType::kUInt64},   {"half", weft::DType::kFloat16},
      {"float16", weft::DType::kFloat16}, {"bfloat16", weft::DType::kBFloat16},
      {"float", weft::DType::kFloat32},   {"float32", weft::DType::kFloat32},
      {"double", weft::DType::kFloat64},  {"float64", weft::DType::kFloat64}};
  std::vector<weft::DType> all;
  for (int d = 0; d < weft::kNumDTypes; ++d) all.push_back(static_cast<weft::DType>(d));
  if (text == "all") return all;
  for (const auto& [name, dtype] : names) {
    if (text == name) return {dtype};
  }
  throw weft::InvalidArgument("-d " + text + ": unknown type");
}

std::vector<weft::ReduceOp> parse_ops(const std::string& text) {
  std::vector<weft::ReduceOp> all;
  for (int op = 0; op < weft::kNumReduceOps; ++op) all.push_back(static_cast<weft::ReduceOp>(op));
  if (text == "all") return all;
  for (weft::ReduceOp op : all) {
    if (text == weft::reduce_op_name(op)) return {op};
  }
  throw weft::InvalidArgument("-o " + text + ": unknown op");
}

int run_collective(const std::string& collective, int argc, char** argv) {
  weft::bench::CollectiveOptions options;
  options.collective = collective;
  for (int i = 2; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + flag).c_str());
    const char* value = argv[++i];
    if (flag == "-b") {
      options.min_bytes = std::max<uint64_t>(1, parse_bytes("-b", value));
    } else if (flag == "-e") {
      options.max_bytes = parse_bytes("-e", value);
    } else if (flag == "-f") {
      options.factor = parse_count("-f", value);
    } else if (flag == "-n") {
      options.iterations = parse_count("-n", value);
    } else if (flag == "-w") {
      options.warmup = std::string(value) == "0" ? 0 : parse_count("-w", value);
    } else if (flag == "-c") {
      options.check = std::string(value) != "0";
    } else if (flag == "-o") {
      options.ops = parse_ops(value);
    } else if (flag == "-d" || flag == "--device") {
      // -d names a dtype, as in nccl-tests, or the buffers' device: cuda or cpu.
      if (std::string(value) == "cuda" || std::string(value) == "cpu") {
        options.on_device = std::string(value) == "cuda";
      } else if (flag == "-d") {
        options.dtypes = parse_dtypes(value);
      } else {
        return usage("--device takes cuda or cpu");
      }
    } else if (flag == "-r") {
      options.root = std::atoi(value);
    } else if (flag == "--json") {
      options.json_path = value;
    } else if (flag == "--compare") {
      if (std::string(value) != "nccl") return usage("--compare takes nccl");
      options.compare_nccl = true;
    } else {
      return usage(("unknown option " + flag).c_str());
    }
  }
  if (options.min_bytes > options.max_bytes) return usage("-b exceeds -e");
  if (options.compare_nccl && !options.on_device) return usage("--compare nccl needs -d cuda");
  weft::init_process_group();
  auto rows = weft::bench::run_collective_benchmark(options);
  if (weft::get_rank() == 0 && !options.json_path.empty()) {
    weft::bench::write_collective_json(options.json_path, options, rows);
  }
  uint64_t wrong = 0;
  for (const auto& r : rows) wrong += r.oop_wrong + r.ip_wrong;
  weft::destroy_process_group();
  return wrong == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    return usage(nullptr);
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("weft-bench (weft) %s\n", weft::kVersion);
    return 0;
  }
  if (weft::bench::is_benchmarked_collective(argv[1])) {
    try {
      return run_collective(argv[1], argc, argv);
    } catch (const weft::InvalidArgument& e) {
      return usage(e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "weft-bench: %s\n", e.what());
      return 1;
    }
  }
  if (std::strcmp(argv[1], "pingpong") != 0) return usage("unknown benchmark");
  weft::bench::PingPongOptions options;
  try {
    for (int i = 2; i < argc; ++i) {
      std::string flag = argv[i];
      if (i + 1 >= argc) return usage(("missing value after " + flag).c_str());
      const char* value = argv[++i];
      if (flag == "--min-bytes") {
        options.min_bytes = std::max<uint64_t>(1, parse_bytes("--min-bytes", value));
      } else if (flag == "--max-bytes") {
        options.max_bytes = parse_bytes("--max-bytes", value);
      } else if (flag == "--iters") {
        options.iterations = parse_count("--iters", value);
      } else if (flag == "--window") {
        options.window = parse_count("--window", value);
      } else if (flag == "--json") {
        options.json_path = value;
      } else {
        return usage(("unknown option " + flag).c_str());
      }
    }
    if (options.min_bytes > options.max_bytes) return usage("--min-bytes exceeds --max-bytes");
    weft::init_process_group();
    if (weft::get_world_size() != 2) {
      std::fprintf(stderr,
                   "weft-bench pingpong needs exactly 2 ranks (it has %d): run it as "
                   "`weftrun -n 2 weft-bench pingpong`\n",
                   weft::get_world_size());
      return 2;
    }
    auto rows = weft::bench::run_pingpong(options);
    if (weft::get_rank() == 0 && !options.json_path.empty()) write_json(options.json_path, rows);
    weft::destroy_process_group();
  } catch (const weft::InvalidArgument& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
