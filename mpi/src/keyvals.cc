// Keyvals and the attributes cached under them on communicators, datatypes and
// windows. A keyval records its kind of object and its callbacks; the attributes of
// every object live in one table keyed by the object's handle, so predefined objects
// (MPI_COMM_WORLD, MPI_INT) carry them as derived ones do. A freed keyval stays until
// the last attribute under it is deleted, as the standard requires.
//
// Callbacks run without the table's lock held: a callback may itself set, get or delete
// attributes.
#include "mpi/src/keyvals.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/windows.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

enum class Kind { kComm, kType, kWin };

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kComm:
      return "communicator";
    case Kind::kType:
      return "datatype";
    case Kind::kWin:
      return "window";
  }
  return "object";
}

// The callbacks are kept as the generic pointers the ABI passes; the object's kind
// says which signature to call them with. The ABI's null and dup callbacks are the
// pointer values 0 and 1, never called.
using CopyFn = int(void* object, int keyval, void* extra_state, void* in, void* out, int* flag);
using DeleteFn = int(void* object, int keyval, void* value, void* extra_state);

struct Keyval {
  Kind kind;
  void* copy_fn;
  void* delete_fn;
  void* extra_state;
  bool freed = false;
  int attributes = 0;  // attributes cached under it: a freed keyval lives until 0
};

struct Attribute {
  int keyval;
  void* value;
};

struct ObjectKey {
  Kind kind;
  const void* handle;
  auto operator<=>(const ObjectKey&) const = default;
};

struct Table {
  std::mutex mutex;
  // Keyvals are numbered above every predefined key (MPI_WIN_MODEL is 605).
  int next_keyval = 0x1000;
  std::map<int, Keyval> keyvals;
  std::map<ObjectKey, std::vector<Attribute>> attributes;  // in the order set
};

Table& table() {
  static Table* t = new Table();  // never destroyed: see abort_process
  return *t;
}

constexpr uintptr_t kDupFn = 1;

// Called with the lock held: one fewer attribute under `keyval`.
void release_keyval(Table& t, int keyval) {
  auto it = t.keyvals.find(keyval);
  if (it == t.keyvals.end()) return;
  if (--it->second.attributes == 0 && it->second.freed) t.keyvals.erase(it);
}

Keyval checked_keyval(Table& t, int keyval, Kind kind) {
  auto it = t.keyvals.find(keyval);
  if (it == t.keyvals.end() || it->second.freed) {
    throw MpiError(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " is not a valid keyval");
  }
  if (it->second.kind != kind) {
    throw MpiError(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " is a " +
                                       kind_name(it->second.kind) + "'s, not a " + kind_name(kind) +
                                       "'s");
  }
  return it->second;
}

void call_delete(const Keyval& k, const void* handle, int keyval, void* value) {
  if (k.delete_fn == nullptr) return;
  int code = reinterpret_cast<DeleteFn*>(k.delete_fn)(const_cast<void*>(handle), keyval, value,
                                                      k.extra_state);
  if (code != MPI_SUCCESS) {
    throw MpiError(code, "the delete callback of keyval " + std::to_string(keyval) +
                             " returned error " + std::to_string(code));
  }
}

int create_keyval(Kind kind, void* copy_fn, void* delete_fn, void* extra_state) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  int keyval = t.next_keyval++;
  t.keyvals.emplace(keyval, Keyval{kind, copy_fn, delete_fn, extra_state});
  return keyval;
}

void free_keyval(Kind kind, int* keyval) {
  require_pointer(keyval, "keyval");
  Table& t = table();
  std::lock_guard lock(t.mutex);
  checked_keyval(t, *keyval, kind);
  auto it = t.keyvals.find(*keyval);
  if (it->second.attributes == 0) {
    t.keyvals.erase(it);
  } else {
    it->second.freed = true;
  }
  *keyval = MPI_KEYVAL_INVALID;
}

// Removes the attribute under `keyval` from `object`, if it has one; returns it.
std::optional<Attribute> take(Table& t, const ObjectKey& object, int keyval) {
  auto list = t.attributes.find(object);
  if (list == t.attributes.end()) return std::nullopt;
  auto& v = list->second;
  auto it =
      std::find_if(v.begin(), v.end(), [&](const Attribute& a) { return a.keyval == keyval; });
  if (it == v.end()) return std::nullopt;
  Attribute a = *it;
  v.erase(it);
  if (v.empty()) t.attributes.erase(list);
  return a;
}

void set_attribute(Kind kind, const void* handle, int keyval, void* value) {
  Table& t = table();
  std::unique_lock lock(t.mutex);
  Keyval k = checked_keyval(t, keyval, kind);
  ObjectKey object{kind, handle};
  // Replacing a value deletes the old one first, with the delete callback.
  std::optional<Attribute> old = take(t, object, keyval);
  if (old) {
    lock.unlock();
    try {
      call_delete(k, handle, keyval, old->value);
    } catch (...) {
      std::lock_guard relock(t.mutex);
      t.attributes[object].push_back(*old);  // the old value stays
      throw;
    }
    lock.lock();
    t.attributes[object].push_back({keyval, value});
    return;
  }
  t.keyvals[keyval].attributes++;
  t.attributes[object].push_back({keyval, value});
}

bool get_attribute(Kind kind, const void* handle, int keyval, void** value) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  checked_keyval(t, keyval, kind);
  auto list = t.attributes.find(ObjectKey{kind, handle});
  if (list == t.attributes.end()) return false;
  for (const Attribute& a : list->second) {
    if (a.keyval == keyval) {
      *value = a.value;
      return true;
    }
  }
  return false;
}

void delete_attribute(Kind kind, const void* handle, int keyval) {
  Table& t = table();
  std::unique_lock lock(t.mutex);
  Keyval k = checked_keyval(t, keyval, kind);
  ObjectKey object{kind, handle};
  std::optional<Attribute> old = take(t, object, keyval);
  if (!old) {
    throw MpiError(MPI_ERR_KEYVAL, "the " + std::string(kind_name(kind)) +
                                       " has no attribute under keyval " + std::to_string(keyval));
  }
  lock.unlock();
  try {
    call_delete(k, handle, keyval, old->value);
  } catch (...) {
    std::lock_guard relock(t.mutex);
    t.attributes[object].push_back(*old);  // a failed delete leaves the attribute
    throw;
  }
  lock.lock();
  release_keyval(t, keyval);
}

void delete_all(Kind kind, const void* handle) {
  Table& t = table();
  ObjectKey object{kind, handle};
  for (;;) {
    std::unique_lock lock(t.mutex);
    auto list = t.attributes.find(object);
    if (list == t.attributes.end()) return;
    Attribute a = list->second.back();
    list->second.pop_back();
    if (list->second.empty()) t.attributes.erase(list);
    Keyval k = t.keyvals.at(a.keyval);
    lock.unlock();
    try {
      call_delete(k, handle, a.keyval, a.value);
    } catch (...) {
      std::lock_guard relock(t.mutex);
      t.attributes[object].push_back(a);
      throw;
    }
    lock.lock();
    release_keyval(t, a.keyval);
  }
}

void copy_all(Kind kind, const void* parent, const void* child) {
  Table& t = table();
  std::vector<Attribute> originals;
  {
    std::lock_guard lock(t.mutex);
    auto list = t.attributes.find(ObjectKey{kind, parent});
    if (list == t.attributes.end()) return;
    originals = list->second;
  }
  try {
    for (const Attribute& a : originals) {
      Keyval k;
      {
        std::lock_guard lock(t.mutex);
        auto it = t.keyvals.find(a.keyval);
        if (it == t.keyvals.end()) continue;
        k = it->second;
      }
      void* copy = nullptr;
      int flag = 0;
      auto fn = reinterpret_cast<uintptr_t>(k.copy_fn);
      if (fn == kDupFn) {
        copy = a.value;
        flag = 1;
      } else if (fn != 0) {
        int code = reinterpret_cast<CopyFn*>(k.copy_fn)(const_cast<void*>(parent), a.keyval,
                                                        k.extra_state, a.value, &copy, &flag);
        if (code != MPI_SUCCESS) {
          throw MpiError(code, "the copy callback of keyval " + std::to_string(a.keyval) +
                                   " returned error " + std::to_string(code));
        }
      }
      if (!flag) continue;
      std::lock_guard lock(t.mutex);
      t.keyvals[a.keyval].attributes++;
      t.attributes[ObjectKey{kind, child}].push_back({a.keyval, copy});
    }
  } catch (...) {
    try {
      delete_all(kind, child);
    } catch (...) {
      // The copy's failure is the one to report.
    }
    throw;
  }
}

// The communicator behind `comm`, checked; for the attribute calls' messages.
void check_comm(MPI_Comm comm, const char* function) { weft::mpi::communicator(comm, function); }

void check_type(MPI_Datatype datatype, const char* function) {
  weft::mpi::require_initialized(function);
  weft::mpi::typemap_of(datatype);  // MPI_ERR_TYPE for MPI_DATATYPE_NULL and garbage
}

bool is_predefined_win_key(int keyval) { return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL; }

// The predefined window attributes: MPI_WIN_BASE is the base address itself, the others
// point to the values.
void* win_attribute(MPI_ABI_Win& w, int keyval) {
  switch (keyval) {
    case MPI_WIN_BASE:
      return w.base;
    case MPI_WIN_SIZE:
      return &w.size;
    case MPI_WIN_DISP_UNIT:
      return &w.disp_unit;
    case MPI_WIN_CREATE_FLAVOR:
      w.flavor_attribute = w.dynamic ? MPI_WIN_FLAVOR_DYNAMIC
                           : w.memory->kind() == weft::mpi::WindowMemory::Kind::kShared
                               ? MPI_WIN_FLAVOR_SHARED
                           : w.allocated ? MPI_WIN_FLAVOR_ALLOCATE
                                         : MPI_WIN_FLAVOR_CREATE;
      return &w.flavor_attribute;
    default:
      return &w.model_attribute;
  }
}

void no_predefined_change(int keyval, bool predefined) {
  if (predefined) {
    throw MpiError(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) +
                                       " is predefined: its attribute is read-only");
  }
}

bool is_predefined_comm_key(int keyval) {
  void* ignored = nullptr;
  return weft::mpi::predefined_comm_attribute(keyval, &ignored);
}

void* as_pointer(MPI_Comm comm) { return reinterpret_cast<void*>(comm); }

}  // namespace

namespace weft::mpi {

void copy_attributes(MPI_Comm parent, MPI_Comm child) { copy_all(Kind::kComm, parent, child); }
void copy_attributes(MPI_Datatype parent, MPI_Datatype child) {
  copy_all(Kind::kType, parent, child);
}
void delete_attributes(MPI_Comm comm) { delete_all(Kind::kComm, comm); }
void delete_attributes(MPI_Datatype datatype) { delete_all(Kind::kType, datatype); }
void delete_attributes(MPI_Win win) { delete_all(Kind::kWin, win); }

void delete_attributes_at_finalize() {
  delete_all(Kind::kComm, MPI_COMM_SELF);
  delete_all(Kind::kComm, MPI_COMM_WORLD);
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                            void* extra_state) {
  return mpi_call("MPI_Comm_create_keyval", MPI_COMM_WORLD, [&] {
    require_pointer(comm_keyval, "comm_keyval");
    *comm_keyval = create_keyval(Kind::kComm, reinterpret_cast<void*>(comm_copy_attr_fn),
                                 reinterpret_cast<void*>(comm_delete_attr_fn), extra_state);
  });
}
WEFT_MPI_ALIAS(Comm_create_keyval)

int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                       void* extra_state) {
  return mpi_call("MPI_Keyval_create", MPI_COMM_WORLD, [&] {
    require_pointer(keyval, "keyval");
    *keyval = create_keyval(Kind::kComm, reinterpret_cast<void*>(copy_fn),
                            reinterpret_cast<void*>(delete_fn), extra_state);
  });
}
WEFT_MPI_ALIAS(Keyval_create)

int PMPI_Comm_free_keyval(int* comm_keyval) {
  return mpi_call("MPI_Comm_free_keyval", MPI_COMM_WORLD, [&] {
    if (comm_keyval != nullptr)
      no_predefined_change(*comm_keyval, is_predefined_comm_key(*comm_keyval));
    free_keyval(Kind::kComm, comm_keyval);
  });
}
WEFT_MPI_ALIAS(Comm_free_keyval)

int PMPI_Keyval_free(int* keyval) {
  return mpi_call("MPI_Keyval_free", MPI_COMM_WORLD, [&] {
    if (keyval != nullptr) no_predefined_change(*keyval, is_predefined_comm_key(*keyval));
    free_keyval(Kind::kComm, keyval);
  });
}
WEFT_MPI_ALIAS(Keyval_free)

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return mpi_call("MPI_Comm_set_attr", comm, [&] {
    check_comm(comm, "MPI_Comm_set_attr");
    no_predefined_change(comm_keyval, is_predefined_comm_key(comm_keyval));
    set_attribute(Kind::kComm, as_pointer(comm), comm_keyval, attribute_val);
  });
}
WEFT_MPI_ALIAS(Comm_set_attr)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return mpi_call("MPI_Attr_put", comm, [&] {
    check_comm(comm, "MPI_Attr_put");
    no_predefined_change(keyval, is_predefined_comm_key(keyval));
    set_attribute(Kind::kComm, as_pointer(comm), keyval, attribute_val);
  });
}
WEFT_MPI_ALIAS(Attr_put)

static void get_comm_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag,
                          const char* function) {
  check_comm(comm, function);
  require_pointer(attribute_val, "attribute_val");
  require_pointer(flag, "flag");
  void* value = nullptr;
  if (weft::mpi::predefined_comm_attribute(keyval, &value)) {
    *flag = value != nullptr ? 1 : 0;
  } else {
    *flag = get_attribute(Kind::kComm, as_pointer(comm), keyval, &value) ? 1 : 0;
  }
  if (*flag) *static_cast<void**>(attribute_val) = value;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return mpi_call("MPI_Comm_get_attr", comm, [&] {
    get_comm_attr(comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
  });
}
WEFT_MPI_ALIAS(Comm_get_attr)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return mpi_call("MPI_Attr_get", comm,
                  [&] { get_comm_attr(comm, keyval, attribute_val, flag, "MPI_Attr_get"); });
}
WEFT_MPI_ALIAS(Attr_get)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return mpi_call("MPI_Comm_delete_attr", comm, [&] {
    check_comm(comm, "MPI_Comm_delete_attr");
    no_predefined_change(comm_keyval, is_predefined_comm_key(comm_keyval));
    delete_attribute(Kind::kComm, as_pointer(comm), comm_keyval);
  });
}
WEFT_MPI_ALIAS(Comm_delete_attr)

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return mpi_call("MPI_Attr_delete", comm, [&] {
    check_comm(comm, "MPI_Attr_delete");
    no_predefined_change(keyval, is_predefined_comm_key(keyval));
    delete_attribute(Kind::kComm, as_pointer(comm), keyval);
  });
}
WEFT_MPI_ALIAS(Attr_delete)

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                            MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                            void* extra_state) {
  return mpi_call("MPI_Type_create_keyval", MPI_COMM_WORLD, [&] {
    require_pointer(type_keyval, "type_keyval");
    *type_keyval = create_keyval(Kind::kType, reinterpret_cast<void*>(type_copy_attr_fn),
                                 reinterpret_cast<void*>(type_delete_attr_fn), extra_state);
  });
}
WEFT_MPI_ALIAS(Type_create_keyval)

int PMPI_Type_free_keyval(int* type_keyval) {
  return mpi_call("MPI_Type_free_keyval", MPI_COMM_WORLD,
                  [&] { free_keyval(Kind::kType, type_keyval); });
}
WEFT_MPI_ALIAS(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  return mpi_call("MPI_Type_set_attr", MPI_COMM_WORLD, [&] {
    check_type(datatype, "MPI_Type_set_attr");
    set_attribute(Kind::kType, datatype, type_keyval, attribute_val);
  });
}
WEFT_MPI_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  return mpi_call("MPI_Type_get_attr", MPI_COMM_WORLD, [&] {
    check_type(datatype, "MPI_Type_get_attr");
    require_pointer(attribute_val, "attribute_val");
    require_pointer(flag, "flag");
    void* value = nullptr;
    *flag = get_attribute(Kind::kType, datatype, type_keyval, &value) ? 1 : 0;
    if (*flag) *static_cast<void**>(attribute_val) = value;
  });
}
WEFT_MPI_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  return mpi_call("MPI_Type_delete_attr", MPI_COMM_WORLD, [&] {
    check_type(datatype, "MPI_Type_delete_attr");
    delete_attribute(Kind::kType, datatype, type_keyval);
  });
}
WEFT_MPI_ALIAS(Type_delete_attr)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                           MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                           void* extra_state) {
  return mpi_call("MPI_Win_create_keyval", MPI_COMM_WORLD, [&] {
    require_pointer(win_keyval, "win_keyval");
    *win_keyval = create_keyval(Kind::kWin, reinterpret_cast<void*>(win_copy_attr_fn),
                                reinterpret_cast<void*>(win_delete_attr_fn), extra_state);
  });
}
WEFT_MPI_ALIAS(Win_create_keyval)

int PMPI_Win_free_keyval(int* win_keyval) {
  return mpi_call("MPI_Win_free_keyval", MPI_COMM_WORLD, [&] {
    if (win_keyval != nullptr)
      no_predefined_change(*win_keyval, is_predefined_win_key(*win_keyval));
    free_keyval(Kind::kWin, win_keyval);
  });
}
WEFT_MPI_ALIAS(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  return mpi_call("MPI_Win_set_attr", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Win_set_attr");
    weft::mpi::window_of(win);
    no_predefined_change(win_keyval, is_predefined_win_key(win_keyval));
    set_attribute(Kind::kWin, win, win_keyval, attribute_val);
  });
}
WEFT_MPI_ALIAS(Win_set_attr)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  return mpi_call("MPI_Win_get_attr", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Win_get_attr");
    MPI_ABI_Win& w = weft::mpi::window_of(win);
    require_pointer(attribute_val, "attribute_val");
    require_pointer(flag, "flag");
    void* value = nullptr;
    if (is_predefined_win_key(win_keyval)) {
      value = win_attribute(w, win_keyval);
      *flag = 1;
    } else {
      *flag = get_attribute(Kind::kWin, win, win_keyval, &value) ? 1 : 0;
    }
    if (*flag) *static_cast<void**>(attribute_val) = value;
  });
}
WEFT_MPI_ALIAS(Win_get_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  return mpi_call("MPI_Win_delete_attr", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Win_delete_attr");
    weft::mpi::window_of(win);
    no_predefined_change(win_keyval, is_predefined_win_key(win_keyval));
    delete_attribute(Kind::kWin, win, win_keyval);
  });
}
WEFT_MPI_ALIAS(Win_delete_attr)

}  // extern "C"
