// Reading and writing with the view applied. An access is `count` elements of a
// datatype, packed as a message would be, placed at consecutive data bytes of the view
// from where it starts; the view turns those into byte runs of the file, which pread and
// pwrite move, each process's where its own view says. Collective accesses whose parts
// interleave go by two-phase I/O instead (file_collective.cc); the ordered ones first
// agree on their offsets in rank order. Non-blocking and split collective accesses do
// their I/O at once and hand the status to the completion.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/files.h"
#include "mpi/src/grequests.h"
#include "mpi/src/objects.h"

namespace weft::mpi {

namespace {

void write_all(int fd, const std::byte* data, uint64_t bytes, int64_t at) {
  while (bytes > 0) {
    ssize_t done = ::pwrite(fd, data, std::min<uint64_t>(bytes, 1 << 30), at);
    if (done < 0) {
      if (errno == EINTR) continue;
      throw_io_error("cannot write the file");
    }
    data += done;
    bytes -= uint64_t(done);
    at += done;
  }
}

// The bytes read: fewer than asked only at the end of the file.
uint64_t read_all(int fd, std::byte* data, uint64_t bytes, int64_t at) {
  uint64_t total = 0;
  while (total < bytes) {
    ssize_t done = ::pread(fd, data + total, std::min<uint64_t>(bytes - total, 1 << 30), at);
    if (done < 0) {
      if (errno == EINTR) continue;
      throw_io_error("cannot read the file");
    }
    if (done == 0) break;
    total += uint64_t(done);
    at += done;
  }
  return total;
}

// In atomic mode an access holds an fcntl lock on the bytes it spans, so that concurrent
// accesses of other processes to overlapping bytes see all of it or none of it.
class RangeLock {
 public:
  RangeLock(const MPI_ABI_File& f, Access access,
            const std::vector<std::pair<int64_t, uint64_t>>& runs)
      : fd_(f.atomic && !runs.empty() ? f.fd : -1) {
    if (fd_ < 0) return;
    int64_t low = runs.front().first;
    int64_t high = low;
    for (const auto& [at, length] : runs) {
      low = std::min(low, at);
      high = std::max(high, at + int64_t(length));
    }
    lock_.l_type = access == Access::kRead ? F_RDLCK : F_WRLCK;
    lock_.l_whence = SEEK_SET;
    lock_.l_start = low;
    lock_.l_len = high - low;
    while (fcntl(fd_, F_SETLKW, &lock_) != 0) {
      if (errno == EINTR) continue;
      // A file system without locks (or a special file): the access goes on unlocked.
      fd_ = -1;
      return;
    }
  }
  ~RangeLock() {
    if (fd_ < 0) return;
    lock_.l_type = F_UNLCK;
    fcntl(fd_, F_SETLK, &lock_);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;

 private:
  int fd_;
  struct flock lock_ {};
};

// Moves the data of `layout` to or from data byte `start` of the view; returns the bytes
// moved (fewer than the layout's only for a read reaching the end of the file). A
// collective access may go by two-phase I/O (file_collective.cc).
uint64_t transfer(MPI_ABI_File& f, Access access, Coordination coordination, uint64_t start,
                  const BufferLayout& layout) {
  auto runs = file_runs(f.view, start, layout.bytes);
  std::vector<std::byte> staging;
  std::byte* data = layout.start;
  if (!layout.contiguous) {
    staging.resize(layout.bytes);
    data = staging.data();
    if (access == Access::kWrite) pack(layout, data);
  }
  if (coordination == Coordination::kCollective) {
    if (std::optional<uint64_t> moved = two_phase_transfer(f, access, runs, data, false)) {
      if (access == Access::kRead && !layout.contiguous) unpack(data, *moved, layout);
      return *moved;
    }
  }
  RangeLock lock(f, access, runs);
  uint64_t moved = 0;
  for (const auto& [at, length] : runs) {
    if (access == Access::kWrite) {
      write_all(f.fd, data + moved, length, at);
      moved += length;
    } else {
      uint64_t got = read_all(f.fd, data + moved, length, at);
      moved += got;
      if (got < length) break;
    }
  }
  if (access == Access::kRead && !layout.contiguous) unpack(data, moved, layout);
  return moved;
}

void check_access(const MPI_ABI_File& f, Access access, Where where) {
  if (access == Access::kRead && (f.amode & MPI_MODE_WRONLY)) {
    throw MpiError(MPI_ERR_ACCESS, "the file was opened MPI_MODE_WRONLY");
  }
  if (access == Access::kWrite && (f.amode & MPI_MODE_RDONLY)) {
    throw MpiError(MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  }
  if ((f.amode & MPI_MODE_SEQUENTIAL) &&
      (where == Where::kExplicit || where == Where::kIndividual)) {
    throw MpiError(MPI_ERR_UNSUPPORTED_OPERATION,
                   "a file opened MPI_MODE_SEQUENTIAL has only the shared file pointer");
  }
}

BufferLayout checked_layout(const MPI_ABI_File& f, Access access, Where where, int64_t offset,
                            const void* buf, MPI_Count count, MPI_Datatype type) {
  check_access(f, access, where);
  BufferLayout layout = layout_of(buf, count, type, access == Access::kRead ? "read" : "write");
  if (layout.bytes % f.view.etype_size != 0) {
    throw MpiError(MPI_ERR_TYPE, "the datatype is not made of the view's etypes");
  }
  if (where == Where::kExplicit && offset < 0) {
    throw MpiError(MPI_ERR_ARG, "offset is negative: " + std::to_string(offset));
  }
  return layout;
}

// The ordered accesses' start: the shared pointer moves past everyone's data at once, and
// each process starts after the data of the ranks below it. Also agrees on errors.
int64_t ordered_start(MPI_ABI_File& f, int64_t etypes, int error) {
  std::vector<int64_t> all(2 * size_t(f.size));
  int64_t mine[2] = {etypes, error};
  if (f.size == 1) {
    all.assign(mine, mine + 2);
  } else {
    int code = PMPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, f.comm);
    if (code != MPI_SUCCESS) throw MpiError(code, "the file's processes could not agree");
  }
  int64_t before = 0;
  int64_t total = 0;
  for (int r = 0; r < f.size; ++r) {
    if (all[2 * r + 1] != MPI_SUCCESS) {
      throw MpiError(int(all[2 * r + 1]),
                     "process " + std::to_string(r) + "'s arguments to the ordered access failed");
    }
    if (r < f.rank) before += all[2 * r];
    total += all[2 * r];
  }
  int64_t base = 0;
  int failed = MPI_SUCCESS;
  if (f.rank == 0) {
    try {
      base = f.shared.fetch_add(total);
    } catch (const MpiError& e) {
      failed = e.error_class();
    }
  }
  int64_t shared[2] = {base, failed};
  file_bcast(f, shared, sizeof shared, 0);
  if (shared[1] != MPI_SUCCESS) throw MpiError(int(shared[1]), "cannot move the shared pointer");
  return shared[0] + before;
}

int query_status(void* extra_state, MPI_Status* status) {
  *status = *static_cast<MPI_Status*>(extra_state);
  return MPI_SUCCESS;
}
int free_status(void* extra_state) {
  delete static_cast<MPI_Status*>(extra_state);
  return MPI_SUCCESS;
}
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

}  // namespace

void file_access(MPI_File fh, Access access, Where where, Coordination coordination, int64_t offset,
                 const void* buf, MPI_Count count, MPI_Datatype type, MPI_Status* status) {
  MPI_ABI_File& f = file_of(fh);
  BufferLayout layout;
  int64_t start = 0;
  if (where == Where::kOrdered) {
    // Collective: a process whose arguments fail still takes part, so no one waits.
    int error = MPI_SUCCESS;
    std::string message;
    try {
      layout = checked_layout(f, access, where, offset, buf, count, type);
    } catch (const MpiError& e) {
      error = e.error_class();
      message = e.what();
    }
    try {
      start = ordered_start(f, int64_t(layout.bytes / f.view.etype_size), error);
    } catch (const MpiError& e) {
      if (error != MPI_SUCCESS) throw MpiError(error, message);
      throw;
    }
  } else if (coordination == Coordination::kCollective) {
    // A process whose arguments fail still answers the others' collective buffering.
    try {
      layout = checked_layout(f, access, where, offset, buf, count, type);
    } catch (const MpiError&) {
      two_phase_transfer(f, access, {}, nullptr, true);
      throw;
    }
    start = where == Where::kExplicit ? offset : f.position;
  } else {
    layout = checked_layout(f, access, where, offset, buf, count, type);
    int64_t etypes = int64_t(layout.bytes / f.view.etype_size);
    if (where == Where::kExplicit) start = offset;
    if (where == Where::kIndividual) start = f.position;
    if (where == Where::kShared) start = f.shared.fetch_add(etypes);
  }
  uint64_t moved = transfer(f, access, coordination, uint64_t(start) * f.view.etype_size, layout);
  if (where == Where::kIndividual) f.position = start + int64_t(moved / f.view.etype_size);
  set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, moved);
}

void file_iaccess(MPI_File fh, Access access, Where where, Coordination coordination,
                  int64_t offset, const void* buf, MPI_Count count, MPI_Datatype type,
                  MPI_Request* request) {
  require_pointer(request, "request");
  auto status = std::make_unique<MPI_Status>();
  file_access(fh, access, where, coordination, offset, buf, count, type, status.get());
  // A generalized request, already complete, whose query callback gives the status.
  auto g = std::make_shared<Grequest>();
  g->query_fn = query_status;
  g->free_fn = free_status;
  g->cancel_fn = cancel_nothing;
  g->extra_state = status.release();
  g->completed = true;
  auto* r = new MPI_ABI_Request();
  r->comm = MPI_COMM_WORLD;
  r->more().generalized = std::move(g);
  *request = reinterpret_cast<MPI_Request>(r);
}

void file_split_begin(MPI_File fh, Access access, Where where, int64_t offset, const void* buf,
                      MPI_Count count, MPI_Datatype type) {
  MPI_ABI_File& f = file_of(fh);
  if (f.split.pending) {
    throw MpiError(MPI_ERR_OTHER, "a split collective operation on the file is already pending");
  }
  file_access(fh, access, where, Coordination::kCollective, offset, buf, count, type,
              &f.split.status);
  f.split.pending = true;
  f.split.buf = buf;
}

void file_split_end(MPI_File fh, const void* buf, MPI_Status* status) {
  MPI_ABI_File& f = file_of(fh);
  if (!f.split.pending) {
    throw MpiError(MPI_ERR_OTHER, "no split collective operation on the file is pending");
  }
  if (buf != f.split.buf) {
    throw MpiError(MPI_ERR_BUFFER, "buf is not the buffer the begin call was given");
  }
  f.split.pending = false;
  if (status != MPI_STATUS_IGNORE) *status = f.split.status;
}

}  // namespace weft::mpi
