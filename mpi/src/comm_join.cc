// MPI_Comm_join: two processes of one weft job, connected by a socket, each send the
// other who they are over it (the job's identity and their world rank), then build the
// intercommunicator of the two as MPI_Comm_accept and _connect do (mpi/src/ports.cc).
// The socket only carries that one exchange, which waits at most weft's timeout
// (WEFT_TIMEOUT, default 300 s) for the peer.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/connections.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

// What each side sends: fixed size and byte order independent of the host (text).
constexpr size_t kRecordBytes = 64;
constexpr char kMagic[] = "weft-join";

std::chrono::milliseconds weft_timeout() {
  const char* text = std::getenv("WEFT_TIMEOUT");
  double seconds = text != nullptr && *text != '\0' ? std::strtod(text, nullptr) : 300.0;
  if (!(seconds > 0)) seconds = 300.0;
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

void send_all(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    // MSG_NOSIGNAL: a peer that closed the socket is an error, not SIGPIPE.
    ssize_t n = send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw MpiError(MPI_ERR_OTHER,
                     "cannot write to fd " + std::to_string(fd) + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

void receive_all(int fd, char* data, size_t size) {
  auto deadline = std::chrono::steady_clock::now() + weft_timeout();
  size_t done = 0;
  while (done < size) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw MpiError(MPI_ERR_OTHER, "the process at the other end of fd " + std::to_string(fd) +
                                        " did not call MPI_Comm_join within weft's timeout "
                                        "(WEFT_TIMEOUT)");
    }
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      throw MpiError(MPI_ERR_OTHER,
                     "cannot poll fd " + std::to_string(fd) + ": " + std::strerror(errno));
    }
    if (ready == 0) continue;
    ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      throw MpiError(MPI_ERR_OTHER, "the other end of fd " + std::to_string(fd) +
                                        (n == 0 ? " closed it" : " failed: ") +
                                        (n == 0 ? "" : std::strerror(errno)) +
                                        " before saying who it is");
    }
    done += static_cast<size_t>(n);
  }
}

uint64_t draw_nonce() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

extern "C" {

int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  return mpi_call("MPI_Comm_join", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Comm_join");
    weft::mpi::require_pointer(intercomm, "intercomm");
    if (fd < 0) throw MpiError(MPI_ERR_ARG, "fd " + std::to_string(fd) + " is negative");
    // "weft-join <job> <world rank> <nonce>", padded: the nonces of both sides make
    // the creation's tag, which no other join or connection between them shares.
    const int me = weft::get_rank();
    const uint64_t nonce = draw_nonce();
    char mine[kRecordBytes] = {};
    std::snprintf(mine, sizeof mine, "%s %s %d %016llx", kMagic, weft::mpi::job_identity().c_str(),
                  me, static_cast<unsigned long long>(nonce));
    send_all(fd, mine, sizeof mine);
    char theirs[kRecordBytes + 1] = {};
    receive_all(fd, theirs, kRecordBytes);
    char magic[16] = {}, job[32] = {};
    int peer = -1;
    unsigned long long peer_nonce = 0;
    if (std::sscanf(theirs, "%15s %31s %d %llx", magic, job, &peer, &peer_nonce) != 4 ||
        std::strcmp(magic, kMagic) != 0) {
      throw MpiError(MPI_ERR_OTHER, "the process at the other end of fd " + std::to_string(fd) +
                                        " is not a weft MPI process in MPI_Comm_join");
    }
    if (job != weft::mpi::job_identity() || peer < 0 || peer >= weft::get_world_size()) {
      throw MpiError(MPI_ERR_OTHER,
                     "the process at the other end of fd " + std::to_string(fd) +
                         " belongs to another weft job; weft joins only processes of one job");
    }
    if (peer == me) {
      throw MpiError(MPI_ERR_OTHER, "both ends of fd " + std::to_string(fd) +
                                        " are this process; MPI_Comm_join needs two");
    }
    const int low = std::min(me, peer), high = std::max(me, peer);
    const uint64_t low_nonce = me == low ? nonce : peer_nonce;
    const uint64_t high_nonce = me == low ? peer_nonce : nonce;
    std::string agreed = "join:" + std::to_string(low) + ":" + std::to_string(high) + ":" +
                         std::to_string(low_nonce) + ":" + std::to_string(high_nonce);
    *intercomm = weft::mpi::make_intercomm({me}, {peer}, weft::mpi::tag_of_string(agreed.c_str()),
                                           MPI_ERRORS_ARE_FATAL);
  });
}
WEFT_MPI_ALIAS(Comm_join)

}  // extern "C"
