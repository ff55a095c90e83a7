// A weft program for without_libibverbs_test: joins as a world of one, sends itself a
// message, and prints "ran" when it has it back.
#include <weft/weft.h>

#include <cstdio>
#include <exception>
#include <vector>

int main() {
  try {
    weft::init_process_group();
    std::vector<int> out{1, 2, 3}, in(3);
    weft::Request sent = weft::isend(weft::view(out), 0);
    weft::recv(weft::view(in), 0);
    sent.wait();
    weft::destroy_process_group();
    std::printf(in == out ? "ran\n" : "wrong message\n");
    return in == out ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "world_of_one: %s\n", e.what());
    return 2;
  }
}
