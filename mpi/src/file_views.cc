// File views (MPI_File_set_view): the displacement where a process's part of the file
// starts, the etype that offsets count, and the filetype whose copies, laid end to end
// from the displacement, say which bytes are the process's. Data goes only where the
// filetype has data, in typemap order; the file pointers count etypes of that data.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/files.h"
#include "mpi/src/info.h"
#include "mpi/src/objects.h"

using weft::mpi::file_call;
using weft::mpi::file_of;
using weft::mpi::FileView;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace weft::mpi {

namespace {

// The program's predefined handle, or a committed duplicate the view owns.
MPI_Datatype keep(MPI_Datatype type) {
  if (is_predefined(type)) return type;
  return make_dup(type);
}

void index_segments(FileView& view) {
  view.starts.clear();
  uint64_t start = 0;
  for (const Segment& s : view.filemap->segments) {
    view.starts.push_back(start);
    start += s.length;
  }
}

// The view for these arguments; MpiError when they cannot make one.
FileView make_view(int64_t disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep) {
  check_committed(etype, "etype");
  check_committed(filetype, "filetype");
  require_pointer(datarep, "datarep");
  std::string rep = datarep;
  // "internal" is the implementation's own choice, and weft's is the native one.
  if (rep == "external32") {
    throw MpiError(MPI_ERR_UNSUPPORTED_DATAREP,
                   "datarep \"external32\": weft's files hold data as it is in memory");
  }
  if (rep != "native" && rep != "internal") check_registered_datarep(rep, etype);
  if (disp < 0) throw MpiError(MPI_ERR_ARG, "disp is negative: " + std::to_string(disp));
  const auto& emap = typemap_of(etype, "etype");
  const auto& fmap = typemap_of(filetype, "filetype");
  if (emap->size == 0) throw MpiError(MPI_ERR_TYPE, "etype has no data");
  if (fmap->size == 0 || fmap->extent <= 0) {
    throw MpiError(MPI_ERR_TYPE, "filetype has no data or no positive extent");
  }
  if (fmap->size % emap->size != 0) {
    throw MpiError(MPI_ERR_TYPE, "filetype is not made of etypes: its size " +
                                     std::to_string(fmap->size) + " is not a multiple of " +
                                     std::to_string(emap->size));
  }
  for (const Segment& s : fmap->segments) {
    if (s.offset < 0) throw MpiError(MPI_ERR_TYPE, "filetype has a negative displacement");
  }
  FileView view;
  view.disp = disp;
  view.datarep = rep;
  view.etype_size = emap->size;
  view.filemap = fmap;
  view.etype = keep(etype);
  view.filetype = keep(filetype);
  index_segments(view);
  return view;
}

bool dense(const FileView& view) { return view.filemap->dense(); }

}  // namespace

void reset_view(MPI_ABI_File& f) {
  release_view(f.view);
  f.view = FileView();
  f.view.filemap = typemap_of(MPI_BYTE);
  index_segments(f.view);
}

void release_view(FileView& view) {
  if (is_derived(view.etype)) free_datatype(&view.etype);
  if (is_derived(view.filetype)) free_datatype(&view.filetype);
  view.etype = MPI_BYTE;
  view.filetype = MPI_BYTE;
}

std::vector<std::pair<int64_t, uint64_t>> file_runs(const FileView& view, uint64_t start,
                                                    uint64_t bytes) {
  std::vector<std::pair<int64_t, uint64_t>> runs;
  if (bytes == 0) return runs;
  const Typemap& map = *view.filemap;
  if (dense(view)) {
    runs.emplace_back(view.disp + map.segments[0].offset + int64_t(start), bytes);
    return runs;
  }
  uint64_t tile = start / map.size;
  uint64_t within = start % map.size;
  size_t i =
      std::upper_bound(view.starts.begin(), view.starts.end(), within) - view.starts.begin() - 1;
  uint64_t skip = within - view.starts[i];
  while (bytes > 0) {
    const Segment& s = map.segments[i];
    uint64_t take = std::min(s.length - skip, bytes);
    int64_t at = view.disp + int64_t(tile) * map.extent + s.offset + int64_t(skip);
    if (!runs.empty() && runs.back().first + int64_t(runs.back().second) == at) {
      runs.back().second += take;
    } else if (take > 0) {
      runs.emplace_back(at, take);
    }
    bytes -= take;
    skip = 0;
    if (++i == map.segments.size()) {
      i = 0;
      ++tile;
    }
  }
  return runs;
}

int64_t byte_offset(const FileView& view, uint64_t start) {
  const Typemap& map = *view.filemap;
  uint64_t tile = start / map.size;
  uint64_t within = start % map.size;
  size_t i =
      std::upper_bound(view.starts.begin(), view.starts.end(), within) - view.starts.begin() - 1;
  return view.disp + int64_t(tile) * map.extent + map.segments[i].offset +
         int64_t(within - view.starts[i]);
}

int64_t view_end(const FileView& view, int64_t file_size) {
  const Typemap& map = *view.filemap;
  int64_t lowest = INT64_MAX;
  int64_t highest = 0;
  for (const Segment& s : map.segments) {
    lowest = std::min(lowest, s.offset);
    highest = std::max(highest, s.offset + int64_t(s.length));
  }
  // Copies of the filetype that lie wholly below the end, then the ones it cuts.
  int64_t below = file_size - view.disp - highest;
  int64_t tile = below < 0 ? 0 : below / map.extent + 1;
  uint64_t bytes = uint64_t(tile) * map.size;
  for (;; ++tile) {
    int64_t base = view.disp + tile * map.extent;
    if (base + lowest >= file_size) break;
    for (const Segment& s : map.segments) {
      int64_t in = std::clamp<int64_t>(file_size - (base + s.offset), 0, int64_t(s.length));
      bytes += uint64_t(in);
    }
  }
  return int64_t(bytes / view.etype_size);
}

}  // namespace weft::mpi

namespace {

int64_t eof_position(const MPI_ABI_File& f) {
  struct stat st {};
  if (fstat(f.fd, &st) != 0) weft::mpi::throw_io_error("cannot read the file's size");
  return weft::mpi::view_end(f.view, st.st_size);
}

int64_t sought(const MPI_ABI_File& f, int64_t current, MPI_Offset offset, int whence) {
  int64_t base;
  switch (whence) {
    case MPI_SEEK_SET:
      base = 0;
      break;
    case MPI_SEEK_CUR:
      base = current;
      break;
    case MPI_SEEK_END:
      base = eof_position(f);
      break;
    default:
      throw MpiError(MPI_ERR_ARG, "whence is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END");
  }
  if (base + offset < 0) {
    throw MpiError(MPI_ERR_ARG, "the position sought is before the start of the view");
  }
  return base + offset;
}

void no_split_pending(const MPI_ABI_File& f) {
  if (f.split.pending) {
    throw MpiError(MPI_ERR_OTHER, "a split collective operation on the file is pending");
  }
}

// A collective step whose local checks may fail on some processes: all fail together.
template <typename Check>
void agree(const MPI_ABI_File& f, Check&& check) {
  int error = MPI_SUCCESS;
  std::string message;
  try {
    check();
  } catch (const std::exception& e) {
    error = weft::mpi::error_class_of(e);
    message = e.what();
  }
  int agreed = weft::mpi::file_max(f, error);
  if (agreed != MPI_SUCCESS) {
    throw MpiError(agreed, error != MPI_SUCCESS ? message : "another process's arguments failed");
  }
}

}  // namespace

extern "C" {

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char* datarep, MPI_Info info) {
  return file_call("MPI_File_set_view", fh, [&] {
    MPI_ABI_File& f = file_of(fh);
    FileView view;
    bool current = disp == MPI_DISPLACEMENT_CURRENT;
    agree(f, [&] {
      no_split_pending(f);
      weft::mpi::hints_of(info);
      if (current && !(f.amode & MPI_MODE_SEQUENTIAL)) {
        throw MpiError(MPI_ERR_ARG,
                       "disp is MPI_DISPLACEMENT_CURRENT on a file not opened "
                       "MPI_MODE_SEQUENTIAL");
      }
      view = weft::mpi::make_view(current ? 0 : disp, etype, filetype, datarep);
    });
    if (current) {
      // Where the shared file pointer is now, in bytes of the file.
      view.disp = weft::mpi::byte_offset(f.view, uint64_t(f.shared.get()) * f.view.etype_size);
      weft::mpi::file_barrier(f);
    }
    weft::mpi::release_view(f.view);
    f.view = std::move(view);
    f.position = 0;
    if (f.rank == 0) f.shared.set(0);
    weft::mpi::file_barrier(f);  // nobody moves the shared pointer before it is reset
  });
}
WEFT_MPI_ALIAS(File_set_view)

int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                       char* datarep) {
  return file_call("MPI_File_get_view", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(disp, "disp");
    require_pointer(etype, "etype");
    require_pointer(filetype, "filetype");
    require_pointer(datarep, "datarep");
    *disp = f.view.disp;
    // Derived types come back as new handles, which the program frees.
    auto handed = [](MPI_Datatype t) {
      return weft::mpi::is_predefined(t) ? t : weft::mpi::make_dup(t);
    };
    *etype = handed(f.view.etype);
    *filetype = handed(f.view.filetype);
    std::memcpy(datarep, f.view.datarep.c_str(), f.view.datarep.size() + 1);
  });
}
WEFT_MPI_ALIAS(File_get_view)

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  return file_call("MPI_File_get_byte_offset", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(disp, "disp");
    if (offset < 0) throw MpiError(MPI_ERR_ARG, "offset is negative");
    *disp = weft::mpi::byte_offset(f.view, uint64_t(offset) * f.view.etype_size);
  });
}
WEFT_MPI_ALIAS(File_get_byte_offset)

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  return file_call("MPI_File_get_type_extent", fh, [&] {
    file_of(fh);
    require_pointer(extent, "extent");
    // In "native" data, a type's extent in the file is its extent in memory.
    *extent = weft::mpi::typemap_of(datatype)->extent;
  });
}
WEFT_MPI_ALIAS(File_get_type_extent)

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  return file_call("MPI_File_get_type_extent_c", fh, [&] {
    file_of(fh);
    require_pointer(extent, "extent");
    *extent = weft::mpi::typemap_of(datatype)->extent;
  });
}
WEFT_MPI_ALIAS(File_get_type_extent_c)

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  return file_call("MPI_File_seek", fh, [&] {
    MPI_ABI_File& f = file_of(fh);
    if (f.amode & MPI_MODE_SEQUENTIAL) {
      throw MpiError(MPI_ERR_UNSUPPORTED_OPERATION,
                     "a file opened MPI_MODE_SEQUENTIAL has no individual file pointer");
    }
    f.position = sought(f, f.position, offset, whence);
  });
}
WEFT_MPI_ALIAS(File_seek)

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  return file_call("MPI_File_seek_shared", fh, [&] {
    MPI_ABI_File& f = file_of(fh);
    agree(f, [&] {
      no_split_pending(f);
      if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END) {
        throw MpiError(MPI_ERR_ARG, "whence is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END");
      }
    });
    // Past the first step every process has finished its accesses before this call, so
    // process 0 sees the pointer they left, and moves it before the others go on.
    int error = MPI_SUCCESS;
    if (f.rank == 0) {
      try {
        f.shared.set(sought(f, f.shared.get(), offset, whence));
      } catch (const MpiError& e) {
        error = e.error_class();
      }
    }
    weft::mpi::file_bcast(f, &error, sizeof error, 0);
    if (error != MPI_SUCCESS) {
      throw MpiError(error,
                     "the position sought is before the start of the view, or the "
                     "file's size is unknown");
    }
  });
}
WEFT_MPI_ALIAS(File_seek_shared)

int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  return file_call("MPI_File_get_position", fh, [&] {
    const MPI_ABI_File& f = file_of(fh);
    require_pointer(offset, "offset");
    *offset = f.position;
  });
}
WEFT_MPI_ALIAS(File_get_position)

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  return file_call("MPI_File_get_position_shared", fh, [&] {
    MPI_ABI_File& f = file_of(fh);
    require_pointer(offset, "offset");
    *offset = f.shared.get();
  });
}
WEFT_MPI_ALIAS(File_get_position_shared)

}  // extern "C"
