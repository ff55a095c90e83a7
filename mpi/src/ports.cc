// Ports: MPI_Open_port, MPI_Close_port, MPI_Comm_accept and MPI_Comm_connect between
// processes of one weft job (mpi/src/connections.h).
//
// A port name is "weft-port:<job identity>:<world rank>:<port id>". The connecting root
// sends its side's world ranks to the port's process over the channel, with the port
// id as tag, and names a tag of its own for the answer; the accepting root answers with
// its side's ranks and the tag of the new intercommunicator's creation. Each root
// broadcasts the outcome to its side, and every member of both builds the
// intercommunicator. Each open port also has a file in the job's directory, so that a
// connect to a port that was closed fails at once instead of waiting for an answer
// that cannot come (where the directory is not shared with the port's process, such a
// connect waits out weft's timeout instead).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/connections.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/info.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

constexpr char kPrefix[] = "weft-port";
constexpr int kRequestMagic = 0x57435251;  // "WCRQ"
constexpr int kReplyMagic = 0x57435250;    // "WCRP"
// Port ids are the tags of requests; answers come on tags from here on, so the two
// never meet on the channel.
constexpr int kReplyTagBase = 0x40000000;
constexpr int kTagMask = 0x3FFFFFFF;

struct Ports {
  std::mutex mutex;
  std::set<int> open;
  int next_id = 1;
  int accepts = 0;  // makes each accept's creation tag differ from the last
};

Ports& ports() {
  static Ports state;
  return state;
}

std::atomic<int> next_reply{0};

struct Port {
  std::string job;
  int rank = -1;
  int id = -1;
};

std::string port_file(int rank, int id) {
  return "port." + std::to_string(rank) + "." + std::to_string(id);
}
std::string opener_file(int rank) { return "ports." + std::to_string(rank); }

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// MPI_ERR_PORT for anything but a port name of this job.
Port parse_port(const char* name) {
  std::string text(name, strnlen(name, MPI_MAX_PORT_NAME));
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1) {
    fields.push_back(text.substr(start, colon - start));
  }
  fields.push_back(text.substr(start));
  if (fields.size() != 4 || fields[0] != kPrefix || fields[1].size() != 16 ||
      !all_digits(fields[2]) || !all_digits(fields[3])) {
    throw MpiError(MPI_ERR_PORT, "port_name \"" + text +
                                     "\" is not a port name MPI_Open_port gave (\"" + kPrefix +
                                     ":<job>:<rank>:<id>\")");
  }
  Port port{fields[1], std::stoi(fields[2]), std::stoi(fields[3])};
  if (port.job != weft::mpi::job_identity()) {
    throw MpiError(MPI_ERR_PORT, "port_name \"" + text +
                                     "\" belongs to another job; weft connects only the "
                                     "processes of one job");
  }
  if (port.rank >= weft::get_world_size()) {
    throw MpiError(MPI_ERR_PORT, "port_name \"" + text + "\" names world rank " +
                                     std::to_string(port.rank) + ", which this job lacks");
  }
  return port;
}

weft::Tensor ints(std::vector<int>& values) {
  return weft::Tensor(values.data(), values.size(), weft::DType::kInt32);
}

// What a root tells its side: {error class, creation tag, remote size}, then the ranks.
struct Outcome {
  int error = MPI_SUCCESS;
  std::string message;
  int tag = 0;
  std::vector<int> remote;
};

void fail_with(Outcome& outcome, const std::exception& e) {
  outcome.error = weft::mpi::error_class_of(e);
  outcome.message = e.what();
}

// Collective over `c`: the root's outcome reaches every member, and each either builds
// the intercommunicator or fails as the root did.
MPI_Comm finish(const MPI_ABI_Comm& c, int root, Outcome outcome, const char* function) {
  std::vector<int> head{outcome.error, outcome.tag, static_cast<int>(outcome.remote.size())};
  weft::broadcast(ints(head), weft::GroupRank{root}, c.group);
  if (head[0] != MPI_SUCCESS) {
    if (c.group.rank() == root) throw MpiError(head[0], outcome.message);
    throw MpiError(head[0], std::string(function) + " failed at the root (rank " +
                                std::to_string(root) + "): " + weft::mpi::error_text(head[0]));
  }
  outcome.remote.resize(static_cast<size_t>(head[2]));
  weft::broadcast(ints(outcome.remote), weft::GroupRank{root}, c.group);
  return weft::mpi::make_intercomm(c.world_ranks, outcome.remote, head[1], c.errhandler);
}

const MPI_ABI_Comm& intracomm(MPI_Comm comm, const char* function) {
  const MPI_ABI_Comm& c = weft::mpi::communicator(comm, function);
  if (c.inter) throw MpiError(MPI_ERR_COMM, "comm is an intercommunicator");
  return c;
}

// The accepting root's part: takes the first request on `port_name`, answers it.
Outcome accept_at_root(const MPI_ABI_Comm& c, const char* port_name, MPI_Info info) {
  Outcome outcome;
  try {
    weft::mpi::hints_of(info);  // no hints apply; checks the handle
    weft::mpi::require_pointer(port_name, "port_name");
    Port port = parse_port(port_name);
    int accept_number = 0;
    {
      Ports& p = ports();
      std::lock_guard<std::mutex> lock(p.mutex);
      if (port.rank != weft::get_rank() || p.open.count(port.id) == 0) {
        throw MpiError(MPI_ERR_PORT, std::string("port_name \"") + port_name +
                                         "\" is not a port this process has open");
      }
      accept_number = ++p.accepts;
    }
    const weft::Group& channel = weft::mpi::connection_channel();
    std::vector<int> request(static_cast<size_t>(weft::get_world_size()) + 4);
    int source =
        weft::recv(ints(request), weft::GroupRank{weft::kAnySource}, port.id, channel).group_source;
    int count = request[3];
    if (request[0] != kRequestMagic || count < 1 || count > weft::get_world_size()) {
      throw MpiError(MPI_ERR_INTERN, "a malformed connection request came from world rank " +
                                         std::to_string(source));
    }
    outcome.remote.assign(request.begin() + 4, request.begin() + 4 + count);
    outcome.tag = weft::mpi::tag_of_string(
        (std::string(port_name) + "#" + std::to_string(accept_number)).c_str());
    std::vector<int> reply{kReplyMagic, outcome.tag, static_cast<int>(c.world_ranks.size())};
    reply.insert(reply.end(), c.world_ranks.begin(), c.world_ranks.end());
    weft::send(ints(reply), weft::GroupRank{source}, request[2], channel);
  } catch (const std::exception& e) {
    fail_with(outcome, e);
  }
  return outcome;
}

// The connecting root's part: sends the request, waits for the answer.
Outcome connect_at_root(const MPI_ABI_Comm& c, const char* port_name, MPI_Info info) {
  Outcome outcome;
  try {
    weft::mpi::hints_of(info);
    weft::mpi::require_pointer(port_name, "port_name");
    Port port = parse_port(port_name);
    // The port's process left a file for each port it has open.
    if (weft::mpi::job_file_exists(opener_file(port.rank)) &&
        !weft::mpi::job_file_exists(port_file(port.rank, port.id))) {
      throw MpiError(MPI_ERR_PORT, std::string("port_name \"") + port_name +
                                       "\" is closed (or was never opened)");
    }
    const weft::Group& channel = weft::mpi::connection_channel();
    int reply_tag = kReplyTagBase | (next_reply.fetch_add(1) & kTagMask);
    std::vector<int> request{kRequestMagic, port.id, reply_tag,
                             static_cast<int>(c.world_ranks.size())};
    request.insert(request.end(), c.world_ranks.begin(), c.world_ranks.end());
    weft::Request sent = weft::isend(ints(request), weft::GroupRank{port.rank}, port.id, channel);
    std::vector<int> reply(static_cast<size_t>(weft::get_world_size()) + 3);
    try {
      weft::recv(ints(reply), weft::GroupRank{port.rank}, reply_tag, channel);
    } catch (const weft::Error& e) {
      if (e.code() != weft::ErrorCode::kTimeout) throw;
      sent.cancel();
      throw MpiError(MPI_ERR_PORT, std::string("no MPI_Comm_accept took the connection to \"") +
                                       port_name + "\" within weft's timeout (WEFT_TIMEOUT)");
    }
    sent.wait();
    int count = reply[2];
    if (reply[0] != kReplyMagic || count < 1 || count > weft::get_world_size()) {
      throw MpiError(MPI_ERR_INTERN, "a malformed answer came from the port's process");
    }
    outcome.tag = reply[1];
    outcome.remote.assign(reply.begin() + 3, reply.begin() + 3 + count);
  } catch (const std::exception& e) {
    fail_with(outcome, e);
  }
  return outcome;
}

}  // namespace

namespace weft::mpi {

void close_ports_at_finalize() {
  Ports& p = ports();
  std::lock_guard<std::mutex> lock(p.mutex);
  for (int id : p.open) remove_job_file(port_file(weft::get_rank(), id));
  p.open.clear();
  remove_job_file(opener_file(weft::get_rank()));
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Open_port(MPI_Info info, char* port_name) {
  return mpi_call("MPI_Open_port", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Open_port");
    weft::mpi::hints_of(info);  // no hints apply; checks the handle
    weft::mpi::require_pointer(port_name, "port_name");
    Ports& p = ports();
    std::lock_guard<std::mutex> lock(p.mutex);
    int id = p.next_id++;
    int rank = weft::get_rank();
    // The files only let a connect to a closed port fail at once: without them (no
    // writable directory) ports still work.
    try {
      weft::mpi::create_job_file(opener_file(rank), "");
      weft::mpi::create_job_file(port_file(rank, id), "");
    } catch (const MpiError&) {
    }
    p.open.insert(id);
    std::string name = std::string(kPrefix) + ":" + weft::mpi::job_identity() + ":" +
                       std::to_string(rank) + ":" + std::to_string(id);
    std::memcpy(port_name, name.c_str(), name.size() + 1);
  });
}
WEFT_MPI_ALIAS(Open_port)

int PMPI_Close_port(const char* port_name) {
  return mpi_call("MPI_Close_port", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Close_port");
    weft::mpi::require_pointer(port_name, "port_name");
    Port port = parse_port(port_name);
    Ports& p = ports();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (port.rank != weft::get_rank() || p.open.erase(port.id) == 0) {
      throw MpiError(MPI_ERR_PORT, std::string("port_name \"") + port_name +
                                       "\" is not a port this process has open");
    }
    weft::mpi::remove_job_file(port_file(port.rank, port.id));
  });
}
WEFT_MPI_ALIAS(Close_port)

int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_accept", comm, [&] {
    const MPI_ABI_Comm& c = intracomm(comm, "MPI_Comm_accept");
    weft::mpi::require_pointer(newcomm, "newcomm");
    weft::mpi::checked_root(c, root);
    Outcome outcome;
    // port_name and info are significant at the root only.
    if (c.group.rank() == root) outcome = accept_at_root(c, port_name, info);
    *newcomm = finish(c, root, std::move(outcome), "MPI_Comm_accept");
  });
}
WEFT_MPI_ALIAS(Comm_accept)

int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_connect", comm, [&] {
    const MPI_ABI_Comm& c = intracomm(comm, "MPI_Comm_connect");
    weft::mpi::require_pointer(newcomm, "newcomm");
    weft::mpi::checked_root(c, root);
    Outcome outcome;
    if (c.group.rank() == root) outcome = connect_at_root(c, port_name, info);
    *newcomm = finish(c, root, std::move(outcome), "MPI_Comm_connect");
  });
}
WEFT_MPI_ALIAS(Comm_connect)

}  // extern "C"
