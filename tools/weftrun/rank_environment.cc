#include "tools/weftrun/rank_environment.h"

#include <map>

namespace weft::weftrun {
namespace {

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

const std::vector<std::string>& launcher_variable_names() {
  static const std::vector<std::string> names = {
      "RANK",        "WORLD_SIZE",  "LOCAL_RANK",          "LOCAL_WORLD_SIZE",   "GROUP_RANK",
      "MASTER_ADDR", "MASTER_PORT", "WEFT_LAUNCHER_STORE", "WEFT_RANK_PREFIXED",
  };
  return names;
}

bool is_valid_variable_name(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

ResolvedExports resolve_exports(const std::vector<ExportedVariable>& exports,
                                const std::vector<std::string>& inherited) {
  std::map<std::string, std::string> environment;
  for (const auto& entry : inherited) environment.emplace(name_of(entry), entry);
  ResolvedExports resolved;
  for (const auto& exported : exports) {
    if (exported.value) {
      resolved.assignments.push_back(exported.name + "=" + *exported.value);
      continue;
    }
    auto found = environment.find(exported.name);
    if (found == environment.end()) {
      resolved.missing.push_back(exported.name);
    } else {
      resolved.assignments.push_back(found->second);
    }
  }
  return resolved;
}

std::vector<std::string> rank_environment(const std::vector<std::string>& inherited,
                                          const std::vector<std::string>& assignments,
                                          const RankPlacement& placement) {
  const std::vector<std::string> launcher = {
      "RANK=" + std::to_string(placement.rank),
      "WORLD_SIZE=" + std::to_string(placement.world_size),
      "LOCAL_RANK=" + std::to_string(placement.local_rank),
      "LOCAL_WORLD_SIZE=" + std::to_string(placement.local_world_size),
      "GROUP_RANK=" + std::to_string(placement.node_rank),
      "MASTER_ADDR=" + placement.store_host,
      "MASTER_PORT=" + std::to_string(placement.store_port),
      "WEFT_LAUNCHER_STORE=1",
      std::string("WEFT_RANK_PREFIXED=") + (placement.rank_prefixed ? "1" : "0"),
  };
  // Keep the first position of each name (so the order stays recognisable) and the last
  // value given for it.
  std::vector<std::string> out;
  std::map<std::string, size_t> position;
  for (const auto* layer : {&inherited, &assignments, &launcher}) {
    for (const auto& entry : *layer) {
      std::string name = name_of(entry);
      auto [it, inserted] = position.emplace(name, out.size());
      if (inserted) {
        out.push_back(entry);
      } else {
        out[it->second] = entry;
      }
    }
  }
  return out;
}

}  // namespace weft::weftrun
