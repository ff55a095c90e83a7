#include "base/host_identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "base/fnv_hash.h"

namespace weft::base {
namespace {

uint64_t inode_of(const char* path) {
  struct stat st {};
  return stat(path, &st) == 0 ? st.st_ino : 0;
}

HostIdentity read_identity() {
  HostIdentity id;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  id.hostname = host;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, id.boot_id);
  // Without a boot id (an unusual /proc) fall back to the host name, which is still
  // right for the common case of one namespace per machine.
  if (id.boot_id.empty()) id.boot_id = id.hostname;
  id.net_namespace = inode_of("/proc/self/ns/net");
  id.ipc_namespace = inode_of("/proc/self/ns/ipc");
  id.pid_namespace = inode_of("/proc/self/ns/pid");
  struct stat st {};
  if (stat("/dev/shm", &st) == 0) id.shm_device = st.st_dev;
  return id;
}

}  // namespace

const HostIdentity& local_host_identity() {
  static const HostIdentity id = read_identity();
  return id;
}

uint64_t local_memory_domain() {
  const HostIdentity& h = local_host_identity();
  Fnv1a key;
  for (char ch : h.boot_id) key.add(ch);
  key.add(h.ipc_namespace);
  key.add(h.pid_namespace);
  key.add(h.shm_device);
  if (h.shm_device == 0) key.add(getpid());
  return key.value();
}

}  // namespace weft::base
