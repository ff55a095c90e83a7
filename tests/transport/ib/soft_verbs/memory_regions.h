// Memory regions: each process's table of registered memory in a file of the fabric,
// written by its owner and read by the processes whose queue pairs are connected to its
// own, so that a remote access is checked (key, bounds, access flags, protection
// domain) before any byte of the owner's memory is touched, as an adapter checks it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/transport/ib/soft_verbs/fabric.h"
#include "tests/transport/ib/soft_verbs/shared_layout.h"

namespace weft::testing::soft_verbs {

// A region as it is registered now.
struct Region {
  uint64_t addr = 0;
  uint64_t length = 0;
  uint32_t access = 0;  // ibv_access_flags
  uint32_t pd_id = 0;

  // Whether [addr, addr + bytes) lies inside it.
  bool covers(uint64_t begin, uint64_t bytes) const {
    return begin >= addr && bytes <= length && begin - addr <= length - bytes;
  }
};

enum class KeyKind { kLocal, kRemote };

// The region `key` names in `table` (an lkey for kLocal, an rkey for kRemote), read
// consistently while its owner may change it; nullopt when the key names none.
std::optional<Region> find_region(RegionTableHeader* table, uint32_t key, KeyKind kind);

// This process's table. Keys are (index << 8) | tag: the tag mixes the process with the
// entry's generation, so that a key of another process or of a region deregistered
// since names nothing, and rkeys have bit 7 set where lkeys have it clear, so that one
// used for the other names nothing either.
class LocalRegions {
 public:
  // Creates the table file in the fabric; nullptr with errno set on failure.
  static std::unique_ptr<LocalRegions> create(const Fabric& fabric);
  ~LocalRegions();  // removes the file: its regions are gone for everyone

  // The file's name in the fabric directory, which queue pairs publish for their peers.
  const std::string& name() const { return name_; }
  RegionTableHeader* table() const { return file_.as<RegionTableHeader>(); }

  struct Keys {
    uint32_t index, lkey, rkey;
  };
  // Registers a region; nullopt when the table is full.
  std::optional<Keys> add(const Region& region);
  void remove(uint32_t index);

 private:
  LocalRegions() = default;

  MappedFile file_;
  std::string name_;
  std::vector<uint8_t> generation_;  // per entry, bumped at every registration
  std::vector<bool> used_;
  uint32_t cursor_ = 0;  // where the search for a free entry starts: reuse comes late
  uint32_t salt_ = 0;
};

}  // namespace weft::testing::soft_verbs
