// weft-demo: the local multi-process demo. Run it as `weftrun -n 4 weft-demo`.
//
// 1. Every rank sends a small tensor to every other rank and receives theirs from any
//    source, printing what arrived and from whom.
// 2. A 16 MiB tensor travels once around the ring of ranks; each adds its rank to it,
//    and rank 0 checks the total and prints the time the trip took.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace {

std::string format(const std::vector<float>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(static_cast<int>(v[i]));
  }
  return out + "]";
}

void exchange_with_everyone(int rank, int size) {
  std::vector<float> mine(4);
  for (int i = 0; i < 4; ++i) mine[i] = static_cast<float>(rank * 10 + i);
  std::vector<weft::Request> sends;
  for (int peer = 0; peer < size; ++peer) {
    if (peer != rank) sends.push_back(weft::isend(weft::view(mine), peer, /*tag=*/1));
  }
  for (int k = 0; k < size - 1; ++k) {
    std::vector<float> got(4);
    int from = weft::recv(weft::view(got), weft::kAnySource, /*tag=*/1);
    std::printf("rank %d received %s from rank %d\n", rank, format(got).c_str(), from);
  }
  for (auto& s : sends) s.wait();
}

void pass_around_the_ring(int rank, int size) {
  std::vector<float> tensor(4 << 20, 0.0f);  // 16 MiB
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  auto start = std::chrono::steady_clock::now();
  if (rank != 0) weft::recv(weft::view(tensor), prev, /*tag=*/2);
  for (auto& x : tensor) x += static_cast<float>(rank);
  weft::send(weft::view(tensor), next, /*tag=*/2);
  if (rank == 0) {
    weft::recv(weft::view(tensor), prev, /*tag=*/2);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    float expected = static_cast<float>(size * (size - 1) / 2);
    bool ok = tensor.front() == expected && tensor.back() == expected;
    std::printf(
        "rank 0: a 16 MiB tensor went around %d ranks in %.1f ms; every element is %g (%s)\n", size,
        ms, tensor.front(), ok ? "correct" : "WRONG");
  }
}

// Collectives: the sum of every rank's gradient on every rank, then the odd ranks'
// own group agreeing on a value broadcast by its first member.
void collectives(int rank, int size) {
  std::vector<float> gradient(4 << 20, static_cast<float>(rank + 1));  // 16 MiB
  auto start = std::chrono::steady_clock::now();
  weft::all_reduce(weft::view(gradient), weft::ReduceOp::kSum);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  float expected = static_cast<float>(size * (size + 1) / 2);
  bool ok = gradient.front() == expected && gradient.back() == expected;
  if (rank == 0) {
    std::printf("rank 0: all_reduce of 16 MiB over %d ranks in %.1f ms; every element is %g (%s)\n",
                size, ms, gradient.front(), ok ? "correct" : "WRONG");
  }
  std::vector<int> odd;
  for (int r = 1; r < size; r += 2) odd.push_back(r);
  if (odd.empty()) return;
  weft::Group odd_ranks = weft::new_group(odd);  // every rank calls it
  if (!odd_ranks.is_member()) return;
  // The root is a world rank, as in torch.distributed: the group's first member.
  std::vector<int32_t> value{rank == odd.front() ? 42 : -1};
  weft::broadcast(weft::view(value), /*root=*/odd.front(), odd_ranks);
  std::printf("rank %d (rank %d of the odd ranks) got %d from their broadcast\n", rank,
              odd_ranks.rank(), value[0]);
}

}  // namespace

int main() {
  try {
    weft::init_process_group();
    int rank = weft::get_rank(), size = weft::get_world_size();
    if (rank == 0) std::printf("rank 0: %d ranks have joined\n", size);
    std::fflush(stdout);
    exchange_with_everyone(rank, size);
    std::fflush(stdout);
    pass_around_the_ring(rank, size);
    std::fflush(stdout);
    collectives(rank, size);
    std::fflush(stdout);
    weft::destroy_process_group();
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "weft-demo: %s\n", e.what());
    return 1;
  }
  return 0;
}
