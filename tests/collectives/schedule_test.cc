// ScheduleBuilder's dependencies and ScheduleRun's order, on small hand-written
// programs: what every generator relies on.
#include "collectives/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "collectives/schedule_run.h"

namespace weft::collectives {
namespace {

std::vector<OpId> deps_of(const Schedule& s, OpId op) {
  return std::vector<OpId>(s.deps.begin() + s.ops[op].deps_begin,
                           s.deps.begin() + s.ops[op].deps_end);
}

TEST(ScheduleBuilder, ReadAfterWriteWriteAfterReadAndWriteAfterWrite) {
  ScheduleBuilder b;
  OpId recv = b.recv(1, scratch_region(0, 10));  // writes s[0,10)
  OpId reduce =
      b.reduce(output_region(0, 10), input_region(0, 10), scratch_region(0, 10));  // reads it
  OpId send = b.send(2, output_region(5, 5));                                      // reads o[5,10)
  OpId again = b.recv(1, scratch_region(0, 4));                      // overwrites s[0,4)
  OpId overwrite = b.copy(output_region(0, 6), input_region(0, 6));  // writes o[0,6)
  Schedule s = std::move(b).finish();
  EXPECT_TRUE(deps_of(s, recv).empty());
  EXPECT_EQ(deps_of(s, reduce), std::vector<OpId>{recv});
  EXPECT_EQ(deps_of(s, send), std::vector<OpId>{reduce});
  // The reduce read s[0,4) and the first receive wrote it.
  EXPECT_EQ(deps_of(s, again), (std::vector<OpId>{recv, reduce}));
  // o[0,6) was written by the reduce and o[5,6) read by the send.
  EXPECT_EQ(deps_of(s, overwrite), (std::vector<OpId>{reduce, send}));
}

TEST(ScheduleBuilder, DisjointRegionsAndEmptyOnesAreIndependent) {
  ScheduleBuilder b;
  b.recv(1, output_region(0, 5));
  OpId other = b.recv(2, output_region(5, 5));
  OpId empty = b.send(3, output_region(0, 0));
  Schedule s = std::move(b).finish();
  EXPECT_TRUE(deps_of(s, other).empty());
  EXPECT_TRUE(deps_of(s, empty).empty());
}

TEST(ScheduleBuilder, AnAliasedInputIsTrackedAsTheOutputItLiesIn) {
  ScheduleBuilder b;
  b.alias(Buffer::kInput, Buffer::kOutput, 8);  // input = output[8, ...)
  OpId send = b.send(1, input_region(0, 4));    // reads o[8,12)
  OpId recv = b.recv(1, output_region(10, 4));  // writes o[10,14): must wait
  Schedule s = std::move(b).finish();
  EXPECT_EQ(deps_of(s, recv), std::vector<OpId>{send});
}

TEST(ScheduleRun, MessagesToOnePeerStartInProgramOrder) {
  ScheduleBuilder b;
  OpId first_recv = b.recv(1, scratch_region(0, 1));
  OpId blocked = b.send(1, scratch_region(0, 1));  // waits for first_recv
  OpId later = b.send(1, output_region(0, 1));     // free, but after `blocked` to the same peer
  OpId elsewhere = b.send(2, output_region(1, 1));
  Schedule s = std::move(b).finish();
  ScheduleRun run(s);
  std::vector<OpId> ready;
  run.take_ready(ready);
  std::sort(ready.begin(), ready.end());
  EXPECT_EQ(ready, (std::vector<OpId>{first_recv, elsewhere}));
  ready.clear();
  run.finished(first_recv);
  run.take_ready(ready);
  EXPECT_EQ(ready, (std::vector<OpId>{blocked, later}));
  run.finished(blocked);
  run.finished(later);
  run.finished(elsewhere);
  EXPECT_TRUE(run.done());
}

}  // namespace
}  // namespace weft::collectives
