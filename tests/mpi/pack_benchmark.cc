// Pack and unpack throughput of a strided datatype bigger than 2 GiB, side by side with
// memcpy of the same bytes (no MPI_Init: the datatype layer alone). Not a test: run it
// with `bazel run -c opt //tests/mpi:pack_benchmark -- [block_bytes]`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mpi/src/derived_types.h"

namespace {

double seconds_of(void (*body)(void*), void* arg) {
  auto start = std::chrono::steady_clock::now();
  body(arg);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Run {
  std::byte* strided;
  std::byte* packed;
  std::byte* copy;
  uint64_t bytes;
  MPI_Datatype type;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace weft::mpi;
  const uint64_t block = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const uint64_t data = (uint64_t{9} << 28);  // 2.25 GiB of data
  const uint64_t count = data / block;
  const uint64_t stride = block + block / 2;  // a third of the memory skipped
  MPI_Datatype type = make_hvector(static_cast<MPI_Count>(count), static_cast<MPI_Count>(block),
                                   static_cast<MPI_Aint>(stride), MPI_BYTE);
  Run run{static_cast<std::byte*>(std::malloc(count * stride)),
          static_cast<std::byte*>(std::malloc(data)), static_cast<std::byte*>(std::malloc(data)),
          data, type};
  std::memset(run.strided, 1, count * stride);
  std::memset(run.packed, 2, data);
  std::memset(run.copy, 3, data);
  const Typemap& t = *typemap_of(type);
  std::printf("vector of %llu blocks of %llu bytes, stride %llu: %.2f GiB of data, %zu segments\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(block),
              static_cast<unsigned long long>(stride), double(t.size) / (1 << 30),
              t.segments.size());
  for (int repeat = 0; repeat < 3; ++repeat) {
    double m = seconds_of(
        [](void* a) {
          auto* r = static_cast<Run*>(a);
          std::memcpy(r->copy, r->packed, r->bytes);
        },
        &run);
    double p = seconds_of(
        [](void* a) {
          auto* r = static_cast<Run*>(a);
          pack(r->strided, 1, r->type, r->packed);
        },
        &run);
    double u = seconds_of(
        [](void* a) {
          auto* r = static_cast<Run*>(a);
          unpack(r->packed, r->bytes, 1, r->type, r->strided);
        },
        &run);
    double gib = double(data) / (1 << 30);
    std::printf("memcpy %.2f GiB/s   pack %.2f GiB/s   unpack %.2f GiB/s\n", gib / m, gib / p,
                gib / u);
  }
  free_datatype(&type);
  return 0;
}
