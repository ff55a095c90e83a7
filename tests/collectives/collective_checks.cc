#include "tests/collectives/collective_checks.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tools/bench/typed_values.h"

namespace weft::testing {
using namespace weft::bench;  // NOLINT: the test data helpers
namespace {

const std::vector<DType>& every_dtype() {
  static const std::vector<DType> all = {
      DType::kInt8,   DType::kUInt8,   DType::kInt32,    DType::kUInt32,  DType::kInt64,
      DType::kUInt64, DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
  return all;
}

bool bitwise(ReduceOp op) {
  return op == ReduceOp::kBand || op == ReduceOp::kBor || op == ReduceOp::kBxor;
}

struct Where {
  const char* what;
  DType dtype;
  ReduceOp op;
  uint64_t count;
  bool in_place;
  std::string describe() const {
    return std::string(what) + " " + dtype_name(dtype) + " " + reduce_op_name(op) + " count " +
           std::to_string(count) + (in_place ? " in place" : "");
  }
};

// EXPECTs got[from + i] == want(i) for i < count; reports the first difference only.
template <typename Want>
void expect_values(const Where& where, const Buffer& got, uint64_t from, uint64_t count,
                   Want want) {
  for (uint64_t i = 0; i < count; ++i) {
    double w = want(i), g = got.get(from + i);
    if (!matches(where.dtype, where.op, g, w)) {
      ADD_FAILURE() << where.describe() << ": element " << i << " is " << g << ", expected " << w;
      return;
    }
  }
}

void fill_input(Buffer& b, ReduceOp op, int rank, uint64_t from, uint64_t count,
                uint64_t index_base = 0) {
  for (uint64_t i = 0; i < count; ++i) {
    b.set(from + i, input_value(b.dtype, op, rank, index_base + i));
  }
}

void check_reductions(const Group& g, DType d, ReduceOp op, uint64_t count) {
  const int n = g.size(), r = g.rank(), root = n - 1;
  for (bool in_place : {false, true}) {
    Where w{"all_reduce", d, op, count, in_place};
    Buffer in(d, count), out(d, count);
    fill_input(in, op, r, 0, count);
    if (in_place) {
      all_reduce(in.tensor(), op, g);
      expect_values(w, in, 0, count, [&](uint64_t i) { return reduced_value(d, op, n, i); });
    } else {
      all_reduce(in.tensor(), out.tensor(), op, g);
      expect_values(w, out, 0, count, [&](uint64_t i) { return reduced_value(d, op, n, i); });
      expect_values(w, in, 0, count, [&](uint64_t i) { return input_value(d, op, r, i); });
    }
  }
  for (bool in_place : {false, true}) {
    Where w{"reduce", d, op, count, in_place};
    Buffer in(d, count), out(d, count);
    fill_input(in, op, r, 0, count);
    if (in_place) {
      reduce(in.tensor(), GroupRank{root}, op, g);
    } else {
      reduce(in.tensor(), out.tensor(), GroupRank{root}, op, g);
    }
    const Buffer& result = in_place ? in : out;
    if (r == root) {
      expect_values(w, result, 0, count, [&](uint64_t i) { return reduced_value(d, op, n, i); });
    } else {
      expect_values(w, in, 0, count, [&](uint64_t i) { return input_value(d, op, r, i); });
    }
  }
  for (bool in_place : {false, true}) {
    Where w{"reduce_scatter", d, op, count, in_place};
    Buffer in(d, count * n), out(d, count);
    fill_input(in, op, r, 0, count * n);
    if (in_place) {
      reduce_scatter(in.tensor(), in.tensor(r * count, count), op, g);
      expect_values(w, in, r * count, count,
                    [&](uint64_t i) { return reduced_value(d, op, n, r * count + i); });
    } else {
      reduce_scatter(in.tensor(), out.tensor(), op, g);
      expect_values(w, out, 0, count,
                    [&](uint64_t i) { return reduced_value(d, op, n, r * count + i); });
    }
  }
}

// Rank q's element i of the data-moving collectives.
double datum(int q, uint64_t i) { return static_cast<double>((q * 13 + i) % 100); }

void check_data_movement(const Group& g, DType d, uint64_t count) {
  const int n = g.size(), r = g.rank();
  const int root = n / 2, other_root = n - 1;
  ReduceOp none = ReduceOp::kSum;  // only for the reports
  {
    Where w{"broadcast", d, none, count, false};
    Buffer b(d, count);
    for (uint64_t i = 0; i < count; ++i) b.set(i, r == root ? datum(root, i) : -1);
    broadcast(b.tensor(), GroupRank{root}, g);
    expect_values(w, b, 0, count, [&](uint64_t i) { return datum(root, i); });
  }
  for (bool in_place : {false, true}) {
    Where w{"all_gather", d, none, count, in_place};
    Buffer in(d, count), out(d, count * n);
    for (uint64_t i = 0; i < count; ++i)
      (in_place ? out : in).set((in_place ? r * count : 0) + i, datum(r, i));
    all_gather(in_place ? out.tensor(r * count, count) : in.tensor(), out.tensor(), g);
    expect_values(w, out, 0, count * n, [&](uint64_t i) {
      return datum(i / std::max<uint64_t>(count, 1), i % std::max<uint64_t>(count, 1));
    });
  }
  for (bool in_place : {false, true}) {
    Where w{"gather", d, none, count, in_place};
    Buffer in(d, count), out(d, count * n);
    bool here = in_place && r == other_root;
    for (uint64_t i = 0; i < count; ++i)
      (here ? out : in).set((here ? r * count : 0) + i, datum(r, i));
    gather(here ? out.tensor(r * count, count) : in.tensor(),
           r == other_root ? out.tensor() : Tensor(), GroupRank{other_root}, g);
    if (r == other_root) {
      expect_values(w, out, 0, count * n, [&](uint64_t i) {
        return datum(i / std::max<uint64_t>(count, 1), i % std::max<uint64_t>(count, 1));
      });
    }
  }
  for (bool in_place : {false, true}) {
    Where w{"scatter", d, none, count, in_place};
    Buffer in(d, count * n), out(d, count);
    if (r == other_root) {
      for (uint64_t i = 0; i < count * n; ++i) in.set(i, datum(other_root, i));
    }
    bool here = in_place && r == other_root;
    scatter(r == other_root ? in.tensor() : Tensor(),
            here ? in.tensor(r * count, count) : out.tensor(), GroupRank{other_root}, g);
    expect_values(w, here ? in : out, here ? r * count : 0, count,
                  [&](uint64_t i) { return datum(other_root, r * count + i); });
  }
  for (bool in_place : {false, true}) {
    Where w{"all_to_all", d, none, count, in_place};
    Buffer in(d, count * n), out(d, count * n);
    // Block j of rank q's input: datum(q, j * count + i).
    for (uint64_t i = 0; i < count * n; ++i) in.set(i, datum(r, i));
    all_to_all(in.tensor(), in_place ? in.tensor() : out.tensor(), g);
    // Block q of the output came from rank q's block r.
    expect_values(w, in_place ? in : out, 0, count * n, [&](uint64_t i) {
      uint64_t c = std::max<uint64_t>(count, 1);
      return datum(static_cast<int>(i / c), r * count + i % c);
    });
  }
}

void check_variable_forms(const Group& g, DType d, uint64_t count) {
  const int n = g.size(), r = g.rank(), root = 1 % n;
  ReduceOp none = ReduceOp::kSum;
  std::vector<uint64_t> counts(n), displs(n);
  uint64_t total = 0;
  for (int q = 0; q < n; ++q) {
    counts[q] = count + q % 3;
    displs[q] = total + 1;  // a gap before each block: displacements are honoured
    total += counts[q] + 1;
  }
  auto expected_gathered = [&](uint64_t i) -> double {
    for (int q = 0; q < n; ++q) {
      if (i >= displs[q] && i < displs[q] + counts[q]) return datum(q, i - displs[q]);
    }
    return 101;  // the gaps stay as they were
  };
  {
    Where w{"all_gatherv", d, none, count, false};
    Buffer in(d, counts[r]), out(d, total);
    for (uint64_t i = 0; i < total; ++i) out.set(i, 101);
    for (uint64_t i = 0; i < counts[r]; ++i) in.set(i, datum(r, i));
    all_gatherv(in.tensor(), out.tensor(), counts, displs, g);
    expect_values(w, out, 0, total, expected_gathered);
  }
  {
    Where w{"gatherv", d, none, count, false};
    Buffer in(d, counts[r]), out(d, total);
    for (uint64_t i = 0; i < total; ++i) out.set(i, 101);
    for (uint64_t i = 0; i < counts[r]; ++i) in.set(i, datum(r, i));
    // Non-roots pass no counts, as MPI_Gatherv allows.
    gatherv(in.tensor(), out.tensor(), r == root ? Counts(counts) : Counts(), GroupRank{root},
            r == root ? Counts(displs) : Counts(), g);
    if (r == root) expect_values(w, out, 0, total, expected_gathered);
  }
  {
    Where w{"scatterv", d, none, count, false};
    Buffer in(d, total), out(d, counts[r]);
    for (uint64_t i = 0; i < total; ++i) in.set(i, expected_gathered(i));
    scatterv(in.tensor(), out.tensor(), counts, GroupRank{root}, displs, g);
    expect_values(w, out, 0, counts[r], [&](uint64_t i) { return datum(r, i); });
  }
  for (bool in_place : {false, true}) {
    // Packed parts of counts[q] elements (no displacements in reduce_scatterv).
    Where w{"reduce_scatterv", d, ReduceOp::kMax, count, in_place};
    uint64_t packed = 0, mine = 0;
    for (int q = 0; q < n; ++q) {
      if (q == r) mine = packed;
      packed += counts[q];
    }
    Buffer in(d, packed), out(d, counts[r]);
    for (uint64_t i = 0; i < packed; ++i) in.set(i, input_value(d, ReduceOp::kMax, r, i));
    if (in_place) {
      reduce_scatterv(in.tensor(), in.tensor(mine, counts[r]), counts, ReduceOp::kMax, g);
    } else {
      reduce_scatterv(in.tensor(), out.tensor(), counts, ReduceOp::kMax, g);
    }
    expect_values(w, in_place ? in : out, in_place ? mine : 0, counts[r],
                  [&](uint64_t i) { return reduced_value(d, ReduceOp::kMax, n, mine + i); });
  }
  {
    Where w{"all_to_allv", d, none, count, false};
    // Rank q sends (q + j) % 3 + count elements to rank j: datum(q * 100 + j, i).
    std::vector<uint64_t> send_counts(n), recv_counts(n);
    uint64_t send_total = 0, recv_total = 0;
    for (int q = 0; q < n; ++q) {
      send_counts[q] = (r + q) % 3 + count;
      recv_counts[q] = (q + r) % 3 + count;
      send_total += send_counts[q];
      recv_total += recv_counts[q];
    }
    Buffer in(d, send_total), out(d, recv_total);
    uint64_t at = 0;
    for (int q = 0; q < n; ++q) {
      for (uint64_t i = 0; i < send_counts[q]; ++i) in.set(at++, datum(r * 7 + q, i));
    }
    all_to_allv(in.tensor(), send_counts, {}, out.tensor(), recv_counts, {}, g);
    at = 0;
    for (int q = 0; q < n; ++q) {
      expect_values(w, out, at, recv_counts[q], [&](uint64_t i) { return datum(q * 7 + r, i); });
      at += recv_counts[q];
    }
  }
}

}  // namespace

void check_all_collectives(const Group& group, const CheckOptions& options) {
  const std::vector<DType>& dtypes = options.dtypes.empty() ? every_dtype() : options.dtypes;
  std::vector<ReduceOp> ops = options.ops;
  if (ops.empty()) {
    for (int op = 0; op < kNumReduceOps; ++op) ops.push_back(static_cast<ReduceOp>(op));
  }
  barrier(group);
  for (DType d : dtypes) {
    for (uint64_t count : options.counts) {
      for (ReduceOp op : ops) {
        if (bitwise(op) && !is_integer(d)) continue;
        check_reductions(group, d, op, count);
      }
      check_data_movement(group, d, count);
      if (options.variable_forms) check_variable_forms(group, d, count);
    }
  }
  barrier(group);
}

void expect_identical_everywhere(const Group& group, const Tensor& result) {
  const int n = group.size();
  std::vector<std::byte> everyone(result.bytes() * n);
  Tensor mine(result.data(), result.bytes(), DType::kUInt8);
  all_gather(mine, Tensor(everyone.data(), everyone.size(), DType::kUInt8), group);
  for (int q = 1; q < n; ++q) {
    EXPECT_EQ(std::memcmp(everyone.data(), everyone.data() + q * result.bytes(), result.bytes()), 0)
        << "rank " << q << "'s result differs from rank 0's";
  }
}

}  // namespace weft::testing
