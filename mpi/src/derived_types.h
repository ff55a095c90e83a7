// Datatypes as layouts: every datatype, predefined or derived, is a flattened typemap of
// one element (the contiguous byte segments of its data, in the order MPI packs them),
// with the standard's bounds. Derived datatypes (MPI_Type_contiguous, _vector, ...) are
// objects behind their handles; the predefined ones keep their small constant handles
// and get a typemap of their own from a table.
//
// The communication functions use the second half of this header: layout_of() checks a
// (buf, count, datatype) triple and says whether its data is one byte range the core can
// move as it is, and pack()/unpack() copy it to and from contiguous bytes otherwise. A
// message is always the packed data: count * MPI_Type_size bytes, padding left out.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weft::mpi {

// `length` bytes of data at `offset` from an element's address (offsets may be negative).
struct Segment {
  int64_t offset;
  uint64_t length;
  bool operator==(const Segment&) const = default;
};

// The basic (predefined) elements of a typemap in pack order, run-length coded and
// nested the way the type was built, so that a type repeating a mixed struct a million
// times costs one node. Only MPI_Get_elements needs it.
struct BasicNode;
struct BasicItem {
  uint64_t size = 0;  // a run of `repeat` basic elements of `size` bytes each, or
  uint64_t repeat = 0;
  std::shared_ptr<const BasicNode> inner;  // when set: `repeat` copies of this node
  // The predefined type of the run's elements (a pair type's value and index are runs of
  // their own), for conversions such as external32; MPI_DATATYPE_NULL with `inner`.
  MPI_Datatype type = MPI_DATATYPE_NULL;
};
struct BasicNode {
  std::vector<BasicItem> items;
  uint64_t bytes = 0;  // data bytes of one copy
  uint64_t count = 0;  // basic elements in one copy
};

// The flattened typemap of one element. Immutable once built, and shared: a derived
// type built from another copies what it needs, and a pending operation can keep the
// typemap of a datatype the program has freed (the standard allows that).
struct Typemap {
  std::vector<Segment> segments;  // in typemap (pack) order; adjacent ones merged
  std::shared_ptr<const BasicNode> basics;
  uint64_t size = 0;         // MPI_Type_size: data bytes, the sum of the segments
  uint64_t basic_count = 0;  // basic elements in one element (a pair type counts 2)
  int64_t lb = 0;            // MPI_Type_get_extent
  int64_t extent = 0;        // the stride of consecutive elements (ub - lb)
  int64_t true_lb = 0;       // MPI_Type_get_true_extent: the data's own span
  int64_t true_extent = 0;
  uint64_t alignment = 1;    // the largest alignment of its basic elements
  bool explicit_lb = false;  // bounds set by MPI_Type_create_resized (the standard's
  bool explicit_ub = false;  // lb and ub markers): no alignment padding then
  // The predefined type every basic element is, when there is one (MPI_INT for a
  // vector of MPI_INT): the packed data is then basic_count * count values of it, each
  // of its size. For the padded pair types (MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
  // MPI_LONG_DOUBLE_INT) the packed values are not at their in-memory stride.
  std::optional<MPI_Datatype> uniform_basic_type;

  // One segment as long as the extent: any count of elements is one byte range.
  bool dense() const {
    return segments.size() == 1 && extent > 0 && segments[0].length == uint64_t(extent);
  }
};

}  // namespace weft::mpi

namespace weft::mpi {

// How a derived datatype was made: MPI_Type_get_envelope and MPI_Type_get_contents
// answer from it (type_recipes.h records it).
struct Recipe;

}  // namespace weft::mpi

// A derived datatype's handle is the address of one of these.
struct MPI_ABI_Datatype {
  static constexpr uint32_t kMagic = 0x57445450;  // "WDTP"
  uint32_t magic = kMagic;
  std::shared_ptr<const weft::mpi::Typemap> typemap;
  std::string name;  // MPI_Type_set_name; "" until set
  bool committed = false;
  // Its constructor and arguments; null for a type no MPI constructor made.
  std::shared_ptr<const weft::mpi::Recipe> recipe;
  // Made by MPI_Type_create_f90_*: shared by every caller, so never freed.
  bool permanent = false;
};

namespace weft::mpi {

// ---- Handles ----

// One of the standard's predefined datatypes (not MPI_DATATYPE_NULL).
bool is_predefined(MPI_Datatype type);
// A live derived datatype (no error for anything else).
bool is_derived(MPI_Datatype type);
// The size of a predefined datatype whose elements lie back to back, each one byte range
// from its address (every basic type; not MPI_DOUBLE_INT's kind, with a gap), so that n
// of them are n * size bytes at the buffer; 0 for every other handle. Inline: every
// plain message asks (mpi/src/point_to_point.cc).
inline constexpr uintptr_t kFirstPredefinedType = 0x200;  // the ABI's datatype handles
inline constexpr size_t kPredefinedTypeSlots = 0x100;
// Those sizes, by handle - kFirstPredefinedType: built once, never changed.
const uint64_t* build_dense_predefined_sizes();
inline uint64_t dense_predefined_size(MPI_Datatype type) {
  const uintptr_t slot = reinterpret_cast<uintptr_t>(type) - kFirstPredefinedType;
  if (slot >= kPredefinedTypeSlots) return 0;
  static const uint64_t* const sizes = build_dense_predefined_sizes();
  return sizes[slot];
}
// The derived datatype behind a handle; MpiError(MPI_ERR_TYPE) for MPI_DATATYPE_NULL, a
// predefined type, garbage or a freed type. `what` names the argument: "oldtype".
MPI_ABI_Datatype& derived_of(MPI_Datatype type, const char* what = "the datatype");
// The typemap of any valid datatype, committed or not; MpiError(MPI_ERR_TYPE) otherwise.
const std::shared_ptr<const Typemap>& typemap_of(MPI_Datatype type,
                                                 const char* what = "the datatype");
// MPI_Type_size of any valid datatype; MpiError(MPI_ERR_TYPE) otherwise.
size_t datatype_size(MPI_Datatype type);
// MpiError(MPI_ERR_TYPE, "<what> is not committed") for an uncommitted derived type (and
// the errors of typemap_of for an invalid one). Predefined types are always committed.
void check_committed(MPI_Datatype type, const char* what = "the datatype");

// MPI_Type_get_name's answer: "MPI_INT" for MPI_INT (unless renamed), "" for an unnamed
// derived type. MPI_Type_set_name (truncated to MPI_MAX_OBJECT_NAME - 1 characters).
std::string datatype_name(MPI_Datatype type);
void set_datatype_name(MPI_Datatype type, const std::string& name);

// ---- Constructors: the work of MPI_Type_* without the MPI_Init check, each returning a
// new, uncommitted datatype or throwing MpiError (MPI_ERR_COUNT for a negative count,
// MPI_ERR_ARG for a negative block length or a NULL array, MPI_ERR_TYPE for an invalid
// old type). Displacements of the non-h variants count old-type extents, of the h ones
// bytes. Without explicit bounds among the old types, every constructor rounds the
// extent up to the largest alignment of the basic elements (the standard's epsilon), as
// a C struct's size is; only struct and the byte-strided h variants can need it. Open
// MPI does the same (MPICH pads structs only). ----

MPI_Datatype make_contiguous(MPI_Count count, MPI_Datatype oldtype);
MPI_Datatype make_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                         MPI_Datatype oldtype);
MPI_Datatype make_hvector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride,
                          MPI_Datatype oldtype);
// The arrays come as int (the MPI-3 functions) or MPI_Count (their _c forms).
MPI_Datatype make_indexed(int count, const int blocklengths[], const int displacements[],
                          MPI_Datatype oldtype);
MPI_Datatype make_indexed(MPI_Count count, const MPI_Count blocklengths[],
                          const MPI_Count displacements[], MPI_Datatype oldtype);
MPI_Datatype make_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                           MPI_Datatype oldtype);
MPI_Datatype make_hindexed(MPI_Count count, const MPI_Count blocklengths[],
                           const MPI_Aint displacements[], MPI_Datatype oldtype);
MPI_Datatype make_indexed_block(MPI_Count count, MPI_Count blocklength, const int displacements[],
                                MPI_Datatype oldtype);
MPI_Datatype make_indexed_block(MPI_Count count, MPI_Count blocklength,
                                const MPI_Count displacements[], MPI_Datatype oldtype);
MPI_Datatype make_hindexed_block(MPI_Count count, MPI_Count blocklength,
                                 const MPI_Aint displacements[], MPI_Datatype oldtype);
// With explicit bounds (a member made by MPI_Type_create_resized), the bounds are those
// of the members that have them, as the standard's lb and ub markers are.
MPI_Datatype make_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                         const MPI_Datatype types[]);
MPI_Datatype make_struct(MPI_Count count, const MPI_Count blocklengths[],
                         const MPI_Aint displacements[], const MPI_Datatype types[]);
MPI_Datatype make_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent);
// Same typemap and committed state; the name is not copied.
MPI_Datatype make_dup(MPI_Datatype oldtype);
// MPI_Type_commit: a no-op on a predefined type.
void commit_datatype(MPI_Datatype type);
// MPI_Type_free: sets *type to MPI_DATATYPE_NULL; MPI_ERR_TYPE for a predefined type
// (or one of MPI_Type_create_f90_*'s).
// Types built from it, and pending operations holding its typemap, are unaffected.
void free_datatype(MPI_Datatype* type);

// ---- For the communication functions ----

// `count` elements of a datatype at `buf`.
struct BufferLayout {
  bool contiguous = true;      // the data is the one byte range [start, start + bytes)
  uint64_t bytes = 0;          // data bytes of the count elements: count * MPI_Type_size
  std::byte* start = nullptr;  // when contiguous: buf + true_lb (buf itself for predefined)
  // What pack(layout, out) and unpack(in, n, layout) use; holding the layout keeps the
  // typemap alive after MPI_Type_free (a nonblocking receive unpacks at completion).
  void* buf = nullptr;
  MPI_Count count = 0;
  std::shared_ptr<const Typemap> typemap;
};

// Checks the triple: MPI_ERR_COUNT for count < 0, MPI_ERR_TYPE for an invalid or
// uncommitted datatype ("the <what> datatype is not committed"), MPI_ERR_BUFFER for a
// NULL buffer whose data would start at NULL (a derived type may address absolute
// locations from MPI_BOTTOM). `what` is "send", "receive", ... as for bytes_of.
BufferLayout layout_of(const void* buf, MPI_Count count, MPI_Datatype type, const char* what);

// Copies the data of `count` elements at `buf` to `out` (count * size bytes), in
// typemap order. Works for any valid datatype; checks nothing but the handle.
void pack(const void* buf, int count, MPI_Datatype type, std::byte* out);
void pack(const BufferLayout& layout, std::byte* out);
void pack(const void* buf, uint64_t count, const Typemap& typemap, std::byte* out);

// The reverse: fills the elements at `buf` from `bytes` packed bytes, up to `count`
// elements; a shorter message fills the whole elements it holds and the bytes it has of
// the next one. Returns the bytes consumed, min(bytes, count * size).
uint64_t unpack(const std::byte* in, uint64_t bytes, int count, MPI_Datatype type, void* buf);
uint64_t unpack(const std::byte* in, uint64_t bytes, const BufferLayout& layout);
uint64_t unpack(const std::byte* in, uint64_t bytes, uint64_t count, const Typemap& typemap,
                void* buf);

// What element_count and basic_element_count answer when the bytes are not a whole
// number of elements: static_cast<int>(kUndefinedCount) == MPI_UNDEFINED.
inline constexpr uint64_t kUndefinedCount = static_cast<uint64_t>(int64_t{MPI_UNDEFINED});

// MPI_Get_count: the elements in `bytes` of packed data, kUndefinedCount unless whole;
// 0 for a type of size 0.
uint64_t element_count(uint64_t bytes, MPI_Datatype type);
// MPI_Get_elements: the basic elements in `bytes`, partial elements included;
// kUndefinedCount when the bytes end inside a basic element; 0 for a type of size 0.
uint64_t basic_element_count(uint64_t bytes, MPI_Datatype type);
uint64_t basic_element_count(uint64_t bytes, const Typemap& typemap);

}  // namespace weft::mpi
