// The layouts derived datatypes flatten to, and packing and unpacking through them, with
// no MPI_Init: the constructors behind MPI_Type_* (derived_types.h) are called directly.
#include "mpi/src/derived_types.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

#include "mpi/src/array_types.h"
#include "mpi/src/errors.h"

namespace weft::mpi {
namespace {

using Segments = std::vector<Segment>;

// Fails unless `f` throws MpiError of class `error_class`; returns its message.
std::string error_of(const std::function<void()>& f, int error_class) {
  try {
    f();
  } catch (const MpiError& e) {
    EXPECT_EQ(e.error_class(), error_class) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no MpiError thrown";
  return "";
}

const Typemap& tm(MPI_Datatype t) { return *typemap_of(t); }

// Owns the derived types a test makes.
class Types {
 public:
  ~Types() {
    for (MPI_Datatype t : made_) free_datatype(&t);
  }
  MPI_Datatype operator()(MPI_Datatype t) {
    made_.push_back(t);
    return t;
  }
  MPI_Datatype committed(MPI_Datatype t) {
    commit_datatype(t);
    return (*this)(t);
  }

 private:
  std::vector<MPI_Datatype> made_;
};

MPI_Datatype int_char_struct() {  // struct { int a; char b; }
  int bl[] = {1, 1};
  MPI_Aint d[] = {0, 4};
  MPI_Datatype ty[] = {MPI_INT, MPI_CHAR};
  return make_struct(2, bl, d, ty);
}

TEST(DerivedTypes, PredefinedTypesHaveTrivialTypemaps) {
  const Typemap& i = tm(MPI_INT);
  EXPECT_EQ(i.segments, (Segments{{0, 4}}));
  EXPECT_EQ(i.size, 4u);
  EXPECT_EQ(i.extent, 4);
  EXPECT_EQ(i.lb, 0);
  EXPECT_TRUE(i.dense());
  EXPECT_EQ(i.uniform_basic_type, MPI_INT);
  EXPECT_EQ(i.basic_count, 1u);
  EXPECT_EQ(tm(MPI_LONG_DOUBLE).alignment, alignof(long double));
  EXPECT_EQ(tm(MPI_C_DOUBLE_COMPLEX).alignment, alignof(double));
  EXPECT_EQ(tm(MPI_C_FLOAT_COMPLEX).alignment, alignof(float));
  EXPECT_EQ(datatype_size(MPI_DOUBLE), 8u);
  EXPECT_TRUE(is_predefined(MPI_BYTE));
  EXPECT_FALSE(is_predefined(MPI_DATATYPE_NULL));
  EXPECT_EQ(datatype_name(MPI_INT), "MPI_INT");
  EXPECT_EQ(datatype_name(MPI_UNSIGNED_LONG), "MPI_UNSIGNED_LONG");
}

TEST(DerivedTypes, PairTypesLeaveTheirPaddingOut) {
  const Typemap& di = tm(MPI_DOUBLE_INT);  // { double; int; } padded to 16
  EXPECT_EQ(di.segments, (Segments{{0, 12}}));
  EXPECT_EQ(di.size, 12u);
  EXPECT_EQ(di.extent, 16);
  EXPECT_EQ(di.true_extent, 12);
  EXPECT_EQ(di.basic_count, 2u);
  EXPECT_FALSE(di.dense());
  const Typemap& si = tm(MPI_SHORT_INT);  // { short; int; }: a hole after the short
  EXPECT_EQ(si.segments, (Segments{{0, 2}, {4, 4}}));
  EXPECT_EQ(si.size, 6u);
  EXPECT_EQ(si.extent, 8);
  EXPECT_EQ(si.true_extent, 8);
  EXPECT_TRUE(tm(MPI_2INT).dense());
  EXPECT_EQ(basic_element_count(8, MPI_2INT), 2u);
  EXPECT_EQ(basic_element_count(12, MPI_2INT), 3u);
  EXPECT_EQ(basic_element_count(2, MPI_SHORT_INT), 1u);
  EXPECT_EQ(basic_element_count(3, MPI_SHORT_INT), kUndefinedCount);
}

TEST(DerivedTypes, ContiguousAndVectorMergeAdjacentSegments) {
  Types types;
  const Typemap& c = tm(types(make_contiguous(5, MPI_DOUBLE)));
  EXPECT_EQ(c.segments, (Segments{{0, 40}}));
  EXPECT_EQ(c.extent, 40);
  EXPECT_TRUE(c.dense());
  // A stride equal to the block length is contiguous too.
  const Typemap& v1 = tm(types(make_vector(3, 2, 2, MPI_INT)));
  EXPECT_EQ(v1.segments, (Segments{{0, 24}}));
  const Typemap& v = tm(types(make_vector(3, 2, 4, MPI_INT)));
  EXPECT_EQ(v.segments, (Segments{{0, 8}, {16, 8}, {32, 8}}));
  EXPECT_EQ(v.size, 24u);
  EXPECT_EQ(v.lb, 0);
  EXPECT_EQ(v.extent, 40);
  EXPECT_EQ(v.true_extent, 40);
  EXPECT_EQ(v.basic_count, 6u);
  EXPECT_EQ(v.uniform_basic_type, MPI_INT);
  // Negative strides: the blocks go down, in typemap order.
  const Typemap& n = tm(types(make_vector(3, 2, -4, MPI_INT)));
  EXPECT_EQ(n.segments, (Segments{{0, 8}, {-16, 8}, {-32, 8}}));
  EXPECT_EQ(n.lb, -32);
  EXPECT_EQ(n.extent, 40);
  EXPECT_EQ(n.true_lb, -32);
}

TEST(DerivedTypes, HvectorPadsToTheAlignment) {
  Types types;
  const Typemap& h = tm(types(make_hvector(3, 1, 5, MPI_INT)));
  EXPECT_EQ(h.segments, (Segments{{0, 4}, {5, 4}, {10, 4}}));
  EXPECT_EQ(h.extent, 16);  // 14 rounded up to int's alignment (Open MPI: 16)
  EXPECT_EQ(h.true_extent, 14);
  EXPECT_EQ(tm(types(make_hvector(2, 1, 6, MPI_CHAR))).extent, 7);
}

TEST(DerivedTypes, IndexedKeepsTypemapOrder) {
  Types types;
  int bl[] = {2, 1, 3};
  int d[] = {4, 0, 7};
  const Typemap& x = tm(types(make_indexed(3, bl, d, MPI_INT)));
  EXPECT_EQ(x.segments, (Segments{{16, 8}, {0, 4}, {28, 12}}));
  EXPECT_EQ(x.size, 24u);
  EXPECT_EQ(x.lb, 0);
  EXPECT_EQ(x.extent, 40);
  // Adjacent in memory but not in typemap order: not merged.
  int one[] = {1, 1};
  int down[] = {1, 0}, up[] = {0, 1};
  EXPECT_EQ(tm(types(make_indexed(2, one, down, MPI_INT))).segments, (Segments{{4, 4}, {0, 4}}));
  EXPECT_EQ(tm(types(make_indexed(2, one, up, MPI_INT))).segments, (Segments{{0, 8}}));
  // Empty blocks add nothing, bounds included.
  int bl0[] = {0, 2};
  int d0[] = {5, 1};
  const Typemap& e = tm(types(make_indexed(2, bl0, d0, MPI_INT)));
  EXPECT_EQ(e.lb, 4);
  EXPECT_EQ(e.extent, 8);
  MPI_Aint hd[] = {0, 3};
  int hbl[] = {2, 1};
  const Typemap& hx = tm(types(make_hindexed(2, hbl, hd, MPI_INT)));
  EXPECT_EQ(hx.segments, (Segments{{0, 8}, {3, 4}}));
  EXPECT_EQ(hx.extent, 8);
  int bd[] = {3, 0};
  const Typemap& ib = tm(types(make_indexed_block(2, 2, bd, MPI_SHORT)));
  EXPECT_EQ(ib.segments, (Segments{{6, 4}, {0, 4}}));
  EXPECT_EQ(ib.extent, 10);
  MPI_Aint hbd[] = {8, 0};
  EXPECT_EQ(tm(types(make_hindexed_block(2, 1, hbd, MPI_DOUBLE))).segments,
            (Segments{{8, 8}, {0, 8}}));
}

TEST(DerivedTypes, StructsArePaddedAsCStructsAre) {
  Types types;
  const Typemap& s = tm(types(int_char_struct()));
  EXPECT_EQ(s.segments, (Segments{{0, 5}}));
  EXPECT_EQ(s.size, 5u);
  EXPECT_EQ(s.extent, 8);
  EXPECT_EQ(s.true_extent, 5);
  EXPECT_EQ(s.alignment, 4u);
  EXPECT_EQ(s.uniform_basic_type, std::nullopt);
  struct CD {
    char c;
    double d;
  };
  int bl[] = {1, 1};
  MPI_Aint d[] = {0, offsetof(CD, d)};
  MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE};
  const Typemap& cd = tm(types(make_struct(2, bl, d, ty)));
  EXPECT_EQ(cd.extent, static_cast<int64_t>(sizeof(CD)));
  EXPECT_EQ(cd.segments, (Segments{{0, 1}, {8, 8}}));
  // The lower bound is where the data starts; the extent is padded from there.
  MPI_Aint d2[] = {4, 12};
  MPI_Datatype ty2[] = {MPI_INT, MPI_CHAR};
  const Typemap& off = tm(types(make_struct(2, bl, d2, ty2)));
  EXPECT_EQ(off.lb, 4);
  EXPECT_EQ(off.extent, 12);
  EXPECT_EQ(off.true_lb, 4);
  EXPECT_EQ(off.true_extent, 9);
  // An empty member's alignment does not count.
  int bl3[] = {1, 0};
  MPI_Aint d3[] = {0, 8};
  MPI_Datatype ty3[] = {MPI_CHAR, MPI_DOUBLE};
  EXPECT_EQ(tm(types(make_struct(2, bl3, d3, ty3))).extent, 1);
  // Members of one type make a uniform struct.
  MPI_Datatype ty4[] = {MPI_INT, MPI_INT};
  MPI_Aint d4[] = {0, 8};
  EXPECT_EQ(tm(types(make_struct(2, bl, d4, ty4))).uniform_basic_type, MPI_INT);
  int bl5[] = {0, 2};
  MPI_Datatype ty5[] = {MPI_DOUBLE, MPI_INT};
  EXPECT_EQ(tm(types(make_struct(2, bl5, d4, ty5))).uniform_basic_type, MPI_INT);
  EXPECT_EQ(tm(types(make_contiguous(0, MPI_DOUBLE))).uniform_basic_type, MPI_DOUBLE);
}

TEST(DerivedTypes, ResizedBoundsAreExplicit) {
  Types types;
  MPI_Datatype r = types(make_resized(MPI_INT, -2, 10));
  const Typemap& rt = tm(r);
  EXPECT_EQ(rt.lb, -2);
  EXPECT_EQ(rt.extent, 10);
  EXPECT_EQ(rt.true_lb, 0);
  EXPECT_EQ(rt.true_extent, 4);
  EXPECT_FALSE(rt.dense());
  // In a struct, the explicit bounds win over the other members' (and no padding).
  int bl[] = {1, 1};
  MPI_Aint d[] = {0, 20};
  MPI_Datatype ty[] = {r, MPI_CHAR};
  const Typemap& s = tm(types(make_struct(2, bl, d, ty)));
  EXPECT_EQ(s.lb, -2);
  EXPECT_EQ(s.extent, 10);
  EXPECT_EQ(s.true_extent, 21);
  // Unaligned extents stay as they are.
  MPI_Datatype five = types(make_resized(MPI_INT, 0, 5));
  const Typemap& c5 = tm(types(make_contiguous(3, five)));
  EXPECT_EQ(c5.extent, 15);
  EXPECT_EQ(c5.segments, (Segments{{0, 4}, {5, 4}, {10, 4}}));
  // A negative extent: each copy below the last.
  MPI_Datatype back = types(make_resized(MPI_INT, 4, -4));
  const Typemap& cb = tm(types(make_contiguous(3, back)));
  EXPECT_EQ(cb.lb, -4);
  EXPECT_EQ(cb.extent, 4);
  EXPECT_EQ(cb.true_lb, -8);
  EXPECT_EQ(cb.true_extent, 12);
  EXPECT_EQ(cb.segments, (Segments{{0, 4}, {-4, 4}, {-8, 4}}));
  // Resizing a dense type to its own extent keeps it dense.
  EXPECT_TRUE(tm(types(make_resized(MPI_DOUBLE, 0, 8))).dense());
}

TEST(DerivedTypes, NestedTypesOutliveTheirParts) {
  Types types;
  MPI_Datatype s = int_char_struct();
  MPI_Datatype v = make_vector(2, 1, 2, s);  // s at 0 and 16
  MPI_Datatype c = types(make_contiguous(2, v));
  free_datatype(&s);
  free_datatype(&v);
  EXPECT_EQ(s, MPI_DATATYPE_NULL);
  const Typemap& t = tm(c);
  // v: extent 24 (16 + 8); c: v at 0 and 24.
  EXPECT_EQ(t.segments, (Segments{{0, 5}, {16, 5}, {24, 5}, {40, 5}}));
  EXPECT_EQ(t.size, 20u);
  EXPECT_EQ(t.extent, 48);
  EXPECT_EQ(t.basic_count, 8u);
  commit_datatype(c);
  struct IC {
    int a;
    char b;
  };
  IC in[6], out[6];
  std::memset(in, 0, sizeof in);
  std::memset(out, 0x5a, sizeof out);
  for (int i = 0; i < 6; ++i) in[i] = {100 + i, static_cast<char>('a' + i)};
  std::vector<std::byte> packed(t.size);
  BufferLayout layout = layout_of(in, 1, c, "send");
  EXPECT_FALSE(layout.contiguous);
  EXPECT_EQ(layout.bytes, 20u);
  pack(layout, packed.data());
  int first;
  std::memcpy(&first, packed.data() + 5, 4);
  EXPECT_EQ(first, 102);  // in[2], the second block
  EXPECT_EQ(unpack(packed.data(), packed.size(), 1, c, out), 20u);
  for (int i : {0, 2, 3, 5}) {
    EXPECT_EQ(out[i].a, in[i].a) << i;
    EXPECT_EQ(out[i].b, in[i].b) << i;
  }
  for (int i : {1, 4}) EXPECT_EQ(out[i].a, 0x5a5a5a5a) << i;
}

TEST(DerivedTypes, PackAndUnpackRoundTrip) {
  Types types;
  MPI_Datatype v = types.committed(make_vector(3, 2, 4, MPI_INT));  // ints 0,1 4,5 8,9
  std::vector<int> in(40), out(40, -1);
  std::iota(in.begin(), in.end(), 0);
  // Two elements: the second starts at the extent, 10 ints on.
  std::vector<std::byte> packed(48);
  pack(in.data(), 2, v, packed.data());
  std::vector<int> values(12);
  std::memcpy(values.data(), packed.data(), 48);
  EXPECT_EQ(values, (std::vector<int>{0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}));
  EXPECT_EQ(unpack(packed.data(), 48, 2, v, out.data()), 48u);
  for (int i = 0; i < 40; ++i) {
    bool data = i < 20 && (i % 10) % 4 < 2;
    EXPECT_EQ(out[i], data ? i : -1) << i;
  }
}

TEST(DerivedTypes, ShortMessagesUnpackPartly) {
  Types types;
  MPI_Datatype v = types.committed(make_vector(2, 1, 2, MPI_INT));  // ints 0 and 2; extent 12
  std::vector<int> out(9, -1);
  int packed_ints[] = {10, 20, 30, 40, 50, 60};
  std::byte packed[24];
  std::memcpy(packed, packed_ints, sizeof packed);
  // 12 bytes for 3 elements: the first whole, the second's first int.
  EXPECT_EQ(unpack(packed, 12, 3, v, out.data()), 12u);
  EXPECT_EQ(out, (std::vector<int>{10, -1, 20, 30, -1, -1, -1, -1, -1}));
  // More bytes than the elements hold: only the elements are filled.
  std::fill(out.begin(), out.end(), -1);
  EXPECT_EQ(unpack(packed, 24, 1, v, out.data()), 8u);
  EXPECT_EQ(out, (std::vector<int>{10, -1, 20, -1, -1, -1, -1, -1, -1}));
  // A partial basic element is copied as far as it goes.
  std::fill(out.begin(), out.end(), 0);
  EXPECT_EQ(unpack(packed, 6, 1, v, out.data()), 6u);
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[2] & 0xffff, 20);
  // Predefined types too.
  std::vector<int> ints(4, -1);
  EXPECT_EQ(unpack(packed, 8, 4, MPI_INT, ints.data()), 8u);
  EXPECT_EQ(ints, (std::vector<int>{10, 20, -1, -1}));
}

TEST(DerivedTypes, ElementCounts) {
  Types types;
  MPI_Datatype v = types(make_vector(3, 2, 4, MPI_INT));
  EXPECT_EQ(element_count(48, v), 2u);
  EXPECT_EQ(element_count(0, v), 0u);
  EXPECT_EQ(element_count(28, v), kUndefinedCount);
  EXPECT_EQ(static_cast<int>(kUndefinedCount), MPI_UNDEFINED);
  EXPECT_EQ(basic_element_count(28, v), 7u);
  EXPECT_EQ(basic_element_count(30, v), kUndefinedCount);
  EXPECT_EQ(element_count(12, MPI_INT), 3u);
  EXPECT_EQ(element_count(13, MPI_INT), kUndefinedCount);
  EXPECT_EQ(element_count(5, types(make_contiguous(0, MPI_INT))), 0u);
  // struct { int; char; double; }: 13 bytes, 3 basic elements.
  int bl[] = {1, 1, 1};
  MPI_Aint d[] = {0, 4, 8};
  MPI_Datatype ty[] = {MPI_INT, MPI_CHAR, MPI_DOUBLE};
  MPI_Datatype s = types(make_struct(3, bl, d, ty));
  EXPECT_EQ(datatype_size(s), 13u);
  EXPECT_EQ(basic_element_count(13, s), 3u);
  EXPECT_EQ(basic_element_count(13 + 4, s), 4u);
  EXPECT_EQ(basic_element_count(13 + 5, s), 5u);
  EXPECT_EQ(basic_element_count(13 + 6, s), kUndefinedCount);
  EXPECT_EQ(basic_element_count(26, s), 6u);
  // Nested: 3 copies of struct { int; char; } (5 bytes, 2 basics each), then a double.
  MPI_Datatype ic = types(int_char_struct());
  MPI_Datatype c3 = types(make_contiguous(3, ic));
  int bl2[] = {1, 1};
  MPI_Aint d2[] = {0, 100};
  MPI_Datatype ty2[] = {c3, MPI_DOUBLE};
  MPI_Datatype n = types(make_struct(2, bl2, d2, ty2));
  EXPECT_EQ(datatype_size(n), 23u);
  EXPECT_EQ(tm(n).basic_count, 7u);
  EXPECT_EQ(basic_element_count(9, n), 3u);
  EXPECT_EQ(basic_element_count(10, n), 4u);
  EXPECT_EQ(basic_element_count(11, n), kUndefinedCount);
  EXPECT_EQ(basic_element_count(15, n), 6u);
  EXPECT_EQ(basic_element_count(23 + 15 + 8, n), 7u + 7u);
  // A million copies of a mixed struct cost one node, and count right.
  MPI_Datatype big = types(make_contiguous(1000000, ic));
  EXPECT_EQ(tm(big).basics->items.size(), 1u);
  EXPECT_EQ(basic_element_count(5 * 999999 + 4, big), 2u * 999999 + 1);
}

TEST(DerivedTypes, LayoutsSayWhatIsContiguous) {
  Types types;
  int buf[64] = {};
  BufferLayout p = layout_of(buf, 5, MPI_INT, "send");
  EXPECT_TRUE(p.contiguous);
  EXPECT_EQ(p.bytes, 20u);
  EXPECT_EQ(p.start, reinterpret_cast<std::byte*>(buf));
  EXPECT_FALSE(layout_of(buf, 2, MPI_DOUBLE_INT, "send").contiguous);
  EXPECT_TRUE(layout_of(buf, 1, MPI_DOUBLE_INT, "send").contiguous);
  // Data that starts past the buffer's address.
  MPI_Aint d[] = {8};
  int bl[] = {2};
  MPI_Datatype h = types.committed(make_hindexed(1, bl, d, MPI_INT));
  BufferLayout hl = layout_of(buf, 3, h, "send");
  EXPECT_TRUE(hl.contiguous);
  EXPECT_EQ(hl.bytes, 24u);
  EXPECT_EQ(hl.start, reinterpret_cast<std::byte*>(buf) + 8);
  MPI_Datatype v = types.committed(make_vector(2, 1, 2, MPI_INT));
  BufferLayout vl = layout_of(buf, 2, v, "send");
  EXPECT_FALSE(vl.contiguous);
  EXPECT_EQ(vl.bytes, 16u);
  BufferLayout none = layout_of(nullptr, 0, v, "send");
  EXPECT_TRUE(none.contiguous);
  EXPECT_EQ(none.bytes, 0u);
  // Absolute addresses from MPI_BOTTOM.
  MPI_Aint abs[] = {reinterpret_cast<MPI_Aint>(&buf[3])};
  int one[] = {1};
  MPI_Datatype a = types.committed(make_hindexed(1, one, abs, MPI_INT));
  BufferLayout al = layout_of(MPI_BOTTOM, 1, a, "send");
  EXPECT_TRUE(al.contiguous);
  EXPECT_EQ(al.start, reinterpret_cast<std::byte*>(&buf[3]));
}

TEST(DerivedTypes, Errors) {
  Types types;
  MPI_Datatype v = types(make_vector(2, 1, 2, MPI_INT));
  int buf[8];
  EXPECT_NE(error_of([&] { layout_of(buf, 1, v, "send"); }, MPI_ERR_TYPE)
                .find("the send datatype is not committed"),
            std::string::npos);
  EXPECT_NE(error_of([&] { check_committed(v); }, MPI_ERR_TYPE).find("not committed"),
            std::string::npos);
  commit_datatype(v);
  check_committed(v);
  check_committed(MPI_INT);
  error_of([&] { layout_of(buf, -1, v, "send"); }, MPI_ERR_COUNT);
  error_of([&] { layout_of(nullptr, 2, MPI_INT, "send"); }, MPI_ERR_BUFFER);
  error_of([&] { layout_of(buf, 1, MPI_DATATYPE_NULL, "send"); }, MPI_ERR_TYPE);
  error_of([&] { layout_of(buf, 1, reinterpret_cast<MPI_Datatype>(0x2ff), "send"); }, MPI_ERR_TYPE);
  error_of([] { make_contiguous(-1, MPI_INT); }, MPI_ERR_COUNT);
  EXPECT_NE(error_of([] { make_vector(2, -1, 2, MPI_INT); }, MPI_ERR_ARG).find("blocklength"),
            std::string::npos);
  int bad[] = {1, -1};
  int d[] = {0, 1};
  EXPECT_NE(error_of([&] { make_indexed(2, bad, d, MPI_INT); }, MPI_ERR_ARG)
                .find("array_of_blocklengths[1]"),
            std::string::npos);
  error_of([&] { make_indexed(2, nullptr, d, MPI_INT); }, MPI_ERR_ARG);
  error_of([] { make_contiguous(1, MPI_DATATYPE_NULL); }, MPI_ERR_TYPE);
  int bl[] = {1, 1};
  MPI_Aint ad[] = {0, 4};
  MPI_Datatype ty[] = {MPI_INT, MPI_DATATYPE_NULL};
  EXPECT_NE(error_of([&] { make_struct(2, bl, ad, ty); }, MPI_ERR_TYPE).find("array_of_types[1]"),
            std::string::npos);
  MPI_Datatype p = MPI_INT;
  error_of([&] { free_datatype(&p); }, MPI_ERR_TYPE);
  EXPECT_EQ(p, MPI_INT);
  error_of([] { derived_of(MPI_INT); }, MPI_ERR_TYPE);
  commit_datatype(MPI_INT);  // a no-op
  // A typemap too large to flatten is refused, not attempted.
  MPI_Datatype wide = types(make_vector(1 << 20, 1, 2, MPI_INT));
  EXPECT_EQ(tm(wide).segments.size(), size_t{1} << 20);
  error_of([&] { make_contiguous(1 << 10, wide); }, MPI_ERR_NO_MEM);
}

TEST(DerivedTypes, DupAndNames) {
  Types types;
  MPI_Datatype v = types(make_vector(2, 1, 2, MPI_INT));
  EXPECT_EQ(datatype_name(v), "");
  set_datatype_name(v, "pairs");
  EXPECT_EQ(datatype_name(v), "pairs");
  set_datatype_name(v, std::string(300, 'x'));
  EXPECT_EQ(datatype_name(v).size(), size_t{MPI_MAX_OBJECT_NAME - 1});
  MPI_Datatype u = types(make_dup(v));
  EXPECT_EQ(typemap_of(u), typemap_of(v));
  EXPECT_EQ(datatype_name(u), "");
  EXPECT_FALSE(derived_of(u).committed);
  commit_datatype(v);
  EXPECT_TRUE(derived_of(types(make_dup(v))).committed);
  MPI_Datatype i = types(make_dup(MPI_INT));
  EXPECT_TRUE(derived_of(i).committed);
  EXPECT_EQ(datatype_size(i), 4u);
  set_datatype_name(MPI_FLOAT, "single");
  EXPECT_EQ(datatype_name(MPI_FLOAT), "single");
  set_datatype_name(MPI_FLOAT, "MPI_FLOAT");
}

}  // namespace

namespace {

// Segments of `elements` ints at these indices, merged where adjacent.
Segments int_segments(const std::vector<int64_t>& indices) {
  Segments out;
  for (int64_t i : indices) {
    int64_t offset = i * static_cast<int64_t>(sizeof(int));
    if (!out.empty() && out.back().offset + static_cast<int64_t>(out.back().length) == offset) {
      out.back().length += sizeof(int);
    } else {
      out.push_back({offset, sizeof(int)});
    }
  }
  return out;
}

}  // namespace

TEST(ArrayTypes, SubarrayLayoutsInBothOrders) {
  Types types;
  int64_t sizes[] = {3, 4}, subsizes[] = {2, 2}, starts[] = {1, 1};
  const Typemap& c = tm(types(make_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT)));
  EXPECT_EQ(c.segments, int_segments({5, 6, 9, 10}));
  EXPECT_EQ(c.lb, 0);
  EXPECT_EQ(c.extent, 12 * 4);
  const Typemap& f =
      tm(types(make_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT)));
  // Fortran order: index i + 3 * j, i fastest.
  EXPECT_EQ(f.segments, int_segments({4, 5, 7, 8}));
  EXPECT_EQ(f.extent, 12 * 4);
  int64_t bad[] = {2, 0};
  error_of([&] { make_subarray(2, sizes, subsizes, bad, MPI_ORDER_C, MPI_INT); }, MPI_ERR_ARG);
}

TEST(ArrayTypes, DistributionsGiveTheStandardsRuns) {
  // 10 elements over 3 processes.
  auto runs = [](int distrib, int darg, int coord) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (IndexRun r : distributed_runs(10, distrib, darg, 3, coord, 0))
      out.push_back({r.start, r.length});
    return out;
  };
  using Runs = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(runs(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 0), (Runs{{0, 4}}));
  EXPECT_EQ(runs(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 2), (Runs{{8, 2}}));
  EXPECT_EQ(runs(MPI_DISTRIBUTE_BLOCK, 5, 2), (Runs{}));
  EXPECT_EQ(runs(MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 1),
            (Runs{{1, 1}, {4, 1}, {7, 1}}));
  EXPECT_EQ(runs(MPI_DISTRIBUTE_CYCLIC, 2, 0), (Runs{{0, 2}, {6, 2}}));
  EXPECT_EQ(runs(MPI_DISTRIBUTE_CYCLIC, 2, 1), (Runs{{2, 2}, {8, 2}}));
  error_of([&] { runs(MPI_DISTRIBUTE_BLOCK, 3, 0); }, MPI_ERR_ARG);
  error_of([&] { runs(MPI_DISTRIBUTE_NONE, 0, 0); }, MPI_ERR_ARG);
}

TEST(ArrayTypes, DarrayOfAProcessGrid) {
  Types types;
  // 4x4 ints over a 2x2 grid, cyclic rows and block columns; rank 1 is grid (0, 1).
  int64_t gsizes[] = {4, 4};
  int distribs[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
  int dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, psizes[] = {2, 2};
  const Typemap& t =
      tm(types(make_darray(4, 1, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT)));
  EXPECT_EQ(t.segments, int_segments({2, 3, 10, 11}));
  EXPECT_EQ(t.extent, 16 * 4);
}

TEST(LargeCounts, SizesBeyondTwoGigabytesAreExact) {
  Types types;
  const Typemap& c = tm(types(make_contiguous(MPI_Count{3} << 30, MPI_INT)));
  EXPECT_EQ(c.size, uint64_t{12} << 30);
  EXPECT_EQ(c.segments.size(), 1u);
  MPI_Count bl[] = {MPI_Count{1} << 31, 1};
  MPI_Count disp[] = {0, MPI_Count{1} << 32};
  const Typemap& x = tm(types(make_indexed(MPI_Count{2}, bl, disp, MPI_CHAR)));
  EXPECT_EQ(x.size, (uint64_t{1} << 31) + 1);
  EXPECT_EQ(x.extent, (int64_t{1} << 32) + 1);
}

TEST(External32, BasicRunsRecordTheirPredefinedTypes) {
  Types types;
  const Typemap& p = tm(MPI_DOUBLE_INT);
  ASSERT_EQ(p.basics->items.size(), 2u);
  EXPECT_EQ(p.basics->items[0].type, MPI_DOUBLE);
  EXPECT_EQ(p.basics->items[1].type, MPI_INT);
  // Runs of equal size but different types stay apart.
  int bl[] = {1, 1};
  MPI_Aint d[] = {0, 4};
  MPI_Datatype ty[] = {MPI_INT, MPI_FLOAT};
  const Typemap& s = tm(types(make_struct(2, bl, d, ty)));
  ASSERT_EQ(s.basics->items.size(), 2u);
  EXPECT_EQ(s.basics->items[1].type, MPI_FLOAT);
}

}  // namespace weft::mpi
