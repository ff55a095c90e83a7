// TcpConnector::connect_all against connections that are not weft peers: silent ones,
// garbage, and another job's, while the real peer connects among them.
#include "transport/tcp/tcp_connector.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <future>
#include <vector>

#include "base/wire.h"

namespace weft::transport::tcp {
namespace {

using namespace std::chrono_literals;

uint16_t port_of(const std::string& record) {
  return static_cast<uint16_t>(base::WireReader(record, "record").u32());
}

base::Fd raw_connection(uint16_t port) {
  return base::connect_to(base::resolve("127.0.0.1", port).front(), base::Deadline::after(5s));
}

// Handshakes are read side by side: silent connections cost one step limit together,
// not one each, so a few of them cannot use up the rendezvous deadline.
TEST(TcpConnector, SilentAndStrayConnectionsDoNotDelayThePeer) {
  const base::SocketAddress route = base::resolve("127.0.0.1", 0).front();
  TcpConnector rank0(std::nullopt, route), rank1(std::nullopt, route);
  const std::vector<std::string> records = {rank0.record(), rank1.record()};
  const std::vector<bool> same_network = {true, true}, everyone = {true, true};
  const uint64_t job = 42;
  const auto deadline = base::Deadline::after(30s);
  auto start = std::chrono::steady_clock::now();
  auto accepted = std::async(std::launch::async, [&] {
    return rank0.connect_all(0, records, same_network, everyone, job, deadline, [] {});
  });
  std::vector<base::Fd> strangers;
  for (int i = 0; i < 5; ++i) strangers.push_back(raw_connection(port_of(rank0.record())));
  base::Fd garbage = raw_connection(port_of(rank0.record()));
  const char junk[] = "\x08\x00\x00\x00GET / HT";
  ::send(garbage.get(), junk, sizeof junk - 1, MSG_NOSIGNAL);
  std::vector<base::Fd> mine =
      rank1.connect_all(1, records, same_network, everyone, job, deadline, [] {});
  std::vector<base::Fd> theirs = accepted.get();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s)
      << "the peer's handshake waited behind silent connections";
  ASSERT_EQ(theirs.size(), 2u);
  EXPECT_TRUE(theirs[1]);
  EXPECT_TRUE(mine[0]);
  // The link works both ways.
  char byte = 'x';
  ASSERT_EQ(::send(mine[0].get(), &byte, 1, MSG_NOSIGNAL), 1);
  char got = 0;
  ASSERT_EQ(::recv(theirs[1].get(), &got, 1, 0), 1);
  EXPECT_EQ(got, 'x');
}

}  // namespace
}  // namespace weft::transport::tcp
