// A real weft program for the weftrun tests: joins the job weftrun launched (env://,
// with the store weftrun hosts), passes each rank's number one step around a ring,
// and prints what it received. With the argument "kill R", rank R kills itself right
// after joining instead, and its neighbour sees the dead peer. With "stop R", every rank
// runs rounds of an all_reduce and a ring step with a 3 s timeout, and rank R stops
// itself (SIGSTOP) after a few: the others time out waiting for it.
#include <signal.h>
#include <sys/prctl.h>
#include <weft/weft.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  // A test that fails halfway must not leave ranks behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  try {
    weft::init_process_group();
    int rank = weft::get_rank();
    int size = weft::get_world_size();
    if (argc == 3 && std::string(argv[1]) == "kill" && std::atoi(argv[2]) == rank) {
      raise(SIGKILL);
    }
    if (argc == 3 && std::string(argv[1]) == "stop") {
      const int silent = std::atoi(argv[2]);
      const weft::Timeout timeout = std::chrono::seconds(3);
      for (int round = 0;; ++round) {
        if (round == 5 && rank == silent) raise(SIGSTOP);
        std::vector<int32_t> sum = {1};
        weft::all_reduce(weft::view(sum), weft::ReduceOp::kSum, weft::Group(), timeout);
        std::vector<int32_t> out = {round};
        std::vector<int32_t> in = {-1};
        weft::Request sent = weft::isend(weft::view(out), (rank + 1) % size);
        weft::recv(weft::view(in), (rank + size - 1) % size, weft::kAnyTag, weft::Group(), timeout);
        sent.wait(timeout);
      }
    }
    std::vector<int32_t> out = {rank};
    std::vector<int32_t> in = {-1};
    weft::Request sent = weft::isend(weft::view(out), (rank + 1) % size);
    int from = weft::recv(weft::view(in), (rank + size - 1) % size);
    sent.wait();
    std::printf("rank %d of %d received %d from rank %d\n", rank, size, in[0], from);
    weft::destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ring_pass: %s\n", e.what());
    return 1;
  }
  return 0;
}
