// mpi_bench: weft-bench's pingpong and all_reduce measurements, made with plain MPI-3
// calls, so that tools/bench/compare_mpi.sh can put Open MPI, MPICH and weft side by
// side. A comparison tool only: nothing in weft uses MPI. Build it with either MPI:
//
//   mpicc.openmpi -std=c11 -O2 -Wall -o mpi_bench tools/bench/mpi/mpi_bench.c
//   mpirun -n 2 mpi_bench pingpong [--min-bytes N] [--max-bytes N] [--iters N]
//                                  [--window N] [--json FILE]
//   mpirun -n N mpi_bench all_reduce [-b BYTES] [-e BYTES] [-f FACTOR] [-n ITERS]
//                                    [-w WARMUP] [--json FILE]
//   mpirun -n N mpi_bench broadcast|all_gather|reduce_scatter  (the same options)
//   mpirun -n 2 mpi_bench rate [--bytes N] [--windows N] [--window N]
//
// Every size, count and timing rule is the one of tools/bench/pingpong.cc and
// tools/bench/collectives.cc (float32 sum for all_reduce), so the figures compare
// directly: see docs/BENCHMARKS.md. Byte counts accept K, M and G suffixes (2^10...).
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The clock of std::chrono::steady_clock, which weft-bench uses.
static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int rank_, size_;
static char library_[256];  // first line of MPI_Get_library_version, spaces collapsed

static void fail(const char* message) {
  if (rank_ == 0) fprintf(stderr, "mpi_bench: %s\n", message);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);  // not reached
}

static void usage(const char* why) {
  if (rank_ == 0) {
    if (why) fprintf(stderr, "mpi_bench: %s\n", why);
    fprintf(stderr,
            "usage: mpirun -n 2 mpi_bench pingpong [--min-bytes N] [--max-bytes N] "
            "[--iters N] [--window N] [--json FILE]\n"
            "       mpirun -n 2 mpi_bench rate [--bytes N] [--windows N] [--window N]\n"
            "       mpirun -n N mpi_bench all_reduce|broadcast|all_gather|reduce_scatter "
            "[-b BYTES] [-e BYTES] [-f FACTOR] [-n ITERS] [-w WARMUP] [--json FILE]\n"
            "  sizes accept K, M and G suffixes; --json writes the rows for tools\n");
  }
  MPI_Finalize();
  exit(2);
}

static void usage_about(const char* what, const char* flag) {
  char why[128];
  snprintf(why, sizeof why, "%s %s", what, flag);
  usage(why);
}

// The value after the flag at argv[*i], which moves *i past it.
static const char* flag_value(int argc, char** argv, int* i) {
  if (*i + 1 >= argc) usage_about("missing value after", argv[*i]);
  return argv[++*i];
}

// As weft::env::parse_bytes: digits and an optional K, M or G (powers of 1024).
static int parse_bytes(const char* text, uint64_t* bytes) {
  if (text[0] == '\0' || text[0] == '-') return 0;
  errno = 0;
  char* end = NULL;
  unsigned long long parsed = strtoull(text, &end, 10);
  if (errno != 0 || end == text) return 0;
  uint64_t scale = 1;
  if (*end != '\0' && end[1] == '\0') {
    switch (*end) {
      case 'k':
      case 'K':
        scale = 1ull << 10;
        ++end;
        break;
      case 'm':
      case 'M':
        scale = 1ull << 20;
        ++end;
        break;
      case 'g':
      case 'G':
        scale = 1ull << 30;
        ++end;
        break;
      default:
        break;
    }
  }
  if (*end != '\0' || parsed > UINT64_MAX / scale) return 0;
  *bytes = parsed * scale;
  return 1;
}

static uint64_t bytes_arg(const char* flag, const char* text) {
  uint64_t bytes = 0;
  if (!parse_bytes(text, &bytes)) {
    char why[256];
    snprintf(why, sizeof why, "%s %s: expected a byte count such as 65536, 64K, 4M or 1G", flag,
             text);
    usage(why);
  }
  return bytes;
}

static int count_arg(const char* flag, const char* text) {
  char* end = NULL;
  long n = strtol(text, &end, 10);
  if (end == text || *end != '\0' || n < 1 || n > 100000000) {
    char why[256];
    snprintf(why, sizeof why, "%s %s: expected a positive count", flag, text);
    usage(why);
  }
  return (int)n;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// The element at size / 2 of the sorted values, as weft-bench's median.
static double median(double* values, int count) {
  qsort(values, (size_t)count, sizeof *values, compare_doubles);
  return values[count / 2];
}

static void write_json_string(FILE* out, const char* text) {
  fputc('"', out);
  for (const char* c = text; *c; ++c) {
    if (*c == '"' || *c == '\\') {
      fprintf(out, "\\%c", *c);
    } else if ((unsigned char)*c < 0x20) {
      fprintf(out, "\\u%04x", (unsigned)(unsigned char)*c);
    } else {
      fputc(*c, out);
    }
  }
  fputc('"', out);
}

static FILE* open_json(const char* path, const char* benchmark) {
  FILE* out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "mpi_bench: cannot write %s: %s\n", path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fprintf(out, "{\n  \"benchmark\": \"%s\",\n  \"library\": ", benchmark);
  write_json_string(out, library_);
  fprintf(out, ",\n  \"ranks\": %d,\n  \"rows\": [\n", size_);
  return out;
}

// Ends the rows and the file; nothing when there is no file.
static void close_json(FILE* out, const char* path) {
  if (!out) return;
  fprintf(out, "\n  ]\n}\n");
  if (ferror(out) | fclose(out)) {
    fprintf(stderr, "mpi_bench: cannot write %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// ---------------------------------------------------------------------------------------
// pingpong, as tools/bench/pingpong.cc measures weft (without its raw-socket baseline).

struct PingPongRow {
  uint64_t bytes;
  double us;    // half round trip
  double gbps;  // streaming, GB/s (10^9 bytes per second)
  uint64_t wrong;
};

// Enough iterations for a stable figure at small sizes, bounded time at large ones.
static int iterations_for(uint64_t bytes, int requested) {
  if (requested > 0) return requested;
  if (bytes <= (64u << 10)) return 2000;
  return (int)clamp_u64((512ull << 20) / bytes, 8, 2000);
}

static int window_for(uint64_t bytes, int requested) {
  return (int)clamp_u64((64ull << 20) / (bytes > 0 ? bytes : 1), 1, (uint64_t)requested);
}

// Latency batches, as weft-bench's kBatches; each figure is the median batch.
enum { kBatches = 15 };

struct Exchange {
  int peer, window;
  int count;  // bytes of each message
  uint8_t *out, *in, *ack;
  MPI_Request* requests;
};

// `per_batch` blocking ping-pong exchanges of the whole message.
static void pingpong_batch(const struct Exchange* x, int per_batch) {
  for (int i = 0; i < per_batch; ++i) {
    if (rank_ == 0) {
      MPI_Send(x->out, x->count, MPI_BYTE, x->peer, 0, MPI_COMM_WORLD);
      MPI_Recv(x->in, x->count, MPI_BYTE, x->peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(x->in, x->count, MPI_BYTE, x->peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(x->out, x->count, MPI_BYTE, x->peer, 0, MPI_COMM_WORLD);
    }
  }
}

// Streaming: rank 0 keeps `window` messages in flight, rank 1 acknowledges the window.
static void stream_window(const struct Exchange* x) {
  for (int w = 0; w < x->window; ++w) {
    if (rank_ == 0) {
      MPI_Isend(x->out, x->count, MPI_BYTE, x->peer, 1, MPI_COMM_WORLD, &x->requests[w]);
    } else {
      MPI_Irecv(x->in, x->count, MPI_BYTE, x->peer, 1, MPI_COMM_WORLD, &x->requests[w]);
    }
  }
  // One wait per request, in order, as weft-bench waits for its requests.
  for (int w = 0; w < x->window; ++w) MPI_Wait(&x->requests[w], MPI_STATUS_IGNORE);
  if (rank_ == 0) MPI_Recv(x->ack, 1, MPI_BYTE, x->peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank_ == 1) MPI_Send(x->ack, 1, MPI_BYTE, x->peer, 2, MPI_COMM_WORLD);
}

// The sustained message rate: `windows` streaming windows back to back, timed as one
// span (the pingpong table's streaming figure is the median window, which a rare slow
// window does not move), as osu_mbw_mr times its loop.
static void run_rate(int argc, char** argv) {
  uint64_t bytes = 8;
  int windows = 20000, window = 64;
  for (int i = 2; i < argc; ++i) {
    const char* flag = argv[i];
    const char* value = flag_value(argc, argv, &i);
    if (strcmp(flag, "--bytes") == 0) {
      bytes = bytes_arg(flag, value);
    } else if (strcmp(flag, "--windows") == 0) {
      windows = count_arg(flag, value);
    } else if (strcmp(flag, "--window") == 0) {
      window = count_arg(flag, value);
    } else {
      usage_about("unknown option", flag);
    }
  }
  if (size_ != 2) usage("rate runs on exactly 2 ranks");
  if (bytes > INT_MAX) usage("--bytes: at most 2^31-1");
  struct Exchange x = {1 - rank_, window, (int)bytes, NULL, NULL, NULL, NULL};
  x.out = calloc(bytes + 1, 1);
  x.in = calloc(bytes + 1, 1);
  x.ack = calloc(1, 1);
  x.requests = malloc(sizeof(MPI_Request) * (size_t)window);
  if (!x.out || !x.in || !x.ack || !x.requests) fail("out of memory");
  stream_window(&x);  // warm-up
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now_seconds();
  for (int w = 0; w < windows; ++w) stream_window(&x);
  const double seconds = now_seconds() - start;
  if (rank_ == 0) {
    const double messages = (double)windows * window;
    printf("# mpi_bench rate: %d windows of %d messages, %s\n", windows, window, library_);
    printf("%12llu bytes  %10.3f million messages/s  %8.1f ns/message\n",
           (unsigned long long)bytes, messages / seconds / 1e6, seconds * 1e9 / messages);
  }
  free(x.out);
  free(x.in);
  free(x.ack);
  free(x.requests);
}

static void run_pingpong(int argc, char** argv) {
  uint64_t min_bytes = 1, max_bytes = 64ull << 20;
  int iterations = 0, window_option = 64;
  const char* json_path = NULL;
  for (int i = 2; i < argc; ++i) {
    const char* flag = argv[i];
    const char* value = flag_value(argc, argv, &i);
    if (strcmp(flag, "--min-bytes") == 0) {
      min_bytes = bytes_arg(flag, value);
      if (min_bytes < 1) min_bytes = 1;
    } else if (strcmp(flag, "--max-bytes") == 0) {
      max_bytes = bytes_arg(flag, value);
    } else if (strcmp(flag, "--iters") == 0) {
      iterations = count_arg(flag, value);
    } else if (strcmp(flag, "--window") == 0) {
      window_option = count_arg(flag, value);
    } else if (strcmp(flag, "--json") == 0) {
      json_path = value;
    } else {
      usage_about("unknown option", flag);
    }
  }
  if (min_bytes > max_bytes) usage("--min-bytes exceeds --max-bytes");
  if (max_bytes > INT_MAX) usage("--max-bytes: at most 2^31-1 bytes (one MPI count of bytes)");
  if (size_ != 2) {
    if (rank_ == 0) {
      fprintf(stderr,
              "mpi_bench pingpong needs exactly 2 ranks (it has %d): run it as "
              "`mpirun -n 2 mpi_bench pingpong`\n",
              size_);
    }
    MPI_Finalize();
    exit(2);
  }

  struct Exchange x = {.peer = 1 - rank_};
  x.out = malloc(max_bytes);
  x.in = malloc(max_bytes);
  x.ack = calloc(1, 1);
  x.requests = malloc(sizeof(MPI_Request) * (size_t)window_option);
  if (!x.out || !x.in || !x.ack || !x.requests) fail("out of memory");
  // Touch every page now so that page faults are not timed.
  for (uint64_t i = 0; i < max_bytes; ++i) x.out[i] = (uint8_t)(i * 7 + 1);
  memset(x.in, 0, max_bytes);

  FILE* json = NULL;
  if (rank_ == 0) {
    if (json_path) json = open_json(json_path, "pingpong");
    printf("# mpi_bench pingpong: 2 ranks, %s\n", library_);
    printf("# %12s %10s %10s %6s\n", "bytes", "mpi_us", "mpi_GB/s", "wrong");
    fflush(stdout);
  }
  double latency[kBatches], windows[31];
  int first_row = 1;
  for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const int iters = iterations_for(bytes, iterations);
    x.window = window_for(bytes, window_option);
    x.count = (int)bytes;
    const int rounds = clamp_int(iters / x.window, 5, 31);
    struct PingPongRow row = {bytes, 0, 0, 0};

    // One warm-up batch, then kBatches timed ones; the median batch.
    const int per_batch = iters / kBatches > 1 ? iters / kBatches : 1;
    pingpong_batch(&x, per_batch);
    for (int b = 0; b < kBatches; ++b) {
      double start = now_seconds();
      pingpong_batch(&x, per_batch);
      latency[b] = now_seconds() - start;
    }
    row.us = median(latency, kBatches) * 1e6 / (2.0 * per_batch);
    if (rank_ == 1) {
      for (uint64_t i = 0; i < bytes; ++i) row.wrong += x.in[i] != x.out[i];
    }

    // One warm-up window, then `rounds` timed ones; bandwidth counts payload bytes only.
    stream_window(&x);
    for (int r = 0; r < rounds; ++r) {
      double start = now_seconds();
      stream_window(&x);
      windows[r] = now_seconds() - start;
    }
    row.gbps = (double)bytes * x.window / median(windows, rounds) / 1e9;

    // Rank 1 counted wrong bytes; rank 0 prints.
    if (rank_ == 1) MPI_Send(&row.wrong, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD);
    if (rank_ == 0) {
      MPI_Recv(&row.wrong, 1, MPI_UINT64_T, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("  %12llu %10.2f %10.3f %6llu\n", (unsigned long long)row.bytes, row.us, row.gbps,
             (unsigned long long)row.wrong);
      fflush(stdout);
      if (json) {
        fprintf(json,
                "%s    {\"bytes\": %llu, \"mpi_us\": %.3f, \"mpi_gbps\": %.4f, \"wrong\": %llu}",
                first_row ? "" : ",\n", (unsigned long long)row.bytes, row.us, row.gbps,
                (unsigned long long)row.wrong);
      }
    }
    first_row = 0;
    if (bytes > UINT64_MAX / 2) break;
  }
  close_json(json, json_path);
  free(x.out);
  free(x.in);
  free(x.ack);
  free(x.requests);
}

// ---------------------------------------------------------------------------------------
// all_reduce, float32 sum, as tools/bench/collectives.cc measures weft's.

// Element i of rank r's input, as tools/bench/typed_values.cc's input_value for a sum
// on a signed dtype: integers, so every order of addition gives the same float32 sum.
static float input_value(int r, uint64_t i) { return (float)((r * 7 + i * 3) % 7) - 3.0f; }

static float reduced_value(int ranks, uint64_t i) {
  long long sum = 0;
  for (int r = 0; r < ranks; ++r) sum += (long long)input_value(r, i);
  return (float)sum;
}

// Microseconds per call, the slowest rank's: `warmup` calls, a barrier, then
// `iterations` calls timed together.
static double time_calls(const float* in, float* out, int count, int warmup, int iterations) {
  const void* send = in ? (const void*)in : MPI_IN_PLACE;
  for (int i = 0; i < warmup; ++i) {
    MPI_Allreduce(send, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double start = now_seconds();
  for (int i = 0; i < iterations; ++i) {
    MPI_Allreduce(send, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  double us = (now_seconds() - start) * 1e6 / iterations, slowest = 0;
  MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

// One more call on fresh inputs, compared exactly with the reference; the wrong elements
// of every rank.
static uint64_t checked_call(float* in, float* out, int count) {
  float* input = in ? in : out;
  for (int i = 0; i < count; ++i) input[i] = input_value(rank_, (uint64_t)i);
  MPI_Allreduce(in ? (const void*)in : MPI_IN_PLACE, out, count, MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  uint64_t wrong = 0, all_wrong = 0;
  for (int i = 0; i < count; ++i) wrong += out[i] != reduced_value(size_, (uint64_t)i);
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all_wrong;
}

// The options of the collective benchmarks: sizes from -b to -e by -f, -n timed calls
// after -w warm-up ones, and --json.
struct Sweep {
  uint64_t min_bytes, max_bytes;
  int factor, iterations, warmup;
  const char* json_path;
};

static struct Sweep parse_sweep(int argc, char** argv) {
  struct Sweep o = {8, 64ull << 20, 2, 20, 5, NULL};
  for (int i = 2; i < argc; ++i) {
    const char* flag = argv[i];
    const char* value = flag_value(argc, argv, &i);
    if (strcmp(flag, "-b") == 0) {
      o.min_bytes = bytes_arg(flag, value);
      if (o.min_bytes < 1) o.min_bytes = 1;
    } else if (strcmp(flag, "-e") == 0) {
      o.max_bytes = bytes_arg(flag, value);
    } else if (strcmp(flag, "-f") == 0) {
      o.factor = count_arg(flag, value);
    } else if (strcmp(flag, "-n") == 0) {
      o.iterations = count_arg(flag, value);
    } else if (strcmp(flag, "-w") == 0) {
      o.warmup = strcmp(value, "0") == 0 ? 0 : count_arg(flag, value);
    } else if (strcmp(flag, "--json") == 0) {
      o.json_path = value;
    } else {
      usage_about("unknown option", flag);
    }
  }
  if (o.min_bytes > o.max_bytes) usage("-b exceeds -e");
  if (o.max_bytes / sizeof(float) > INT_MAX) usage("-e: at most 2^31-1 elements (one MPI count)");
  return o;
}

static void run_all_reduce(int argc, char** argv) {
  const struct Sweep sweep = parse_sweep(argc, argv);
  const uint64_t min_bytes = sweep.min_bytes, max_bytes = sweep.max_bytes;
  const int factor = sweep.factor, iterations = sweep.iterations, warmup = sweep.warmup;
  const char* json_path = sweep.json_path;

  const double busbw_factor = 2.0 * (size_ - 1) / size_;
  FILE* json = NULL;
  if (rank_ == 0) {
    if (json_path) json = open_json(json_path, "all_reduce");
    printf("# mpi_bench all_reduce: %d ranks, %d iterations after %d warm-up, check on, %s\n",
           size_, iterations, warmup, library_);
    printf("# busbw = algbw x %.4f\n", busbw_factor);
    printf("%12s %12s %9s %6s %5s  %10s %8s %8s %6s  %10s %8s %8s %6s\n", "size", "count", "type",
           "redop", "root", "oop us", "algbw", "busbw", "#wrong", "ip us", "algbw", "busbw",
           "#wrong");
    fflush(stdout);
  }
  int first_row = 1;
  for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= (uint64_t)factor) {
    const int count = (int)(bytes / sizeof(float));
    const uint64_t row_bytes = (uint64_t)count * sizeof(float);
    // Zeroed (every page touched) like weft-bench's buffers: the timed calls reduce zeros.
    float* big = malloc(((size_t)count + 1) * sizeof(float));
    float* small = malloc(((size_t)count + 1) * sizeof(float));
    if (!big || !small) fail("out of memory");
    memset(big, 0, ((size_t)count + 1) * sizeof(float));
    memset(small, 0, ((size_t)count + 1) * sizeof(float));

    double us[2], algbw[2];
    uint64_t wrong[2];
    for (int in_place = 0; in_place <= 1; ++in_place) {
      float* in = in_place ? NULL : small;  // out of place: small reduced into big
      us[in_place] = time_calls(in, big, count, warmup, iterations);
      wrong[in_place] = checked_call(in, big, count);
      algbw[in_place] = (double)row_bytes / us[in_place] / 1e3;  // GB/s
    }
    if (rank_ == 0) {
      printf("%12llu %12llu %9s %6s %5d  %10.2f %8.3f %8.3f %6llu  %10.2f %8.3f %8.3f %6llu\n",
             (unsigned long long)row_bytes, (unsigned long long)count, "float32", "sum", -1, us[0],
             algbw[0], algbw[0] * busbw_factor, (unsigned long long)wrong[0], us[1], algbw[1],
             algbw[1] * busbw_factor, (unsigned long long)wrong[1]);
      fflush(stdout);
      if (json) {
        fprintf(json,
                "%s    {\"bytes\": %llu, \"count\": %llu, \"type\": \"float32\", "
                "\"redop\": \"sum\", \"root\": -1, \"oop_us\": %.3f, \"ip_us\": %.3f, "
                "\"oop_algbw\": %.4f, \"oop_busbw\": %.4f, \"ip_algbw\": %.4f, "
                "\"ip_busbw\": %.4f, \"oop_wrong\": %llu, \"ip_wrong\": %llu}",
                first_row ? "" : ",\n", (unsigned long long)row_bytes, (unsigned long long)count,
                us[0], us[1], algbw[0], algbw[0] * busbw_factor, algbw[1], algbw[1] * busbw_factor,
                (unsigned long long)wrong[0], (unsigned long long)wrong[1]);
      }
    }
    first_row = 0;
    free(big);
    free(small);
    if (factor <= 1 || bytes > UINT64_MAX / (uint64_t)factor) break;
  }
  close_json(json, json_path);
}

// ---------------------------------------------------------------------------------------

static void read_library_version(void) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  // The first line, each run of blanks made one space ("MPICH Version:\t4.0.2" and such).
  size_t n = 0;
  int blank = 0;
  for (int i = 0; i < length && version[i] != '\n' && version[i] != '\0'; ++i) {
    char c = version[i];
    if (c == ' ' || c == '\t') {
      blank = n > 0;
      continue;
    }
    if (blank && n + 1 < sizeof library_) library_[n++] = ' ';
    blank = 0;
    if (n + 1 < sizeof library_) library_[n++] = c;
  }
  library_[n] = '\0';
}

// ---------------------------------------------------------------------------------------
// broadcast (from rank 0), all_gather and reduce_scatter (float32 sum), sized as
// tools/bench/collectives.cc sizes them: `bytes` is the whole vector (broadcast) or
// everything gathered or reduced, in whole parts per rank (all_gather, reduce_scatter).
// Only what the three collectives have: one time per size, out of place.

enum Moving { kBroadcast, kAllGather, kReduceScatter };
static const char* const kMovingNames[] = {"broadcast", "all_gather", "reduce_scatter"};

static void move_once(enum Moving what, float* part, float* all, int count) {
  if (what == kBroadcast) {
    MPI_Bcast(all, count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  } else if (what == kAllGather) {
    MPI_Allgather(part, count / size_, MPI_FLOAT, all, count / size_, MPI_FLOAT, MPI_COMM_WORLD);
  } else {
    MPI_Reduce_scatter_block(all, part, count / size_, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
}

static void run_moving(enum Moving what, int argc, char** argv) {
  const char* name = kMovingNames[what];
  const struct Sweep sweep = parse_sweep(argc, argv);
  const uint64_t min_bytes = sweep.min_bytes, max_bytes = sweep.max_bytes;
  const int factor = sweep.factor, iterations = sweep.iterations, warmup = sweep.warmup;
  const char* json_path = sweep.json_path;
  FILE* json = NULL;
  if (rank_ == 0) {
    if (json_path) json = open_json(json_path, name);
    printf("# mpi_bench %s: %d ranks, %d iterations after %d warm-up, check on, %s\n", name,
           size_, iterations, warmup, library_);
    printf("%12s %12s %9s  %10s %8s %6s\n", "size", "count", "type", "us", "algbw", "#wrong");
    fflush(stdout);
  }
  int first_row = 1;
  for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= (uint64_t)factor) {
    int count = (int)(bytes / sizeof(float));
    if (what != kBroadcast) count = count / size_ * size_;  // whole parts per rank
    const uint64_t row_bytes = (uint64_t)count * sizeof(float);
    float* all = calloc((size_t)count + 1, sizeof(float));
    float* part = calloc((size_t)count / (size_t)size_ + 1, sizeof(float));
    if (!all || !part) fail("out of memory");
    for (int i = 0; i < warmup; ++i) move_once(what, part, all, count);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now_seconds();
    for (int i = 0; i < iterations; ++i) move_once(what, part, all, count);
    double us = (now_seconds() - start) * 1e6 / iterations, slowest = 0;
    MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    // One more call on known values: the root's vector, each rank's part, or each
    // rank's whole vector to reduce.
    const int per_rank = count / size_;
    uint64_t wrong = 0, all_wrong = 0;
    if (what == kReduceScatter) {
      for (int i = 0; i < count; ++i) all[i] = input_value(rank_, (uint64_t)i);
      move_once(what, part, all, count);
      for (int i = 0; i < per_rank; ++i) {
        wrong += part[i] != reduced_value(size_, (uint64_t)rank_ * (uint64_t)per_rank + (uint64_t)i);
      }
    } else {
      for (int i = 0; i < count; ++i) all[i] = rank_ == 0 ? input_value(0, (uint64_t)i) : -1.0f;
      for (int i = 0; i < per_rank; ++i) part[i] = input_value(rank_, (uint64_t)i);
      move_once(what, part, all, count);
      for (int i = 0; i < count; ++i) {
        float expected = what == kBroadcast ? input_value(0, (uint64_t)i)
                                            : input_value(i / per_rank, (uint64_t)(i % per_rank));
        wrong += all[i] != expected;
      }
    }
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) {
      printf("%12llu %12d %9s  %10.2f %8.3f %6llu\n", (unsigned long long)row_bytes, count,
             "float32", slowest, (double)row_bytes / slowest / 1e3,
             (unsigned long long)all_wrong);
      fflush(stdout);
      if (json) {
        fprintf(json,
                "%s    {\"bytes\": %llu, \"count\": %d, \"type\": \"float32\", "
                "\"oop_us\": %.3f, \"oop_wrong\": %llu}",
                first_row ? "" : ",\n", (unsigned long long)row_bytes, count, slowest,
                (unsigned long long)all_wrong);
      }
    }
    first_row = 0;
    free(all);
    free(part);
    if (factor <= 1 || bytes > UINT64_MAX / (uint64_t)factor) break;
  }
  close_json(json, json_path);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  read_library_version();
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) usage(NULL);
  if (strcmp(argv[1], "pingpong") == 0) {
    run_pingpong(argc, argv);
  } else if (strcmp(argv[1], "all_reduce") == 0) {
    run_all_reduce(argc, argv);
  } else if (strcmp(argv[1], "broadcast") == 0) {
    run_moving(kBroadcast, argc, argv);
  } else if (strcmp(argv[1], "all_gather") == 0) {
    run_moving(kAllGather, argc, argv);
  } else if (strcmp(argv[1], "reduce_scatter") == 0) {
    run_moving(kReduceScatter, argc, argv);
  } else if (strcmp(argv[1], "rate") == 0) {
    run_rate(argc, argv);
  } else {
    usage("unknown benchmark (pingpong, rate, all_reduce, broadcast, all_gather or "
          "reduce_scatter)");
  }
  MPI_Finalize();
  return 0;
}
