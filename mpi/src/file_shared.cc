// What the MPI-IO files share: POSIX errors as MPI error classes, the collective steps
// on a file's communicator, and the shared file pointer.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "mpi/src/files.h"

namespace weft::mpi {

int io_error_class(int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case ETXTBSY:
    case EBUSY:
      return MPI_ERR_FILE_IN_USE;
    case ENAMETOOLONG:
    case EISDIR:
    case ELOOP:
      return MPI_ERR_BAD_FILE;
    default:
      return MPI_ERR_IO;
  }
}

void throw_io_error(const std::string& what) {
  int error = errno;
  throw MpiError(io_error_class(error), what + ": " + std::strerror(error));
}

namespace {

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    throw MpiError(code, std::string("the file's processes could not ") + what);
  }
}

}  // namespace

void file_barrier(const MPI_ABI_File& f) {
  if (f.size > 1) check(PMPI_Barrier(f.comm), "synchronize");
}

void file_bcast(const MPI_ABI_File& f, void* data, int bytes, int root) {
  if (f.size > 1) check(PMPI_Bcast(data, bytes, MPI_BYTE, root, f.comm), "share a value");
}

int file_max(const MPI_ABI_File& f, int value) {
  if (f.size == 1) return value;
  int max = value;
  check(PMPI_Allreduce(&value, &max, 1, MPI_INT, MPI_MAX, f.comm), "agree on a result");
  return max;
}

SharedPointer::~SharedPointer() {
  if (fd_ >= 0) ::close(fd_);
}

template <typename Update>
int64_t SharedPointer::locked(Update&& update) {
  std::lock_guard guard(mutex_);
  if (fd_ < 0) {
    int64_t old = value_;
    value_ = update(old);
    return old;
  }
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;  // the whole side file
  while (fcntl(fd_, F_SETLKW, &lock) != 0) {
    if (errno != EINTR) throw_io_error("cannot lock the shared file pointer");
  }
  int64_t old = 0;
  ssize_t got = ::pread(fd_, &old, sizeof old, 0);
  int64_t next = update(got == sizeof old ? old : 0);
  bool written = next == old || ::pwrite(fd_, &next, sizeof next, 0) == sizeof next;
  int error = errno;
  lock.l_type = F_UNLCK;
  fcntl(fd_, F_SETLK, &lock);
  if (got < 0 || !written) {
    errno = error;
    throw_io_error("cannot update the shared file pointer");
  }
  return got == sizeof old ? old : 0;
}

int64_t SharedPointer::fetch_add(int64_t delta) {
  return locked([&](int64_t old) { return old + delta; });
}

void SharedPointer::set(int64_t value) {
  locked([&](int64_t) { return value; });
}

}  // namespace weft::mpi
