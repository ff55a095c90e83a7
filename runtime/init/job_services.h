// JobServices: how this process reached the rest of the job, kept for the life of the
// process group: the rendezvous store (the job's namespace in one connection), the
// store server when this rank hosts it, and the multicast announcer of a multicast
// init. Declared in construction order, destroyed in reverse: the server outlives the
// clients.
#pragma once

#include <memory>

#include "rendezvous/multicast_discovery.h"
#include "rendezvous/store.h"
#include "rendezvous/tcp_store_server.h"

namespace weft::runtime {

struct JobServices {
  // Multicast init: keeps announcing this member while the job lives, so that a late
  // extra process learns at once that the job is full.
  std::unique_ptr<rendezvous::MulticastDiscovery> discovery;
  std::unique_ptr<rendezvous::TcpStoreServer> store_server;  // rank 0, unless launched
  std::unique_ptr<rendezvous::Store> store_connection;
  std::unique_ptr<rendezvous::Store> store;  // the job's namespace in store_connection
};

}  // namespace weft::runtime
