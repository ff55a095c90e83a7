// A repeated small blocking collective allocates nothing once warmed up: the argument
// checks, the algorithm choice, the schedule, its run and its scratch, and the
// shared-memory arena all reuse what the first calls set up.
//
// With a shared-memory arena (the default variant) the whole process must make no heap
// allocation per call. Over links (the _tcp and _mixed variants) the collectives call
// the point-to-point engine, which may still allocate per message (a request per
// receive, a buffer for a message that arrives before its receive); the test then holds
// the collective layer's own part to zero (allocations of the calling thread outside
// its calls into the engine, base/lower_layer_scope.h) and prints the engine's part.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/context.h"
#include "tests/harness/multiprocess.h"
#include "tools/bench/allocation_counter.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

constexpr int kWarmup = 50;
constexpr int kCalls = 300;

struct Counts {
  uint64_t process = 0, thread = 0, engine = 0;

  static Counts now() {
    return {bench::allocations(), bench::thread_allocations(),
            bench::thread_allocations_in_lower_layer()};
  }
  Counts operator-(const Counts& o) const {
    return {process - o.process, thread - o.thread, engine - o.engine};
  }
};

// `kCalls` calls of `call` after `kWarmup`, and what they allocated.
template <typename Call>
Counts count_calls(Call&& call) {
  for (int i = 0; i < kWarmup; ++i) call();
  const Counts before = Counts::now();
  for (int i = 0; i < kCalls; ++i) call();
  return Counts::now() - before;
}

void expect_no_allocations(int rank, int ranks) {
  init_process_group();
  const bool arena = runtime::context("test").world->collectives.arena() != nullptr;
  // The shared-memory variant must run on the arena, or it would prove nothing more than
  // the others.
  const char* transports = std::getenv("WEFT_TRANSPORTS");
  if (transports != nullptr && std::string(transports) == "shm") {
    EXPECT_TRUE(arena);
  }
  for (size_t count : {size_t{2}, size_t{256}}) {  // 8 B and 1 KiB of float32
    std::vector<float> input(count), output(count);
    auto in_place = [&] {
      std::fill(output.begin(), output.end(), float(rank + 1));
      all_reduce(view(output), ReduceOp::kSum);
    };
    auto out_of_place = [&] {
      std::fill(input.begin(), input.end(), float(rank + 1));
      all_reduce(view(input), view(output), ReduceOp::kSum);
    };
    const float sum = ranks * (ranks + 1) / 2.0f;
    for (bool place : {true, false}) {
      Counts c = place ? count_calls(in_place) : count_calls(out_of_place);
      const char* form = place ? "in place" : "out of place";
      EXPECT_EQ(output[count - 1], sum) << form;
      std::printf(
          "rank %d, %zu B %s (%s): per call %.3f allocations in the process, %.3f in "
          "this thread, %.3f of them in the point-to-point engine\n",
          rank, count * sizeof(float), form, arena ? "arena" : "links", double(c.process) / kCalls,
          double(c.thread) / kCalls, double(c.engine) / kCalls);
      EXPECT_EQ(c.thread - c.engine, 0u)
          << "the collective layer allocated in " << count * sizeof(float) << "-byte " << form
          << " all_reduce calls";
      if (arena) {
        EXPECT_EQ(c.process, 0u) << "the process allocated in " << count * sizeof(float) << "-byte "
                                 << form << " all_reduce calls";
      }
    }
  }
  destroy_process_group();
}

// Every other blocking collective, small: the collective layer's own part is zero too,
// and the whole process's where the collective runs in the arena.
void expect_no_allocations_in_other_collectives(int rank, int ranks) {
  init_process_group();
  const bool arena = runtime::context("test").world->collectives.arena() != nullptr;
  constexpr size_t kPart = 4;
  std::vector<float> part(kPart, float(rank)), all(kPart * ranks, float(rank)),
      other(kPart * ranks);
  struct Collective {
    const char* name;
    bool in_arena;  // runs in the arena when the group has one
    std::function<void()> call;
  };
  const Collective collectives[] = {
      {"barrier", true, [] { barrier(); }},
      {"broadcast", true, [&] { broadcast(view(part), 0); }},
      {"reduce", true, [&] { reduce(view(part), view(std::span(other).subspan(0, kPart)), 1); }},
      {"all_gather", true, [&] { all_gather(view(part), view(all)); }},
      {"gather", false, [&] { gather(view(part), view(all), 0); }},
      {"scatter", false, [&] { scatter(view(all), view(part), 0); }},
      {"reduce_scatter", false, [&] { reduce_scatter(view(all), view(part)); }},
      {"all_to_all", false, [&] { all_to_all(view(all), view(other)); }},
  };
  for (const Collective& c : collectives) {
    Counts n = count_calls(c.call);
    std::printf(
        "rank %d, %s (%s): per call %.3f allocations in the process, %.3f in this "
        "thread, %.3f of them in the point-to-point engine\n",
        rank, c.name, arena ? "arena" : "links", double(n.process) / kCalls,
        double(n.thread) / kCalls, double(n.engine) / kCalls);
    EXPECT_EQ(n.thread - n.engine, 0u) << "the collective layer allocated in " << c.name;
    if (arena && c.in_arena) {
      EXPECT_EQ(n.process, 0u) << "the process allocated in " << c.name;
    }
  }
  destroy_process_group();
}

TEST(Allocations, RepeatedSmallAllReduceOnTwoRanks) {
  expect_all_succeeded(run_ranks(2, [](int rank) { expect_no_allocations(rank, 2); }));
}

TEST(Allocations, RepeatedSmallAllReduceOnThreeRanks) {
  expect_all_succeeded(run_ranks(3, [](int rank) { expect_no_allocations(rank, 3); }));
}

TEST(Allocations, OtherRepeatedSmallCollectivesOnThreeRanks) {
  expect_all_succeeded(
      run_ranks(3, [](int rank) { expect_no_allocations_in_other_collectives(rank, 3); }));
}

}  // namespace
}  // namespace weft::testing
