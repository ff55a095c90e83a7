#include "rendezvous/pmi_bootstrap.h"

#include <cstdlib>
#include <mutex>
#include <optional>

#include "core/base/env.h"
#include "core/base/log.h"
#include "rendezvous/pmi_client.h"
#include "transport/tcp/socket.h"
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

// Where the other ranks can reach this host: WEFT_SOCKET_IFNAME's address when set, else
// the first non-loopback address, else loopback (a host with nothing else: all ranks
// are here).
std::string advertised_host() {
  auto ifname = env::get("WEFT_SOCKET_IFNAME");
  std::string fallback = "127.0.0.1";
  for (const auto& i : tcp::interface_addresses()) {
    if (ifname && i.interface != *ifname) continue;
    if (ifname || (!i.address.is_loopback() && i.address.family() == AF_INET)) {
      return i.address.host();
    }
  }
  if (ifname) {
    throw InvalidArgument("WEFT_SOCKET_IFNAME=" + *ifname + ": no interface of that name is up");
  }
  return fallback;
}

}  // namespace

void find_store_over_pmi(InitSpec& spec, std::unique_ptr<TcpStoreServer>& server) {
  static int round = 0;  // one key per initialisation of this process
  PmiClient& pmi = pmi_client();
  const std::string key = "weft-store-" + std::to_string(round++);
  if (spec.rank == 0) {
    server = std::make_unique<TcpStoreServer>(tcp::resolve("0.0.0.0", 0).front());
    std::string host = advertised_host();
    pmi.put(key, tcp::format_host_port(host, server->port()));
  }
  pmi.barrier();
  std::string where = pmi.get(key);
  auto [host, port] = tcp::split_host_port(where, "the store address rank 0 put into PMI");
  spec.store_host = host;
  spec.store_port = port;
  WEFT_LOG(INFO) << "PMI: rank " << spec.rank << " of " << spec.world_size << " (kvs "
                 << pmi.kvsname() << "): the rendezvous store is at " << where;
}

}  // namespace weft::rendezvous
