// LinkPair: rank 0 and rank 1 of one process, each with an IbLink to the other over the
// soft verbs device (two queue pairs of one context connected to each other) and a
// socket pair for the doorbell, for the tests that drive verbs links by hand in one
// thread, so that every interleaving is the same on every run.
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "base/socket.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"
#include "tests/transport/recording_handler.h"
#include "tests/transport/test_frames.h"
#include "transport/frame.h"
#include "transport/ib/ib_endpoint.h"
#include "transport/ib/ib_link.h"
#include "transport/ib/verbs_context.h"

namespace weft::transport::ib::testing {

inline constexpr int kRoceV2Gid = 1;  // the soft device's ::ffff:127.0.0.1

using transport::testing::frame;
using transport::testing::pattern;

struct PairOptions {
  const VerbsApi* api = nullptr;  // the soft device's when null
  EndpointOptions endpoint;
  IbLinkOptions link;
  RegistrationCache::Limits registrations;
};

struct LinkPair {
  // Rank 1's frames go to `handler` when one is given, else to handler1; rank 0's to
  // `handler_of_0`, else to handler0.
  explicit LinkPair(PairOptions options = {}, transport::LinkHandler* handler = nullptr,
                    transport::LinkHandler* handler_of_0 = nullptr) {
    weft::testing::install_soft_verbs();
    context = VerbsContext::open(options.api ? *options.api : weft::testing::soft_verbs_api(),
                                 "softib0", 1, kRoceV2Gid, options.registrations);
    context->create_completion_queues(2 * IbEndpoint::send_queue_depth(options.endpoint),
                                      2 * IbEndpoint::receive_queue_depth(options.endpoint));
    auto end0 = std::make_unique<IbEndpoint>(context, options.endpoint);
    auto end1 = std::make_unique<IbEndpoint>(context, options.endpoint);
    end0->connect(context->address(), end1->address());
    end1->connect(context->address(), end0->address());
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair");
    link0 = std::make_unique<IbLink>(1, base::Fd(fds[0]), handler_of_0 ? *handler_of_0 : handler0,
                                     std::move(end0), options.link);
    link1 = std::make_unique<IbLink>(0, base::Fd(fds[1]), handler ? *handler : handler1,
                                     std::move(end1), options.link);
  }
  ~LinkPair() {
    link0.reset();
    link1.reset();
    weft::testing::set_soft_verbs_faults("");
  }

  // Progress on both sides until `done` holds, at most `rounds` times each.
  template <typename Done>
  bool pump(Done done, int rounds = 100000) {
    for (int i = 0; i < rounds; ++i) {
      if (done()) return true;
      link0->progress();
      link1->progress();
    }
    return done();
  }

  std::shared_ptr<VerbsContext> context;
  weft::testing::RecordingHandler handler0, handler1;
  std::unique_ptr<IbLink> link0, link1;
};

inline bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

}  // namespace weft::transport::ib::testing
