#include "base/env.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "weft/error.h"

namespace weft::base::env {

const std::vector<Variable>& weft_variables() {
  static const std::vector<Variable> variables = {
      {"WEFT_DEBUG", "WARN", "log level: NONE, WARN, INFO or TRACE"},
      {"WEFT_TIMEOUT", "300", "default timeout of rendezvous and operations, in seconds"},
      {"WEFT_TRANSPORTS", "all",
       "comma-separated transports weft may choose from (known: shm, tcp, ib); unset, peers "
       "on other hosts use ib where both ends have a port on a common fabric"},
      {"WEFT_IB_HCA", "(every device and port)",
       "verbs devices and ports weft may use, as NCCL_IB_HCA: name[:port],... (prefixes), "
       "=name (exact), ^name (all but)"},
      {"WEFT_IB_GID_INDEX", "(RoCE v2 IPv4-mapped GID)",
       "GID index of every RoCE port; by default the first RoCE v2 GID holding an IPv4 "
       "address"},
      {"WEFT_IB_EAGER_BYTES", "16K",
       "size of each verbs eager buffer, headers included: larger frames go by RDMA WRITE"},
      {"WEFT_IB_RECV_BUFFERS", "64",
       "verbs receive buffers (and as many send buffers) per peer: the peer's credit"},
      {"WEFT_IB_REG_CACHE", "0",
       "1: keep the memory registrations of user buffers for reuse (the program must not "
       "free memory weft sent from or received into while the job runs); 0: register per "
       "transfer"},
      {"WEFT_IB_REG_CACHE_ENTRIES", "256", "registrations kept at most with WEFT_IB_REG_CACHE=1"},
      {"WEFT_IB_REG_CACHE_BYTES", "1G",
       "memory the registrations kept with WEFT_IB_REG_CACHE=1 cover at most"},
      {"WEFT_IB_GPUDIRECT", "auto",
       "how device memory would reach a verbs adapter: auto (GPUDirect RDMA by dma-buf, else "
       "by nvidia_peermem, else staged through host memory) or off (always staged)"},
      {"WEFT_SHM_ARENA_BYTES", "512K",
       "each of a rank's two staging buffers in a group's shared-memory arena (intra-node "
       "collectives); 0 turns it off"},
      {"WEFT_SHM_RING_BYTES", "256K",
       "shared-memory ring per local sender (at least two eager messages)"},
      {"WEFT_SHM_SINGLE_COPY_BYTES", "0",
       "large messages from this size are read single-copy (process_vm_readv), when "
       "permitted; smaller ones are copied through the ring"},
      {"WEFT_SOCKET_IFNAME", "(route to the store)",
       "network interface whose address is advertised to peers"},
      {"WEFT_CONNECT", "eager below 128 ranks, lazy from 128",
       "when connections to peers that do not share memory are made: at init (eager) or "
       "on first use (lazy)"},
      {"WEFT_RMA", "direct",
       "how MPI one-sided operations reach a window's memory: direct (straight into it where "
       "every member shares memory, messages otherwise) or messages (always by messages to "
       "the target's service thread)"},
      {"WEFT_EAGER_LIMIT", "65536",
       "largest message (bytes) sent eagerly; larger ones wait for the receiver"},
      {"WEFT_EAGER_WINDOW", "4M",
       "bytes of eager messages a sender may have unconsumed at one receiver"},
      {"WEFT_SPIN_US", "1000 (5 when ranks outnumber cores)",
       "microseconds a blocking call busy-polls before it sleeps in epoll"},
      {"WEFT_ALGO", "(the selection table)",
       "algorithm per collective, e.g. all_reduce:ring,broadcast:chain (docs/ALGORITHMS.md)"},
      {"WEFT_SEGMENT_BYTES", "1M", "segment size of pipelined collective algorithms"},
      {"WEFT_PORT", "(derived from the job id)",
       "port of the rendezvous store under Open MPI and Slurm, when MASTER_PORT is not set"},
      {"WEFT_AUTH_TOKEN", "(none; weftrun draws one)",
       "shared secret the rendezvous store and every link require on connect"},
      {"WEFT_STORE_MAX_BUFFERED", "256M",
       "input bytes a rendezvous store holds for all its connections together"},
      {"WEFT_STORE_MAX_CONNECTIONS", "65536", "connections a rendezvous store keeps open"},
      {"WEFT_MULTICAST_TTL", "1",
       "hops the discovery datagrams of tcp://[multicast]:port may take"},
      {"WEFT_LAUNCHER_STORE", "0",
       "1: the launcher hosts the rendezvous store at MASTER_ADDR:MASTER_PORT (set by "
       "weftrun)"},
      {"WEFT_RANK_PREFIXED", "0",
       "1: the launcher prefixes every output line with the rank, so weft's log lines leave "
       "their own [rank] out (set by weftrun unless --no-prefix)"},
      {"WEFT_CUDA_IPC", "1",
       "0: device collectives between processes of one host are staged through host memory "
       "instead of using CUDA IPC"},
      {"WEFT_CUDA_IPC_CACHE", "256", "peer device allocations kept open for CUDA IPC"},
      {"WEFT_CUDA_STAGING_CHUNK", "4M",
       "chunk size of device collectives staged through host memory"},
  };
  return variables;
}

std::optional<std::string> get(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

int64_t get_int(const char* name, int64_t fallback, int64_t min, int64_t max) {
  auto value = get(name);
  if (!value) return fallback;
  errno = 0;
  char* end = nullptr;
  long long parsed = std::strtoll(value->c_str(), &end, 10);
  if (errno != 0 || end == value->c_str() || *end != '\0' || parsed < min || parsed > max) {
    throw InvalidArgument(std::string(name) + "=" + *value + ": expected an integer in [" +
                          std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return parsed;
}

std::optional<uint64_t> parse_bytes(const std::string& text) {
  if (text.empty() || text.front() == '-') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long parsed = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str()) return std::nullopt;
  uint64_t scale = 1;
  if (*end != '\0' && end[1] == '\0') {
    switch (*end) {
      case 'k':
      case 'K':
        scale = 1ull << 10;
        ++end;
        break;
      case 'm':
      case 'M':
        scale = 1ull << 20;
        ++end;
        break;
      case 'g':
      case 'G':
        scale = 1ull << 30;
        ++end;
        break;
      default:
        break;
    }
  }
  if (*end != '\0' || parsed > UINT64_MAX / scale) return std::nullopt;
  return parsed * scale;
}

uint64_t get_bytes(const char* name, uint64_t fallback) {
  auto value = get(name);
  if (!value) return fallback;
  auto bytes = parse_bytes(*value);
  if (!bytes) {
    throw InvalidArgument(std::string(name) + "=" + *value +
                          ": expected a byte count such as 65536, 64K, 4M or 1G");
  }
  return *bytes;
}

std::chrono::milliseconds get_seconds(const char* name, std::chrono::milliseconds fallback) {
  auto value = get(name);
  if (!value) return fallback;
  errno = 0;
  char* end = nullptr;
  double seconds = std::strtod(value->c_str(), &end);
  if (errno != 0 || end == value->c_str() || *end != '\0' || !std::isfinite(seconds) ||
      seconds <= 0 || seconds > 1e9) {
    throw InvalidArgument(std::string(name) + "=" + *value +
                          ": expected a positive number of seconds");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

}  // namespace weft::base::env
