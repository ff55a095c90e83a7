#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "base/hex.h"
#include "cuda/device_runtime.h"
#include "tools/info/survey.h"
#include "transport/shm/cma.h"
#include "weft/error.h"

namespace weft::info {

namespace {

InfoNode survey_shared_memory() {
  InfoNode shm;
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) != 0) {
    shm.add("usable", false);
    shm.add("why not", std::string("/dev/shm: ") + std::strerror(errno));
    return shm;
  }
  shm.add("/dev/shm bytes", static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize);
  shm.add("/dev/shm free bytes", static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize);
  // Creating a segment is what the transport does first; some containers mount
  // /dev/shm read-only or tiny.
  const std::string name = "/weft-info-probe-" + std::to_string(getpid());
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    shm.add("usable", false);
    shm.add("why not", "shm_open: " + std::string(std::strerror(errno)));
  } else {
    close(fd);
    shm_unlink(name.c_str());
    shm.add("usable", true);
  }
  return shm;
}

// Single-copy messages read the sender's memory with process_vm_readv. Ranks are
// siblings, not parent and child, so the check is made the way they would meet it: a
// child reads its parent, which Yama's ptrace_scope 1 forbids just as it forbids
// siblings.
InfoNode survey_single_copy() {
  InfoNode cma;
  std::ifstream scope_file("/proc/sys/kernel/yama/ptrace_scope");
  if (int scope = 0; scope_file >> scope) cma.add("yama ptrace_scope", scope);
  static volatile uint64_t marker = 0x77656674696e666fULL;  // read by the child
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    cma.add("allowed", false);
    cma.add("why not", std::string("pipe: ") + std::strerror(errno));
    return cma;
  }
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    base::Failure failure = transport::shm::cma_probe(parent, reinterpret_cast<uint64_t>(&marker),
                                                      0x77656674696e666fULL);
    const std::string why = failure ? failure.why() : "";
    ssize_t ignored = write(pipe_fds[1], why.data(), why.size());
    (void)ignored;
    _exit(failure ? 1 : 0);
  }
  close(pipe_fds[1]);
  std::string why;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) why.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) {
    cma.add("allowed", false);
    cma.add("why not", "could not start a process to check");
    return cma;
  }
  const bool allowed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  cma.add("allowed", allowed);
  if (!allowed) {
    cma.add("why not", why.empty() ? "the check failed" : why);
    cma.add("effect", "large messages between processes are copied through the ring");
  }
  return cma;
}

InfoNode survey_interfaces() {
  InfoNode interfaces = InfoNode::list();
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return interfaces;
  // One entry per interface, its addresses gathered in the order the kernel lists them.
  std::map<std::string, std::pair<unsigned, InfoNode>> by_name;
  std::vector<std::string> order;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    auto [it, inserted] = by_name.try_emplace(a->ifa_name, a->ifa_flags, InfoNode::list());
    if (inserted) order.push_back(a->ifa_name);
    if (a->ifa_addr == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = "";
    if (a->ifa_addr->sa_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, text,
                sizeof text);
    } else {
      continue;
    }
    it->second.second.push(text);
  }
  freeifaddrs(list);
  for (const std::string& name : order) {
    auto& [flags, addresses] = by_name.at(name);
    InfoNode entry;
    entry.add("name", name);
    entry.add("up", (flags & IFF_UP) != 0);
    entry.add("loopback", (flags & IFF_LOOPBACK) != 0);
    entry.add("multicast", (flags & IFF_MULTICAST) != 0);
    entry.add("addresses", std::move(addresses));
    interfaces.push(std::move(entry));
  }
  return interfaces;
}

InfoNode survey_cuda() {
  InfoNode cuda_node;
  cuda::DeviceRuntime& runtime = cuda::device_runtime();
  cuda_node.add("runtime", runtime.describe());
  int count = 0;
  try {
    count = runtime.device_count();
  } catch (const Error& e) {
    cuda_node.add("devices", InfoNode::list());
    cuda_node.add("why none", e.what());
    return cuda_node;
  }
  InfoNode devices = InfoNode::list();
  for (int d = 0; d < count; ++d) {
    InfoNode entry;
    entry.add("device", d);
    const cuda::DeviceUuid uuid = runtime.device_uuid(d);
    entry.add("uuid", base::hex_encode(std::string(uuid.bytes.begin(), uuid.bytes.end())));
    InfoNode peers = InfoNode::list();
    for (int p = 0; p < count; ++p) {
      if (p != d && runtime.can_access_peer(d, p)) peers.push(p);
    }
    entry.add("peer access to", std::move(peers));
    devices.push(std::move(entry));
  }
  cuda_node.add("devices", std::move(devices));
  return cuda_node;
}

}  // namespace

InfoNode survey_transports() {
  InfoNode transports;
  transports.add("shared memory", survey_shared_memory());
  transports.add("single-copy (process_vm_readv)", survey_single_copy());
  transports.add("tcp interfaces", survey_interfaces());
  transports.add("verbs", survey_verbs());
  transports.add("cuda", survey_cuda());
  return transports;
}

}  // namespace weft::info
