// One-sided communication: MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate,
// MPI_Fetch_and_op, MPI_Compare_and_swap, their request-based forms and their _c forms.
//
// Each operation is carried out at once through the window's WindowMemory
// (window_memory.h: straight into the target's memory on one host, by a message to the
// target's service thread otherwise), so an operation is complete, at the origin and at
// the target, when its call returns: a request-based form returns a request that is
// already complete, and the synchronisation calls (rma_synchronization.cc) have no
// queued operations to finish, only ordering and the epochs' agreements between ranks.
// Accumulates are atomic per element; puts and gets are not (the standard leaves a put
// that overlaps a concurrent access undefined).
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/datatypes.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduce_ops.h"
#include "mpi/src/user_ops.h"
#include "mpi/src/window_memory.h"
#include "mpi/src/windows.h"

using weft::mpi::BufferLayout;
using weft::mpi::MpiError;
using weft::mpi::Typemap;
using weft::mpi::win_call;
using weft::mpi::window_of;

namespace {

// A checked target location: `count` elements of `typemap` at the target's `address`.
struct TargetSpan {
  int rank = MPI_PROC_NULL;  // MPI_PROC_NULL: the operation does nothing
  uint64_t address = 0;
  uint64_t count = 0;
  const Typemap* typemap = nullptr;  // the datatype's, alive for the call
  uint64_t bytes() const { return count * typemap->size; }
};

// Whether this rank is in an epoch that lets it access `rank`'s memory.
bool may_access(const MPI_ABI_Win& w, int rank) {
  if (w.fence_epoch || w.locked_all) return true;
  if (w.locks_held[static_cast<size_t>(rank)].type != 0) return true;
  return w.access_epoch &&
         std::find(w.access_group.begin(), w.access_group.end(), rank) != w.access_group.end();
}

// Checks the target arguments of `function` and resolves them to a location.
TargetSpan target_span(const char* function, MPI_ABI_Win& w, int rank, MPI_Aint disp,
                       MPI_Count count, MPI_Datatype type) {
  TargetSpan span;
  span.typemap = weft::mpi::typemap_of(type, "the target datatype").get();  // a valid type
  if (weft::mpi::is_derived(type)) weft::mpi::check_committed(type, "the target datatype");
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT, "target count " + std::to_string(count) + " is negative");
  }
  span.count = static_cast<uint64_t>(count);
  const weft::mpi::WindowMemory& memory = *w.memory;
  if (rank == MPI_PROC_NULL) return span;
  if (rank < 0 || rank >= memory.size()) {
    throw MpiError(MPI_ERR_RANK, "target rank " + std::to_string(rank) + " is not in [0, " +
                                     std::to_string(memory.size()) + ") (the window's group)");
  }
  if (!may_access(w, rank)) {
    throw MpiError(MPI_ERR_RMA_SYNC, std::string(function) + " to target rank " +
                                         std::to_string(rank) +
                                         " outside an access epoch (no fence, MPI_Win_start or "
                                         "lock opened one to it)");
  }
  span.rank = rank;
  const weft::mpi::WindowTarget& t = memory.target(rank);
  if (w.dynamic) {
    // Displacements are the target's addresses (MPI_Get_address of attached memory).
    span.address = static_cast<uint64_t>(disp);
    return span;
  }
  if (disp < 0) {
    throw MpiError(MPI_ERR_DISP, "target_disp " + std::to_string(disp) + " is negative");
  }
  const Typemap& tm = *span.typemap;
  const int64_t offset = static_cast<int64_t>(disp) * t.disp_unit;
  if (span.count > 0 && tm.size > 0) {
    // The bytes the elements touch, relative to the window's start.
    int64_t last = static_cast<int64_t>(span.count - 1) * tm.extent;
    int64_t low = offset + tm.true_lb + std::min<int64_t>(0, last);
    int64_t high = offset + tm.true_lb + tm.true_extent + std::max<int64_t>(0, last);
    if (low < 0 || high > t.size) {
      throw MpiError(MPI_ERR_RMA_RANGE, std::string(function) + ": bytes [" + std::to_string(low) +
                                            ", " + std::to_string(high) + ") of target rank " +
                                            std::to_string(rank) + "'s window are outside its " +
                                            std::to_string(t.size) + " bytes");
    }
  }
  span.address = t.base + static_cast<uint64_t>(offset);
  return span;
}

// The origin's (or the result's) elements, and their bytes packed when they are not one
// range.
class OriginData {
 public:
  OriginData(const void* buf, MPI_Count count, MPI_Datatype type, const char* what) {
    if (weft::mpi::is_derived(type)) {
      layout_ = weft::mpi::layout_of(buf, count, type, what);
      typemap_ = layout_.typemap.get();
      return;
    }
    // A predefined type (or garbage, which typemap_of refuses): one range, and no
    // typemap to hold (its table entry stays).
    typemap_ = weft::mpi::typemap_of(type).get();
    if (count < 0) {
      throw MpiError(MPI_ERR_COUNT,
                     std::string(what) + " count " + std::to_string(count) + " is negative");
    }
    if (__builtin_mul_overflow(static_cast<uint64_t>(count), typemap_->size, &layout_.bytes)) {
      throw MpiError(MPI_ERR_COUNT, std::string(what) + " count " + std::to_string(count) +
                                        " of the datatype overflows 64 bits of data");
    }
    layout_.start = static_cast<std::byte*>(const_cast<void*>(buf));
    if (layout_.bytes > 0 && buf == nullptr) {
      throw MpiError(MPI_ERR_BUFFER,
                     std::string(what) + " buffer is NULL with count " + std::to_string(count));
    }
  }

  uint64_t bytes() const { return layout_.bytes; }
  const Typemap& typemap() const { return *typemap_; }

  // The data packed (for sending it to the target).
  const std::byte* packed() {
    if (layout_.contiguous) return layout_.start;
    if (packed_.empty()) {
      packed_.resize(layout_.bytes);
      weft::mpi::pack(layout_, packed_.data());
    }
    return packed_.data();
  }
  // Where packed data for the elements goes (fetched from the target), then store().
  std::byte* space() {
    if (layout_.contiguous) return layout_.start;
    packed_.resize(layout_.bytes);
    return packed_.data();
  }
  void store() {
    if (!layout_.contiguous) weft::mpi::unpack(packed_.data(), layout_.bytes, layout_);
  }

 private:
  BufferLayout layout_;  // contiguous, with no typemap, for a predefined type
  const Typemap* typemap_ = nullptr;
  std::vector<std::byte> packed_;
};

void check_same_bytes(const char* what, uint64_t origin, const TargetSpan& target) {
  if (origin != target.bytes()) {
    throw MpiError(MPI_ERR_TYPE, std::string("the ") + what + " holds " + std::to_string(origin) +
                                     " bytes of data and the target " +
                                     std::to_string(target.bytes()) +
                                     " (their type signatures must match)");
  }
}

// The types MPI_Compare_and_swap takes.
bool swappable(const weft::mpi::TypeInfo& info) {
  using weft::mpi::Family;
  return info.family == Family::kCInteger || info.family == Family::kFortranInteger ||
         info.family == Family::kLogical || info.family == Family::kByte;
}

// ---- The fast paths ----
//
// The common case of every operation is done with no object built for it: elements of
// one dense predefined type (dense_predefined_size), as many at the origin as at the
// target, of a static window whose target memory is copied here (copied_here), inside
// an epoch that reaches the target (may_access). A fast path returns false, having
// done nothing, for anything else (errors included), which the general path then
// carries out or reports. osu_put_latency's put and flush take 17 ns
// in Open MPI and took 37 ns through the general path alone.

// Where `count` elements of `type` at displacement `disp` of `rank`'s window are, in
// this process, and their `bytes`, when the fast paths may reach them; nullptr otherwise.
std::byte* direct_target(const MPI_ABI_Win& w, int rank, MPI_Aint disp, MPI_Count count,
                         MPI_Datatype type, uint64_t& bytes) {
  if (w.dynamic || count <= 0 || disp < 0 || rank < 0 || rank >= w.memory->size()) {
    return nullptr;
  }
  if (!may_access(w, rank)) return nullptr;
  const uint64_t size = weft::mpi::dense_predefined_size(type);
  std::byte* base = w.memory->copied_here(rank);
  if (size == 0 || base == nullptr) return nullptr;
  const weft::mpi::WindowTarget& t = w.memory->target(rank);
  uint64_t offset = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), size, &bytes) ||
      __builtin_mul_overflow(static_cast<uint64_t>(disp), static_cast<uint64_t>(t.disp_unit),
                             &offset) ||
      offset > static_cast<uint64_t>(t.size) || bytes > static_cast<uint64_t>(t.size) - offset) {
    return nullptr;
  }
  return base + offset;
}

// MPI_Put (to_target) and MPI_Get.
bool copy_directly(bool to_target, void* origin, MPI_Count origin_count, MPI_Datatype origin_type,
                   int rank, MPI_Aint disp, MPI_Count target_count, MPI_Datatype target_type,
                   MPI_Win win) {
  const MPI_ABI_Win* w = weft::mpi::window_or_null(win);
  if (w == nullptr || origin == nullptr || origin_type != target_type ||
      origin_count != target_count) {
    return false;
  }
  uint64_t bytes = 0;
  std::byte* target = direct_target(*w, rank, disp, target_count, target_type, bytes);
  if (target == nullptr) return false;
  if (to_target) {
    std::memcpy(target, origin, bytes);
  } else {
    std::memcpy(origin, target, bytes);
  }
  return true;
}

// MPI_Accumulate (no result), MPI_Get_accumulate and MPI_Fetch_and_op, whose origin and
// result (where given) are `count` elements of the target's `type`.
bool combine_directly(const void* origin, void* result, bool fetches, MPI_Count count,
                      MPI_Datatype type, int rank, MPI_Aint disp, MPI_Op op, MPI_Win win) {
  const MPI_ABI_Win* w = weft::mpi::window_or_null(win);
  if (w == nullptr || (origin == nullptr && op != MPI_NO_OP) || (fetches && result == nullptr)) {
    return false;
  }
  uint64_t bytes = 0;
  std::byte* target = direct_target(*w, rank, disp, count, type, bytes);
  if (target == nullptr) return false;
  const weft::mpi::TypeInfo& info = weft::mpi::type_info(type);
  if (op != MPI_REPLACE && op != MPI_NO_OP && !weft::mpi::predefined_op_applies(op, info)) {
    return false;
  }
  w->memory->combine_copied_here(rank, target, static_cast<uint64_t>(count), info, op,
                                 static_cast<const std::byte*>(origin),
                                 static_cast<std::byte*>(result));
  return true;
}

// MPI_Compare_and_swap of an integer, logical or byte element.
bool swap_directly(const void* origin, const void* compare, void* result, MPI_Datatype type,
                   int rank, MPI_Aint disp, MPI_Win win) {
  const MPI_ABI_Win* w = weft::mpi::window_or_null(win);
  if (w == nullptr || origin == nullptr || compare == nullptr || result == nullptr) return false;
  uint64_t bytes = 0;
  std::byte* target = direct_target(*w, rank, disp, 1, type, bytes);
  if (target == nullptr || !swappable(weft::mpi::type_info(type))) return false;
  w->memory->compare_and_swap_copied_here(
      rank, target, bytes, static_cast<const std::byte*>(origin),
      static_cast<const std::byte*>(compare), static_cast<std::byte*>(result));
  return true;
}

// ---- The general path ----

// MPI_Put and MPI_Get.
void put(const char* function, const void* origin, MPI_Count origin_count, MPI_Datatype origin_type,
         int rank, MPI_Aint disp, MPI_Count target_count, MPI_Datatype target_type, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  OriginData data(origin, origin_count, origin_type, "origin");
  TargetSpan target = target_span(function, w, rank, disp, target_count, target_type);
  if (target.rank == MPI_PROC_NULL) return;
  check_same_bytes("origin", data.bytes(), target);
  w.memory->put(target.rank, target.address, target.count, *target.typemap, data.packed());
}

void get(const char* function, void* origin, MPI_Count origin_count, MPI_Datatype origin_type,
         int rank, MPI_Aint disp, MPI_Count target_count, MPI_Datatype target_type, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  OriginData data(origin, origin_count, origin_type, "origin");
  TargetSpan target = target_span(function, w, rank, disp, target_count, target_type);
  if (target.rank == MPI_PROC_NULL) return;
  check_same_bytes("origin", data.bytes(), target);
  w.memory->get(target.rank, target.address, target.count, *target.typemap, data.space());
  data.store();
}

// The predefined type every element of an accumulate's data is: the standard requires
// one, the same for origin and target.
MPI_Datatype element_type(const Typemap& typemap, const char* what) {
  if (!typemap.uniform_basic_type) {
    throw MpiError(MPI_ERR_TYPE, std::string("the ") + what +
                                     " datatype of an accumulate must be built from one "
                                     "predefined datatype");
  }
  return *typemap.uniform_basic_type;
}

void check_accumulate_op(MPI_Op op, const weft::mpi::TypeInfo& type) {
  if (op == MPI_REPLACE || op == MPI_NO_OP) return;
  if (weft::mpi::user_op_or_null(op) != nullptr) {
    throw MpiError(MPI_ERR_OP, "one-sided accumulates take only predefined operations");
  }
  weft::mpi::check_op(op, type);
}

// MPI_Accumulate and MPI_Get_accumulate (result null for the former).
void accumulate(const char* function, const void* origin, MPI_Count origin_count,
                MPI_Datatype origin_type, void* result, MPI_Count result_count,
                MPI_Datatype result_type, bool fetches, int rank, MPI_Aint disp,
                MPI_Count target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  TargetSpan target = target_span(function, w, rank, disp, target_count, target_type);
  MPI_Datatype element = element_type(*target.typemap, "target");
  // An accumulate of no elements applies the operation to nothing: any predefined one
  // goes (mpi4py probes MPI_Get_accumulate with 0 MPI_BYTEs and MPI_SUM).
  // (user_op_or_null rejects garbage handles.)
  const bool combines_nothing =
      target.count == 0 && op != MPI_OP_NULL && weft::mpi::user_op_or_null(op) == nullptr;
  if (!combines_nothing) check_accumulate_op(op, weft::mpi::type_info(element));
  // MPI_NO_OP ignores the origin's arguments.
  // (In place, not on the heap: the small accumulates are latency-bound.)
  std::optional<OriginData> data;
  if (op != MPI_NO_OP) {
    data.emplace(origin, origin_count, origin_type, "origin");
    if (data->bytes() > 0 && element_type(data->typemap(), "origin") != element) {
      throw MpiError(MPI_ERR_TYPE,
                     "the origin and target datatypes of an accumulate are built from different "
                     "predefined datatypes");
    }
  }
  std::optional<OriginData> fetched;
  if (fetches) fetched.emplace(result, result_count, result_type, "result");
  if (target.rank == MPI_PROC_NULL) return;
  if (data) check_same_bytes("origin", data->bytes(), target);
  if (fetched) check_same_bytes("result", fetched->bytes(), target);
  w.memory->accumulate(target.rank, target.address, target.count, *target.typemap, element, op,
                       data ? data->packed() : nullptr, fetched ? fetched->space() : nullptr);
  if (fetched) fetched->store();
}

void compare_and_swap(const void* origin, const void* compare, void* result, MPI_Datatype type,
                      int rank, MPI_Aint disp, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  const weft::mpi::TypeInfo& info = weft::mpi::type_info(type);
  if (!swappable(info)) {
    throw MpiError(MPI_ERR_TYPE, std::string("MPI_Compare_and_swap takes an integer, logical "
                                             "or byte datatype, not ") +
                                     info.name);
  }
  weft::mpi::require_pointer(origin, "origin_addr");
  weft::mpi::require_pointer(compare, "compare_addr");
  weft::mpi::require_pointer(result, "result_addr");
  TargetSpan target = target_span("MPI_Compare_and_swap", w, rank, disp, 1, type);
  if (target.rank == MPI_PROC_NULL) return;
  w.memory->compare_and_swap(
      target.rank, target.address, *target.typemap, static_cast<const std::byte*>(origin),
      static_cast<const std::byte*>(compare), static_cast<std::byte*>(result));
}

// A request-based form's request: complete, since the operation is (with nothing to
// wait for, as a request to MPI_PROC_NULL; its status is a send's, empty).
void complete_request(MPI_ABI_Win& w, MPI_Request* request) {
  auto* r = new MPI_ABI_Request();
  r->proc_null = true;
  r->comm = w.comm;
  *request = r;
}

}  // namespace

extern "C" {

// ---- Put and get ----

int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win) {
  if (copy_directly(true, const_cast<void*>(origin_addr), origin_count, origin_datatype,
                    target_rank, target_disp, target_count, target_datatype, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Put", win, [&] {
    put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
  });
}
WEFT_MPI_ALIAS(Put)

int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  if (copy_directly(true, const_cast<void*>(origin_addr), origin_count, origin_datatype,
                    target_rank, target_disp, target_count, target_datatype, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Put_c", win, [&] {
    put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
  });
}
WEFT_MPI_ALIAS(Put_c)

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rput", win, [&] {
    weft::mpi::require_pointer(request, "request");
    put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Rput)

int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rput_c", win, [&] {
    weft::mpi::require_pointer(request, "request");
    put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Rput_c)

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  if (copy_directly(false, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Get", win, [&] {
    get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
  });
}
WEFT_MPI_ALIAS(Get)

int PMPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  if (copy_directly(false, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Get_c", win, [&] {
    get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
  });
}
WEFT_MPI_ALIAS(Get_c)

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  return win_call("MPI_Rget", win, [&] {
    weft::mpi::require_pointer(request, "request");
    get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Rget)

int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rget_c", win, [&] {
    weft::mpi::require_pointer(request, "request");
    get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
        target_count, target_datatype, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Rget_c)

// ---- Accumulates ----

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  if (origin_datatype == target_datatype && origin_count == target_count &&
      combine_directly(origin_addr, nullptr, false, target_count, target_datatype, target_rank,
                       target_disp, op, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Accumulate", win, [&] {
    accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_BYTE,
               false, target_rank, target_disp, target_count, target_datatype, op, win);
  });
}
WEFT_MPI_ALIAS(Accumulate)

int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  if (origin_datatype == target_datatype && origin_count == target_count &&
      combine_directly(origin_addr, nullptr, false, target_count, target_datatype, target_rank,
                       target_disp, op, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Accumulate_c", win, [&] {
    accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_BYTE,
               false, target_rank, target_disp, target_count, target_datatype, op, win);
  });
}
WEFT_MPI_ALIAS(Accumulate_c)

int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Raccumulate", win, [&] {
    weft::mpi::require_pointer(request, "request");
    accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_BYTE,
               false, target_rank, target_disp, target_count, target_datatype, op, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Raccumulate)

int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request* request) {
  return win_call("MPI_Raccumulate_c", win, [&] {
    weft::mpi::require_pointer(request, "request");
    accumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, nullptr, 0,
               MPI_BYTE, false, target_rank, target_disp, target_count, target_datatype, op, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Raccumulate_c)

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  if (result_datatype == target_datatype && result_count == target_count &&
      (op == MPI_NO_OP || (origin_datatype == target_datatype && origin_count == target_count)) &&
      combine_directly(origin_addr, result_addr, true, target_count, target_datatype, target_rank,
                       target_disp, op, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Get_accumulate", win, [&] {
    accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
               result_count, result_datatype, true, target_rank, target_disp, target_count,
               target_datatype, op, win);
  });
}
WEFT_MPI_ALIAS(Get_accumulate)

int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win) {
  if (result_datatype == target_datatype && result_count == target_count &&
      (op == MPI_NO_OP || (origin_datatype == target_datatype && origin_count == target_count)) &&
      combine_directly(origin_addr, result_addr, true, target_count, target_datatype, target_rank,
                       target_disp, op, win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Get_accumulate_c", win, [&] {
    accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
               result_count, result_datatype, true, target_rank, target_disp, target_count,
               target_datatype, op, win);
  });
}
WEFT_MPI_ALIAS(Get_accumulate_c)

int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void* result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
  return win_call("MPI_Rget_accumulate", win, [&] {
    weft::mpi::require_pointer(request, "request");
    accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
               result_count, result_datatype, true, target_rank, target_disp, target_count,
               target_datatype, op, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Rget_accumulate)

int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request* request) {
  return win_call("MPI_Rget_accumulate_c", win, [&] {
    weft::mpi::require_pointer(request, "request");
    accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
               result_count, result_datatype, true, target_rank, target_disp, target_count,
               target_datatype, op, win);
    complete_request(window_of(win), request);
  });
}
WEFT_MPI_ALIAS(Rget_accumulate_c)

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  if (combine_directly(origin_addr, result_addr, true, 1, datatype, target_rank, target_disp, op,
                       win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Fetch_and_op", win, [&] {
    weft::mpi::type_info(datatype);  // one predefined element
    accumulate("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, true,
               target_rank, target_disp, 1, datatype, op, win);
  });
}
WEFT_MPI_ALIAS(Fetch_and_op)

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win) {
  if (swap_directly(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp,
                    win)) {
    return MPI_SUCCESS;
  }
  return win_call("MPI_Compare_and_swap", win, [&] {
    compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp,
                     win);
  });
}
WEFT_MPI_ALIAS(Compare_and_swap)

}  // extern "C"
