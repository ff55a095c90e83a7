// Starting and ending MPI, and asking about the library: MPI_Init joins the job with
// weft's env:// rendezvous, which also recognises weftrun, mpirun (Open MPI),
// mpiexec.hydra (PMI) and srun, and runs a world of one when nothing launched it.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/connections.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/keyvals.h"
#include "mpi/src/objects.h"

using weft::mpi::library;
using weft::mpi::LibraryState;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

void copy_string(const std::string& text, char* out, int capacity, int* length) {
  size_t n = std::min(text.size(), static_cast<size_t>(capacity - 1));
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *length = static_cast<int>(n);
}

void describe_world(MPI_ABI_Comm& comm, const char* name, std::vector<int> world_ranks) {
  comm.world_ranks = std::move(world_ranks);
  comm.name = name;
  comm.given_name = name;
}

}  // namespace

namespace weft::mpi {

void start_runtime() {
  LibraryState& lib = library();
  if (lib.runtime_started) return;
  weft::init_process_group();
  int rank = weft::get_rank(), size = weft::get_world_size();
  std::vector<int> everyone(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) everyone[static_cast<size_t>(r)] = r;
  describe_world(lib.world, "MPI_COMM_WORLD", everyone);
  // MPI_COMM_SELF needs a context of its own, apart from the world's.
  lib.self.group = *weft::split_group(weft::Group(), rank, 0);
  describe_world(lib.self, "MPI_COMM_SELF", {rank});
  weft::mpi::start_connections();
  lib.runtime_started = true;
}

void stop_runtime_if_unused() {
  LibraryState& lib = library();
  bool world_in_use = lib.initialized && !lib.finalized;
  if (!lib.runtime_started || world_in_use || lib.sessions > 0) return;
  // Operations the program let go of must still reach their peers.
  for (auto& request : lib.detached) request.wait();
  lib.detached.clear();
  // Nobody leaves while a peer may still be talking to it.
  weft::barrier();
  weft::destroy_process_group();
  lib.runtime_started = false;
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Init_thread(int* /*argc*/, char*** /*argv*/, int /*required*/, int* provided) {
  return mpi_call("MPI_Init", MPI_COMM_WORLD, [&] {
    LibraryState& lib = library();
    if (lib.initialized) {
      throw MpiError(MPI_ERR_OTHER, lib.finalized ? "MPI cannot be initialised again after "
                                                    "MPI_Finalize"
                                                  : "MPI_Init was called twice");
    }
    weft::mpi::start_runtime();
    // The core is thread-safe, so every level the standard has is provided.
    lib.thread_level = MPI_THREAD_MULTIPLE;
    lib.main_thread = std::this_thread::get_id();
    lib.initialized = true;
    if (provided != nullptr) *provided = lib.thread_level;
  });
}
WEFT_MPI_ALIAS(Init_thread)

int PMPI_Init(int* argc, char*** argv) {
  int provided = 0;
  return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
WEFT_MPI_ALIAS(Init)

int PMPI_Initialized(int* flag) {
  *flag = library().initialized ? 1 : 0;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Initialized)

int PMPI_Finalized(int* flag) {
  *flag = library().finalized ? 1 : 0;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Finalized)

int PMPI_Finalize(void) {
  return mpi_call("MPI_Finalize", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Finalize");
    weft::mpi::delete_attributes_at_finalize();
    weft::mpi::end_connections();
    LibraryState& lib = library();
    lib.finalized = true;
    weft::mpi::stop_runtime_if_unused();
  });
}
WEFT_MPI_ALIAS(Finalize)

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  std::string where = "MPI_Abort";
  if (library().initialized && !library().finalized) {
    where += " on rank " + std::to_string(weft::get_rank());
  }
  std::fprintf(stderr, "weft MPI: %s with error code %d; ending the job\n", where.c_str(),
               errorcode);
  (void)comm;  // the whole job ends, whatever the communicator
  // The other ranks' pending operations fail at once, naming this rank, instead of
  // waiting for the launcher to notice this process's exit (the launcher stopping the
  // job remains the backstop where a frame could not leave before the exit).
  if (library().initialized && !library().finalized) {
    try {
      weft::abort("MPI_Abort with error code " + std::to_string(errorcode));
    } catch (const weft::Error&) {
      // The job is already being torn down: exiting is all that is left.
    }
  }
  weft::mpi::abort_process(errorcode);
}
WEFT_MPI_ALIAS(Abort)

int PMPI_Query_thread(int* provided) {
  return mpi_call("MPI_Query_thread", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Query_thread");
    *provided = library().thread_level;
  });
}
WEFT_MPI_ALIAS(Query_thread)

int PMPI_Is_thread_main(int* flag) {
  return mpi_call("MPI_Is_thread_main", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Is_thread_main");
    *flag = std::this_thread::get_id() == library().main_thread ? 1 : 0;
  });
}
WEFT_MPI_ALIAS(Is_thread_main)

int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Get_version)

// Callable at any time, like MPI_Get_version: a program checks the ABI before MPI_Init.
int PMPI_Abi_get_version(int* abi_major, int* abi_minor) {
  *abi_major = MPI_ABI_VERSION;
  *abi_minor = MPI_ABI_SUBVERSION;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Abi_get_version)

int PMPI_Get_library_version(char* version, int* resultlen) {
  copy_string("weft (MPI " + std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) +
                  " standard ABI " + std::to_string(MPI_ABI_VERSION) + "." +
                  std::to_string(MPI_ABI_SUBVERSION) + ")",
              version, MPI_MAX_LIBRARY_VERSION_STRING, resultlen);
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Get_library_version)

int PMPI_Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  copy_string(host, name, MPI_MAX_PROCESSOR_NAME, resultlen);
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Get_processor_name)

double PMPI_Wtime(void) {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
WEFT_MPI_ALIAS(Wtime)

double PMPI_Wtick(void) { return 1e-9; }
WEFT_MPI_ALIAS(Wtick)

// Memory for the program: there is nothing faster to give than aligned heap memory,
// since weft's transports take any buffer.
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return mpi_call("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
    if (size < 0) throw MpiError(MPI_ERR_ARG, "size " + std::to_string(size) + " is negative");
    if (baseptr == nullptr) throw MpiError(MPI_ERR_ARG, "baseptr is NULL");
    (void)info;  // no hints apply
    void* memory = nullptr;
    if (posix_memalign(&memory, 64, size == 0 ? 1 : static_cast<size_t>(size)) != 0) {
      throw MpiError(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes");
    }
    *static_cast<void**>(baseptr) = memory;
  });
}
WEFT_MPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void* base) {
  free(base);
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Free_mem)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
WEFT_MPI_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }
WEFT_MPI_ALIAS(Aint_diff)

// Profiling control: weft has no profiling levels to switch, and the standard lets an
// implementation ignore the call; tools intercepting PMPI see it all the same.
int PMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Pcontrol)

}  // extern "C"
