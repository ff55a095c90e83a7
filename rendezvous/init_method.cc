#include "rendezvous/init_method.h"

#include "base/env.h"
#include "base/socket.h"
#include "rendezvous/launcher_detection.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

const char* kOp = "init_process_group";

int int_from_env(const char* name) {
  return static_cast<int>(base::env::get_int(name, -1, 0, 1 << 30));
}

}  // namespace

void check_rank(const InitSpec& spec) {
  if (spec.world_size < 1) {
    throw InvalidArgument(std::string(kOp) + ": world_size " + std::to_string(spec.world_size) +
                          " is invalid; it must be at least 1");
  }
  if (spec.rank == InitSpec::kAutomaticRank && (!spec.store_file.empty() || spec.multicast)) {
    return;
  }
  if (spec.rank < 0 || spec.rank >= spec.world_size) {
    throw InvalidArgument(std::string(kOp) + ": rank " + std::to_string(spec.rank) +
                          " is outside [0, " + std::to_string(spec.world_size) +
                          ") for world_size " + std::to_string(spec.world_size));
  }
}

namespace {

bool is_multicast(const std::string& host) {
  try {
    for (const auto& a : base::resolve(host, 0)) {
      std::string h = a.host();
      if (a.family() == AF_INET) {
        int first = std::stoi(h.substr(0, h.find('.')));
        if (first >= 224 && first <= 239) return true;
      } else if (h.rfind("ff", 0) == 0) {
        return true;
      }
    }
  } catch (const Error&) {
  }
  return false;
}

// For init methods whose rendezvous can assign ranks (file://, multicast): world_size
// must come from the argument or WORLD_SIZE, the rank may come from neither.
void take_size_and_optional_rank(InitSpec& spec, const std::string& method, const char* what,
                                 int world_size, int rank) {
  spec.world_size = world_size >= 0 ? world_size : int_from_env("WORLD_SIZE");
  if (spec.world_size < 0) {
    throw InvalidArgument(std::string(kOp) + "(" + method + "): " + what +
                          " needs world_size, as an argument or as WORLD_SIZE");
  }
  int env_rank = int_from_env("RANK");
  spec.rank = rank >= 0 ? rank : env_rank >= 0 ? env_rank : InitSpec::kAutomaticRank;
}

}  // namespace

InitSpec parse_init_method(const std::string& init_method, int world_size, int rank) {
  InitSpec spec;
  spec.launcher_hosts_store = base::env::get_int("WEFT_LAUNCHER_STORE", 0, 0, 1) == 1;
  std::string method = init_method.empty() ? "env://" : init_method;
  if (method == "env://") {
    auto addr = base::env::get("MASTER_ADDR");
    auto port = base::env::get("MASTER_PORT");
    int env_size = int_from_env("WORLD_SIZE");
    int env_rank = int_from_env("RANK");
    // Without a rank and a size from anywhere, the launcher's own variables give them
    // (MASTER_ADDR and MASTER_PORT may still say where the store is).
    if (env_size < 0 && env_rank < 0 && world_size < 0 && rank < 0) {
      if (auto launched = detect_launcher()) {
        spec.launcher = launched->launcher;
        spec.world_size = launched->world_size;
        spec.rank = launched->rank;
        spec.store_host = launched->store_host;
        spec.store_port = launched->store_port;
        spec.pmi = launched->pmi;
        spec.bind_any_address = true;
        spec.launcher_hosts_store = false;
        if (spec.world_size == 1) spec.singleton = true;
        return spec;
      }
      if (!addr && !port) {
        spec.singleton = true;
        return spec;
      }
    }
    spec.launcher = "env://";
    spec.world_size = world_size >= 0 ? world_size : env_size;
    spec.rank = rank >= 0 ? rank : env_rank;
    // Rank 0 hosts the store on its own addresses, so it needs no MASTER_ADDR (as in
    // the original); every other rank must be told where rank 0 is.
    const bool hosts_store_itself = spec.rank == 0 && !spec.launcher_hosts_store;
    std::string missing;
    if (!addr && !hosts_store_itself) missing += " MASTER_ADDR";
    if (!port) missing += " MASTER_PORT";
    if (spec.world_size < 0) missing += " WORLD_SIZE";
    if (spec.rank < 0) missing += " RANK";
    if (!missing.empty()) {
      std::string who = spec.rank >= 0 ? " (rank " + std::to_string(spec.rank) + ")" : "";
      throw InvalidArgument(std::string(kOp) + "(env://)" + who + ": not set:" + missing +
                            " (env:// needs MASTER_PORT, WORLD_SIZE and RANK, and on every "
                            "rank but 0 MASTER_ADDR, an address of rank 0's host)");
    }
    if (addr) {
      spec.store_host = *addr;
    } else {
      spec.bind_any_address = true;  // store_host stays empty: this host, every address
    }
    spec.store_port = base::parse_port(*port, "MASTER_PORT");
  } else if (method.rfind("tcp://", 0) == 0) {
    auto [host, port] =
        base::split_host_port(method.substr(6), std::string(kOp) + "(" + method + ")");
    spec.store_host = host;
    spec.store_port = port;
    if (is_multicast(host)) {
      spec.multicast = true;
      spec.launcher_hosts_store = false;
      take_size_and_optional_rank(spec, method, "multicast discovery", world_size, rank);
    } else {
      spec.world_size = world_size >= 0 ? world_size : int_from_env("WORLD_SIZE");
      spec.rank = rank >= 0 ? rank : int_from_env("RANK");
      if (spec.world_size < 0 || spec.rank < 0) {
        throw InvalidArgument(std::string(kOp) + "(" + method +
                              "): tcp:// needs world_size and rank, as arguments or as "
                              "WORLD_SIZE and RANK");
      }
    }
  } else if (method.rfind("file://", 0) == 0) {
    spec.store_file = method.substr(7);
    if (spec.store_file.empty() || spec.store_file[0] != '/') {
      throw InvalidArgument(std::string(kOp) + "(" + method +
                            "): file:// needs an absolute path, as in file:///shared/dir/job");
    }
    spec.launcher_hosts_store = false;
    take_size_and_optional_rank(spec, method, "file://", world_size, rank);
  } else {
    throw InvalidArgument(std::string(kOp) + ": init_method '" + method +
                          "' is not supported; use env://, tcp://host:port or file:///path");
  }
  if (spec.world_size == 1 && spec.rank <= 0) {
    spec.singleton = true;
    spec.rank = 0;
  }
  return spec;
}

}  // namespace weft::rendezvous
