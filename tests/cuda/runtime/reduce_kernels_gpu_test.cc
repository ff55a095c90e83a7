// The built-in CUDA runtime on a real GPU: its reduction kernel against the CPU
// kernels (core/reduce), which it must match bit for bit, and the memory, copy, stream
// and event calls the device layer uses. Without a usable device (no GPU, no driver,
// or a build without --config=cuda) every test here skips, saying why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "collectives/reduce/reduce_kernels.h"
#include "cuda/device_runtime.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

DeviceRuntime& rt() { return built_in_device_runtime(); }

constexpr DType kAllDTypes[] = {DType::kInt8,    DType::kUInt8,  DType::kInt32,   DType::kUInt32,
                                DType::kInt64,   DType::kUInt64, DType::kFloat16, DType::kBFloat16,
                                DType::kFloat32, DType::kFloat64};
constexpr ReduceOp kAllOps[] = {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kMin,
                                ReduceOp::kMax, ReduceOp::kAvg,     ReduceOp::kBand,
                                ReduceOp::kBor, ReduceOp::kBxor};

bool is_float(DType d) {
  return d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}

std::string label(ReduceOp op, DType dtype) {
  return std::to_string(static_cast<int>(op)) + "/" + dtype_name(dtype);
}

// Device memory freed at the end of the scope.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(uint64_t bytes) : bytes_(bytes), p_(rt().allocate_device(bytes, 0)) {}
  ~DeviceBuffer() { rt().free_device(p_, 0); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::byte* data() const { return static_cast<std::byte*>(p_); }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_;
  void* p_;
};

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      devices_ = rt().device_count();
    } catch (const Error& e) {
      GTEST_SKIP() << "no CUDA device: " << e.what();
    }
    stream_ = rt().create_stream(0);
  }
  void TearDown() override {
    if (stream_.native != nullptr) rt().destroy_stream(stream_);
  }

  void upload(void* dst, const void* src, uint64_t bytes) {
    rt().copy(dst, src, bytes, stream_);
    rt().synchronize_stream(stream_);
  }
  std::vector<uint8_t> download(const void* src, uint64_t bytes) {
    std::vector<uint8_t> host(bytes);
    rt().copy(host.data(), src, bytes, stream_);
    rt().synchronize_stream(stream_);
    return host;
  }

  int devices_ = 0;
  Stream stream_;
};

// ---------------------------------------------------------------------------------
// Test data: every bit pattern (NaNs, infinities and subnormals among them) for a
// quarter of the elements, values of moderate size (whose sums and products round
// but rarely overflow) for the rest.

std::vector<uint8_t> random_elements(DType dtype, uint64_t count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  const size_t size = dtype_size(dtype);
  std::vector<uint8_t> bytes(count * size);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  if (!is_float(dtype)) return bytes;
  std::uniform_real_distribution<double> moderate(-2.0, 2.0);
  for (uint64_t i = 0; i < count; ++i) {
    if (rng() % 4 == 0) continue;
    const double value = moderate(rng);
    uint8_t* at = bytes.data() + i * size;
    if (dtype == DType::kFloat16) {
      const float16 h = collectives::reduce::float_to_float16(static_cast<float>(value));
      std::memcpy(at, &h, size);
    } else if (dtype == DType::kBFloat16) {
      const bfloat16 h = collectives::reduce::float_to_bfloat16(static_cast<float>(value));
      std::memcpy(at, &h, size);
    } else if (dtype == DType::kFloat32) {
      const float f = static_cast<float>(value);
      std::memcpy(at, &f, size);
    } else {
      std::memcpy(at, &value, size);
    }
  }
  return bytes;
}

bool element_is_nan(DType dtype, const uint8_t* p) {
  switch (dtype) {
    case DType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return (h & 0x7fffu) > 0x7c00u;
    }
    case DType::kBFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return (h & 0x7fffu) > 0x7f80u;
    }
    case DType::kFloat32: {
      float f;
      std::memcpy(&f, p, 4);
      return std::isnan(f);
    }
    case DType::kFloat64: {
      double d;
      std::memcpy(&d, p, 8);
      return std::isnan(d);
    }
    default:
      return false;
  }
}

// The CPU kernels' answer: left to right, then the division.
std::vector<uint8_t> cpu_reduce(ReduceOp op, DType dtype, uint64_t count,
                                const std::vector<std::vector<uint8_t>>& inputs, uint64_t divisor) {
  std::vector<uint8_t> result = inputs[0];
  for (size_t k = 1; k < inputs.size(); ++k) {
    collectives::reduce::reduce_elements(op, dtype, result.data(), result.data(), inputs[k].data(),
                                         count);
  }
  if (divisor > 1) collectives::reduce::divide_elements(dtype, result.data(), count, divisor);
  return result;
}

// Bit for bit, except where two NaNs met: the CPU's vectorised loops may take either
// operand's payload then (the compiler is free to swap the operands of + and *), so
// any NaN is accepted where the CPU has one, unless `exact_nans`.
void expect_same(DType dtype, const std::vector<uint8_t>& expected,
                 const std::vector<uint8_t>& actual, const std::string& what,
                 bool exact_nans = false) {
  ASSERT_EQ(expected.size(), actual.size());
  const size_t size = dtype_size(dtype);
  int reported = 0;
  for (size_t i = 0; i < expected.size() / size && reported < 5; ++i) {
    const uint8_t* e = expected.data() + i * size;
    const uint8_t* a = actual.data() + i * size;
    if (std::memcmp(e, a, size) == 0) continue;
    if (!exact_nans && element_is_nan(dtype, e) && element_is_nan(dtype, a)) continue;
    uint64_t ebits = 0, abits = 0;
    std::memcpy(&ebits, e, size);
    std::memcpy(&abits, a, size);
    ADD_FAILURE() << what << ": element " << i << " is 0x" << std::hex << abits
                  << ", the CPU gives 0x" << ebits;
    ++reported;
  }
}

struct Layout {
  int inputs = 2;
  int outputs = 1;
  uint64_t count = 4099;
  // Byte offset of every operand from its allocation's start (which is 256-byte
  // aligned), or one offset per operand (inputs first) when `offsets` is given.
  uint64_t offset = 0;
  std::vector<uint64_t> offsets{};
  // Output k is input in_place[k] where that is >= 0 (in place).
  std::vector<int> in_place{};
};

class ReduceTest : public GpuTest {
 protected:
  // Runs `op` on `dtype` with `layout` on the GPU and compares with the CPU.
  void check_against_cpu(ReduceOp op, DType dtype, const Layout& layout, uint32_t seed,
                         uint64_t divisor = 0) {
    SCOPED_TRACE(label(op, dtype) + " inputs " + std::to_string(layout.inputs) + " outputs " +
                 std::to_string(layout.outputs) + " count " + std::to_string(layout.count) +
                 " offset " + std::to_string(layout.offset));
    const uint64_t bytes = layout.count * dtype_size(dtype);
    const auto offset_of = [&](int k) {
      return layout.offsets.empty() ? layout.offset : layout.offsets[k];
    };
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    std::vector<std::vector<uint8_t>> host_inputs;
    std::vector<const void*> inputs;
    std::vector<void*> outputs;
    for (int k = 0; k < layout.inputs; ++k) {
      buffers.push_back(std::make_unique<DeviceBuffer>(bytes + 64));
      host_inputs.push_back(random_elements(dtype, layout.count, seed * 131 + k));
      std::byte* at = buffers.back()->data() + offset_of(k);
      upload(at, host_inputs.back().data(), bytes);
      inputs.push_back(at);
    }
    for (int k = 0; k < layout.outputs; ++k) {
      const int aliased = k < static_cast<int>(layout.in_place.size()) ? layout.in_place[k] : -1;
      if (aliased >= 0) {
        outputs.push_back(const_cast<void*>(inputs[aliased]));
      } else {
        buffers.push_back(std::make_unique<DeviceBuffer>(bytes + 64));
        outputs.push_back(buffers.back()->data() + offset_of(layout.inputs + k));
      }
    }
    if (divisor == 0) divisor = op == ReduceOp::kAvg ? static_cast<uint64_t>(layout.inputs) : 1;
    rt().reduce(ReduceTask{op, dtype, layout.count, inputs, outputs, divisor}, stream_);
    const std::vector<uint8_t> expected = cpu_reduce(op, dtype, layout.count, host_inputs, divisor);
    for (int k = 0; k < layout.outputs; ++k) {
      expect_same(dtype, expected, download(outputs[k], bytes),
                  label(op, dtype) + " output " + std::to_string(k));
    }
  }
};

// ---------------------------------------------------------------------------------
// The kernel against the CPU kernels.

TEST_F(ReduceTest, EveryOpAndDTypeMatchesTheCpu) {
  uint32_t seed = 1;
  for (DType dtype : kAllDTypes) {
    for (ReduceOp op : kAllOps) {
      if (!collectives::reduce::op_supports(op, dtype)) continue;
      for (int inputs : {1, 2, 3, 5}) {
        check_against_cpu(op, dtype, Layout{.inputs = inputs, .outputs = 1}, ++seed);
      }
      check_against_cpu(op, dtype, Layout{.inputs = 4, .outputs = 3, .count = 100003}, ++seed);
    }
  }
}

TEST_F(ReduceTest, AverageDividesOnceAtTheEnd) {
  uint32_t seed = 100;
  for (DType dtype : kAllDTypes) {
    for (int inputs : {2, 3, 7}) {
      check_against_cpu(ReduceOp::kAvg, dtype, Layout{.inputs = inputs, .outputs = 2}, ++seed);
    }
    // A divisor other than the number of inputs, as when ranks reduce in stages; and
    // one so large that every integer quotient is 0 or -0.
    check_against_cpu(ReduceOp::kAvg, dtype, Layout{.inputs = 2}, ++seed, 6);
    check_against_cpu(ReduceOp::kAvg, dtype, Layout{.inputs = 2}, ++seed, (1ull << 60) + 3);
  }
}

TEST_F(ReduceTest, OddCountsAndAlignments) {
  uint32_t seed = 200;
  for (DType dtype : kAllDTypes) {
    const uint64_t size = dtype_size(dtype);
    for (uint64_t count : {1, 2, 3, 7, 15, 16, 17, 31, 33, 1023}) {
      // Aligned; all shifted alike by an element (vectors after a head); shifted
      // differently (element by element throughout); not even element-aligned.
      check_against_cpu(ReduceOp::kSum, dtype, Layout{.count = count}, ++seed);
      check_against_cpu(ReduceOp::kMax, dtype, Layout{.count = count, .offset = size}, ++seed);
      check_against_cpu(ReduceOp::kProduct, dtype,
                        Layout{.inputs = 3,
                               .outputs = 2,
                               .count = count,
                               .offsets = {0, size, 2 * size, 3 * size, 16}},
                        ++seed);
      if (size > 1) {
        check_against_cpu(ReduceOp::kMin, dtype,
                          Layout{.inputs = 2, .outputs = 1, .count = count, .offset = 1}, ++seed);
      }
    }
  }
}

TEST_F(ReduceTest, InPlaceAndManyOperands) {
  uint32_t seed = 300;
  for (DType dtype : kAllDTypes) {
    check_against_cpu(ReduceOp::kSum, dtype, Layout{.inputs = 2, .outputs = 1, .in_place = {0}},
                      ++seed);
    check_against_cpu(ReduceOp::kAvg, dtype,
                      Layout{.inputs = 3, .outputs = 3, .count = 5001, .in_place = {2, -1, 0}},
                      ++seed);
    check_against_cpu(
        ReduceOp::kMin, dtype,
        Layout{.inputs = kMaxReduceOperands, .outputs = kMaxReduceOperands, .count = 777}, ++seed);
  }
}

TEST_F(ReduceTest, LargeCountsUseTheWholeGrid) {
  // More elements than the grid has threads, so every thread loops.
  check_against_cpu(ReduceOp::kSum, DType::kFloat32, Layout{.count = (1u << 24) + 5}, 400);
  check_against_cpu(ReduceOp::kMax, DType::kBFloat16, Layout{.count = (1u << 24) + 3}, 401);
  check_against_cpu(ReduceOp::kBxor, DType::kUInt8, Layout{.inputs = 3, .count = (1u << 25) + 1},
                    402);
}

// Explicit cases, each with the value weft's CPU kernels give.
template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

class KnownValuesTest : public GpuTest {
 protected:
  // op over (a[i], b[i]) on the GPU, compared with the CPU with NaN bits exact (no
  // element has two NaN operands).
  void check(ReduceOp op, DType dtype, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
             uint64_t divisor = 1) {
    const uint64_t count = a.size() / dtype_size(dtype);
    DeviceBuffer x(a.size()), y(b.size()), out(a.size());
    upload(x.data(), a.data(), a.size());
    upload(y.data(), b.data(), b.size());
    const void* inputs[] = {x.data(), y.data()};
    void* outputs[] = {out.data()};
    rt().reduce(ReduceTask{op, dtype, count, inputs, outputs, divisor}, stream_);
    expect_same(dtype, cpu_reduce(op, dtype, count, {a, b}, divisor),
                download(out.data(), a.size()), label(op, dtype), /*exact_nans=*/true);
  }
};

TEST_F(KnownValuesTest, IntegersWrap) {
  const std::vector<int8_t> a8 = {127, -128, 100, -1, 16};
  const std::vector<int8_t> b8 = {1, -1, 100, -128, 16};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kAvg}) {
    check(op, DType::kInt8, bytes_of(a8), bytes_of(b8), op == ReduceOp::kAvg ? 2 : 1);
  }
  const std::vector<int64_t> a64 = {std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(), -7, 1ll << 40};
  const std::vector<int64_t> b64 = {1, -1, 2, 1ll << 40};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kAvg}) {
    check(op, DType::kInt64, bytes_of(a64), bytes_of(b64), op == ReduceOp::kAvg ? 3 : 1);
  }
  const std::vector<uint32_t> a32 = {0xffffffffu, 0x80000000u, 3};
  const std::vector<uint32_t> b32 = {1, 2, 0xfffffffdu};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kAvg}) {
    check(op, DType::kUInt32, bytes_of(a32), bytes_of(b32), op == ReduceOp::kAvg ? 2 : 1);
  }
}

TEST_F(KnownValuesTest, NaNsKeepTheCpusBits) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto f = [](uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  };
  // A quiet NaN with a payload, a signalling one, a negative one; invalid operations
  // (inf - inf, 0 * inf), which make x86's default NaN.
  const std::vector<float> a = {f(0x7fc01234u), 1.0f, f(0xff800001u), inf, 0.0f, -2.0f};
  const std::vector<float> b = {3.0f, f(0x7f800005u), 5.0f, -inf, inf, f(0x7fffffffu)};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kMin, ReduceOp::kMax}) {
    check(op, DType::kFloat32, bytes_of(a), bytes_of(b));
  }
  check(ReduceOp::kAvg, DType::kFloat32, bytes_of(a), bytes_of(b), 2);
  std::vector<double> da, db;
  for (float v : a) da.push_back(v);
  for (float v : b) db.push_back(v);
  da[1] = std::numeric_limits<double>::signaling_NaN();
  db[1] = 1.0;  // one NaN operand per element: the CPU's result is then certain
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kMin, ReduceOp::kMax}) {
    check(op, DType::kFloat64, bytes_of(da), bytes_of(db));
  }
  // float16: quiet, signalling and negative NaNs with payloads; bfloat16 likewise.
  const std::vector<uint16_t> ha = {0x7e12, 0x3c00, 0xfc01, 0x7c00, 0x0000, 0xc000};
  const std::vector<uint16_t> hb = {0x4200, 0x7c05, 0x4500, 0xfc00, 0x7c00, 0x7fff};
  const std::vector<uint16_t> ba = {0x7fc1, 0x3f80, 0xff81, 0x7f80, 0x0000, 0xc000};
  const std::vector<uint16_t> bb = {0x4040, 0x7f85, 0x40a0, 0xff80, 0x7f80, 0x7fff};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kMin, ReduceOp::kMax}) {
    check(op, DType::kFloat16, bytes_of(ha), bytes_of(hb));
    check(op, DType::kBFloat16, bytes_of(ba), bytes_of(bb));
  }
  check(ReduceOp::kAvg, DType::kFloat16, bytes_of(ha), bytes_of(hb), 3);
  check(ReduceOp::kAvg, DType::kBFloat16, bytes_of(ba), bytes_of(bb), 3);
}

TEST_F(KnownValuesTest, HalfFormatsRoundAfterEveryStep) {
  // Ties (to even), values just above and below them, overflow to infinity, and
  // subnormal results, for float16 then bfloat16.
  const std::vector<uint16_t> ha = {0x3c00, 0x3c01, 0x7bff, 0x0001, 0x8001, 0x0200, 0x3555};
  const std::vector<uint16_t> hb = {0x1000, 0x1000, 0x5000, 0x0001, 0x0003, 0x3800, 0x3555};
  const std::vector<uint16_t> ba = {0x3f80, 0x3f81, 0x7f7f, 0x0001, 0x8001, 0x0080, 0x3eab};
  const std::vector<uint16_t> bb = {0x3b80, 0x3b80, 0x7400, 0x0001, 0x0003, 0x3f00, 0x3eab};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProduct}) {
    check(op, DType::kFloat16, bytes_of(ha), bytes_of(hb));
    check(op, DType::kBFloat16, bytes_of(ba), bytes_of(bb));
  }
  check(ReduceOp::kAvg, DType::kFloat16, bytes_of(ha), bytes_of(hb), 3);
  check(ReduceOp::kAvg, DType::kBFloat16, bytes_of(ba), bytes_of(bb), 7);
}

TEST_F(ReduceTest, RefusesWhatTheCpuKernelsRefuse) {
  DeviceBuffer x(64), y(64);
  const void* in[] = {x.data(), y.data()};
  void* out[] = {x.data()};
  EXPECT_THROW(rt().reduce(ReduceTask{ReduceOp::kBxor, DType::kFloat32, 16, in, out, 1}, stream_),
               InvalidArgument);
  std::vector<const void*> many(kMaxReduceOperands + 1, x.data());
  EXPECT_THROW(rt().reduce(ReduceTask{ReduceOp::kSum, DType::kInt32, 16, many, out, 1}, stream_),
               InvalidArgument);
  EXPECT_THROW(rt().reduce(ReduceTask{ReduceOp::kSum, DType::kInt32, 16, {}, out, 1}, stream_),
               InvalidArgument);
  EXPECT_THROW(rt().reduce(ReduceTask{ReduceOp::kAvg, DType::kInt32, 16, in, out, 0}, stream_),
               InvalidArgument);
  rt().synchronize_stream(stream_);
}

// ---------------------------------------------------------------------------------
// Memory, copies, streams and events.

TEST_F(GpuTest, AllocationOfFindsTheBase) {
  DeviceBuffer buffer(1 << 20);
  const AllocationRange range = rt().allocation_of(buffer.data() + 12345, 0);
  EXPECT_EQ(range.base, buffer.data());
  EXPECT_GE(range.size, buffer.bytes());
  EXPECT_THROW(rt().allocation_of(&range, 0), Error);  // host memory
}

TEST_F(GpuTest, CheckPointerTellsDeviceMemoryFromTheRest) {
  DeviceBuffer buffer(4096);
  EXPECT_EQ(rt().check_pointer(buffer.data(), 4096, 0), "");
  EXPECT_EQ(rt().check_pointer(buffer.data() + 96, 4000, 0), "");
  EXPECT_NE(rt().check_pointer(buffer.data() + 96, 4001, 0).find("past the end"),
            std::string::npos);

  std::vector<uint8_t> host(4096);
  EXPECT_NE(rt().check_pointer(host.data(), host.size(), 0).find("host memory"), std::string::npos);
  void* pinned = rt().allocate_pinned(4096);
  EXPECT_NE(rt().check_pointer(pinned, 4096, 0).find("page-locked"), std::string::npos);
  rt().free_pinned(pinned);

  if (devices_ > 1) {
    void* other = rt().allocate_device(4096, 1);
    EXPECT_NE(rt().check_pointer(other, 4096, 0).find("memory of cuda:1"), std::string::npos);
    EXPECT_EQ(rt().check_pointer(other, 4096, 1), "");
    rt().free_device(other, 1);
  }
}

TEST_F(GpuTest, CopiesInEveryDirection) {
  const uint64_t bytes = (1 << 20) + 3;
  std::vector<uint8_t> source(bytes);
  for (uint64_t i = 0; i < bytes; ++i) source[i] = static_cast<uint8_t>(i * 7 + 1);
  DeviceBuffer d1(bytes), d2(bytes);
  auto* pinned = static_cast<uint8_t*>(rt().allocate_pinned(bytes));
  rt().copy(d1.data(), source.data(), bytes, stream_);  // pageable host to device
  rt().copy(d2.data(), d1.data(), bytes, stream_);      // device to device
  rt().copy(pinned, d2.data(), bytes, stream_);         // device to pinned host
  rt().synchronize_stream(stream_);
  EXPECT_EQ(std::memcmp(pinned, source.data(), bytes), 0);
  std::vector<uint8_t> back(bytes);
  rt().copy(back.data(), pinned, bytes, stream_);  // host to host
  rt().synchronize_stream(stream_);
  EXPECT_EQ(back, source);
  rt().free_pinned(pinned);
}

TEST_F(GpuTest, EventsOrderStreams) {
  const uint64_t bytes = 64 << 20;
  DeviceBuffer a(bytes), b(bytes);
  std::vector<uint8_t> pattern(bytes, 0x5a), result(bytes);
  Stream second = rt().create_stream(0);
  Event done = rt().create_event(0);
  rt().copy(a.data(), pattern.data(), bytes, stream_);
  rt().record(done, stream_);
  rt().wait_event(second, done);  // the second stream's copy starts after the first's
  rt().copy(b.data(), a.data(), bytes, second);
  rt().copy(result.data(), b.data(), bytes, second);
  rt().synchronize_stream(second);
  EXPECT_TRUE(rt().event_done(done));
  rt().synchronize_event(done);
  EXPECT_EQ(result, pattern);
  rt().destroy_event(done);
  rt().destroy_stream(second);

  // The default stream works too, and is left alone by destroy_stream.
  Stream default_stream{nullptr, 0};
  rt().copy(result.data(), a.data(), 1024, default_stream);
  rt().synchronize_stream(default_stream);
  rt().destroy_stream(default_stream);
}

TEST_F(GpuTest, DescribeNamesVersionsAndDevices) {
  const std::string text = rt().describe();
  EXPECT_EQ(text.rfind("cuda ", 0), 0u) << text;
  EXPECT_NE(text.find("driver"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda:0 "), std::string::npos) << text;
}

}  // namespace
}  // namespace weft::cuda
