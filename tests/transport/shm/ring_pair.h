// RingPair: rank 0 and rank 1 of one process, each with a ShmLink to the other, joined
// by two small inbox segments and a socket pair, for the tests that drive the ring by
// hand in one thread (so that every interleaving is the same on every run).
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "base/socket.h"
#include "tests/transport/recording_handler.h"
#include "tests/transport/test_frames.h"
#include "transport/frame.h"
#include "transport/shm/inbox.h"
#include "transport/shm/segment.h"
#include "transport/shm/shm_link.h"

namespace weft::transport::shm::testing {

inline constexpr uint64_t kCapacity = 4096;  // small, so that a few frames wrap it

using transport::testing::frame;
using transport::testing::pattern;

// An inbox of rank `owner` with one ring, for `sender`, in a fresh unlinked segment.
inline std::shared_ptr<Segment> make_inbox(int owner, int sender) {
  const std::string name =
      "/weft-ringtest-" + std::to_string(owner) + "." + std::to_string(static_cast<int>(getpid()));
  auto segment = std::make_shared<Segment>(
      Segment::create(name, Inbox::bytes(1, kCapacity), "the ring test", "none"));
  segment->unlink();
  Inbox::format(segment->data(), owner, {sender}, kCapacity, 1, getpid(), 0);
  return segment;
}

inline RingView ring_of(const std::shared_ptr<Segment>& inbox, int sender) {
  return Inbox(inbox->data(), inbox->size(), "the ring test's inbox").ring_for(sender);
}

struct RingPair {
  explicit RingPair(ShmLinkOptions options = {}) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair");
    inbox0 = make_inbox(0, 1);
    inbox1 = make_inbox(1, 0);
    options.peer_pid = getpid();
    link0 = std::make_unique<ShmLink>(1, base::Fd(fds[0]), handler0, inbox0, ring_of(inbox0, 1),
                                      inbox1, ring_of(inbox1, 0), options);
    link1 = std::make_unique<ShmLink>(0, base::Fd(fds[1]), handler1, inbox1, ring_of(inbox1, 0),
                                      inbox0, ring_of(inbox0, 1), options);
  }
  // The ring rank 0 writes into (in rank 1's inbox).
  RingView ring_0_to_1() const { return ring_of(inbox1, 0); }

  std::shared_ptr<Segment> inbox0, inbox1;
  weft::testing::RecordingHandler handler0, handler1;
  std::unique_ptr<ShmLink> link0, link1;
};

inline bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

// Bytes waiting on a socket (doorbells), read and counted.
inline int drain_doorbells(int fd) {
  int bells = 0;
  char sink[64];
  for (ssize_t n; (n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT)) > 0;)
    bells += static_cast<int>(n);
  return bells;
}

}  // namespace weft::transport::shm::testing
