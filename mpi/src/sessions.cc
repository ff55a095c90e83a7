// Sessions (MPI-4): a session starts weft's runtime as MPI_Init does (once for both),
// and offers two process sets, "mpi://WORLD" and "mpi://SELF", whose groups make
// communicators with MPI_Comm_create_from_group. Errors in a session call go to the
// session's error handler. Info objects (MPI_Session_get_info, _get_pset_info) and the
// session's buffer for buffered sends are not carried out (they refuse).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/attached_buffer.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/info.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/objects.h"

using weft::mpi::library;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

struct MPI_ABI_Session {
  static constexpr uint32_t kMagic = 0x57534553;  // "WSES"
  uint32_t magic = kMagic;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // MPI_Session_init's thread level and hints, which MPI_Session_get_info reports.
  int thread_level = MPI_THREAD_SINGLE;
  weft::mpi::InfoEntries hints;
  // MPI_Session_attach_buffer's buffer, shared with the groups and communicators made
  // from this session.
  std::shared_ptr<weft::mpi::AttachedBuffer> buffer = std::make_shared<weft::mpi::AttachedBuffer>();
};

namespace {

constexpr const char* kPsets[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int kNumPsets = 2;

MPI_ABI_Session& session_of(MPI_Session session) {
  auto address = reinterpret_cast<uintptr_t>(session);
  if (session == MPI_SESSION_NULL || address < 0x1000 ||
      session->magic != MPI_ABI_Session::kMagic) {
    throw MpiError(MPI_ERR_SESSION, session == MPI_SESSION_NULL ? "the session is MPI_SESSION_NULL"
                                                                : "not a valid session");
  }
  return *session;
}

// Applies `session`'s error handler (MPI_COMM_WORLD's when the session is not valid)
// to a failure of `function`.
int session_error(MPI_Session session, const char* function, int error_class,
                  const std::string& message) {
  MPI_Errhandler handler = library().world.errhandler;
  try {
    handler = session_of(session).errhandler;
  } catch (const MpiError&) {
  }
  return weft::mpi::apply_errhandler(handler, function, error_class, message,
                                     [&](MPI_Errhandler user, int& code) {
                                       if (user->session_function != nullptr) {
                                         user->session_function(&session, &code);
                                       } else if (user->function != nullptr) {
                                         MPI_Comm on = MPI_COMM_NULL;
                                         user->function(&on, &code);
                                       }
                                     });
}

template <typename Body>
int session_call(const char* function, MPI_Session session, Body&& body) {
  try {
    body();
    return MPI_SUCCESS;
  } catch (const std::exception& e) {
    return session_error(session, function, weft::mpi::error_class_of(e), e.what());
  }
}

// The world ranks of a process set; MPI_ERR_ARG for a name not offered.
std::vector<int> pset_members(const char* name) {
  if (std::strcmp(name, "mpi://WORLD") == 0) {
    std::vector<int> everyone(static_cast<size_t>(weft::get_world_size()));
    for (size_t r = 0; r < everyone.size(); ++r) everyone[r] = static_cast<int>(r);
    return everyone;
  }
  if (std::strcmp(name, "mpi://SELF") == 0) return {weft::get_rank()};
  throw MpiError(MPI_ERR_ARG,
                 std::string("pset_name \"") + name + "\" is neither mpi://WORLD nor mpi://SELF");
}

}  // namespace

extern "C" {

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  return session_call("MPI_Session_init", MPI_SESSION_NULL, [&] {
    require_pointer(session, "session");
    weft::mpi::user_errhandler_or_null(errhandler);
    weft::mpi::InfoEntries hints = weft::mpi::hints_of(info);
    weft::mpi::start_runtime();
    auto* s = new MPI_ABI_Session();
    s->errhandler = errhandler;
    s->hints = std::move(hints);
    ++library().sessions;
    *session = s;
  });
}
WEFT_MPI_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session* session) {
  return session_call("MPI_Session_finalize", session ? *session : MPI_SESSION_NULL, [&] {
    require_pointer(session, "session");
    MPI_ABI_Session& s = session_of(*session);
    s.magic = 0;
    delete &s;
    *session = MPI_SESSION_NULL;
    --library().sessions;
    weft::mpi::stop_runtime_if_unused();
  });
}
WEFT_MPI_ALIAS(Session_finalize)

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  return session_call("MPI_Session_get_num_psets", session, [&] {
    session_of(session);
    require_pointer(npset_names, "npset_names");
    (void)info;
    *npset_names = kNumPsets;
  });
}
WEFT_MPI_ALIAS(Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                              char* pset_name) {
  return session_call("MPI_Session_get_nth_pset", session, [&] {
    session_of(session);
    require_pointer(pset_len, "pset_len");
    (void)info;
    if (n < 0 || n >= kNumPsets) {
      throw MpiError(MPI_ERR_ARG, "n = " + std::to_string(n) + " is outside [0, " +
                                      std::to_string(kNumPsets) + ")");
    }
    const std::string name = kPsets[n];
    int needed = static_cast<int>(name.size()) + 1;  // with the terminating NUL
    // A pset_len of 0 asks for the length only.
    if (*pset_len > 0) {
      require_pointer(pset_name, "pset_name");
      size_t copied = std::min(name.size(), static_cast<size_t>(*pset_len - 1));
      std::memcpy(pset_name, name.data(), copied);
      pset_name[copied] = '\0';
    }
    *pset_len = needed;
  });
}
WEFT_MPI_ALIAS(Session_get_nth_pset)

int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  return session_call("MPI_Group_from_session_pset", session, [&] {
    session_of(session);
    require_pointer(pset_name, "pset_name");
    require_pointer(newgroup, "newgroup");
    auto* g = new MPI_ABI_Group();
    g->world_ranks = pset_members(pset_name);
    g->session_buffer = session_of(session).buffer;
    *newgroup = g;
  });
}
WEFT_MPI_ALIAS(Group_from_session_pset)

int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_create_from_group", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Comm_create_from_group");
    const MPI_ABI_Group& g = weft::mpi::group_of(group);
    require_pointer(stringtag, "stringtag");
    require_pointer(newcomm, "newcomm");
    weft::mpi::user_errhandler_or_null(errhandler);
    (void)info;
    if (g.world_ranks.empty()) {
      *newcomm = MPI_COMM_NULL;
      return;
    }
    if (std::find(g.world_ranks.begin(), g.world_ranks.end(), weft::get_rank()) ==
        g.world_ranks.end()) {
      throw MpiError(MPI_ERR_GROUP, "this process is not a member of the group");
    }
    // Only the group's members call it: a subgroup of the world, told apart by the tag.
    weft::Group created = weft::subgroup(
        weft::Group(), g.world_ranks, weft::mpi::creation_tag(weft::mpi::tag_of_string(stringtag)));
    MPI_ABI_Comm like;  // whose error handler the new communicator takes
    like.errhandler = errhandler;
    like.session_buffer = g.session_buffer;
    *newcomm = weft::mpi::make_comm(created, like);
  });
}
WEFT_MPI_ALIAS(Comm_create_from_group)

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                   MPI_Errhandler* errhandler) {
  return session_call("MPI_Session_create_errhandler", MPI_SESSION_NULL, [&] {
    require_pointer(reinterpret_cast<const void*>(session_errhandler_fn), "the function");
    require_pointer(errhandler, "errhandler");
    // Never deleted, as MPI_Comm_create_errhandler's.
    auto* handler = new MPI_ABI_Errhandler();
    handler->session_function = session_errhandler_fn;
    *errhandler = handler;
  });
}
WEFT_MPI_ALIAS(Session_create_errhandler)

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  return session_call("MPI_Session_set_errhandler", session, [&] {
    MPI_ABI_Session& s = session_of(session);
    weft::mpi::user_errhandler_or_null(errhandler);
    s.errhandler = errhandler;
  });
}
WEFT_MPI_ALIAS(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  return session_call("MPI_Session_get_errhandler", session, [&] {
    MPI_ABI_Session& s = session_of(session);
    require_pointer(errhandler, "errhandler");
    *errhandler = s.errhandler;
  });
}
WEFT_MPI_ALIAS(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  int rc = session_call("MPI_Session_call_errhandler", session, [&] { session_of(session); });
  if (rc != MPI_SUCCESS) return rc;
  // The handler runs as for a failure of a call on the session; having run, the call
  // succeeded.
  session_error(session, "MPI_Session_call_errhandler", errorcode,
                "the program raised this error on the session");
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Session_call_errhandler)

// What the session runs with: the thread level weft gives (it always provides
// MPI_THREAD_MULTIPLE) and the hints the program passed, which weft keeps but does not
// act on.
int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  return session_call("MPI_Session_get_info", session, [&] {
    const MPI_ABI_Session& s = session_of(session);
    require_pointer(info_used, "info_used");
    weft::mpi::InfoEntries entries = {{"mpi_thread_support_level", "MPI_THREAD_MULTIPLE"}};
    for (const auto& hint : s.hints) {
      if (hint.first != "mpi_thread_support_level") entries.push_back(hint);
    }
    *info_used = weft::mpi::new_info(std::move(entries));
  });
}
WEFT_MPI_ALIAS(Session_get_info)

int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  return session_call("MPI_Session_get_pset_info", session, [&] {
    session_of(session);
    require_pointer(pset_name, "pset_name");
    require_pointer(info, "info");
    size_t size = pset_members(pset_name).size();
    *info = weft::mpi::new_info({{"mpi_size", std::to_string(size)}});
  });
}
WEFT_MPI_ALIAS(Session_get_pset_info)

int PMPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  return session_call("MPI_Session_attach_buffer", session,
                      [&] { weft::mpi::attach_buffer(*session_of(session).buffer, buffer, size); });
}
WEFT_MPI_ALIAS(Session_attach_buffer)

int PMPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  return session_call("MPI_Session_attach_buffer_c", session,
                      [&] { weft::mpi::attach_buffer(*session_of(session).buffer, buffer, size); });
}
WEFT_MPI_ALIAS(Session_attach_buffer_c)

int PMPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  return session_call("MPI_Session_detach_buffer", session, [&] {
    weft::mpi::detach_buffer(*session_of(session).buffer, buffer_addr, size);
  });
}
WEFT_MPI_ALIAS(Session_detach_buffer)

int PMPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr, MPI_Count* size) {
  return session_call("MPI_Session_detach_buffer_c", session, [&] {
    weft::mpi::detach_buffer(*session_of(session).buffer, buffer_addr, size);
  });
}
WEFT_MPI_ALIAS(Session_detach_buffer_c)

int PMPI_Session_flush_buffer(MPI_Session session) {
  return session_call("MPI_Session_flush_buffer", session,
                      [&] { session_of(session).buffer->flush(); });
}
WEFT_MPI_ALIAS(Session_flush_buffer)

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  return session_call("MPI_Session_iflush_buffer", session, [&] {
    weft::mpi::AttachedBuffer& buffer = *session_of(session).buffer;
    require_pointer(request, "request");
    // A request's failures go to a communicator's handler; the session has none, and
    // MPI_COMM_SELF stands in for it as for other calls without a communicator.
    *request = weft::mpi::flush_request(buffer, MPI_COMM_SELF);
  });
}
WEFT_MPI_ALIAS(Session_iflush_buffer)

}  // extern "C"
