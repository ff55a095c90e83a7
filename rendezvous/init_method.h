// Turning init_process_group's init_method, world_size and rank (plus the environment)
// into the place of the rendezvous store and this process's place in the job.
//
//   env://           MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK; explicit world_size and
//                    rank arguments win over the variables. With none of them set at all
//                    the process is a world of one.
//   tcp://host:port  the store is at host:port; world_size and rank come from the
//                    arguments, else from WORLD_SIZE and RANK.
//
// Anything missing or malformed is an InvalidArgument that names it.
#pragma once

#include <cstdint>
#include <string>

namespace weft::rendezvous {

struct InitSpec {
  std::string store_host;
  uint16_t store_port = 0;
  int world_size = 1;
  int rank = 0;
  // The launcher (weftrun) hosts the store: rank 0 connects to it like everyone else.
  bool launcher_hosts_store = false;
  bool singleton = false;  // a world of one: no store, no peers
};

InitSpec parse_init_method(const std::string& init_method, int world_size, int rank);

// InvalidArgument unless 1 <= world_size and 0 <= rank < world_size.
void check_rank(const InitSpec& spec);

}  // namespace weft::rendezvous
