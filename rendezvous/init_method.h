// Turning init_process_group's init_method, world_size and rank (plus the environment)
// into the place of the rendezvous store and this process's place in the job.
//
//   env://           MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK; explicit world_size and
//                    rank arguments win over the variables. With none of them set at all
//                    the process is a world of one. Rank 0 may go without MASTER_ADDR when
//                    it hosts the store: store_host is then empty, and it binds every
//                    address of its host.
//   tcp://host:port  the store is at host:port; world_size and rank come from the
//                    arguments, else from WORLD_SIZE and RANK. With a multicast address
//                    (224.0.0.0/4, ff00::/8) the members discover each other there
//                    instead, and the rank may be left automatic.
//   file:///path     the store is the file at /path (FileStore); world_size comes from
//                    the argument, else WORLD_SIZE; without a rank (argument or RANK) the
//                    process takes the next free one (automatic ranks).
//
// Anything missing or malformed is an InvalidArgument that names it.
#pragma once

#include <cstdint>
#include <string>

namespace weft::rendezvous {

struct InitSpec {
  std::string store_host;  // empty: rank 0 hosts the store on all of this host's addresses
  uint16_t store_port = 0;
  std::string store_file;  // file://: the rendezvous file, instead of host and port
  int world_size = 1;
  int rank = 0;  // kAutomaticRank: assigned at the rendezvous
  static constexpr int kAutomaticRank = -1;
  // The launcher (weftrun) hosts the store: rank 0 connects to it like everyone else.
  bool launcher_hosts_store = false;
  bool singleton = false;  // a world of one: no store, no peers
  // tcp://[multicast group]:port: store_host and store_port name the group; the members
  // find each other there (MulticastDiscovery) and meet in rank 0's store.
  bool multicast = false;
  // PMI-1: rank 0 hosts the store on a free port and publishes it through PMI_FD.
  bool pmi = false;
  // Rank 0 binds the store to every address, not only store_host's: a node name may
  // resolve to a loopback address on its own host (Debian's 127.0.1.1 line).
  bool bind_any_address = false;
  std::string launcher;  // who set the job up, for the log: "env://", "Slurm", ...
};

InitSpec parse_init_method(const std::string& init_method, int world_size, int rank);

// InvalidArgument unless 1 <= world_size and 0 <= rank < world_size (or automatic).
void check_rank(const InitSpec& spec);

}  // namespace weft::rendezvous
