// init_process_group and destroy_process_group: rendezvous, connections, engine.
#include "weft/process_group.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "base/env.h"
#include "base/fnv_hash.h"
#include "base/log.h"
#include "collectives/call_stamp.h"
#include "rendezvous/file_store.h"
#include "rendezvous/init_method.h"
#include "rendezvous/join.h"
#include "rendezvous/launcher_reports.h"
#include "rendezvous/multicast_discovery.h"
#include "rendezvous/pmi_bootstrap.h"
#include "rendezvous/tcp_store_client.h"
#include "runtime/context.h"
#include "runtime/init/arena_setup.h"
#include "runtime/init/given_store.h"
#include "runtime/init/ib_peers.h"
#include "runtime/init/job_services.h"
#include "runtime/init/peer_record.h"
#include "runtime/init/shm_peers.h"
#include "runtime/init/transports.h"
#include "transport/tcp/lazy_connections.h"
#include "transport/tcp/tcp_connector.h"
#include "transport/tcp/tcp_link.h"
#include "weft/error.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

std::mutex g_init_mutex;  // serialises init and destroy
// How many process groups this process has destroyed. Ranks that re-initialise in step
// use it to start the next job's rendezvous in fresh keys of a store that lives on
// (weftrun's).
int g_generation = 0;

constexpr auto kDefaultGroupTimeout = std::chrono::seconds(300);
// How long rank 0, failing after an abort, keeps its store up for the ranks still to hear.
constexpr auto kAbortLinger = std::chrono::seconds(30);
// Connections to the store lost one after another while joining, before a rank gives up
// on the port (a store that closes as a rank arrives is lost once).
constexpr int kMaxStoreLosses = 20;
// How long destroy_process_group waits for queued data to leave.
constexpr auto kDrainTimeout = std::chrono::seconds(10);
// Jobs of this many ranks or more connect to peers that do not share memory on first use
// (docs/BENCHMARKS.md, "Start-up at scale").
constexpr int kLazyFromRanks = 128;
// How long a rank leaving with lazy connections may spend posting its departure, and a
// rank whose dial failed reading it.
constexpr auto kDeparturePostTimeout = std::chrono::seconds(2);

// Equal for ranks on one host, as the host layouts of groups count hosts: one machine
// (boot id) and one network namespace, so that the namespaces of the multi-host tests
// are hosts of their own.
uint64_t host_key(const base::HostIdentity& host) {
  base::Fnv1a h;
  for (char ch : host.boot_id) h.add(ch);
  h.add(host.net_namespace);
  return h.value();
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// "host:pid at 10.0.0.2:40311": who a rank is and where its peers will dial it, so a
// rendezvous timeout shows a rank that advertised an address nobody can reach.
std::string self_description(const std::string& tcp_record = "") {
  std::string self = base::local_host_identity().hostname + ":" + std::to_string(getpid());
  if (tcp_record.empty()) return self;
  return self + " at " + transport::tcp::TcpConnector::describe_record(tcp_record);
}

// "rank 2 (host:4242)": the process whose failure the others report.
std::string who(int rank) {
  return "rank " + std::to_string(rank) + " (" + self_description() + ")";
}

p2p::EngineOptions engine_options(const std::vector<runtime::PeerRecord>& records, int rank) {
  p2p::EngineOptions o;
  o.describe_call = collectives::describe_call_stamp;
  o.eager_limit = base::env::get_bytes("WEFT_EAGER_LIMIT", o.eager_limit);
  o.eager_window = base::env::get_bytes("WEFT_EAGER_WINDOW", o.eager_window);
  // The window must hold at least two eager messages, or eager sends would stall.
  o.eager_window = std::max(o.eager_window, 2 * (o.eager_limit + 64));
  int local = 0;
  for (const auto& r : records) local += r.host.shares_network_with(records[rank].host) ? 1 : 0;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  o.oversubscribed = local > static_cast<int>(cores);
  o.local_ranks = local;
  o.cores = static_cast<int>(cores);
  o.spin = std::chrono::microseconds(
      base::env::get_int("WEFT_SPIN_US", o.oversubscribed ? 5 : 1000, 0, 10'000'000));
  // A spin the user chose applies however crowded the host is.
  if (base::env::get("WEFT_SPIN_US")) o.crowded_spin = o.spin;
  return o;
}

std::string store_namespace(const std::string& group_name) {
  return (group_name.empty() ? std::string("default") : group_name) + "/" +
         std::to_string(g_generation);
}

// Finds the other members at the multicast group spec names, and learns this process's
// rank and rank 0's store from them; every member offers a store, rank 0's is kept.
void discover_members(runtime::Context& c, rendezvous::InitSpec& spec,
                      const std::string& group_name, base::Deadline deadline) {
  int family = base::resolve(spec.store_host, spec.store_port).front().family();
  auto candidate = std::make_unique<rendezvous::TcpStoreServer>(base::wildcard_address(family, 0));
  c.job->discovery = std::make_unique<rendezvous::MulticastDiscovery>(
      spec.store_host, spec.store_port, group_name, spec.world_size, spec.rank, candidate->port());
  rendezvous::DiscoveredJob job = c.job->discovery->discover(deadline);
  spec.rank = job.rank;
  spec.store_host = job.store_host;
  spec.store_port = job.store_port;
  c.rank = job.rank;
  base::log::set_rank(job.rank);
  if (job.rank == 0) c.job->store_server = std::move(candidate);
}

// Rank 0's store, on store_host's address, or on every address (a node name may resolve
// to loopback on its own host; without MASTER_ADDR there is no name at all). A port
// another process holds is said to be one, whatever holds it: a server of some kind, or
// the store of another job on this host.
std::unique_ptr<rendezvous::TcpStoreServer> host_store(const rendezvous::InitSpec& spec) {
  std::vector<base::SocketAddress> candidates;
  if (spec.store_host.empty()) {
    // IPv6's wildcard takes IPv4 too; a host without IPv6 has IPv4's.
    candidates = {base::wildcard_address(AF_INET6, spec.store_port),
                  base::wildcard_address(AF_INET, spec.store_port)};
  } else {
    base::SocketAddress address = base::resolve(spec.store_host, spec.store_port).front();
    if (spec.bind_any_address) address = base::wildcard_address(address.family(), spec.store_port);
    candidates = {address};
  }
  const std::string what = "init_process_group (rank 0): cannot host the rendezvous store: ";
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      return std::make_unique<rendezvous::TcpStoreServer>(candidates[i]);
    } catch (const base::AddressInUse& e) {
      throw Error(e.code(), what + "port " + std::to_string(e.port()) +
                                " is in use by another job or server on this host; choose " +
                                "another MASTER_PORT (" + e.what() + ")");
    } catch (const Error& e) {
      if (i + 1 < candidates.size()) continue;
      throw Error(e.code(), what + e.what() +
                                (spec.store_host.empty()
                                     ? std::string()
                                     : " (MASTER_ADDR must be an address of rank 0's host)"));
    }
  }
  return nullptr;  // not reached: the last candidate returns or throws
}

// Where a rank reaches the TCP store: MASTER_ADDR, or on rank 0 without it, its own
// store over loopback.
std::string store_client_host(const rendezvous::InitSpec& spec) {
  return spec.store_host.empty() ? "127.0.0.1" : spec.store_host;
}

// Opens the store: the one the program gave, the rendezvous file, or the TCP store that
// rank 0 hosts unless the launcher does. Returns the local address a rank advertises by
// default: the one that routes to the store, or loopback (meaning "all of this host's
// addresses") for a given store or a file.
base::SocketAddress open_store(runtime::Context& c, rendezvous::InitSpec& spec,
                               const std::string& group_name, base::Deadline deadline,
                               const std::shared_ptr<Store>& given) {
  base::SocketAddress route = base::resolve("127.0.0.1", 0).front();
  if (given) {
    c.job->store_connection = std::make_unique<runtime::GivenStore>(given);
  } else if (!spec.store_file.empty()) {
    c.job->store_connection = std::make_unique<rendezvous::FileStore>(spec.store_file, deadline);
  } else {
    if (spec.pmi) {
      rendezvous::find_store_over_pmi(spec, c.job->store_server);
    } else if (spec.multicast) {
      discover_members(c, spec, group_name, deadline);
    } else if (spec.rank == 0 && !spec.launcher_hosts_store) {
      c.job->store_server = host_store(spec);
    }
    auto client = std::make_unique<rendezvous::TcpStoreClient>(store_client_host(spec),
                                                               spec.store_port, deadline);
    route = client->local_address();
    c.job->store_connection = std::move(client);
  }
  c.job->store = std::make_unique<rendezvous::PrefixStore>(store_namespace(group_name),
                                                           *c.job->store_connection);
  if (!spec.store_file.empty()) {
    const std::string where = "file://" + spec.store_file;
    rendezvous::refuse_leftover_job(*c.job->store, where, deadline);
    if (spec.rank == rendezvous::InitSpec::kAutomaticRank) {
      spec.rank =
          rendezvous::assign_rank(*c.job->store, spec.world_size, self_description(), deadline);
      c.rank = spec.rank;
      base::log::set_rank(spec.rank);
      WEFT_LOG(INFO) << self_description() << " took rank " << spec.rank << " of "
                     << spec.world_size << " at " << where;
    }
  }
  return route;
}

// A process whose arguments doom the job tells the others before it fails, so they
// stop at once rather than time out: through rank 0's store, or on rank 0 through the
// store it then hosts only until the others have heard (at most kAbortLinger).
// (With a store the program gave, the error is only this process's: that store belongs
// to the program, which hears of it as it hears of its other failures.)
[[noreturn]] void refuse_rank(const rendezvous::InitSpec& spec, const std::string& group_name,
                              bool given_store, const InvalidArgument& error) {
  if (given_store || spec.singleton || spec.multicast || spec.pmi || !spec.store_file.empty() ||
      spec.world_size < 2) {
    throw error;
  }
  const std::string reason = who(spec.rank) + ": " + error.what();
  try {
    if (spec.rank == 0 && !spec.launcher_hosts_store) {
      WEFT_LOG(WARN) << reason << "; keeping the rendezvous store up until the other ranks "
                     << "have heard (at most " << kAbortLinger.count() << " s)";
      std::unique_ptr<rendezvous::TcpStoreServer> server = host_store(spec);
      base::Deadline d = base::Deadline::after(kAbortLinger);
      rendezvous::TcpStoreClient client(store_client_host(spec), spec.store_port, d);
      rendezvous::PrefixStore store(store_namespace(group_name), client);
      rendezvous::abort_join(store, reason, d);
      rendezvous::await_abort_heard(store, spec.world_size, d);
    } else if (!spec.store_host.empty()) {
      // Long enough for rank 0, started at the same moment, to open the store.
      base::Deadline d = base::Deadline::after(std::chrono::seconds(3));
      rendezvous::TcpStoreClient client(spec.store_host, spec.store_port, d);
      rendezvous::PrefixStore store(store_namespace(group_name), client);
      rendezvous::abort_join(store, reason, d);
    }
  } catch (const Error&) {
    // Best effort: the others time out, and this process says why.
  }
  throw error;
}

// Whoever fails to set up its links tells the others, who would otherwise wait for it.
template <typename Step>
void or_abort_join(runtime::Context& c, Step step) {
  try {
    step();
  } catch (const rendezvous::JoinAborted&) {
    throw;  // the job was aborted elsewhere, and that process said why
  } catch (const Error& e) {
    rendezvous::abort_join(*c.job->store, who(c.rank) + ": " + e.what(),
                           base::Deadline::after(std::chrono::seconds(2)));
    throw;
  }
}

// Rank 0, failing, hosts the store the others are (or will be) asking about an abort:
// it closes it only once they have heard, or after kAbortLinger.
void linger_after_abort(runtime::Context& c, const rendezvous::InitSpec& spec,
                        base::Deadline deadline) {
  if (!c.job->store_server || !c.job->store) return;
  rendezvous::await_abort_heard(*c.job->store, spec.world_size,
                                deadline.min(base::Deadline::after(kAbortLinger)));
}

// Whether the links to peers that do not share memory with this process are made on
// first use (WEFT_CONNECT=lazy) or at init (eager): lazy from kLazyFromRanks ranks on.
bool connect_lazily(int world_size) {
  auto value = base::env::get("WEFT_CONNECT");
  if (!value || value->empty()) return world_size >= kLazyFromRanks;
  if (*value == "lazy") return true;
  if (*value == "eager") return false;
  throw InvalidArgument("WEFT_CONNECT=" + *value + ": expected eager or lazy");
}

// Lazy connections' departure posts, as keys of the job's store: "left/RANK" holds the
// rank's root cause. Best effort with a short deadline: a store that is gone (its host
// left first) leaves the dialers with the failed dial's own error.
transport::tcp::LazyConnections::Departures departures_in(rendezvous::Store& store, int rank) {
  auto key = [](int r) { return "left/" + std::to_string(r); };
  transport::tcp::LazyConnections::Departures departures;
  departures.post = [&store, rank, key](int root_cause) {
    try {
      store.set(key(rank), std::to_string(root_cause),
                base::Deadline::after(kDeparturePostTimeout));
    } catch (const Error& e) {
      WEFT_LOG(INFO) << "rank " << rank << ": could not post its departure: " << e.what();
    }
  };
  departures.read = [&store, key](int peer) -> std::optional<int> {
    try {
      base::Deadline deadline = base::Deadline::after(kDeparturePostTimeout);
      if (!store.check({key(peer)}, deadline)) return std::nullopt;
      return std::stoi(store.get(key(peer), deadline));
    } catch (const std::exception&) {
      return std::nullopt;  // no store to ask, or a value that is not a rank
    }
  };
  return departures;
}

// Why no allowed transport reaches `peer`, for the error that says so.
std::string unreachable(runtime::Context& c, int peer, const runtime::PeerRecord& record,
                        const runtime::IbPeers& ib, const runtime::TransportChoice& transports,
                        bool lazy) {
  const std::string who = c.engine->peer_name(peer);
  std::string why;
  if (transports.shm) why = who + " does not share memory with this process";
  if (!transports.ib) return why;
  why += why.empty() ? "" : ", and ";
  if (record.ib == runtime::PeerRecord::Verbs::kNo) {
    return why + who + "'s backend or WEFT_TRANSPORTS rules verbs out";
  }
  if (lazy) {
    return why + who + " is connected on first use (WEFT_CONNECT=lazy), which is tcp's alone";
  }
  return why + "verbs do not reach it: " + ib.reason(peer);
}

// One TCP connection per pair: it carries the traffic to peers neither shared memory
// nor verbs reach, and is the doorbell and the sign of life of those they do. Peers that
// share memory are connected now; the others too unless connections are lazy, in which
// case the engine makes each on first use (transport/tcp/lazy_connections.h), over tcp.
void connect_peers(runtime::Context& c, const std::vector<runtime::PeerRecord>& records,
                   std::unique_ptr<transport::tcp::TcpConnector> connector, runtime::ShmPeers& shm,
                   runtime::IbPeers& ib, const runtime::TransportChoice& transports,
                   uint64_t job_id, base::Deadline deadline) {
  std::vector<std::string> tcp_records;
  std::vector<bool> same_network, wanted;
  const bool lazy = connect_lazily(c.world_size);
  for (int r = 0; r < c.world_size; ++r) {
    tcp_records.push_back(records[r].tcp);
    same_network.push_back(records[r].host.shares_network_with(records[c.rank].host));
    wanted.push_back(!lazy || shm.local(r));
  }
  std::vector<base::Fd> fds;
  or_abort_join(c, [&] {
    fds = connector->connect_all(c.rank, tcp_records, same_network, wanted, job_id, deadline, [&] {
      rendezvous::throw_if_aborted(*c.job->store, c.rank, deadline);
    });
    shm.exchange(*c.job->store, deadline);
    std::vector<bool> shm_reaches;
    for (int r = 0; r < c.world_size; ++r) shm_reaches.push_back(shm.reaches(r));
    ib.exchange(*c.job->store, deadline, wanted, shm_reaches);
    for (int peer = 0; peer < c.world_size; ++peer) {
      if (peer != c.rank && !transports.tcp && !shm.reaches(peer) && !ib.reaches(peer)) {
        throw InvalidArgument("init_process_group (rank " + std::to_string(c.rank) +
                              "): " + transports.setting + ", but " +
                              unreachable(c, peer, records[peer], ib, transports, lazy));
      }
    }
  });
  for (int peer = 0; peer < c.world_size; ++peer) {
    if (peer == c.rank || !wanted[peer]) continue;
    std::unique_ptr<transport::Link> link;
    std::string why;
    if (shm.reaches(peer)) {
      c.shares_memory[peer] = true;
      link = shm.make_link(peer, std::move(fds[peer]), *c.engine);
    } else if (ib.reaches(peer)) {
      link = ib.make_link(peer, std::move(fds[peer]), *c.engine);
      if (!ib.reason(peer).empty()) why = "; " + ib.reason(peer);
    } else {
      link = std::make_unique<transport::tcp::TcpLink>(peer, std::move(fds[peer]), *c.engine);
    }
    WEFT_LOG(INFO) << "rank " << c.rank << " -> " << c.engine->peer_name(peer) << ": "
                   << link->describe() << " ("
                   << (same_network[peer] ? "same host" : "another host or network namespace")
                   << why << ")";
    c.engine->add_link(std::move(link));
  }
  if (!lazy) return;
  int later = 0;
  for (int peer = 0; peer < c.world_size; ++peer) later += wanted[peer] || peer == c.rank ? 0 : 1;
  if (later == 0) return;  // every peer shares memory with this process: connected above
  WEFT_LOG(INFO) << "rank " << c.rank << ": " << later << " of " << c.world_size - 1
                 << " peers connected on first use (WEFT_CONNECT="
                 << base::env::get("WEFT_CONNECT")
                        .value_or("unset, lazy from " + std::to_string(kLazyFromRanks) + " ranks")
                 << ")";
  auto connections = std::make_unique<transport::tcp::LazyConnections>(
      std::move(connector), c.rank, tcp_records, same_network, wanted, job_id,
      departures_in(*c.job->store, c.rank));
  transport::LinkHandler& handler = *c.engine;
  c.engine->connect_lazily(
      std::move(connections),
      [&handler](int peer, base::Fd socket) -> std::unique_ptr<transport::Link> {
        return std::make_unique<transport::tcp::TcpLink>(peer, std::move(socket), handler);
      },
      c.timeout);
}

void refuse_second_init() {
  if (runtime::has_context()) {
    runtime::Context& c = runtime::context("init_process_group");
    throw Error(ErrorCode::kState,
                "init_process_group: already initialized as rank " + std::to_string(c.rank) +
                    " of " + std::to_string(c.world_size) + "; call destroy_process_group first");
  }
}

// Joins the job `spec` describes, through `given` when the program passed a store.
void join_job(rendezvous::InitSpec spec, const std::string& backend, const std::string& group_name,
              Timeout timeout, const std::shared_ptr<Store>& given, Clock::time_point start) {
  // Once this process knows where the job meets, an argument it cannot use dooms the
  // job: the others hear of it (refuse_rank) instead of waiting out their timeout.
  runtime::TransportChoice transports;
  Timeout t;
  try {
    rendezvous::check_rank(spec);
    transports = runtime::select_transports(backend);
    t = timeout.count() >= 0 ? timeout
                             : base::env::get_seconds("WEFT_TIMEOUT", kDefaultGroupTimeout);
    if (t.count() <= 0) {
      throw InvalidArgument("init_process_group: timeout must be positive, not " +
                            std::to_string(t.count()) + " ms");
    }
  } catch (const InvalidArgument& e) {
    refuse_rank(spec, group_name, given != nullptr, e);
  }
  base::Deadline deadline = base::Deadline::after(t);

  if (!spec.launcher.empty() && spec.launcher != "env://") {
    WEFT_LOG(INFO) << "init_process_group: started by " << spec.launcher << ": rank " << spec.rank
                   << " of " << spec.world_size;
  }
  auto c = std::make_unique<runtime::Context>();
  c->job = std::make_unique<runtime::JobServices>();
  c->rank = spec.rank;
  c->world_size = spec.world_size;
  c->timeout = t;
  base::log::set_rank(spec.rank);

  double rendezvous_ms = 0;
  try {
    runtime::PeerRecord self;
    self.host = base::local_host_identity();
    self.pid = getpid();
    self.shm = transports.shm;
    self.ib = !transports.ib        ? runtime::PeerRecord::Verbs::kNo
              : transports.ib_asked ? runtime::PeerRecord::Verbs::kAsked
                                    : runtime::PeerRecord::Verbs::kOtherHosts;
    std::vector<runtime::PeerRecord> records{self};
    std::unique_ptr<transport::tcp::TcpConnector> connector;
    uint64_t job_id = 0;
    if (!spec.singleton) {
      rendezvous::JoinResult joined;
      int losses = 0;  // in a row
      while (true) {
        try {
          base::SocketAddress route = open_store(*c, spec, group_name, deadline, given);
          connector = std::make_unique<transport::tcp::TcpConnector>(
              base::env::get("WEFT_SOCKET_IFNAME"), route);
          self.tcp = connector->record();
          joined = rendezvous::join_world(*c->job->store, spec.rank, spec.world_size, self.encode(),
                                          self_description(self.tcp), deadline);
          break;
        } catch (const rendezvous::StoreLost& e) {
          // Most often the store of the previous job on this port, closing as this rank
          // arrived: join again, at the new store.
          // (A store found through PMI or a file cannot have moved.)
          if (deadline.expired() || given || spec.pmi || spec.multicast ||
              !spec.store_file.empty()) {
            throw;
          }
          // A store closes once; a service that closes every connection is no store.
          if (++losses == kMaxStoreLosses) {
            throw Error(ErrorCode::kPeer,
                        "init_process_group (rank " + std::to_string(spec.rank) +
                            "): " + std::to_string(losses) + " connections in a row to " +
                            base::format_host_port(spec.store_host, spec.store_port) +
                            " closed before the join was done (last: " + e.what() + "): port " +
                            std::to_string(spec.store_port) +
                            " seems to be used by something else; choose another MASTER_PORT");
          }
          WEFT_LOG(INFO) << "lost the rendezvous store while joining (" << e.what()
                         << "); joining again";
          c->job->store.reset();
          c->job->store_connection.reset();
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
      job_id = joined.job_id;
      records.clear();
      for (int r = 0; r < spec.world_size; ++r) {
        records.push_back(runtime::PeerRecord::decode(joined.records[r], r));
      }
      rendezvous_ms = ms_since(start);
    } else {
      WEFT_LOG(INFO) << "no rendezvous information; running as a world of one";
    }

    std::vector<p2p::PeerInfo> peers;
    for (const auto& r : records) peers.push_back({r.host.hostname, r.pid});
    p2p::EngineOptions options = engine_options(records, spec.rank);
    c->engine = std::make_unique<p2p::Engine>(spec.rank, peers, options);
    if (spec.launcher_hosts_store && c->job->store_connection) {
      // The launcher names the rank that stopped responding from these
      // (rendezvous/launcher_reports.h). The store outlives the engine.
      c->engine->set_silence_observer(
          [store = c->job->store_connection.get(), rank = spec.rank](int world_peer) {
            store->set(rendezvous::timed_out_waiting_key(rank), std::to_string(world_peer),
                       base::Deadline::after(std::chrono::seconds(2)));
          });
    }
    c->job_id = job_id;
    c->shares_memory.assign(spec.world_size, false);
    for (const runtime::PeerRecord& r : records) c->host_keys.push_back(host_key(r.host));
    c->arena_options = {options.spin, options.oversubscribed};
    if (connector) {
      std::optional<runtime::ShmPeers> shm;
      std::optional<runtime::IbPeers> ib;
      or_abort_join(*c, [&] {
        shm.emplace(records, spec.rank, job_id, transports,
                    runtime::shm_options_from_env(options.eager_limit));
        ib.emplace(records, spec.rank, runtime::ib_options_from_env());
      });
      connect_peers(*c, records, std::move(connector), *shm, *ib, transports, job_id, deadline);
    }
    c->engine->start();

    std::vector<int> everyone;
    for (int r = 0; r < spec.world_size; ++r) everyone.push_back(r);
    std::shared_ptr<collectives::SharedArena> arena;
    or_abort_join(*c,
                  [&] { arena = runtime::establish_arena(*c, 0, everyone, spec.rank, deadline); });
    c->world = runtime::make_group_record(0, "world", everyone, spec.rank, t, std::move(arena),
                                          runtime::host_layout_of(*c, everyone));
  } catch (const Error&) {
    linger_after_abort(*c, spec, deadline);
    throw;
  }

  WEFT_LOG(INFO) << "init_process_group: rank " << spec.rank << " of " << spec.world_size
                 << " ready in " << ms_since(start) << " ms (rendezvous " << rendezvous_ms
                 << " ms, connections " << ms_since(start) - rendezvous_ms << " ms)";
  runtime::install_context(std::move(c));
}

}  // namespace

void init_process_group(const std::string& backend, const std::string& init_method, int world_size,
                        int rank, const std::string& group_name, Timeout timeout) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  auto start = Clock::now();
  refuse_second_init();
  join_job(rendezvous::parse_init_method(init_method, world_size, rank), backend, group_name,
           timeout, nullptr, start);
}

void init_process_group(std::shared_ptr<Store> store, int world_size, int rank,
                        const std::string& backend, Timeout timeout) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  auto start = Clock::now();
  refuse_second_init();
  if (!store) throw InvalidArgument("init_process_group: store is null");
  // A given store has no rank assignment: -1 ("automatic") is not a rank here.
  if (rank < 0) {
    throw InvalidArgument("init_process_group: rank " + std::to_string(rank) + " is outside [0, " +
                          std::to_string(world_size) + ")");
  }
  rendezvous::InitSpec spec;
  spec.world_size = world_size;
  spec.rank = rank;
  spec.launcher = "a store the program gave (" + store->describe() + ")";
  join_job(spec, backend, "", timeout, store, start);
}

bool is_initialized() { return runtime::has_context(); }

int get_rank() { return runtime::context("get_rank").rank; }

int get_world_size() { return runtime::context("get_world_size").world_size; }

void abort(const std::string& reason) { runtime::context("abort").engine->abort(reason); }

void destroy_process_group() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  std::unique_ptr<runtime::Context> c = runtime::remove_context();
  if (!c) {
    throw Error(ErrorCode::kState, "destroy_process_group: weft is not initialized");
  }
  c->engine->shutdown(std::min<Timeout>(c->timeout, kDrainTimeout));
  ++g_generation;
  WEFT_LOG(INFO) << "destroy_process_group: rank " << c->rank << " left the job";
  base::log::set_rank(-1);
}

}  // namespace weft
