// Opening, closing and deleting files, and what an open file is besides its data: its
// access mode, group, hints, size, atomicity. MPI_File_open is collective: process 0
// creates the file (MPI_MODE_CREATE, MPI_MODE_EXCL) and the shared file pointer's side
// file before the others open them, and every process fails when any does.
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/files.h"
#include "mpi/src/info.h"
#include "mpi/src/objects.h"
#include "mpi/src/temporary_directory.h"

using weft::mpi::file_call;
using weft::mpi::file_of;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;
using weft::mpi::throw_io_error;

namespace {

constexpr int kKnownModes = MPI_MODE_APPEND | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE |
                            MPI_MODE_EXCL | MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL |
                            MPI_MODE_UNIQUE_OPEN | MPI_MODE_WRONLY;

void check_amode(int amode) {
  if ((amode & ~kKnownModes) != 0) throw MpiError(MPI_ERR_AMODE, "amode has unknown bits");
  int kinds = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) + !!(amode & MPI_MODE_WRONLY);
  if (kinds != 1) {
    throw MpiError(MPI_ERR_AMODE,
                   "amode must have exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR and "
                   "MPI_MODE_WRONLY");
  }
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) {
    throw MpiError(MPI_ERR_AMODE, "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL");
  }
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) {
    throw MpiError(MPI_ERR_AMODE, "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR");
  }
}

int posix_flags(int amode, bool creator) {
  int flags = O_CLOEXEC;
  if (amode & MPI_MODE_RDONLY) flags |= O_RDONLY;
  if (amode & MPI_MODE_RDWR) flags |= O_RDWR;
  if (amode & MPI_MODE_WRONLY) flags |= O_WRONLY;
  // Only process 0 creates, and the others open what it made.
  if (creator && (amode & MPI_MODE_CREATE)) flags |= O_CREAT;
  if (creator && (amode & MPI_MODE_EXCL)) flags |= O_EXCL | O_CREAT;
  return flags;
}

int open_data(const std::string& name, int amode, bool creator) {
  int fd;
  do {
    fd = ::open(name.c_str(), posix_flags(amode, creator), 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw_io_error("cannot open \"" + name + "\"");
  return fd;
}

int64_t file_size(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) throw_io_error("cannot read the file's size");
  return st.st_size;
}

// Creates the shared file pointer's side file, holding `initial`: beside the file, where
// the other hosts of a shared file system see it too, else in the temporary directory.
std::string make_side_file(const std::string& name, int64_t initial) {
  std::string copy = name;
  std::string dir = dirname(copy.data());
  std::string base_copy = name;
  std::string base = basename(base_copy.data());
  for (std::string pattern : {dir + "/." + base + ".weft-shared-XXXXXX",
                              weft::mpi::temporary_directory() + "/weft-shared-XXXXXX"}) {
    int fd = mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) continue;
    bool ok = ::pwrite(fd, &initial, sizeof initial, 0) == sizeof initial;
    ::close(fd);
    if (ok) return pattern;
    ::unlink(pattern.c_str());
  }
  throw_io_error("cannot create the shared file pointer's file");
}

// Frees what an open file holds, without any collective step.
void destroy(MPI_ABI_File* f) {
  if (f->fd >= 0) ::close(f->fd);
  weft::mpi::release_view(f->view);
  if (f->comm != MPI_COMM_NULL) PMPI_Comm_free(&f->comm);
  f->magic = 0;
  delete f;
}

struct FileDeleter {
  void operator()(MPI_ABI_File* f) const { destroy(f); }
};

// The collective open; returns the open file or throws, on every process alike.
MPI_ABI_File* open_file(MPI_Comm comm, const std::string& name, int amode, MPI_Info info) {
  std::unique_ptr<MPI_ABI_File, FileDeleter> f(new MPI_ABI_File());
  f->filename = name;
  f->amode = amode;
  f->hints = weft::mpi::hints_of(info);
  f->errhandler = weft::mpi::file_null_errhandler();
  weft::mpi::reset_view(*f);
  int code = PMPI_Comm_dup(comm, &f->comm);
  if (code != MPI_SUCCESS) throw MpiError(code, "cannot duplicate comm for the file");
  PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(f->comm, &f->rank);
  PMPI_Comm_size(f->comm, &f->size);

  // Process 0 first: it creates what the others open.
  int error = MPI_SUCCESS;
  std::string message;
  std::string side;
  int64_t initial = 0;
  if (f->rank == 0) {
    try {
      f->fd = open_data(name, amode, true);
      if (amode & MPI_MODE_APPEND) initial = file_size(f->fd);
      if (f->size > 1) side = make_side_file(name, initial);
    } catch (const MpiError& e) {
      error = e.error_class();
      message = e.what();
    }
  }
  weft::mpi::file_bcast(*f, &error, sizeof error, 0);
  if (error != MPI_SUCCESS) {
    throw MpiError(error, f->rank == 0 ? message : "process 0 could not open \"" + name + "\"");
  }
  int length = static_cast<int>(side.size());
  weft::mpi::file_bcast(*f, &length, sizeof length, 0);
  side.resize(length);
  weft::mpi::file_bcast(*f, side.data(), length, 0);
  weft::mpi::file_bcast(*f, &initial, sizeof initial, 0);
  if (f->rank != 0) {
    try {
      f->fd = open_data(name, amode, false);
    } catch (const MpiError& e) {
      error = e.error_class();
      message = e.what();
    }
  }
  if (f->size > 1 && error == MPI_SUCCESS) {
    int fd = ::open(side.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      error = MPI_ERR_IO;
      message = "cannot open the shared file pointer's file " + side +
                " (MPI-IO needs a file system all processes share)";
    } else {
      f->shared.use_file(fd);
    }
  }
  int agreed = weft::mpi::file_max(*f, error);
  // Everyone has it open now (or gave up): it needs no name any more.
  if (f->rank == 0 && !side.empty()) ::unlink(side.c_str());
  if (agreed != MPI_SUCCESS) {
    throw MpiError(
        agreed, error != MPI_SUCCESS ? message : "another process could not open \"" + name + "\"");
  }
  if (f->size == 1) f->shared.set(initial);
  f->position = initial;
  return f.release();
}

// MPI_ERR_READ_ONLY unless the file was opened for writing.
void require_writable(const MPI_ABI_File& f) {
  if (f.amode & MPI_MODE_RDONLY) {
    throw MpiError(MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  }
}

// Process 0 runs `step`, and every process returns its error class.
template <typename Step>
void on_process_zero(const MPI_ABI_File& f, Step&& step) {
  int error = MPI_SUCCESS;
  std::string message;
  if (f.rank == 0) {
    try {
      step();
    } catch (const MpiError& e) {
      error = e.error_class();
      message = e.what();
    }
  }
  int agreed = weft::mpi::file_max(f, error);
  if (agreed != MPI_SUCCESS) {
    throw MpiError(agreed, f.rank == 0 ? message : "process 0 failed on the file");
  }
}

}  // namespace

extern "C" {

int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  return file_call("MPI_File_open", MPI_FILE_NULL, [&] {
    MPI_ABI_Comm& c = weft::mpi::communicator(comm, "MPI_File_open");
    if (c.inter) throw MpiError(MPI_ERR_COMM, "comm is an intercommunicator");
    require_pointer(filename, "filename");
    require_pointer(fh, "fh");
    check_amode(amode);
    *fh = open_file(comm, filename, amode, info);
  });
}
WEFT_MPI_ALIAS(File_open)

int PMPI_File_close(MPI_File* fh) {
  if (fh == nullptr) {
    return weft::mpi::handle_file_error(MPI_FILE_NULL, "MPI_File_close", MPI_ERR_ARG, "fh is NULL");
  }
  MPI_Errhandler handler = weft::mpi::file_null_errhandler();
  int error = MPI_SUCCESS;
  std::string message;
  try {
    MPI_ABI_File& f = file_of(*fh);
    handler = f.errhandler;
    if (f.split.pending) {
      throw MpiError(MPI_ERR_OTHER, "a split collective operation on the file is pending");
    }
    if (::close(f.fd) != 0) {
      error = weft::mpi::io_error_class(errno);
      message = "cannot close \"" + f.filename + "\"";
    }
    f.fd = -1;
    if (f.amode & MPI_MODE_DELETE_ON_CLOSE) {
      weft::mpi::file_barrier(f);  // everyone has closed it
      if (f.rank == 0 && ::unlink(f.filename.c_str()) != 0 && error == MPI_SUCCESS) {
        error = weft::mpi::io_error_class(errno);
        message = "cannot delete \"" + f.filename + "\" on closing it";
      }
    }
    // No process returns before the file is closed (and deleted) everywhere; all fail
    // when one does.
    int agreed = weft::mpi::file_max(f, error);
    if (agreed != MPI_SUCCESS && error == MPI_SUCCESS) {
      error = agreed;
      message = "another process could not close \"" + f.filename + "\"";
    }
    destroy(&f);
    *fh = MPI_FILE_NULL;
  } catch (const std::exception& e) {
    error = weft::mpi::error_class_of(e);
    message = e.what();
    return weft::mpi::handle_file_error(*fh, "MPI_File_close", error, message);
  }
  if (error == MPI_SUCCESS) return MPI_SUCCESS;
  return weft::mpi::apply_file_handler(handler, MPI_FILE_NULL, "MPI_File_close", error, message);
}
WEFT_MPI_ALIAS(File_close)

int PMPI_File_delete(const char* filename, MPI_Info info) {
  return file_call("MPI_File_delete", MPI_FILE_NULL, [&] {
    weft::mpi::require_initialized("MPI_File_delete");
    require_pointer(filename, "filename");
    weft::mpi::hints_of(info);  // checks the handle
    if (::unlink(filename) != 0) throw_io_error(std::string("cannot delete \"") + filename + "\"");
  });
}
WEFT_MPI_ALIAS(File_delete)

int PMPI_File_get_amode(MPI_File fh, int* amode) {
  return file_call("MPI_File_get_amode", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(amode, "amode");
    *amode = f.amode;
  });
}
WEFT_MPI_ALIAS(File_get_amode)

int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  return file_call("MPI_File_get_group", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(group, "group");
    int code = PMPI_Comm_group(f.comm, group);
    if (code != MPI_SUCCESS) throw MpiError(code, "cannot make the file's group");
  });
}
WEFT_MPI_ALIAS(File_get_group)

int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  return file_call("MPI_File_get_info", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(info_used, "info_used");
    *info_used = weft::mpi::new_info(f.hints);
  });
}
WEFT_MPI_ALIAS(File_get_info)

int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  return file_call("MPI_File_set_info", fh, [&] {
    MPI_ABI_File& f = file_of(fh);
    // Hints only: weft's I/O has no settings they change, so they are kept to be read.
    for (auto& [key, value] : weft::mpi::hints_of(info)) {
      bool replaced = false;
      for (auto& [k, v] : f.hints) {
        if (k == key) {
          v = value;
          replaced = true;
        }
      }
      if (!replaced) f.hints.emplace_back(key, value);
    }
  });
}
WEFT_MPI_ALIAS(File_set_info)

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  return file_call("MPI_File_get_size", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(size, "size");
    *size = file_size(f.fd);
  });
}
WEFT_MPI_ALIAS(File_get_size)

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return file_call("MPI_File_set_size", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    if (size < 0) throw MpiError(MPI_ERR_ARG, "size is negative: " + std::to_string(size));
    require_writable(f);
    // Before and after: no process writes into what is cut off, or reads before it is.
    weft::mpi::file_barrier(f);
    on_process_zero(f, [&] {
      if (::ftruncate(f.fd, size) != 0) throw_io_error("cannot set the file's size");
    });
  });
}
WEFT_MPI_ALIAS(File_set_size)

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return file_call("MPI_File_preallocate", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    if (size < 0) throw MpiError(MPI_ERR_ARG, "size is negative: " + std::to_string(size));
    require_writable(f);
    on_process_zero(f, [&] {
      if (file_size(f.fd) >= size) return;
      int error = posix_fallocate(f.fd, 0, size);
      if (error == 0) return;
      // A file system without allocation: the size alone, as the standard allows.
      if ((error == EOPNOTSUPP || error == EINVAL) && ::ftruncate(f.fd, size) == 0) return;
      errno = error;
      throw_io_error("cannot preallocate the file");
    });
  });
}
WEFT_MPI_ALIAS(File_preallocate)

int PMPI_File_sync(MPI_File fh) {
  return file_call("MPI_File_sync", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    if (f.split.pending) {
      throw MpiError(MPI_ERR_OTHER, "a split collective operation on the file is pending");
    }
    // Special files (/dev/null) have nothing to write back.
    if (::fsync(f.fd) != 0 && errno != EINVAL && errno != EROFS) {
      throw_io_error("cannot write the file back to storage");
    }
  });
}
WEFT_MPI_ALIAS(File_sync)

int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  return file_call("MPI_File_get_atomicity", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(flag, "flag");
    *flag = f.atomic ? 1 : 0;
  });
}
WEFT_MPI_ALIAS(File_get_atomicity)

int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  return file_call("MPI_File_set_atomicity", fh, [&] {
    MPI_ABI_File& f = file_of(fh);
    // In atomic mode each access holds an fcntl lock on the bytes it spans (file_data.cc).
    f.atomic = flag != 0;
  });
}
WEFT_MPI_ALIAS(File_set_atomicity)

}  // extern "C"
