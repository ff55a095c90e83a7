// Every rank contributes rank + 1; prints the sum when it is right, fails otherwise.
#include <weft/weft.h>

#include <cstdio>
#include <vector>

int main() {
  weft::init_process_group();
  const int rank = weft::get_rank(), size = weft::get_world_size();
  std::vector<float> data(1024, float(rank + 1));
  weft::all_reduce(weft::view(data), weft::ReduceOp::kSum);
  const float expected = size * (size + 1) / 2.0f;
  for (float v : data) {
    if (v != expected) {
      std::fprintf(stderr, "rank %d: all_reduce gave %g, expected %g\n", rank, v, expected);
      return 1;
    }
  }
  std::printf("rank %d: all_reduce sum %g\n", rank, expected);
  weft::destroy_process_group();
  return 0;
}
