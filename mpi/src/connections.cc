#include "mpi/src/connections.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "mpi/src/errors.h"
#include "mpi/src/temporary_directory.h"

namespace weft::mpi {
namespace {

struct Connections {
  weft::Group channel;
  std::string job;  // 16 hex digits
};

Connections& connections() {
  static Connections state;
  return state;
}

// A job identity no other job on the host is likely to have drawn: the directory and
// the port names of two jobs must never be taken for each other's.
uint64_t draw_identity() {
  std::random_device device;
  uint64_t id = (static_cast<uint64_t>(device()) << 32) ^ device();
  id ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return id ^ (static_cast<uint64_t>(getpid()) << 17);
}

std::string path_of(const std::string& name) { return job_directory() + "/" + name; }

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

void start_connections() {
  Connections& c = connections();
  c.channel = *weft::split_group(weft::Group(), 0, weft::get_rank());
  std::vector<uint64_t> id{weft::get_rank() == 0 ? draw_identity() : 0};
  weft::broadcast(weft::Tensor(id.data(), 1, weft::DType::kUInt64), weft::GroupRank{0}, c.channel);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(id[0]));
  c.job = hex;
}

void end_connections() {
  close_ports_at_finalize();
  unpublish_names_at_finalize();
  // Fails while another process still has entries there: the last one out removes it.
  rmdir(job_directory().c_str());
}

const weft::Group& connection_channel() { return connections().channel; }

const std::string& job_identity() { return connections().job; }

std::string job_directory() { return temporary_directory() + "/weft-mpi-" + job_identity(); }

bool make_job_directory() { return mkdir(job_directory().c_str(), 0700) == 0 || errno == EEXIST; }

bool create_job_file(const std::string& name, const std::string& text) {
  static std::atomic<uint64_t> drafts{0};
  // Another process's end_connections may remove the directory while it is empty, just
  // before this one writes into it: then make it again.
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (!make_job_directory()) break;
    std::string draft =
        path_of(".draft." + std::to_string(getpid()) + "." + std::to_string(drafts.fetch_add(1)));
    int fd = open(draft.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      break;
    }
    bool written = write_all(fd, text);
    close(fd);
    // link() publishes the whole file at once and refuses an existing name.
    int linked = written ? link(draft.c_str(), path_of(name).c_str()) : -1;
    int link_errno = errno;
    unlink(draft.c_str());
    if (linked == 0) return true;
    if (written && link_errno == EEXIST) return false;
    if (written && link_errno == ENOENT) continue;
    break;
  }
  throw MpiError(MPI_ERR_OTHER, "cannot write " + path_of(name) + " in the job's directory");
}

std::optional<std::string> read_job_file(const std::string& name) {
  int fd = open(path_of(name).c_str(), O_RDONLY);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[512];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

void remove_job_file(const std::string& name) { unlink(path_of(name).c_str()); }

bool job_file_exists(const std::string& name) {
  struct stat st;
  return stat(path_of(name).c_str(), &st) == 0;
}

}  // namespace weft::mpi
