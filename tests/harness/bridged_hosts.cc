#include "tests/harness/bridged_hosts.h"

#include <unistd.h>

#include <cstdlib>

namespace weft::testing {

bool run_quietly(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

BridgedHosts::BridgedHosts(const std::string& tag, int count, int subnet, bool multicast)
    : subnet_(subnet) {
  const std::string suffix = std::to_string(getpid() % 100000);
  if (geteuid() != 0 || !run_quietly("ip netns list")) {
    failure_ = "needs root and iproute2 to create network namespaces";
    return;
  }
  switch_ = "weft-" + tag + "s-" + suffix;
  bool ok = run_quietly("ip netns add " + switch_) &&
            run_quietly("ip -n " + switch_ + " link add br0 type bridge") &&
            run_quietly("ip -n " + switch_ + " link set br0 up");
  for (int i = 0; ok && i < count; ++i) {
    const std::string n = std::to_string(i + 1);
    const std::string ns = "weft-" + tag + static_cast<char>('a' + i) + "-" + suffix;
    const std::string port = "p" + n + "-" + suffix;
    names_.push_back(ns);
    ports_.push_back(port);
    ok = run_quietly("ip netns add " + ns) &&
         run_quietly("ip link add eth0 netns " + ns + " type veth peer " + port + " netns " +
                     switch_) &&
         run_quietly("ip -n " + switch_ + " link set " + port + " master br0 up") &&
         run_quietly("ip -n " + ns + " addr add " + ipv4(i) + "/24 dev eth0") &&
         run_quietly("ip -n " + ns + " addr add " + ipv6(i) + "/64 dev eth0 nodad") &&
         run_quietly("ip -n " + ns + " link set eth0 up") &&
         run_quietly("ip -n " + ns + " link set lo up") &&
         (!multicast || run_quietly("ip -n " + ns + " route add 224.0.0.0/4 dev eth0"));
  }
  if (!ok) failure_ = "could not set up the network namespaces";
}

BridgedHosts::~BridgedHosts() {
  for (const auto& ns : names_) run_quietly("ip netns del " + ns);
  if (!switch_.empty()) run_quietly("ip netns del " + switch_);
}

std::string BridgedHosts::ipv4(int host) const {
  return "10." + std::to_string(subnet_) + ".0." + std::to_string(host + 1);
}

std::string BridgedHosts::ipv6(int host) const {
  return "fd" + std::to_string(subnet_) + "::" + std::to_string(host + 1);
}

std::vector<std::string> BridgedHosts::exec(int host) const {
  return {"ip", "netns", "exec", name(host)};
}

std::string BridgedHosts::cut_command(int host) const {
  return "ip -n " + switch_ + " link set " + ports_[static_cast<size_t>(host)] + " nomaster";
}

std::string BridgedHosts::mend_command(int host) const {
  return "ip -n " + switch_ + " link set " + ports_[static_cast<size_t>(host)] + " master br0";
}

}  // namespace weft::testing
