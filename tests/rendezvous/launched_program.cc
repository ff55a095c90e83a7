// A weft program for the launcher tests: joins whatever job started it with a bare
// weft::init_process_group() (env:// with none of weft's variables, so the launcher is
// recognised from its own), then checks the world it got with real traffic:
//   all_reduce  sum of rank+1 over the world is n(n+1)/2, on every rank
//   all_gather  of the ranks gives 0..n-1
//   broadcast   from rank n-1 of a 1 KiB pattern arrives intact
//   barrier
//   ring        each rank sends to rank+1 and receives what rank-1 sent
// and prints "launched_program rank R of N ok". Anything wrong is printed (prefixed
// "launched_program: ") and it exits 1.
#include <signal.h>
#include <sys/prctl.h>
#include <weft/weft.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

// What went wrong, when something did.
struct Failure {
  std::string what;
};

void check(bool ok, const std::string& what) {
  if (!ok) throw Failure{what};
}

uint8_t pattern_byte(size_t i) { return static_cast<uint8_t>(i * 31 + 7); }

template <typename T>
std::string join(const std::vector<T>& values) {
  std::ostringstream out;
  for (size_t i = 0; i < values.size(); ++i) out << (i ? " " : "") << values[i];
  return out.str();
}

}  // namespace

int main() {
  // A test that fails halfway must not leave ranks behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  int rank = -1;
  try {
    weft::init_process_group();
    rank = weft::get_rank();
    const int n = weft::get_world_size();

    std::vector<int64_t> sum = {rank + 1};
    weft::all_reduce(weft::view(std::span(sum)), weft::ReduceOp::kSum);
    check(sum[0] == int64_t{n} * (n + 1) / 2,
          "all_reduce: the sum of rank+1 over " + std::to_string(n) + " ranks came out " +
              std::to_string(sum[0]) + ", not " + std::to_string(int64_t{n} * (n + 1) / 2));

    std::vector<int32_t> mine = {rank};
    std::vector<int32_t> all(n, -1);
    weft::all_gather(weft::view(std::span(mine)), weft::view(std::span(all)));
    std::vector<int32_t> expected_ranks(n);
    for (int r = 0; r < n; ++r) expected_ranks[r] = r;
    check(all == expected_ranks,
          "all_gather of the ranks gave [" + join(all) + "], not [" + join(expected_ranks) + "]");

    const int root = n - 1;
    std::vector<uint8_t> block(1024, 0);
    if (rank == root) {
      for (size_t i = 0; i < block.size(); ++i) block[i] = pattern_byte(i);
    }
    weft::broadcast(weft::view(std::span(block)), root);
    for (size_t i = 0; i < block.size(); ++i) {
      check(block[i] == pattern_byte(i), "broadcast from rank " + std::to_string(root) + ": byte " +
                                             std::to_string(i) + " is " + std::to_string(block[i]) +
                                             ", not " + std::to_string(pattern_byte(i)));
    }

    weft::barrier();

    const int next = (rank + 1) % n;
    const int prev = (rank + n - 1) % n;
    std::vector<int64_t> out = {1000 * rank + n};
    std::vector<int64_t> in = {-1};
    weft::Request sent = weft::isend(weft::view(std::span(out)), next, /*tag=*/7);
    int from = weft::recv(weft::view(std::span(in)), prev, /*tag=*/7);
    sent.wait();
    check(from == prev && in[0] == 1000 * prev + n,
          "ring: received " + std::to_string(in[0]) + " from rank " + std::to_string(from) +
              ", expected " + std::to_string(1000 * prev + n) + " from rank " +
              std::to_string(prev));

    weft::destroy_process_group();
    std::printf("launched_program rank %d of %d ok\n", rank, n);
    std::fflush(stdout);
  } catch (const Failure& f) {
    std::fprintf(stderr, "launched_program: rank %d: %s\n", rank, f.what.c_str());
    return 1;
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "launched_program: rank %d: %s\n", rank, e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launched_program: rank %d: unexpected exception: %s\n", rank, e.what());
    return 1;
  }
  return 0;
}
