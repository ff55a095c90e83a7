// MPI-IO over POSIX files. An MPI_File is one open file descriptor per process, a view
// (displacement, etype and filetype: which bytes of the file the process sees, in what
// units), an individual file pointer, and a shared file pointer that every process of
// the group moves. All the processes of a job must see one file system: on one host they
// do; across hosts weft assumes the file lies on a shared file system.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"

namespace weft::mpi {

// The shared file pointer, in etypes of the current view. A file opened by one process
// keeps it in memory; otherwise it lives in a small side file that every process opened
// (and that is unlinked once they all have), read and written under an fcntl lock, so
// that processes move it without talking to each other.
class SharedPointer {
 public:
  SharedPointer() = default;
  SharedPointer(const SharedPointer&) = delete;
  SharedPointer& operator=(const SharedPointer&) = delete;
  ~SharedPointer();
  // Uses the side file `fd` (owned from now on) instead of memory.
  void use_file(int fd) { fd_ = fd; }
  // Returns the pointer and moves it on by `delta`, atomically across processes.
  int64_t fetch_add(int64_t delta);
  int64_t get() { return fetch_add(0); }
  void set(int64_t value);

 private:
  template <typename Update>
  int64_t locked(Update&& update);
  int fd_ = -1;
  int64_t value_ = 0;
  std::mutex mutex_;  // fcntl locks do not exclude the threads of one process
};

// What the process sees of the file (MPI_File_set_view).
struct FileView {
  int64_t disp = 0;
  MPI_Datatype etype = MPI_BYTE;     // the program's handle: predefined, or our duplicate
  MPI_Datatype filetype = MPI_BYTE;  // of a derived one, freed with the view
  std::string datarep = "native";
  uint64_t etype_size = 1;
  std::shared_ptr<const Typemap> filemap;  // the filetype's segments tile the file
  std::vector<uint64_t> starts;            // data bytes of filemap before each segment
};

// A pending split collective operation (MPI_File_read_all_begin ... _end).
struct SplitCollective {
  bool pending = false;
  const void* buf = nullptr;
  MPI_Status status{};
};

}  // namespace weft::mpi

struct MPI_ABI_File {
  static constexpr uint32_t kMagic = 0x5746494c;  // "WFIL"
  uint32_t magic = kMagic;
  int fd = -1;
  std::string filename;
  int amode = 0;
  // A duplicate of the communicator the file was opened on, for the collective steps,
  // returning errors (the file's handler reports them).
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  std::vector<std::pair<std::string, std::string>> hints;
  bool atomic = false;
  weft::mpi::FileView view;
  int64_t position = 0;  // the individual file pointer, in etypes of the view
  weft::mpi::SharedPointer shared;
  weft::mpi::SplitCollective split;
  // By rank, whether the process is the first of its host: learnt at the first access by
  // collective buffering (file_collective.cc), which picks aggregators from it.
  std::vector<int> first_of_host;
};

namespace weft::mpi {

// The open file behind a handle; MpiError(MPI_ERR_FILE) for MPI_FILE_NULL or garbage.
MPI_ABI_File& file_of(MPI_File fh);

// The handler MPI_FILE_NULL has: new files start with it, and failures with no open file
// (MPI_File_open, MPI_File_delete) go to it. MPI_ERRORS_RETURN until the program sets it.
MPI_Errhandler& file_null_errhandler();

// Applies the handler of `fh` (MPI_FILE_NULL's when it is not an open file) to a failure
// of `function`: returns the class or does not return.
int handle_file_error(MPI_File fh, const char* function, int error_class,
                      const std::string& message);

// The same with a given handler, told that the failure is on `on`: MPI_File_close's,
// which has freed the file by then.
int apply_file_handler(MPI_Errhandler handler, MPI_File on, const char* function, int error_class,
                       const std::string& message);

// Like mpi_call, but with the file's error handler.
template <typename Body>
int file_call(const char* function, MPI_File fh, Body&& body) {
  try {
    body();
    return MPI_SUCCESS;
  } catch (const std::exception& e) {
    return handle_file_error(fh, function, error_class_of(e), e.what());
  }
}

// The MPI error class of a POSIX errno.
int io_error_class(int error);
// MpiError with the class of `errno`, saying what failed.
[[noreturn]] void throw_io_error(const std::string& what);

// Collective steps on the file's communicator; they throw what the call returns.
void file_barrier(const MPI_ABI_File& f);
void file_bcast(const MPI_ABI_File& f, void* data, int bytes, int root);
// The largest of every process's `value`: an error class agreed on by all.
int file_max(const MPI_ABI_File& f, int value);

// ---- Views (file_views.cc) ----

// The default view: displacement 0, MPI_BYTE, MPI_BYTE, "native".
void reset_view(MPI_ABI_File& f);
// Frees the duplicates of derived types the view holds.
void release_view(FileView& view);
// Byte runs of the file, in view order, that `bytes` data bytes starting at data byte
// `start` of the view occupy; adjacent runs merged.
std::vector<std::pair<int64_t, uint64_t>> file_runs(const FileView& view, uint64_t start,
                                                    uint64_t bytes);
// The file offset of data byte `start` of the view (MPI_File_get_byte_offset).
int64_t byte_offset(const FileView& view, uint64_t start);
// The etypes of the view that lie below byte `file_size` of the file: the end of file, as
// MPI_SEEK_END counts from.
int64_t view_end(const FileView& view, int64_t file_size);

// MpiError(MPI_ERR_UNSUPPORTED_DATAREP) unless `name` is a registered representation
// (MPI_Register_datarep) that a view with `etype` can use (file_datareps.cc).
void check_registered_datarep(const std::string& name, MPI_Datatype etype);

// ---- Data access (file_data.cc) ----

enum class Access { kRead, kWrite };
// Where an access starts: at an explicit offset, the individual file pointer, the shared
// one, or (collectively) the shared one in rank order.
enum class Where { kExplicit, kIndividual, kShared, kOrdered };
// Whether every process of the file makes the access together (the _all, ordered and
// split collective forms), so that collective buffering may combine their parts.
enum class Coordination { kIndependent, kCollective };

// Carries out one read or write of `count` elements of `type` at `buf` with the view
// applied, moves the file pointer it used and fills `status` (MPI_Get_count says how
// many elements moved). `offset` counts etypes, for kExplicit only. A collective access
// whose arguments fail on one process still takes part in the others' exchange, then
// throws.
void file_access(MPI_File fh, Access access, Where where, Coordination coordination, int64_t offset,
                 const void* buf, MPI_Count count, MPI_Datatype type, MPI_Status* status);

// The same for a non-blocking call: the I/O happens now, and `*request` is a completed
// request whose status says what moved.
void file_iaccess(MPI_File fh, Access access, Where where, Coordination coordination,
                  int64_t offset, const void* buf, MPI_Count count, MPI_Datatype type,
                  MPI_Request* request);

// A split collective's two halves: the begin call carries it out and keeps the status
// for the end call.
void file_split_begin(MPI_File fh, Access access, Where where, int64_t offset, const void* buf,
                      MPI_Count count, MPI_Datatype type);
void file_split_end(MPI_File fh, const void* buf, MPI_Status* status);

// ---- Collective buffering (file_collective.cc) ----

// Every process's part of a collective access by two-phase I/O: `runs` are the file
// byte runs of this process's packed `data`, in file order (nothing when `failed`: its
// arguments failed their checks). Returns the data bytes moved for this process, or
// nullopt, the same on every process, when the parts are better accessed independently
// (they do not interleave, the file is in atomic mode, a hint says so, or a process
// failed).
std::optional<uint64_t> two_phase_transfer(MPI_ABI_File& f, Access access,
                                           const std::vector<std::pair<int64_t, uint64_t>>& runs,
                                           std::byte* data, bool failed);

}  // namespace weft::mpi
