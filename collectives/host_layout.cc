#include "collectives/host_layout.h"

#include <map>
#include <memory>
#include <mutex>

#include "base/fnv_hash.h"

namespace weft::collectives {

std::vector<int> HostLayout::with_local_index(int index) const {
  std::vector<int> ranks;
  for (const std::vector<int>& on_host : members) {
    if (index < static_cast<int>(on_host.size())) ranks.push_back(on_host[index]);
  }
  return ranks;
}

const HostLayout* host_layout(const std::vector<uint64_t>& host_key) {
  HostLayout layout;
  std::map<uint64_t, int> host_number;
  for (uint64_t key : host_key) {
    auto [it, added] = host_number.emplace(key, static_cast<int>(layout.members.size()));
    if (added) layout.members.emplace_back();
    const int host = it->second;
    layout.local_index.push_back(static_cast<int>(layout.members[host].size()));
    layout.members[host].push_back(static_cast<int>(layout.host_of.size()));
    layout.host_of.push_back(host);
  }
  const int hosts = layout.hosts();
  if (hosts <= 1 || hosts == static_cast<int>(host_key.size())) return nullptr;
  layout.uniform = true;
  for (const std::vector<int>& on_host : layout.members) {
    layout.uniform = layout.uniform && on_host.size() == layout.members[0].size();
  }
  base::Fnv1a h;
  for (int host : layout.host_of) h.add(host);
  layout.fingerprint = h.value();

  // Interned: a process makes few distinct layouts (one per shape of group), so they
  // are kept rather than counted.
  static std::mutex mutex;
  static std::multimap<uint64_t, std::unique_ptr<const HostLayout>> interned;
  std::lock_guard<std::mutex> lock(mutex);
  auto [first, last] = interned.equal_range(layout.fingerprint);
  for (auto it = first; it != last; ++it) {
    if (it->second->host_of == layout.host_of) return it->second.get();
  }
  const uint64_t fingerprint = layout.fingerprint;
  return interned.emplace(fingerprint, std::make_unique<const HostLayout>(std::move(layout)))
      ->second.get();
}

}  // namespace weft::collectives
