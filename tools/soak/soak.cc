// weft-soak: random collectives and point-to-point messages of random sizes and dtypes
// on random groups, every result checked, until a deadline. tools/soak.sh runs it
// under weftrun, kills or stops ranks at random and checks what the survivors say.
//
//   weftrun -n N weft-soak [--seconds S] [--seed SEED]
//
// Every rank draws the same sequence of operations from the shared seed, so all agree
// on what comes next without talking. Each operation runs on the world or on one of
// three subgroups (members only); its inputs are integer-valued data that every dtype
// holds exactly (tools/bench/typed_values.h), so results compare exactly.
//
// Output: one line per rank at the end, "weft-soak: rank R: OK: N operations, B bytes"
// or "weft-soak: rank R: FAILED after N operations (the last: OPERATION): ERROR"
// (status 3), or
// "weft-soak: rank R: WRONG RESULT ..." (status 4). A PeerError's text names the rank
// it blames; tools/soak.sh checks it against the rank it killed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tools/bench/typed_values.h"
#include "weft/weft.h"

namespace {

using weft::DType;
using weft::ReduceOp;
using weft::bench::Buffer;

constexpr DType kDTypes[] = {DType::kInt8,    DType::kUInt8,    DType::kInt32,   DType::kInt64,
                             DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin};

struct Options {
  double seconds = 60;
  uint64_t seed = 1;
};

class WrongResult : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void expect(bool ok, const std::string& what) {
  if (!ok) throw WrongResult(what);
}

// One group of the soak: its handle (if this rank is a member) and its world ranks.
struct SoakGroup {
  std::vector<int> members;
  weft::Group group;
  int rank = -1;  // this process's rank in it; -1: not a member
};

std::vector<SoakGroup> make_groups(std::mt19937_64& shared, int world, int me) {
  std::vector<SoakGroup> groups(1);
  for (int r = 0; r < world; ++r) groups[0].members.push_back(r);
  groups[0].rank = me;
  for (int g = 0; g < 3 && world > 2; ++g) {
    std::vector<int> members;
    for (int r = 0; r < world; ++r) {
      if (shared() % 2 == 0) members.push_back(r);
    }
    if (members.size() < 2) members = {0, world - 1};
    SoakGroup s;
    s.members = members;
    s.group = weft::new_group(members);  // every rank calls it, members or not
    for (size_t i = 0; i < members.size(); ++i) {
      if (members[i] == me) s.rank = static_cast<int>(i);
    }
    groups.push_back(std::move(s));
  }
  return groups;
}

// Runs one operation drawn from `shared`; returns its description and adds the bytes
// this rank moved to `bytes`.
std::string run_one(std::mt19937_64& shared, std::vector<SoakGroup>& groups, uint64_t& bytes) {
  SoakGroup& g = groups[shared() % groups.size()];
  const int kind = static_cast<int>(shared() % 6);
  const DType dtype = kDTypes[shared() % std::size(kDTypes)];
  const ReduceOp op = kOps[shared() % std::size(kOps)];
  // Sizes spread over 0 .. 256 Ki elements, most of them small.
  const uint64_t count = (uint64_t{1} << (shared() % 19)) - 1 + shared() % 3;
  const int n = static_cast<int>(g.members.size());
  const int root = static_cast<int>(shared() % n);
  const int tag = static_cast<int>(shared() % 1000);
  static const char* const kNames[] = {"all_reduce",     "broadcast",  "all_gather",
                                       "reduce_scatter", "all_to_all", "ring send/recv"};
  std::string what = std::string(kNames[kind]) + " of " + std::to_string(count) + " " +
                     weft::dtype_name(dtype) + " on a group of " + std::to_string(n);
  if (g.rank < 0) return what + " (not a member)";
  const int me = g.rank;
  const uint64_t element = weft::dtype_size(dtype);
  switch (kind) {
    case 0: {  // all_reduce
      Buffer b(dtype, count);
      for (uint64_t i = 0; i < count; ++i) b.set(i, weft::bench::input_value(dtype, op, me, i));
      weft::all_reduce(b.tensor(), op, g.group);
      for (uint64_t i = 0; i < count; ++i) {
        expect(
            weft::bench::matches(dtype, op, b.get(i), weft::bench::reduced_value(dtype, op, n, i)),
            what + ": element " + std::to_string(i));
      }
      bytes += count * element;
      break;
    }
    case 1: {  // broadcast
      Buffer b(dtype, count);
      for (uint64_t i = 0; i < count; ++i) b.set(i, me == root ? (i * 7 + 3) % 100 : 0);
      weft::broadcast(b.tensor(), weft::GroupRank{root}, g.group);
      for (uint64_t i = 0; i < count; ++i) {
        expect(b.get(i) == static_cast<double>((i * 7 + 3) % 100),
               what + ": element " + std::to_string(i));
      }
      bytes += count * element;
      break;
    }
    case 2: {  // all_gather
      Buffer in(dtype, count), out(dtype, count * n);
      for (uint64_t i = 0; i < count; ++i) in.set(i, (me + i) % 100);
      weft::all_gather(in.tensor(), out.tensor(), g.group);
      for (int r = 0; r < n; ++r) {
        for (uint64_t i = 0; i < count; ++i) {
          expect(out.get(r * count + i) == static_cast<double>((r + i) % 100),
                 what + ": block " + std::to_string(r) + " element " + std::to_string(i));
        }
      }
      bytes += count * n * element;
      break;
    }
    case 3: {  // reduce_scatter
      Buffer in(dtype, count * n), out(dtype, count);
      for (uint64_t i = 0; i < count * n; ++i) {
        in.set(i, weft::bench::input_value(dtype, op, me, i));
      }
      weft::reduce_scatter(in.tensor(), out.tensor(), op, g.group);
      for (uint64_t i = 0; i < count; ++i) {
        expect(weft::bench::matches(dtype, op, out.get(i),
                                    weft::bench::reduced_value(dtype, op, n, me * count + i)),
               what + ": element " + std::to_string(i));
      }
      bytes += count * n * element;
      break;
    }
    case 4: {  // all_to_all
      Buffer in(dtype, count * n), out(dtype, count * n);
      for (int r = 0; r < n; ++r) {
        for (uint64_t i = 0; i < count; ++i) in.set(r * count + i, (me * 3 + r + i) % 100);
      }
      weft::all_to_all(in.tensor(), out.tensor(), g.group);
      for (int r = 0; r < n; ++r) {
        for (uint64_t i = 0; i < count; ++i) {
          expect(out.get(r * count + i) == static_cast<double>((r * 3 + me + i) % 100),
                 what + ": block " + std::to_string(r) + " element " + std::to_string(i));
        }
      }
      bytes += count * n * element;
      break;
    }
    default: {  // each member sends to the next and receives from the previous
      Buffer out(dtype, count), in(dtype, count);
      for (uint64_t i = 0; i < count; ++i) out.set(i, (me + i * 5) % 100);
      const int next = (me + 1) % n, previous = (me + n - 1) % n;
      weft::Request sent = weft::isend(out.tensor(), weft::GroupRank{next}, tag, g.group);
      weft::recv(in.tensor(), weft::GroupRank{previous}, tag, g.group);
      sent.wait();
      for (uint64_t i = 0; i < count; ++i) {
        expect(in.get(i) == static_cast<double>((previous + i * 5) % 100),
               what + ": element " + std::to_string(i));
      }
      bytes += 2 * count * element;
      break;
    }
  }
  return what;
}

int soak(const Options& options) {
  weft::init_process_group();
  const int world = weft::get_world_size();
  const int me = weft::get_rank();
  std::mt19937_64 shared(options.seed);
  std::vector<SoakGroup> groups = make_groups(shared, world, me);
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(options.seconds));
  uint64_t operations = 0, bytes = 0;
  std::string last = "init_process_group";
  try {
    while (true) {
      // Every 32 operations rank 0 says whether time is up, so that all stop together.
      if (operations % 32 == 0) {
        uint8_t stop = std::chrono::steady_clock::now() >= end ? 1 : 0;
        weft::broadcast(weft::view(std::span(&stop, 1)), 0);
        if (stop) break;
      }
      last = run_one(shared, groups, bytes);
      ++operations;
    }
    weft::destroy_process_group();
  } catch (const WrongResult& e) {
    std::printf("weft-soak: rank %d: WRONG RESULT after %llu operations: %s\n", me,
                static_cast<unsigned long long>(operations), e.what());
    std::fflush(stdout);
    return 4;
  } catch (const std::exception& e) {
    std::printf("weft-soak: rank %d: FAILED after %llu operations (the last: %s): %s\n", me,
                static_cast<unsigned long long>(operations), last.c_str(), e.what());
    std::fflush(stdout);
    return 3;
  }
  std::printf("weft-soak: rank %d: OK: %llu operations, %llu bytes\n", me,
              static_cast<unsigned long long>(operations), static_cast<unsigned long long>(bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) {
      options.seconds = std::atof(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--seed") == 0) {
      options.seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: weft-soak [--seconds S] [--seed SEED]\n");
      return 2;
    }
  }
  return soak(options);
}
