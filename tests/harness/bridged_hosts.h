// Simulated hosts for tests: network namespaces of this machine, each with one veth
// ("eth0", 10.<subnet>.0.N/24 and fd<subnet>::N/64) into a bridge that lives in one more
// namespace, so the hosts reach each other and nothing else. Needs root and iproute2;
// create() says why it could not build them instead of failing, so suites can skip.
#pragma once

#include <string>
#include <vector>

namespace weft::testing {

// Runs a shell command with its output discarded; true when it exits 0.
bool run_quietly(const std::string& command);

class BridgedHosts {
 public:
  // `tag` keeps the names of concurrent suites apart ("weft-<tag>a-<pid>", ...);
  // `subnet` (1 to 99) picks the addresses. With `multicast`, each host routes
  // 224.0.0.0/4 out of eth0.
  BridgedHosts(const std::string& tag, int count, int subnet, bool multicast = false);
  // Removes every namespace, and with them the bridge and the veths.
  ~BridgedHosts();

  BridgedHosts(const BridgedHosts&) = delete;
  BridgedHosts& operator=(const BridgedHosts&) = delete;

  // Empty when the hosts are up.
  const std::string& failure() const { return failure_; }
  int size() const { return static_cast<int>(names_.size()); }
  const std::string& name(int host) const { return names_[static_cast<size_t>(host)]; }
  std::string ipv4(int host) const;
  std::string ipv6(int host) const;
  // {"ip", "netns", "exec", name(host)}: runs a command on that host.
  std::vector<std::string> exec(int host) const;
  // Shell commands that take `host`'s port out of the bridge, so that everything it
  // sends and everything sent to it is lost (a link at 100% loss, its interface and
  // routes as they were), and put it back.
  std::string cut_command(int host) const;
  std::string mend_command(int host) const;

 private:
  std::vector<std::string> names_;
  std::vector<std::string> ports_;  // by host: its veth's end in the switch
  std::string switch_;
  int subnet_;
  std::string failure_;
};

}  // namespace weft::testing
