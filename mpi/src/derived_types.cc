#include "mpi/src/derived_types.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <limits>
#include <mutex>

#include "mpi/src/datatypes.h"
#include "mpi/src/errors.h"

namespace weft::mpi {
namespace {

// A flattened typemap larger than this (1 GiB of segments) is refused rather than
// left to exhaust memory; the repetition of a whole count of elements is never
// flattened, only one element.
constexpr uint64_t kMaxSegments = uint64_t{1} << 26;

std::string handle_text(MPI_Datatype type) {
  return std::to_string(reinterpret_cast<uintptr_t>(type));
}

[[noreturn]] void overflow(const char* what) {
  throw MpiError(MPI_ERR_ARG, std::string("the datatype's ") + what + " overflows 64 bits");
}

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow(what);
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow(what);
  return r;
}

uint64_t checked_umul(uint64_t a, uint64_t b, const char* what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow(what);
  return r;
}

uint64_t checked_uadd(uint64_t a, uint64_t b, const char* what) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow(what);
  return r;
}

std::byte* address(const void* base, int64_t offset) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<uintptr_t>(base) +
                                      static_cast<uintptr_t>(offset));
}

// ---- Basic elements ----

class BasicBuilder {
 public:
  void add_run(uint64_t size, uint64_t repeat, MPI_Datatype type) {
    if (size == 0 || repeat == 0) return;
    if (!node_.items.empty() && !node_.items.back().inner && node_.items.back().size == size &&
        node_.items.back().type == type) {
      node_.items.back().repeat += repeat;
    } else {
      node_.items.push_back({size, repeat, nullptr, type});
    }
    node_.bytes = checked_uadd(node_.bytes, checked_umul(size, repeat, "size"), "size");
    node_.count = checked_uadd(node_.count, repeat, "basic element count");
  }

  void add_copies(const std::shared_ptr<const BasicNode>& inner, uint64_t n) {
    if (n == 0 || inner == nullptr || inner->count == 0) return;
    if (inner->items.size() == 1 && !inner->items[0].inner) {
      add_run(inner->items[0].size, checked_umul(inner->items[0].repeat, n, "size"),
              inner->items[0].type);
      return;
    }
    if (!node_.items.empty() && node_.items.back().inner == inner) {
      node_.items.back().repeat += n;
    } else {
      node_.items.push_back({0, n, inner, MPI_DATATYPE_NULL});
    }
    node_.bytes = checked_uadd(node_.bytes, checked_umul(inner->bytes, n, "size"), "size");
    node_.count = checked_uadd(node_.count, checked_umul(inner->count, n, "basic element count"),
                               "basic element count");
  }

  std::shared_ptr<const BasicNode> finish() {
    return std::make_shared<const BasicNode>(std::move(node_));
  }

 private:
  BasicNode node_;
};

// The basic elements wholly inside the first `bytes` packed bytes of one copy of
// `node`; clears `exact` when those bytes end inside a basic element.
uint64_t count_prefix(const BasicNode& node, uint64_t bytes, bool& exact) {
  uint64_t n = 0;
  for (const BasicItem& item : node.items) {
    if (bytes == 0) break;
    uint64_t each_bytes = item.inner ? item.inner->bytes : item.size;
    uint64_t each_count = item.inner ? item.inner->count : 1;
    uint64_t total = each_bytes * item.repeat;
    if (bytes >= total) {
      n += each_count * item.repeat;
      bytes -= total;
      continue;
    }
    uint64_t whole = bytes / each_bytes;
    n += whole * each_count;
    bytes -= whole * each_bytes;
    if (bytes > 0) {
      if (item.inner) {
        n += count_prefix(*item.inner, bytes, exact);
      } else {
        exact = false;
      }
    }
    bytes = 0;
  }
  return n;
}

// ---- Building typemaps ----

class TypemapBuilder {
 public:
  // `n` consecutive copies of `t` (one block), the first at `disp`.
  void add(const Typemap& t, int64_t disp, uint64_t n) {
    if (n == 0) {
      if (t.basic_count > 0) note_empty_uniform(t.uniform_basic_type);
      return;
    }
    int64_t last = checked_mul(static_cast<int64_t>(n - 1), t.extent, "extent");
    if (t.size > 0 || t.explicit_lb || t.explicit_ub) {
      int64_t lo = checked_add(checked_add(disp, t.lb, "lower bound"), std::min<int64_t>(0, last),
                               "lower bound");
      int64_t ub = checked_add(t.lb, t.extent, "upper bound");
      int64_t hi = checked_add(checked_add(disp, ub, "upper bound"), std::max<int64_t>(0, last),
                               "upper bound");
      bound(t.explicit_lb ? explicit_lb_ : implicit_lb_, lo, true);
      bound(t.explicit_ub ? explicit_ub_ : implicit_ub_, hi, false);
    }
    if (t.size == 0) return;
    out_.alignment = std::max(out_.alignment, t.alignment);
    out_.size = checked_uadd(out_.size, checked_umul(t.size, n, "size"), "size");
    basics_.add_copies(t.basics, n);
    note_uniform(t.uniform_basic_type);
    if (t.dense()) {
      append({checked_add(disp, t.segments[0].offset, "displacement"),
              checked_umul(static_cast<uint64_t>(t.extent), n, "size")});
      return;
    }
    uint64_t more = checked_umul(t.segments.size(), n, "segment count");
    if (out_.segments.size() + more > kMaxSegments) {
      throw MpiError(MPI_ERR_NO_MEM, "the datatype would flatten to more than " +
                                         std::to_string(kMaxSegments) +
                                         " contiguous segments per element");
    }
    out_.segments.reserve(out_.segments.size() + more);
    for (uint64_t j = 0; j < n; ++j) {
      int64_t base = disp + static_cast<int64_t>(j) * t.extent;  // within [disp, disp+last]
      for (const Segment& s : t.segments) append({base + s.offset, s.length});
    }
  }

  std::shared_ptr<const Typemap> finish() {
    int64_t lb = explicit_lb_.set ? explicit_lb_.value : implicit_lb_.set ? implicit_lb_.value : 0;
    int64_t ub = explicit_ub_.set ? explicit_ub_.value : implicit_ub_.set ? implicit_ub_.value : 0;
    out_.explicit_lb = explicit_lb_.set;
    out_.explicit_ub = explicit_ub_.set;
    // The standard's epsilon: without an explicit upper bound, the extent is rounded up
    // to a multiple of the largest alignment, as a C struct's size is.
    int64_t extent = checked_add(ub, -lb, "extent");
    if (!out_.explicit_ub && extent > 0) {
      int64_t align = static_cast<int64_t>(out_.alignment);
      if (extent % align != 0) extent = checked_add(extent, align - extent % align, "extent");
    }
    out_.lb = lb;
    out_.extent = extent;
    if (have_data_) {
      out_.true_lb = true_lo_;
      out_.true_extent = true_hi_ - true_lo_;
    }
    out_.basics = basics_.finish();
    out_.basic_count = out_.basics->count;
    if (uniform_state_ == Uniform::kOne) {
      out_.uniform_basic_type = uniform_;
    } else if (uniform_state_ == Uniform::kNone && empty_state_ == Uniform::kOne) {
      out_.uniform_basic_type = empty_uniform_;  // no data: what the old types were
    }
    return std::make_shared<const Typemap>(std::move(out_));
  }

 private:
  struct Bound {
    bool set = false;
    int64_t value = 0;
  };
  enum class Uniform { kNone, kOne, kMixed };

  static void bound(Bound& b, int64_t v, bool low) {
    if (!b.set) {
      b = {true, v};
    } else {
      b.value = low ? std::min(b.value, v) : std::max(b.value, v);
    }
  }

  static void combine(Uniform& state, MPI_Datatype& value, std::optional<MPI_Datatype> t) {
    if (state == Uniform::kMixed) return;
    if (!t) {
      state = Uniform::kMixed;
    } else if (state == Uniform::kNone) {
      state = Uniform::kOne;
      value = *t;
    } else if (value != *t) {
      state = Uniform::kMixed;
    }
  }

  void note_uniform(std::optional<MPI_Datatype> t) { combine(uniform_state_, uniform_, t); }
  void note_empty_uniform(std::optional<MPI_Datatype> t) {
    combine(empty_state_, empty_uniform_, t);
  }

  void append(Segment s) {
    if (s.length == 0) return;
    int64_t end = checked_add(s.offset, static_cast<int64_t>(s.length), "true extent");
    if (!have_data_) {
      have_data_ = true;
      true_lo_ = s.offset;
      true_hi_ = end;
    } else {
      true_lo_ = std::min(true_lo_, s.offset);
      true_hi_ = std::max(true_hi_, end);
    }
    if (!out_.segments.empty()) {
      Segment& back = out_.segments.back();
      if (back.offset + static_cast<int64_t>(back.length) == s.offset) {
        back.length += s.length;
        return;
      }
    }
    out_.segments.push_back(s);
  }

  Typemap out_;
  BasicBuilder basics_;
  Bound explicit_lb_, implicit_lb_, explicit_ub_, implicit_ub_;
  bool have_data_ = false;
  int64_t true_lo_ = 0, true_hi_ = 0;
  Uniform uniform_state_ = Uniform::kNone, empty_state_ = Uniform::kNone;
  MPI_Datatype uniform_ = MPI_DATATYPE_NULL, empty_uniform_ = MPI_DATATYPE_NULL;
};

// ---- Predefined datatypes ----

struct PairLayout {
  uint64_t value_size, index_offset, index_size, alignment;
  MPI_Datatype value_type, index_type;
};

template <typename V, typename I>
PairLayout pair_layout(MPI_Datatype value_type, MPI_Datatype index_type) {
  struct P {
    V value;
    I index;
  };
  return {sizeof(V), offsetof(P, index), sizeof(I), alignof(P), value_type, index_type};
}

std::optional<PairLayout> pair_of(MPI_Datatype t) {
  if (t == MPI_FLOAT_INT) return pair_layout<float, int>(MPI_FLOAT, MPI_INT);
  if (t == MPI_DOUBLE_INT) return pair_layout<double, int>(MPI_DOUBLE, MPI_INT);
  if (t == MPI_LONG_INT) return pair_layout<long, int>(MPI_LONG, MPI_INT);
  if (t == MPI_2INT) return pair_layout<int, int>(MPI_INT, MPI_INT);
  if (t == MPI_2INTEGER) return pair_layout<int, int>(MPI_INTEGER, MPI_INTEGER);
  if (t == MPI_SHORT_INT) return pair_layout<short, int>(MPI_SHORT, MPI_INT);
  if (t == MPI_LONG_DOUBLE_INT) return pair_layout<long double, int>(MPI_LONG_DOUBLE, MPI_INT);
  if (t == MPI_2REAL) return pair_layout<float, float>(MPI_REAL, MPI_REAL);
  if (t == MPI_2DOUBLE_PRECISION) {
    return pair_layout<double, double>(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION);
  }
  return std::nullopt;
}

uint64_t power_of_two_alignment(uint64_t bytes) {
  uint64_t a = 1;
  while (a < alignof(std::max_align_t) && bytes % (a * 2) == 0) a *= 2;
  return a;
}

std::shared_ptr<const Typemap> predefined_typemap(MPI_Datatype handle, const TypeInfo& info) {
  Typemap t;
  BasicBuilder basics;
  t.size = info.size;
  t.extent = static_cast<int64_t>(info.extent);
  t.uniform_basic_type = handle;
  if (auto pair = pair_of(handle)) {
    t.segments.push_back({0, pair->value_size});
    if (pair->index_offset == pair->value_size) {
      t.segments[0].length += pair->index_size;
    } else {
      t.segments.push_back({static_cast<int64_t>(pair->index_offset), pair->index_size});
    }
    basics.add_run(pair->value_size, 1, pair->value_type);
    basics.add_run(pair->index_size, 1, pair->index_type);
    t.true_extent = static_cast<int64_t>(pair->index_offset + pair->index_size);
    t.alignment = pair->alignment;
  } else {
    t.segments.push_back({0, info.size});
    basics.add_run(info.size, 1, handle);
    t.true_extent = static_cast<int64_t>(info.size);
    // A complex number aligns as its parts do.
    t.alignment = info.family == Family::kComplex ? power_of_two_alignment(info.extent / 2)
                                                  : power_of_two_alignment(info.extent);
  }
  t.basics = basics.finish();
  t.basic_count = t.basics->count;
  return std::make_shared<const Typemap>(std::move(t));
}

// Predefined datatype handles are the kPredefinedTypeSlots values from
// kFirstPredefinedType (0x200 to 0x2ff), as in datatypes.cc.

struct Predefined {
  std::array<std::shared_ptr<const Typemap>, kPredefinedTypeSlots> typemaps;
  std::array<const char*, kPredefinedTypeSlots> names{};
  // dense_predefined_size's answers: the size of a type whose elements follow each
  // other without gaps (typemap.dense() with no lower bound), else 0.
  std::array<uint64_t, kPredefinedTypeSlots> dense_sizes{};
  std::mutex mutex;  // guards renamed
  std::array<std::optional<std::string>, kPredefinedTypeSlots> renamed;
};

// Out of line, so that predefined(), asked on every plain message, stays a guard check.
[[gnu::noinline]] Predefined* build_predefined() {
  auto* p = new Predefined();  // never destroyed: see abort_process
  for (size_t i = 0; i < kPredefinedTypeSlots; ++i) {
    auto handle = reinterpret_cast<MPI_Datatype>(kFirstPredefinedType + i);
    try {
      const TypeInfo& info = type_info(handle);
      p->typemaps[i] = predefined_typemap(handle, info);
      p->names[i] = info.name;
      const Typemap& t = *p->typemaps[i];
      if (t.dense() && t.lb == 0 && t.segments[0].offset == 0) p->dense_sizes[i] = t.size;
    } catch (const MpiError&) {
      // not a predefined handle
    }
  }
  return p;
}

Predefined& predefined() {
  static Predefined* const table = build_predefined();
  return *table;
}

// The slot of a predefined handle, or -1.
int predefined_slot(MPI_Datatype type) {
  auto h = reinterpret_cast<uintptr_t>(type);
  if (h < kFirstPredefinedType || h >= kFirstPredefinedType + kPredefinedTypeSlots) return -1;
  int slot = static_cast<int>(h - kFirstPredefinedType);
  return predefined().typemaps[slot] ? slot : -1;
}

MPI_ABI_Datatype* derived_or_null(MPI_Datatype type) {
  auto h = reinterpret_cast<uintptr_t>(type);
  if (h < 0x1000) return nullptr;
  auto* object = reinterpret_cast<MPI_ABI_Datatype*>(type);
  return object->magic == MPI_ABI_Datatype::kMagic ? object : nullptr;
}

[[noreturn]] void invalid(MPI_Datatype type, const std::string& what) {
  if (type == MPI_DATATYPE_NULL) throw MpiError(MPI_ERR_TYPE, what + " is MPI_DATATYPE_NULL");
  if (reinterpret_cast<uintptr_t>(type) < 0x1000) {
    throw MpiError(MPI_ERR_TYPE, what + " (" + handle_text(type) + ") is not a datatype");
  }
  throw MpiError(MPI_ERR_TYPE, what + " is not a valid datatype (freed, or never created)");
}

MPI_Datatype new_handle(std::shared_ptr<const Typemap> typemap) {
  auto* object = new MPI_ABI_Datatype();
  object->typemap = std::move(typemap);
  return object;
}

void check_count(int64_t count, const char* what) {
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
  }
}

void check_blocklength(int64_t blocklength, const std::string& what) {
  if (blocklength < 0) {
    throw MpiError(MPI_ERR_ARG, what + " " + std::to_string(blocklength) + " is negative");
  }
}

void check_array(int64_t count, const void* array, const char* what) {
  if (count > 0 && array == nullptr) {
    throw MpiError(MPI_ERR_ARG, std::string(what) + " is NULL with count " + std::to_string(count));
  }
}

std::string indexed(const char* array, int64_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

}  // namespace

// ---- Handles ----

bool is_predefined(MPI_Datatype type) { return predefined_slot(type) >= 0; }

const uint64_t* build_dense_predefined_sizes() { return predefined().dense_sizes.data(); }

bool is_derived(MPI_Datatype type) { return derived_or_null(type) != nullptr; }

MPI_ABI_Datatype& derived_of(MPI_Datatype type, const char* what) {
  if (MPI_ABI_Datatype* object = derived_or_null(type)) return *object;
  int slot = predefined_slot(type);
  if (slot >= 0) {
    throw MpiError(MPI_ERR_TYPE, std::string(what) + " is " + predefined().names[slot] +
                                     ", a predefined datatype, not a derived one");
  }
  invalid(type, what);
}

const std::shared_ptr<const Typemap>& typemap_of(MPI_Datatype type, const char* what) {
  int slot = predefined_slot(type);
  if (slot >= 0) return predefined().typemaps[slot];
  if (MPI_ABI_Datatype* object = derived_or_null(type)) return object->typemap;
  invalid(type, what);
}

size_t datatype_size(MPI_Datatype type) { return typemap_of(type)->size; }

void check_committed(MPI_Datatype type, const char* what) {
  if (predefined_slot(type) >= 0) return;
  MPI_ABI_Datatype* object = derived_or_null(type);
  if (object == nullptr) invalid(type, what);
  if (!object->committed) throw MpiError(MPI_ERR_TYPE, std::string(what) + " is not committed");
}

std::string datatype_name(MPI_Datatype type) {
  int slot = predefined_slot(type);
  if (slot >= 0) {
    Predefined& p = predefined();
    std::lock_guard<std::mutex> lock(p.mutex);
    return p.renamed[slot] ? *p.renamed[slot] : std::string(p.names[slot]);
  }
  return derived_of(type).name;
}

void set_datatype_name(MPI_Datatype type, const std::string& name) {
  std::string kept = name.substr(0, MPI_MAX_OBJECT_NAME - 1);
  int slot = predefined_slot(type);
  if (slot >= 0) {
    Predefined& p = predefined();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.renamed[slot] = kept;
    return;
  }
  derived_of(type).name = kept;
}

// ---- Constructors ----

MPI_Datatype make_contiguous(MPI_Count count, MPI_Datatype oldtype) {
  check_count(count, "count");
  const Typemap& t = *typemap_of(oldtype, "oldtype");
  TypemapBuilder b;
  b.add(t, 0, static_cast<uint64_t>(count));
  return new_handle(b.finish());
}

MPI_Datatype make_hvector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride,
                          MPI_Datatype oldtype) {
  check_count(count, "count");
  check_blocklength(blocklength, "blocklength");
  const Typemap& t = *typemap_of(oldtype, "oldtype");
  TypemapBuilder b;
  for (MPI_Count i = 0; i < count; ++i) {
    b.add(t, checked_mul(i, stride, "displacement"), static_cast<uint64_t>(blocklength));
  }
  return new_handle(b.finish());
}

MPI_Datatype make_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                         MPI_Datatype oldtype) {
  check_count(count, "count");
  check_blocklength(blocklength, "blocklength");
  const Typemap& t = *typemap_of(oldtype, "oldtype");
  return make_hvector(count, blocklength, checked_mul(stride, t.extent, "stride"), oldtype);
}

namespace {

template <typename Length>
MPI_Datatype hindexed_of(MPI_Count count, const Length blocklengths[],
                         const MPI_Aint displacements[], MPI_Datatype oldtype) {
  check_count(count, "count");
  check_array(count, blocklengths, "array_of_blocklengths");
  check_array(count, displacements, "array_of_displacements");
  for (MPI_Count i = 0; i < count; ++i) {
    check_blocklength(blocklengths[i], indexed("array_of_blocklengths", i));
  }
  const Typemap& t = *typemap_of(oldtype, "oldtype");
  TypemapBuilder b;
  for (MPI_Count i = 0; i < count; ++i) {
    b.add(t, displacements[i], static_cast<uint64_t>(blocklengths[i]));
  }
  return new_handle(b.finish());
}

// Displacements counted in old-type extents, as bytes.
template <typename Displacement>
std::vector<MPI_Aint> in_bytes(MPI_Count count, const Displacement displacements[],
                               MPI_Datatype oldtype) {
  check_count(count, "count");
  check_array(count, displacements, "array_of_displacements");
  const Typemap& t = *typemap_of(oldtype, "oldtype");
  std::vector<MPI_Aint> bytes(static_cast<size_t>(count));
  for (MPI_Count i = 0; i < count; ++i) {
    bytes[i] = checked_mul(displacements[i], t.extent, "displacement");
  }
  return bytes;
}

}  // namespace

MPI_Datatype make_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                           MPI_Datatype oldtype) {
  return hindexed_of(count, blocklengths, displacements, oldtype);
}

MPI_Datatype make_hindexed(MPI_Count count, const MPI_Count blocklengths[],
                           const MPI_Aint displacements[], MPI_Datatype oldtype) {
  return hindexed_of(count, blocklengths, displacements, oldtype);
}

MPI_Datatype make_indexed(int count, const int blocklengths[], const int displacements[],
                          MPI_Datatype oldtype) {
  check_array(count, blocklengths, "array_of_blocklengths");
  return hindexed_of(count, blocklengths, in_bytes(count, displacements, oldtype).data(), oldtype);
}

MPI_Datatype make_indexed(MPI_Count count, const MPI_Count blocklengths[],
                          const MPI_Count displacements[], MPI_Datatype oldtype) {
  check_array(count, blocklengths, "array_of_blocklengths");
  return hindexed_of(count, blocklengths, in_bytes(count, displacements, oldtype).data(), oldtype);
}

MPI_Datatype make_hindexed_block(MPI_Count count, MPI_Count blocklength,
                                 const MPI_Aint displacements[], MPI_Datatype oldtype) {
  check_count(count, "count");
  check_blocklength(blocklength, "blocklength");
  check_array(count, displacements, "array_of_displacements");
  const Typemap& t = *typemap_of(oldtype, "oldtype");
  TypemapBuilder b;
  for (MPI_Count i = 0; i < count; ++i) {
    b.add(t, displacements[i], static_cast<uint64_t>(blocklength));
  }
  return new_handle(b.finish());
}

MPI_Datatype make_indexed_block(MPI_Count count, MPI_Count blocklength, const int displacements[],
                                MPI_Datatype oldtype) {
  check_blocklength(blocklength, "blocklength");
  return make_hindexed_block(count, blocklength, in_bytes(count, displacements, oldtype).data(),
                             oldtype);
}

MPI_Datatype make_indexed_block(MPI_Count count, MPI_Count blocklength,
                                const MPI_Count displacements[], MPI_Datatype oldtype) {
  check_blocklength(blocklength, "blocklength");
  return make_hindexed_block(count, blocklength, in_bytes(count, displacements, oldtype).data(),
                             oldtype);
}

namespace {

template <typename Length>
MPI_Datatype struct_of(MPI_Count count, const Length blocklengths[], const MPI_Aint displacements[],
                       const MPI_Datatype types[]) {
  check_count(count, "count");
  check_array(count, blocklengths, "array_of_blocklengths");
  check_array(count, displacements, "array_of_displacements");
  check_array(count, types, "array_of_types");
  std::vector<const Typemap*> typemaps(static_cast<size_t>(count));
  for (MPI_Count i = 0; i < count; ++i) {
    check_blocklength(blocklengths[i], indexed("array_of_blocklengths", i));
    typemaps[i] = typemap_of(types[i], indexed("array_of_types", i).c_str()).get();
  }
  TypemapBuilder b;
  for (MPI_Count i = 0; i < count; ++i) {
    b.add(*typemaps[i], displacements[i], static_cast<uint64_t>(blocklengths[i]));
  }
  return new_handle(b.finish());
}

}  // namespace

MPI_Datatype make_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                         const MPI_Datatype types[]) {
  return struct_of(count, blocklengths, displacements, types);
}

MPI_Datatype make_struct(MPI_Count count, const MPI_Count blocklengths[],
                         const MPI_Aint displacements[], const MPI_Datatype types[]) {
  return struct_of(count, blocklengths, displacements, types);
}

MPI_Datatype make_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent) {
  Typemap t = *typemap_of(oldtype, "oldtype");
  checked_add(lb, extent, "upper bound");
  t.lb = lb;
  t.extent = extent;
  t.explicit_lb = true;
  t.explicit_ub = true;
  return new_handle(std::make_shared<const Typemap>(std::move(t)));
}

MPI_Datatype make_dup(MPI_Datatype oldtype) {
  const std::shared_ptr<const Typemap>& t = typemap_of(oldtype, "oldtype");
  MPI_ABI_Datatype* old = derived_or_null(oldtype);
  auto* object = new MPI_ABI_Datatype();
  object->typemap = t;  // immutable: shared
  object->committed = old == nullptr || old->committed;
  return object;
}

void commit_datatype(MPI_Datatype type) {
  if (predefined_slot(type) >= 0) return;
  derived_of(type).committed = true;
}

void free_datatype(MPI_Datatype* type) {
  int slot = predefined_slot(*type);
  if (slot >= 0) {
    throw MpiError(MPI_ERR_TYPE, std::string(predefined().names[slot]) +
                                     " is a predefined datatype and cannot be freed");
  }
  MPI_ABI_Datatype& object = derived_of(*type);
  if (object.permanent) {
    throw MpiError(MPI_ERR_TYPE,
                   "a datatype from MPI_Type_create_f90_* is predefined and cannot be freed");
  }
  object.magic = 0;  // a later use of the stale handle is an error, not a crash
  delete &object;
  *type = MPI_DATATYPE_NULL;
}

// ---- Layouts, packing ----

BufferLayout layout_of(const void* buf, MPI_Count count, MPI_Datatype type, const char* what) {
  BufferLayout layout;
  int slot = predefined_slot(type);
  if (slot >= 0) {
    layout.typemap = predefined().typemaps[slot];
  } else {
    MPI_ABI_Datatype* object = derived_or_null(type);
    if (object == nullptr) invalid(type, std::string("the ") + what + " datatype");
    if (!object->committed) {
      throw MpiError(MPI_ERR_TYPE, std::string("the ") + what + " datatype is not committed");
    }
    layout.typemap = object->typemap;
  }
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT,
                   std::string(what) + " count " + std::to_string(count) + " is negative");
  }
  const Typemap& t = *layout.typemap;
  layout.count = count;
  layout.buf = const_cast<void*>(buf);
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), t.size, &bytes)) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " count " + std::to_string(count) +
                                      " of the datatype overflows 64 bits of data");
  }
  layout.bytes = bytes;
  if (bytes == 0) {
    layout.start = static_cast<std::byte*>(layout.buf);
    return layout;
  }
  layout.contiguous = t.segments.size() == 1 && (count == 1 || t.dense());
  if (layout.contiguous) {
    layout.start = address(buf, t.segments[0].offset);
    if (layout.start == nullptr) {
      throw MpiError(MPI_ERR_BUFFER,
                     std::string(what) + " buffer is NULL with count " + std::to_string(count));
    }
  }
  return layout;
}

void pack(const void* buf, uint64_t count, const Typemap& t, std::byte* out) {
  if (count == 0 || t.size == 0) return;
  if (t.segments.size() == 1 && (count == 1 || t.dense())) {
    std::memcpy(out, address(buf, t.segments[0].offset), count * t.size);
    return;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const std::byte* base = address(buf, static_cast<int64_t>(i) * t.extent);
    for (const Segment& s : t.segments) {
      std::memcpy(out, base + s.offset, s.length);
      out += s.length;
    }
  }
}

void pack(const void* buf, int count, MPI_Datatype type, std::byte* out) {
  pack(buf, static_cast<uint64_t>(std::max(count, 0)), *typemap_of(type), out);
}

void pack(const BufferLayout& layout, std::byte* out) {
  if (layout.contiguous) {
    if (layout.bytes > 0) std::memcpy(out, layout.start, layout.bytes);
    return;
  }
  pack(layout.buf, static_cast<uint64_t>(layout.count), *layout.typemap, out);
}

uint64_t unpack(const std::byte* in, uint64_t bytes, uint64_t count, const Typemap& t, void* buf) {
  if (count == 0 || t.size == 0) return 0;
  uint64_t total;
  if (__builtin_mul_overflow(count, t.size, &total)) total = std::numeric_limits<uint64_t>::max();
  uint64_t n = std::min(bytes, total);
  if (t.segments.size() == 1 && (count == 1 || t.dense())) {
    std::memcpy(address(buf, t.segments[0].offset), in, n);
    return n;
  }
  uint64_t left = n;
  for (uint64_t i = 0; left > 0; ++i) {
    std::byte* base = address(buf, static_cast<int64_t>(i) * t.extent);
    for (const Segment& s : t.segments) {
      uint64_t take = std::min(left, s.length);
      std::memcpy(base + s.offset, in, take);
      in += take;
      left -= take;
      if (left == 0) break;
    }
  }
  return n;
}

uint64_t unpack(const std::byte* in, uint64_t bytes, int count, MPI_Datatype type, void* buf) {
  return unpack(in, bytes, static_cast<uint64_t>(std::max(count, 0)), *typemap_of(type), buf);
}

uint64_t unpack(const std::byte* in, uint64_t bytes, const BufferLayout& layout) {
  if (layout.contiguous) {
    uint64_t n = std::min(bytes, layout.bytes);
    if (n > 0) std::memcpy(layout.start, in, n);
    return n;
  }
  return unpack(in, bytes, static_cast<uint64_t>(layout.count), *layout.typemap, layout.buf);
}

// ---- Counts ----

uint64_t element_count(uint64_t bytes, MPI_Datatype type) {
  const Typemap& t = *typemap_of(type);
  if (t.size == 0) return 0;
  return bytes % t.size == 0 ? bytes / t.size : kUndefinedCount;
}

uint64_t basic_element_count(uint64_t bytes, const Typemap& t) {
  if (t.size == 0) return 0;
  uint64_t n = bytes / t.size * t.basic_count;
  uint64_t rest = bytes % t.size;
  if (rest == 0) return n;
  bool exact = true;
  n += count_prefix(*t.basics, rest, exact);
  return exact ? n : kUndefinedCount;
}

uint64_t basic_element_count(uint64_t bytes, MPI_Datatype type) {
  return basic_element_count(bytes, *typemap_of(type));
}

}  // namespace weft::mpi
