#include "rendezvous/init_method.h"

#include "core/base/env.h"
#include "transport/tcp/socket.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

const char* kOp = "init_process_group";

int int_from_env(const char* name) { return static_cast<int>(env::get_int(name, -1, 0, 1 << 30)); }

}  // namespace

void check_rank(const InitSpec& spec) {
  if (spec.world_size < 1) {
    throw InvalidArgument(std::string(kOp) + ": world_size " + std::to_string(spec.world_size) +
                          " is invalid; it must be at least 1");
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
    for (const auto& a : tcp::resolve(host, 0)) {
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

}  // namespace

InitSpec parse_init_method(const std::string& init_method, int world_size, int rank) {
  InitSpec spec;
  spec.launcher_hosts_store = env::get_int("WEFT_LAUNCHER_STORE", 0, 0, 1) == 1;
  std::string method = init_method.empty() ? "env://" : init_method;
  if (method == "env://") {
    auto addr = env::get("MASTER_ADDR");
    auto port = env::get("MASTER_PORT");
    int env_size = int_from_env("WORLD_SIZE");
    int env_rank = int_from_env("RANK");
    if (!addr && !port && env_size < 0 && env_rank < 0 && world_size < 0 && rank < 0) {
      spec.singleton = true;
      return spec;
    }
    spec.world_size = world_size >= 0 ? world_size : env_size;
    spec.rank = rank >= 0 ? rank : env_rank;
    std::string missing;
    if (!addr) missing += " MASTER_ADDR";
    if (!port) missing += " MASTER_PORT";
    if (spec.world_size < 0) missing += " WORLD_SIZE";
    if (spec.rank < 0) missing += " RANK";
    if (!missing.empty()) {
      throw InvalidArgument(std::string(kOp) + "(env://): not set:" + missing +
                            " (env:// needs MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK)");
    }
    spec.store_host = *addr;
    spec.store_port = tcp::parse_port(*port, "MASTER_PORT");
  } else if (method.rfind("tcp://", 0) == 0) {
    auto [host, port] =
        tcp::split_host_port(method.substr(6), std::string(kOp) + "(" + method + ")");
    if (is_multicast(host)) {
      throw InvalidArgument(std::string(kOp) + "(" + method +
                            "): multicast discovery is not supported by this version of weft; "
                            "use tcp://host:port with explicit ranks, or env://");
    }
    spec.store_host = host;
    spec.store_port = port;
    spec.world_size = world_size >= 0 ? world_size : int_from_env("WORLD_SIZE");
    spec.rank = rank >= 0 ? rank : int_from_env("RANK");
    if (spec.world_size < 0 || spec.rank < 0) {
      throw InvalidArgument(std::string(kOp) + "(" + method +
                            "): tcp:// needs world_size and rank, as arguments or as WORLD_SIZE "
                            "and RANK");
    }
  } else {
    throw InvalidArgument(std::string(kOp) + ": init_method '" + method +
                          "' is not supported; use env:// or tcp://host:port");
  }
  if (spec.world_size == 1 && spec.rank == 0) spec.singleton = true;
  return spec;
}

}  // namespace weft::rendezvous
