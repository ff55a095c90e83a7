// A client of the PMI-1 wire protocol, as MPICH's Hydra (mpiexec.hydra) and other
// process managers speak it to the processes they start: a socket inherited as the
// file descriptor named by PMI_FD, with the process's rank and the job size in PMI_RANK
// and PMI_SIZE. weft uses it to find its peers when started by such a launcher.
//
// The protocol is one line per message, each a space-separated list of key=value pairs
// starting with cmd=...; the client sends a request and reads exactly one reply:
//   cmd=init pmi_version=1 pmi_subversion=1   -> cmd=response_to_init ... rc=0
//   cmd=get_maxes                             -> cmd=maxes kvsname_max=256 keylen_max=64
//                                                vallen_max=1024
//   cmd=get_my_kvsname                        -> cmd=my_kvsname kvsname=kvs_...
//   cmd=put kvsname=K key=k value=v           -> cmd=put_result rc=0 msg=success
//   cmd=barrier_in                            -> cmd=barrier_out (once every rank is in)
//   cmd=get kvsname=K key=k                   -> cmd=get_result rc=0 msg=success value=v
//   cmd=finalize                              -> cmd=finalize_ack
// A job's ranks share one key-value space (the kvsname): each puts its own keys, all
// meet in barrier(), and then any may get any key put before the barrier.
//
// Errors: bad keys and values are an InvalidArgument; a reply with rc != 0, an
// unexpected reply, or a process manager that closes PMI_FD is an Error with code
// kPeer, whose message carries what the process manager said ("PMI get: key 'k7': the
// process manager answered rc=-1: key_k7_not_found"). Calls out of order (put before
// init) are an Error with code kState. Reads have no deadline: barrier() waits for
// every rank, however long the slowest takes; the process manager ends the wait by
// closing PMI_FD when the job fails.
//
// Only PMI_FD is supported, not PMI_PORT (a host:port to connect to). One thread at a
// time may use a client.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "base/socket.h"

namespace weft::rendezvous {

class PmiClient {
 public:
  // Talks PMI over `fd`, which the client then owns and closes. rank() and size() are
  // unknown (they come from the environment, not the wire).
  explicit PmiClient(int fd);
  // As above, with the rank and job size the launcher gave. Throws InvalidArgument
  // unless 0 <= rank < size, and then leaves `fd` open and the caller's.
  PmiClient(int fd, int rank, int size);

  // The client of the launcher that started this process: nullopt when PMI_FD is unset
  // or empty. PMI_RANK and PMI_SIZE are read too when set. Throws InvalidArgument when
  // one of them is not a number, when the rank is not below the size, or when PMI_FD
  // is not an open descriptor. The descriptor is marked close-on-exec so programs this
  // process runs do not inherit it. Call it once per process: the client owns the fd.
  static std::optional<PmiClient> from_environment();

  PmiClient(PmiClient&&) noexcept = default;
  PmiClient& operator=(PmiClient&&) noexcept = default;
  PmiClient(const PmiClient&) = delete;
  PmiClient& operator=(const PmiClient&) = delete;

  // The init handshake (PMI version 1.1), then the limits (get_maxes) and the name of
  // the job's key-value space (get_my_kvsname). Must come first, once.
  void init();

  // From PMI_RANK and PMI_SIZE or the constructor; Error(kState) when unknown.
  int rank() const;
  int size() const;

  // Available after init().
  const std::string& kvsname() const { return kvsname_; }
  // The longest key and value put() accepts: one less than the process manager's
  // keylen_max and vallen_max (Hydra stores them NUL-terminated and silently truncates
  // anything longer).
  size_t max_key_length() const { return keylen_max_ - 1; }
  size_t max_value_length() const { return vallen_max_ - 1; }

  // Keys and values must hold no '=', space, or control characters (newlines
  // included), and fit the limits above; keys must not be empty (values may). Otherwise
  // InvalidArgument; callers hex-encode anything else.
  void put(const std::string& key, const std::string& value);
  // Returns once every rank of the job has entered barrier().
  void barrier();
  // The value put under `key`; an Error(kPeer) naming the key when there is none.
  std::string get(const std::string& key);
  // Tells the process manager this process is done with PMI, and closes PMI_FD.
  void finalize();

 private:
  struct Reply;
  // Sends `request` (without its newline) and returns the reply, checking its cmd is
  // `expected` and that its rc, if any, is 0. `op` names the call in messages.
  Reply call(const std::string& op, const std::string& request, const std::string& expected);
  void send_line(const std::string& op, const std::string& line);
  std::string read_line(const std::string& op);
  void require_initialized(const std::string& op) const;
  void check_token(const std::string& op, const char* kind, const std::string& token,
                   size_t max_length, bool allow_empty) const;

  base::Fd fd_;
  int fd_number_ = -1;  // for messages, also after finalize() closed fd_
  int rank_ = -1;
  int size_ = -1;
  bool initialized_ = false;
  bool finalized_ = false;
  std::string kvsname_;
  size_t keylen_max_ = 1;
  size_t vallen_max_ = 1;
  std::string received_;  // bytes read past the end of the last reply line
};

}  // namespace weft::rendezvous
