#include "rendezvous/pmi_bootstrap.h"

#include <cstdlib>
#include <mutex>
#include <optional>

#include "base/env.h"
#include "base/log.h"
#include "base/socket.h"
#include "rendezvous/pmi_client.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

// The process's one PMI connection: PMI_FD is inherited once and init may not repeat.
PmiClient& pmi_client() {
  static std::once_flag once;
  static std::optional<PmiClient> client;
  std::call_once(once, [] {
    client = PmiClient::from_environment();
    if (!client) return;
    client->init();
    // A rank that closes PMI_FD without finalize counts as dead to Hydra, which then
    // kills the rest of the job: finalize at exit (before the static client is destroyed,
    // as atexit handlers registered after its construction run first).
    std::atexit([] {
      try {
        client->finalize();
      } catch (const Error&) {
      }
    });
  });
  if (!client) {
    throw InvalidArgument("init_process_group(env://): PMI_RANK is set but PMI_FD is not");
  }
  return *client;
}

// Where the other ranks can reach this host: the first IPv4 address this host would
// advertise to its peers (WEFT_SOCKET_IFNAME's, else a non-loopback one), else the first
// of any family, else loopback (a host with nothing else: all ranks are here).
std::string advertised_host() {
  std::vector<std::string> hosts = base::advertised_addresses(
      base::env::get("WEFT_SOCKET_IFNAME"), base::resolve("127.0.0.1", 0).front());
  for (const auto& host : hosts) {
    if (host.find(':') == std::string::npos) return host;
  }
  return hosts.empty() ? "127.0.0.1" : hosts.front();
}

}  // namespace

void find_store_over_pmi(InitSpec& spec, std::unique_ptr<TcpStoreServer>& server) {
  static int round = 0;  // one key per initialisation of this process
  PmiClient& pmi = pmi_client();
  const std::string key = "weft-store-" + std::to_string(round++);
  if (spec.rank == 0) {
    server = std::make_unique<TcpStoreServer>(base::wildcard_address(AF_INET, 0));
    std::string host = advertised_host();
    pmi.put(key, base::format_host_port(host, server->port()));
  }
  pmi.barrier();
  std::string where = pmi.get(key);
  auto [host, port] = base::split_host_port(where, "the store address rank 0 put into PMI");
  spec.store_host = host;
  spec.store_port = port;
  WEFT_LOG(INFO) << "PMI: rank " << spec.rank << " of " << spec.world_size << " (kvs "
                 << pmi.kvsname() << "): the rendezvous store is at " << where;
}

}  // namespace weft::rendezvous
