// Collective buffering (two-phase I/O) for the collective reads and writes of MPI-IO.
//
// When the processes' parts of a collective access interleave in the file (each writes
// every n-th block, say), independent I/O would issue one small pread or pwrite per
// block. Instead, a few aggregator processes each own a contiguous file domain of the
// byte range the access spans, and the access proceeds in rounds of cb_buffer_size
// bytes of each domain: every process sends the pieces of its data that fall in an
// aggregator's current window to that aggregator (an all-to-all), and the aggregator
// writes the window's covered spans with a few large pwrites; for a read it preads
// them and sends the pieces back. The aggregators are one process per host by default
// (the first of each host), as ROMIO's cb_nodes defaults to the number of nodes.
//
// Hints (MPI_File_open's or MPI_File_set_info's info): cb_nodes (how many aggregators),
// cb_buffer_size (the window, default 16 MiB), romio_cb_write and romio_cb_read
// ("enable", "disable" or "automatic", the default: two-phase only when the parts
// interleave in runs shorter than kSmallRun on average). Atomic mode always goes
// independent (each access then holds its lock).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "mpi/src/files.h"
#include "mpi/src/info.h"

namespace weft::mpi {
namespace {

constexpr int64_t kDefaultBufferSize = 16 << 20;

std::string hint(const MPI_ABI_File& f, const char* key) {
  const std::string* value = find_entry(f.hints, key);
  return value != nullptr ? *value : "";
}

int64_t hint_number(const MPI_ABI_File& f, const char* key, int64_t fallback) {
  std::string value = hint(f, key);
  if (value.empty()) return fallback;
  char* end = nullptr;
  long long n = std::strtoll(value.c_str(), &end, 10);
  return end != value.c_str() && *end == '\0' && n > 0 ? n : fallback;
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw MpiError(code, std::string("collective buffering: ") + what);
}

// The aggregators: the first process of each host, then (when cb_nodes asks for more)
// the others in rank order.
std::vector<int> aggregators(MPI_ABI_File& f) {
  std::vector<int>& leaders = f.first_of_host;
  if (leaders.empty()) {  // once per file: every process gets here at its first access
    MPI_Comm host = MPI_COMM_NULL;
    check(PMPI_Comm_split_type(f.comm, MPI_COMM_TYPE_SHARED, f.rank, MPI_INFO_NULL, &host),
          "cannot group the processes by host");
    int host_rank = 0;
    PMPI_Comm_rank(host, &host_rank);
    PMPI_Comm_free(&host);
    int leads = host_rank == 0 ? 1 : 0;
    leaders.resize(static_cast<size_t>(f.size));
    check(PMPI_Allgather(&leads, 1, MPI_INT, leaders.data(), 1, MPI_INT, f.comm),
          "cannot find each host's first process");
  }
  std::vector<int> chosen;
  for (int r = 0; r < f.size; ++r) {
    if (leaders[static_cast<size_t>(r)]) chosen.push_back(r);
  }
  int64_t wanted = hint_number(f, "cb_nodes", static_cast<int64_t>(chosen.size()));
  wanted = std::min<int64_t>(wanted, f.size);
  if (static_cast<int64_t>(chosen.size()) > wanted) chosen.resize(static_cast<size_t>(wanted));
  for (int r = 0; r < f.size && static_cast<int64_t>(chosen.size()) < wanted; ++r) {
    if (!leaders[static_cast<size_t>(r)]) chosen.push_back(r);
  }
  // In rank order, as the all-to-alls lay out what goes to and comes from them.
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

// One process's part of the access, as every process tells the others.
struct Part {
  int64_t failed = 0;  // its arguments failed their checks
  int64_t low = 0;     // the file bytes it spans: [low, high), empty when equal
  int64_t high = 0;
  int64_t runs = 0;  // how many byte runs, of how many bytes in all
  int64_t bytes = 0;
};
constexpr int kPartFields = 5;

// Below this mean run length, interleaved parts are combined by aggregators; above it
// each process's own pwrites and preads are large enough. Measured with
// tools/bench/compare_io.sh (4 ranks, 2 cores, ext4): two-phase won at 64 and 512-byte
// blocks (192 against 51 MB/s, 304 against 217), drew at 2 KiB and lost from 4 KiB on
// (163 against 546 MB/s), where its extra copies cost more than the calls it saves.
constexpr int64_t kSmallRun = 2048;

bool small_runs(const std::vector<Part>& parts) {
  int64_t runs = 0, bytes = 0;
  for (const Part& p : parts) runs += p.runs, bytes += p.bytes;
  return runs > 0 && bytes / runs < kSmallRun;
}

bool interleaved(std::vector<Part> parts) {
  parts.erase(
      std::remove_if(parts.begin(), parts.end(), [](const Part& p) { return p.low == p.high; }),
      parts.end());
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.low < b.low; });
  int64_t reach = INT64_MIN;
  for (const Part& p : parts) {
    if (p.low < reach) return true;
    reach = std::max(reach, p.high);
  }
  return false;
}

// A piece of this process's data in one aggregator's window: file bytes
// [offset, offset + length), at data byte `data` of the packed access.
struct Piece {
  int64_t offset;
  int64_t length;
  uint64_t data;
};

// The pieces of `runs` (file order, with their data offsets) inside [low, high).
std::vector<Piece> pieces_in(const std::vector<std::pair<int64_t, uint64_t>>& runs,
                             const std::vector<uint64_t>& run_data, int64_t low, int64_t high) {
  std::vector<Piece> out;
  auto first = std::upper_bound(runs.begin(), runs.end(), low,
                                [](int64_t at, const auto& run) { return at < run.first; });
  if (first != runs.begin()) --first;
  for (auto it = first; it != runs.end() && it->first < high; ++it) {
    int64_t from = std::max(low, it->first);
    int64_t to = std::min(high, it->first + static_cast<int64_t>(it->second));
    if (from >= to) continue;
    out.push_back(Piece{from, to - from,
                        run_data[static_cast<size_t>(it - runs.begin())] +
                            static_cast<uint64_t>(from - it->first)});
  }
  return out;
}

// The file spans the received pieces cover, merged: [offset, end).
std::vector<std::pair<int64_t, int64_t>> covered_spans(const std::vector<int64_t>& meta) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (size_t i = 0; i + 1 < meta.size(); i += 2)
    spans.emplace_back(meta[i], meta[i] + meta[i + 1]);
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

int total(const std::vector<int>& counts) {
  int sum = 0;
  for (int c : counts) sum += c;
  return sum;
}

void pwrite_fully(int fd, const std::byte* data, int64_t bytes, int64_t at) {
  while (bytes > 0) {
    ssize_t done = ::pwrite(fd, data, static_cast<size_t>(bytes), at);
    if (done < 0) {
      if (errno == EINTR) continue;
      throw_io_error("cannot write the file");
    }
    data += done;
    bytes -= done;
    at += done;
  }
}

// The bytes read; fewer only at the end of the file.
int64_t pread_fully(int fd, std::byte* data, int64_t bytes, int64_t at) {
  int64_t got = 0;
  while (got < bytes) {
    ssize_t done = ::pread(fd, data + got, static_cast<size_t>(bytes - got), at + got);
    if (done < 0) {
      if (errno == EINTR) continue;
      throw_io_error("cannot read the file");
    }
    if (done == 0) break;
    got += done;
  }
  return got;
}

// Everything one round moves: per aggregator, this process's pieces in its window.
class Round {
 public:
  Round(const MPI_ABI_File& f, const std::vector<int>& aggregators) : f_(f), aggs_(aggregators) {}

  // Sends this process's pieces' descriptions (and, for a write, their data) to the
  // aggregators, which receive everyone's.
  void exchange(const std::vector<std::vector<Piece>>& mine, const std::byte* data, bool write) {
    const size_t n = static_cast<size_t>(f_.size);
    std::vector<int> meta_out(n, 0), bytes_out(n, 0);
    std::vector<int64_t> meta;
    std::vector<std::byte> payload;
    for (size_t a = 0; a < aggs_.size(); ++a) {
      const size_t to = static_cast<size_t>(aggs_[a]);
      for (const Piece& p : mine[a]) {
        meta.push_back(p.offset);
        meta.push_back(p.length);
        if (write) payload.insert(payload.end(), data + p.data, data + p.data + p.length);
        bytes_out[to] += static_cast<int>(write ? p.length : 0);
      }
      meta_out[to] = static_cast<int>(2 * mine[a].size());
    }
    std::vector<int> counts_out(2 * n), counts_in(2 * n);
    for (size_t r = 0; r < n; ++r)
      counts_out[2 * r] = meta_out[r], counts_out[2 * r + 1] = bytes_out[r];
    check(PMPI_Alltoall(counts_out.data(), 2, MPI_INT, counts_in.data(), 2, MPI_INT, f_.comm),
          "cannot exchange the pieces' sizes");
    meta_in_counts_.assign(n, 0);
    bytes_in_counts_.assign(n, 0);
    for (size_t r = 0; r < n; ++r)
      meta_in_counts_[r] = counts_in[2 * r], bytes_in_counts_[r] = counts_in[2 * r + 1];
    meta_in_.assign(static_cast<size_t>(total(meta_in_counts_)), 0);
    check(PMPI_Alltoallv(meta.data(), meta_out.data(), displacements(meta_out).data(), MPI_INT64_T,
                         meta_in_.data(), meta_in_counts_.data(),
                         displacements(meta_in_counts_).data(), MPI_INT64_T, f_.comm),
          "cannot send the pieces' places");
    if (write) {
      payload_in_.resize(static_cast<size_t>(total(bytes_in_counts_)));
      check(PMPI_Alltoallv(payload.data(), bytes_out.data(), displacements(bytes_out).data(),
                           MPI_BYTE, payload_in_.data(), bytes_in_counts_.data(),
                           displacements(bytes_in_counts_).data(), MPI_BYTE, f_.comm),
            "cannot send the data to the aggregators");
    }
  }

  // An aggregator's write of what it received in its window [low, high).
  void write_window(int64_t low, int64_t high, std::vector<std::byte>& buffer) {
    if (meta_in_.empty()) return;
    buffer.resize(static_cast<size_t>(high - low));
    size_t from = 0;
    for (size_t i = 0; i + 1 < meta_in_.size(); i += 2) {
      std::memcpy(buffer.data() + (meta_in_[i] - low), payload_in_.data() + from,
                  static_cast<size_t>(meta_in_[i + 1]));
      from += static_cast<size_t>(meta_in_[i + 1]);
    }
    for (const auto& [at, end] : covered_spans(meta_in_)) {
      pwrite_fully(f_.fd, buffer.data() + (at - low), end - at, at);
    }
  }

  // An aggregator's read of the spans its window [low, high) was asked for.
  void read_window(int64_t low, int64_t high, std::vector<std::byte>& buffer) {
    if (meta_in_.empty()) return;
    buffer.resize(static_cast<size_t>(high - low));
    for (const auto& [at, end] : covered_spans(meta_in_)) {
      int64_t got = pread_fully(f_.fd, buffer.data() + (at - low), end - at, at);
      if (got < end - at) file_end_ = std::min(file_end_, at + got);
    }
  }

  // The aggregators send the pieces read back; every process puts its own in place, and
  // appends to `valid`, per piece of `mine`, the bytes of it before the end of the file.
  void send_back(int64_t low, const std::vector<std::byte>& buffer,
                 const std::vector<std::vector<Piece>>& mine, std::byte* data,
                 std::vector<int64_t>& valid) {
    const size_t n = static_cast<size_t>(f_.size);
    std::vector<int> bytes_back(n, 0), valid_back(n, 0);
    std::vector<std::byte> payload;
    std::vector<int64_t> lengths;
    size_t i = 0;
    for (size_t r = 0; r < n; ++r) {
      for (int k = 0; k < meta_in_counts_[r]; k += 2, i += 2) {
        int64_t at = meta_in_[i], length = meta_in_[i + 1];
        const std::byte* from = buffer.data() + (at - low);
        payload.insert(payload.end(), from, from + length);
        lengths.push_back(std::clamp<int64_t>(file_end_ - at, 0, length));
        bytes_back[r] += static_cast<int>(length);
        valid_back[r] += 1;
      }
    }
    std::vector<int> bytes_in(n, 0), valid_in(n, 0);
    size_t count = 0;
    for (size_t a = 0; a < aggs_.size(); ++a) {
      const size_t from = static_cast<size_t>(aggs_[a]);
      for (const Piece& p : mine[a]) bytes_in[from] += static_cast<int>(p.length);
      valid_in[from] = static_cast<int>(mine[a].size());
      count += mine[a].size();
    }
    std::vector<std::byte> received(static_cast<size_t>(total(bytes_in)));
    std::vector<int64_t> received_valid(count);
    check(PMPI_Alltoallv(payload.data(), bytes_back.data(), displacements(bytes_back).data(),
                         MPI_BYTE, received.data(), bytes_in.data(), displacements(bytes_in).data(),
                         MPI_BYTE, f_.comm),
          "cannot send the data read back");
    check(PMPI_Alltoallv(lengths.data(), valid_back.data(), displacements(valid_back).data(),
                         MPI_INT64_T, received_valid.data(), valid_in.data(),
                         displacements(valid_in).data(), MPI_INT64_T, f_.comm),
          "cannot send the lengths read back");
    // From the aggregators in rank order (theirs), each one's pieces in file order; the
    // bytes past the end of the file are not data, and the buffer keeps what it had.
    size_t at = 0, piece = 0;
    for (size_t a = 0; a < aggs_.size(); ++a) {
      for (const Piece& p : mine[a]) {
        int64_t got = received_valid[piece++];
        std::memcpy(data + p.data, received.data() + at, static_cast<size_t>(got));
        at += static_cast<size_t>(p.length);
        valid.push_back(got);
      }
    }
  }

 private:
  const MPI_ABI_File& f_;
  const std::vector<int>& aggs_;
  std::vector<int> meta_in_counts_, bytes_in_counts_;
  std::vector<int64_t> meta_in_;
  std::vector<std::byte> payload_in_;
  int64_t file_end_ = INT64_MAX;  // where a read of the window found the end of the file
};

// Runs an aggregator's I/O of one round; then every process learns whether it failed
// (an error class agreed by all), so that none waits in the next exchange for one that
// has given up.
template <typename Io>
void agreed(const MPI_ABI_File& f, Io&& io) {
  int error = MPI_SUCCESS;
  std::string message;
  try {
    io();
  } catch (const MpiError& e) {
    error = e.error_class();
    message = e.what();
  }
  int any = file_max(f, error);
  if (any == MPI_SUCCESS) return;
  throw MpiError(any, error != MPI_SUCCESS
                          ? message
                          : "collective buffering: another process could not access the file");
}

}  // namespace

std::optional<uint64_t> two_phase_transfer(MPI_ABI_File& f, Access access,
                                           const std::vector<std::pair<int64_t, uint64_t>>& runs,
                                           std::byte* data, bool failed) {
  if (f.size == 1 || f.atomic) return std::nullopt;  // every process decides alike
  Part mine;
  mine.failed = failed ? 1 : 0;
  if (!runs.empty()) {
    mine.low = runs.front().first;
    mine.high = runs.back().first + static_cast<int64_t>(runs.back().second);
  }
  mine.runs = static_cast<int64_t>(runs.size());
  for (const auto& run : runs) mine.bytes += static_cast<int64_t>(run.second);
  std::vector<Part> parts(static_cast<size_t>(f.size));
  check(PMPI_Allgather(&mine, kPartFields, MPI_INT64_T, parts.data(), kPartFields, MPI_INT64_T,
                       f.comm),
        "cannot learn the other processes' parts");
  const std::string mode = hint(f, access == Access::kWrite ? "romio_cb_write" : "romio_cb_read");
  bool any_failed = std::any_of(parts.begin(), parts.end(), [](const Part& p) { return p.failed; });
  if (any_failed || mode == "disable") return std::nullopt;
  if (mode != "enable" && !(interleaved(parts) && small_runs(parts))) return std::nullopt;

  int64_t low = INT64_MAX, high = INT64_MIN;
  for (const Part& p : parts) {
    if (p.low == p.high) continue;
    low = std::min(low, p.low);
    high = std::max(high, p.high);
  }
  if (low >= high) return 0;  // nobody moves a byte
  const std::vector<int> aggs = aggregators(f);
  const int64_t naggs = static_cast<int64_t>(aggs.size());
  const int64_t domain = (high - low + naggs - 1) / naggs;
  const int64_t window = std::min(hint_number(f, "cb_buffer_size", kDefaultBufferSize), domain);
  const int64_t rounds = (domain + window - 1) / window;
  const auto me = std::find(aggs.begin(), aggs.end(), f.rank);
  const int64_t my_domain = me == aggs.end() ? -1 : me - aggs.begin();

  std::vector<uint64_t> run_data(runs.size());
  uint64_t bytes = 0;
  for (size_t i = 0; i < runs.size(); ++i) run_data[i] = bytes, bytes += runs[i].second;
  auto window_of = [&](int64_t a, int64_t round) {
    int64_t from = low + a * domain + round * window;
    int64_t to = std::min({from + window, low + (a + 1) * domain, high});
    return std::pair<int64_t, int64_t>{from, std::max(from, to)};
  };

  std::vector<std::byte> buffer;
  std::vector<Piece> all_pieces;
  std::vector<int64_t> valid;
  for (int64_t round = 0; round < rounds; ++round) {
    std::vector<std::vector<Piece>> mine_now(aggs.size());
    for (int64_t a = 0; a < naggs; ++a) {
      auto [from, to] = window_of(a, round);
      mine_now[static_cast<size_t>(a)] = pieces_in(runs, run_data, from, to);
    }
    Round exchange(f, aggs);
    exchange.exchange(mine_now, data, access == Access::kWrite);
    auto [from, to] =
        my_domain >= 0 ? window_of(my_domain, round) : std::pair<int64_t, int64_t>{0, 0};
    if (access == Access::kWrite) {
      agreed(f, [&] { exchange.write_window(from, to, buffer); });
    } else {
      agreed(f, [&] { exchange.read_window(from, to, buffer); });
      exchange.send_back(from, buffer, mine_now, data, valid);
      for (const auto& pieces : mine_now)
        all_pieces.insert(all_pieces.end(), pieces.begin(), pieces.end());
    }
  }
  if (access == Access::kWrite) return bytes;
  // A read moves the data bytes before the first that lies past the end of the file.
  uint64_t moved = bytes;
  for (size_t i = 0; i < all_pieces.size(); ++i) {
    if (valid[i] < all_pieces[i].length) {
      moved = std::min(moved, all_pieces[i].data + static_cast<uint64_t>(valid[i]));
    }
  }
  return moved;
}

}  // namespace weft::mpi
