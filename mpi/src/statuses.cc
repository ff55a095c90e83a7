// Statuses the program fills itself (a generalized request's query callback does) and
// reads field by field, and MPI_Request_get_status's array forms, which look at
// requests without completing them.
#include <mpi.h>

#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/requests.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

// A status holds bytes (MPI_Get_count and MPI_Get_elements divide them back), so
// `count` elements of `datatype` are stored as the bytes they occupy: exact for whole
// datatypes and for types of one basic kind, as MPI_Get_elements counts them.
void set_elements(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  require_pointer(status, "status");
  if (count < 0) throw MpiError(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
  const weft::mpi::Typemap& t = *weft::mpi::typemap_of(datatype);
  auto n = static_cast<uint64_t>(count);
  uint64_t bytes = 0;
  if (t.basic_count == 0) {
    bytes = 0;
  } else if (n % t.basic_count == 0) {
    bytes = n / t.basic_count * t.size;
  } else {
    bytes = n * (t.size / t.basic_count);
  }
  bool cancelled = weft::mpi::status_cancelled(*status);
  weft::mpi::set_status(status, status->MPI_SOURCE, status->MPI_TAG, bytes);
  if (cancelled) weft::mpi::set_cancelled(status);
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

}  // namespace

extern "C" {

int PMPI_Status_set_source(MPI_Status* status, int source) {
  return mpi_call("MPI_Status_set_source", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    status->MPI_SOURCE = source;
  });
}
WEFT_MPI_ALIAS(Status_set_source)

int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  return mpi_call("MPI_Status_set_tag", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    status->MPI_TAG = tag;
  });
}
WEFT_MPI_ALIAS(Status_set_tag)

int PMPI_Status_set_error(MPI_Status* status, int error) {
  return mpi_call("MPI_Status_set_error", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    status->MPI_ERROR = error;
  });
}
WEFT_MPI_ALIAS(Status_set_error)

int PMPI_Status_get_source(const MPI_Status* status, int* source) {
  return mpi_call("MPI_Status_get_source", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    require_pointer(source, "source");
    *source = status->MPI_SOURCE;
  });
}
WEFT_MPI_ALIAS(Status_get_source)

int PMPI_Status_get_tag(const MPI_Status* status, int* tag) {
  return mpi_call("MPI_Status_get_tag", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    require_pointer(tag, "tag");
    *tag = status->MPI_TAG;
  });
}
WEFT_MPI_ALIAS(Status_get_tag)

int PMPI_Status_get_error(const MPI_Status* status, int* error) {
  return mpi_call("MPI_Status_get_error", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    require_pointer(error, "error");
    *error = status->MPI_ERROR;
  });
}
WEFT_MPI_ALIAS(Status_get_error)

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  return mpi_call("MPI_Status_set_cancelled", MPI_COMM_WORLD, [&] {
    require_pointer(status, "status");
    // Only the flag changes: the count stays as it was set.
    uint64_t bytes = weft::mpi::status_bytes(*status);
    int error = status->MPI_ERROR;
    weft::mpi::set_status(status, status->MPI_SOURCE, status->MPI_TAG, bytes);
    status->MPI_ERROR = error;
    if (flag) weft::mpi::set_cancelled(status);
  });
}
WEFT_MPI_ALIAS(Status_set_cancelled)

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return mpi_call("MPI_Status_set_elements", MPI_COMM_WORLD, [&] {
    int error = status != nullptr ? status->MPI_ERROR : MPI_SUCCESS;
    set_elements(status, datatype, count);
    status->MPI_ERROR = error;
  });
}
WEFT_MPI_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return mpi_call("MPI_Status_set_elements_x", MPI_COMM_WORLD, [&] {
    int error = status != nullptr ? status->MPI_ERROR : MPI_SUCCESS;
    set_elements(status, datatype, count);
    status->MPI_ERROR = error;
  });
}
WEFT_MPI_ALIAS(Status_set_elements_x)

int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return mpi_call("MPI_Status_set_elements_c", MPI_COMM_WORLD, [&] {
    int error = status != nullptr ? status->MPI_ERROR : MPI_SUCCESS;
    set_elements(status, datatype, count);
    status->MPI_ERROR = error;
  });
}
WEFT_MPI_ALIAS(Status_set_elements_c)

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int* flag,
                                MPI_Status* array_of_statuses) {
  return mpi_call("MPI_Request_get_status_all", MPI_COMM_WORLD, [&] {
    require_pointer(flag, "flag");
    if (count > 0) require_pointer(array_of_requests, "array_of_requests");
    *flag = 1;
    for (int i = 0; i < count && *flag; ++i) {
      if (weft::mpi::is_inactive(array_of_requests[i])) continue;
      if (!weft::mpi::is_done(array_of_requests[i])) *flag = 0;
    }
    if (!*flag) return;
    for (int i = 0; i < count; ++i) {
      int done = 0;
      int code =
          PMPI_Request_get_status(array_of_requests[i], &done, status_at(array_of_statuses, i));
      if (code != MPI_SUCCESS) throw MpiError(code, "request " + std::to_string(i) + " failed");
    }
  });
}
WEFT_MPI_ALIAS(Request_get_status_all)

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int* indx,
                                int* flag, MPI_Status* status) {
  return mpi_call("MPI_Request_get_status_any", MPI_COMM_WORLD, [&] {
    require_pointer(indx, "indx");
    require_pointer(flag, "flag");
    if (count > 0) require_pointer(array_of_requests, "array_of_requests");
    bool any_active = false;
    *indx = MPI_UNDEFINED;
    *flag = 0;
    for (int i = 0; i < count; ++i) {
      if (weft::mpi::is_inactive(array_of_requests[i])) continue;
      any_active = true;
      if (!weft::mpi::is_done(array_of_requests[i])) continue;
      int done = 0;
      int code = PMPI_Request_get_status(array_of_requests[i], &done, status);
      if (code != MPI_SUCCESS) throw MpiError(code, "request " + std::to_string(i) + " failed");
      *indx = i;
      *flag = 1;
      return;
    }
    // With no active request, the answer is true, no index and the empty status.
    if (!any_active) {
      *flag = 1;
      weft::mpi::set_empty_status(status);
    }
  });
}
WEFT_MPI_ALIAS(Request_get_status_any)

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int* outcount,
                                 int array_of_indices[], MPI_Status* array_of_statuses) {
  return mpi_call("MPI_Request_get_status_some", MPI_COMM_WORLD, [&] {
    require_pointer(outcount, "outcount");
    if (incount > 0) require_pointer(array_of_requests, "array_of_requests");
    bool any_active = false;
    *outcount = 0;
    for (int i = 0; i < incount; ++i) {
      if (weft::mpi::is_inactive(array_of_requests[i])) continue;
      any_active = true;
      if (!weft::mpi::is_done(array_of_requests[i])) continue;
      require_pointer(array_of_indices, "array_of_indices");
      int done = 0;
      int code = PMPI_Request_get_status(array_of_requests[i], &done,
                                         status_at(array_of_statuses, *outcount));
      if (code != MPI_SUCCESS) throw MpiError(code, "request " + std::to_string(i) + " failed");
      array_of_indices[(*outcount)++] = i;
    }
    if (!any_active) *outcount = MPI_UNDEFINED;
  });
}
WEFT_MPI_ALIAS(Request_get_status_some)

}  // extern "C"
