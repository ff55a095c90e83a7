// Info objects: ordered (key, value) string pairs. MPI_INFO_NULL stands for no hints
// where a function takes hints; MPI_INFO_ENV is a predefined, read-only object that
// describes how the process was started.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace weft::mpi {

// In the order the keys were first set: MPI_Info_get_nthkey's order.
using InfoEntries = std::vector<std::pair<std::string, std::string>>;

// The entries behind a user info object or MPI_INFO_ENV; MpiError(MPI_ERR_INFO) for
// MPI_INFO_NULL or garbage.
InfoEntries info_entries(MPI_Info info);
// The same, but MPI_INFO_NULL is no entries: for the arguments that pass hints.
InfoEntries hints_of(MPI_Info info);
// A new info object holding `entries`, which the program frees with MPI_Info_free.
MPI_Info new_info(InfoEntries entries);

// The value of `key` among `entries`, or nullptr.
const std::string* find_entry(const InfoEntries& entries, const std::string& key);
// Sets `key` to `value`: in its place when present, else at the end.
void set_entry(InfoEntries& entries, const std::string& key, const std::string& value);

}  // namespace weft::mpi

struct MPI_ABI_Info {
  static constexpr uint32_t kMagic = 0x57494e46;  // "WINF"
  uint32_t magic = kMagic;
  weft::mpi::InfoEntries entries;
};
