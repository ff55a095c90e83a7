// The tool information interface (MPI_T). Weft exposes no control or performance
// variables, categories, events or event sources: every enumeration has zero entries,
// which the standard allows, so an index is always out of range and a name never
// found, and no variable, enumeration or event handle can exist. What works for real
// is the interface's life cycle (MPI_T_init_thread and MPI_T_finalize, reference
// counted, callable before MPI_Init and after MPI_Finalize), performance variable
// sessions, and starting, stopping or resetting all handles of a session (none).
// MPI_T functions return their codes directly: they have no error handlers.
#include <mpi.h>

#include <cstdint>
#include <mutex>

#include "mpi/src/export.h"

struct MPI_ABI_T_pvar_session {
  static constexpr uint32_t kMagic = 0x57545053;  // "WTPS"
  uint32_t magic = kMagic;
};

namespace {

struct ToolState {
  std::mutex mutex;
  int initializations = 0;  // MPI_T_init_thread calls not yet matched by MPI_T_finalize
};

ToolState& tool() {
  static ToolState* state = new ToolState();  // never destroyed: see abort_process
  return *state;
}

bool initialized() {
  ToolState& t = tool();
  std::lock_guard lock(t.mutex);
  return t.initializations > 0;
}

bool valid_session(MPI_T_pvar_session session) {
  auto address = reinterpret_cast<uintptr_t>(session);
  return session != MPI_T_PVAR_SESSION_NULL && address >= 0x1000 &&
         session->magic == MPI_ABI_T_pvar_session::kMagic;
}

// The common answer of the calls that take a performance variable handle: the session
// first, then the handle, which cannot be one of weft's since there are no variables.
int pvar_handle_call(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                     bool all_handles_allowed) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_session(session)) return MPI_T_ERR_INVALID_SESSION;
  if (all_handles_allowed && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
  return MPI_T_ERR_INVALID_HANDLE;
}

int count_call(int* number) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (number == nullptr) return MPI_T_ERR_INVALID;
  *number = 0;
  return MPI_SUCCESS;
}

int index_call() { return initialized() ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED; }

int name_call(const char* name, const int* index) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || index == nullptr) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_INVALID_NAME;
}

int handle_call() { return initialized() ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED; }

}  // namespace

extern "C" {

int PMPI_T_init_thread(int required, int* provided) {
  if (provided == nullptr) return MPI_T_ERR_INVALID;
  (void)required;  // the interface is thread-safe: every level is provided
  ToolState& t = tool();
  std::lock_guard lock(t.mutex);
  ++t.initializations;
  *provided = MPI_THREAD_MULTIPLE;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(T_init_thread)

int PMPI_T_finalize(void) {
  ToolState& t = tool();
  std::lock_guard lock(t.mutex);
  if (t.initializations == 0) return MPI_T_ERR_NOT_INITIALIZED;
  --t.initializations;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(T_finalize)

int PMPI_T_cvar_get_num(int* num_cvar) { return count_call(num_cvar); }
WEFT_MPI_ALIAS(T_cvar_get_num)

int PMPI_T_pvar_get_num(int* num_pvar) { return count_call(num_pvar); }
WEFT_MPI_ALIAS(T_pvar_get_num)

int PMPI_T_category_get_num(int* num_cat) { return count_call(num_cat); }
WEFT_MPI_ALIAS(T_category_get_num)

int PMPI_T_event_get_num(int* num_events) { return count_call(num_events); }
WEFT_MPI_ALIAS(T_event_get_num)

int PMPI_T_source_get_num(int* num_sources) { return count_call(num_sources); }
WEFT_MPI_ALIAS(T_source_get_num)

// The categories never change: their update number stays 0.
int PMPI_T_category_changed(int* update_number) { return count_call(update_number); }
WEFT_MPI_ALIAS(T_category_changed)

int PMPI_T_cvar_get_info(int, char*, int*, int*, MPI_Datatype*, MPI_T_enum*, char*, int*, int*,
                         int*) {
  return index_call();
}
WEFT_MPI_ALIAS(T_cvar_get_info)

int PMPI_T_pvar_get_info(int, char*, int*, int*, int*, MPI_Datatype*, MPI_T_enum*, char*, int*,
                         int*, int*, int*, int*) {
  return index_call();
}
WEFT_MPI_ALIAS(T_pvar_get_info)

int PMPI_T_category_get_info(int, char*, int*, char*, int*, int*, int*, int*) {
  return index_call();
}
WEFT_MPI_ALIAS(T_category_get_info)

int PMPI_T_category_get_categories(int, int, int[]) { return index_call(); }
WEFT_MPI_ALIAS(T_category_get_categories)

int PMPI_T_category_get_cvars(int, int, int[]) { return index_call(); }
WEFT_MPI_ALIAS(T_category_get_cvars)

int PMPI_T_category_get_pvars(int, int, int[]) { return index_call(); }
WEFT_MPI_ALIAS(T_category_get_pvars)

int PMPI_T_category_get_events(int, int, int[]) { return index_call(); }
WEFT_MPI_ALIAS(T_category_get_events)

int PMPI_T_category_get_num_events(int, int*) { return index_call(); }
WEFT_MPI_ALIAS(T_category_get_num_events)

int PMPI_T_event_get_info(int, char*, int*, int*, MPI_Datatype[], MPI_Aint[], int*, MPI_T_enum*,
                          MPI_Info*, char*, int*, int*) {
  return index_call();
}
WEFT_MPI_ALIAS(T_event_get_info)

int PMPI_T_source_get_info(int, char*, int*, char*, int*, MPI_T_source_order*, MPI_Count*,
                           MPI_Count*, MPI_Info*) {
  return index_call();
}
WEFT_MPI_ALIAS(T_source_get_info)

int PMPI_T_source_get_timestamp(int, MPI_Count*) { return index_call(); }
WEFT_MPI_ALIAS(T_source_get_timestamp)

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) { return name_call(name, cvar_index); }
WEFT_MPI_ALIAS(T_cvar_get_index)

int PMPI_T_pvar_get_index(const char* name, int, int* pvar_index) {
  return name_call(name, pvar_index);
}
WEFT_MPI_ALIAS(T_pvar_get_index)

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  return name_call(name, cat_index);
}
WEFT_MPI_ALIAS(T_category_get_index)

int PMPI_T_event_get_index(const char* name, int* event_index) {
  return name_call(name, event_index);
}
WEFT_MPI_ALIAS(T_event_get_index)

int PMPI_T_cvar_handle_alloc(int, void*, MPI_T_cvar_handle*, int*) { return index_call(); }
WEFT_MPI_ALIAS(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle*) { return handle_call(); }
WEFT_MPI_ALIAS(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle, void*) { return handle_call(); }
WEFT_MPI_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle, const void*) { return handle_call(); }
WEFT_MPI_ALIAS(T_cvar_write)

int PMPI_T_enum_get_info(MPI_T_enum, int*, char*, int*) { return handle_call(); }
WEFT_MPI_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum, int, int*, char*, int*) { return handle_call(); }
WEFT_MPI_ALIAS(T_enum_get_item)

int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr) return MPI_T_ERR_INVALID;
  *session = new MPI_ABI_T_pvar_session();
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr || !valid_session(*session)) return MPI_T_ERR_INVALID_SESSION;
  (*session)->magic = 0;
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int, void*, MPI_T_pvar_handle*, int*) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_session(session)) return MPI_T_ERR_INVALID_SESSION;
  return MPI_T_ERR_INVALID_INDEX;
}
WEFT_MPI_ALIAS(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  return pvar_handle_call(session, handle == nullptr ? MPI_T_PVAR_HANDLE_NULL : *handle, false);
}
WEFT_MPI_ALIAS(T_pvar_handle_free)

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return pvar_handle_call(session, handle, true);
}
WEFT_MPI_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return pvar_handle_call(session, handle, true);
}
WEFT_MPI_ALIAS(T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return pvar_handle_call(session, handle, true);
}
WEFT_MPI_ALIAS(T_pvar_reset)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void*) {
  return pvar_handle_call(session, handle, false);
}
WEFT_MPI_ALIAS(T_pvar_read)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void*) {
  return pvar_handle_call(session, handle, false);
}
WEFT_MPI_ALIAS(T_pvar_readreset)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void*) {
  return pvar_handle_call(session, handle, false);
}
WEFT_MPI_ALIAS(T_pvar_write)

int PMPI_T_event_handle_alloc(int, void*, MPI_Info, MPI_T_event_registration*) {
  return index_call();
}
WEFT_MPI_ALIAS(T_event_handle_alloc)

int PMPI_T_event_handle_free(MPI_T_event_registration, void*, MPI_T_event_free_cb_function) {
  return handle_call();
}
WEFT_MPI_ALIAS(T_event_handle_free)

int PMPI_T_event_handle_get_info(MPI_T_event_registration, MPI_Info*) { return handle_call(); }
WEFT_MPI_ALIAS(T_event_handle_get_info)

int PMPI_T_event_handle_set_info(MPI_T_event_registration, MPI_Info) { return handle_call(); }
WEFT_MPI_ALIAS(T_event_handle_set_info)

int PMPI_T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                                   MPI_T_event_cb_function) {
  return handle_call();
}
WEFT_MPI_ALIAS(T_event_register_callback)

int PMPI_T_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*) {
  return handle_call();
}
WEFT_MPI_ALIAS(T_event_callback_get_info)

int PMPI_T_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  return handle_call();
}
WEFT_MPI_ALIAS(T_event_callback_set_info)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration, MPI_T_event_dropped_cb_function) {
  return handle_call();
}
WEFT_MPI_ALIAS(T_event_set_dropped_handler)

// Event instances exist only inside event callbacks, which weft never calls.
int PMPI_T_event_copy(MPI_T_event_instance, void*) { return handle_call(); }
WEFT_MPI_ALIAS(T_event_copy)

int PMPI_T_event_get_source(MPI_T_event_instance, int*) { return handle_call(); }
WEFT_MPI_ALIAS(T_event_get_source)

int PMPI_T_event_get_timestamp(MPI_T_event_instance, MPI_Count*) { return handle_call(); }
WEFT_MPI_ALIAS(T_event_get_timestamp)

int PMPI_T_event_read(MPI_T_event_instance, int, void*) { return handle_call(); }
WEFT_MPI_ALIAS(T_event_read)

}  // extern "C"
