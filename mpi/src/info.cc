// Info objects (MPI_Info_create and the rest), MPI_INFO_ENV and MPI_Info_create_env,
// and the functions that answer with an info object about the library itself: the
// standard ABI's (MPI_Abi_get_info and its Fortran relatives) and the hardware's
// (MPI_Get_hw_resource_info). Info functions may be called before MPI_Init, as the
// standard allows.
#include "mpi/src/info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::find_entry;
using weft::mpi::hints_of;
using weft::mpi::info_entries;
using weft::mpi::InfoEntries;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::new_info;
using weft::mpi::require_pointer;
using weft::mpi::set_entry;

namespace {

MPI_ABI_Info& user_info(MPI_Info info) {
  auto address = reinterpret_cast<uintptr_t>(info);
  if (info == MPI_INFO_ENV) {
    throw MpiError(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be changed or freed");
  }
  if (info == MPI_INFO_NULL || address < 0x1000 || info->magic != MPI_ABI_Info::kMagic) {
    throw MpiError(MPI_ERR_INFO,
                   info == MPI_INFO_NULL ? "the info is MPI_INFO_NULL" : "not a valid info object");
  }
  return *info;
}

std::string checked_key(const char* key) {
  if (key == nullptr) throw MpiError(MPI_ERR_INFO_KEY, "the key is NULL");
  size_t length = std::strlen(key);
  if (length == 0) throw MpiError(MPI_ERR_INFO_KEY, "the key is empty");
  if (length > MPI_MAX_INFO_KEY - 1) {
    throw MpiError(MPI_ERR_INFO_KEY, "the key is " + std::to_string(length) +
                                         " characters long, more than MPI_MAX_INFO_KEY - 1 (" +
                                         std::to_string(MPI_MAX_INFO_KEY - 1) + ")");
  }
  return key;
}

}  // namespace

namespace weft::mpi {

const std::string* find_entry(const InfoEntries& entries, const std::string& key) {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

void set_entry(InfoEntries& entries, const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = value;
      return;
    }
  }
  entries.emplace_back(key, value);
}

}  // namespace weft::mpi

namespace {

// The words of the command line this process runs, as /proc has them.
std::vector<std::string> own_command_line() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    words.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

// The standard's reserved keys for how the process was started, as far as weft knows
// them: "soft" and "file" have no meaning for a launcher that takes neither.
InfoEntries environment(const std::vector<std::string>& command_line) {
  InfoEntries entries;
  if (!command_line.empty()) {
    entries.emplace_back("command", command_line[0]);
    std::string argv;
    for (size_t i = 1; i < command_line.size(); ++i) {
      if (i > 1) argv += ' ';
      argv += command_line[i];
    }
    entries.emplace_back("argv", argv);
  }
  const weft::mpi::LibraryState& lib = weft::mpi::library();
  bool running = lib.initialized && !lib.finalized;
  if (running) entries.emplace_back("maxprocs", std::to_string(lib.world.group.size()));
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) entries.emplace_back("host", host);
  utsname system{};
  if (uname(&system) == 0) entries.emplace_back("arch", system.machine);
  char directory[4096] = {};
  if (getcwd(directory, sizeof directory) != nullptr) entries.emplace_back("wdir", directory);
  if (running) entries.emplace_back("thread_level", thread_level_name(lib.thread_level));
  return entries;
}

void copy_out(const std::string& text, char* out, size_t capacity) {
  size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

// What MPI_Abi_set_fortran_info and MPI_Abi_set_fortran_booleans were told: the
// Fortran layer above this C library says so, since the library has none of its own.
struct FortranAbi {
  InfoEntries info;
  bool info_set = false;
  int logical_size = 0;  // 0: no booleans set
  std::vector<unsigned char> logical_true, logical_false;
};

FortranAbi& fortran_abi() {
  static FortranAbi* abi = new FortranAbi();
  return *abi;
}

}  // namespace

namespace weft::mpi {

InfoEntries info_entries(MPI_Info info) {
  if (info == MPI_INFO_ENV) return environment(own_command_line());
  auto address = reinterpret_cast<uintptr_t>(info);
  if (info == MPI_INFO_NULL || address < 0x1000 || info->magic != MPI_ABI_Info::kMagic) {
    throw MpiError(MPI_ERR_INFO,
                   info == MPI_INFO_NULL ? "the info is MPI_INFO_NULL" : "not a valid info object");
  }
  return info->entries;
}

InfoEntries hints_of(MPI_Info info) {
  return info == MPI_INFO_NULL ? InfoEntries() : info_entries(info);
}

MPI_Info new_info(InfoEntries entries) {
  auto* info = new MPI_ABI_Info();
  info->entries = std::move(entries);
  return info;
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  return mpi_call("MPI_Info_create", MPI_COMM_WORLD, [&] {
    require_pointer(info, "info");
    *info = new_info({});
  });
}
WEFT_MPI_ALIAS(Info_create)

int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  return mpi_call("MPI_Info_create_env", MPI_COMM_WORLD, [&] {
    require_pointer(info, "info");
    if (argc < 0) throw MpiError(MPI_ERR_ARG, "argc " + std::to_string(argc) + " is negative");
    std::vector<std::string> command_line;
    if (argc > 0 && argv != nullptr) {
      for (int i = 0; i < argc && argv[i] != nullptr; ++i) command_line.emplace_back(argv[i]);
    } else {
      command_line = own_command_line();
    }
    *info = new_info(environment(command_line));
  });
}
WEFT_MPI_ALIAS(Info_create_env)

int PMPI_Info_free(MPI_Info* info) {
  return mpi_call("MPI_Info_free", MPI_COMM_WORLD, [&] {
    require_pointer(info, "info");
    MPI_ABI_Info& i = user_info(*info);
    i.magic = 0;
    delete &i;
    *info = MPI_INFO_NULL;
  });
}
WEFT_MPI_ALIAS(Info_free)

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  return mpi_call("MPI_Info_dup", MPI_COMM_WORLD, [&] {
    require_pointer(newinfo, "newinfo");
    *newinfo = new_info(info_entries(info));
  });
}
WEFT_MPI_ALIAS(Info_dup)

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  return mpi_call("MPI_Info_set", MPI_COMM_WORLD, [&] {
    MPI_ABI_Info& i = user_info(info);
    std::string k = checked_key(key);
    if (value == nullptr) throw MpiError(MPI_ERR_INFO_VALUE, "the value is NULL");
    size_t length = std::strlen(value);
    if (length > MPI_MAX_INFO_VAL - 1) {
      throw MpiError(MPI_ERR_INFO_VALUE, "the value is " + std::to_string(length) +
                                             " characters long, more than MPI_MAX_INFO_VAL - 1 (" +
                                             std::to_string(MPI_MAX_INFO_VAL - 1) + ")");
    }
    set_entry(i.entries, k, value);
  });
}
WEFT_MPI_ALIAS(Info_set)

int PMPI_Info_delete(MPI_Info info, const char* key) {
  return mpi_call("MPI_Info_delete", MPI_COMM_WORLD, [&] {
    MPI_ABI_Info& i = user_info(info);
    std::string k = checked_key(key);
    auto it = std::find_if(i.entries.begin(), i.entries.end(),
                           [&](const auto& entry) { return entry.first == k; });
    if (it == i.entries.end()) {
      throw MpiError(MPI_ERR_INFO_NOKEY, "the info has no key \"" + k + "\"");
    }
    i.entries.erase(it);
  });
}
WEFT_MPI_ALIAS(Info_delete)

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  return mpi_call("MPI_Info_get", MPI_COMM_WORLD, [&] {
    InfoEntries entries = info_entries(info);
    std::string k = checked_key(key);
    require_pointer(flag, "flag");
    if (valuelen < 0) {
      throw MpiError(MPI_ERR_ARG, "valuelen " + std::to_string(valuelen) + " is negative");
    }
    const std::string* found = find_entry(entries, k);
    *flag = found != nullptr ? 1 : 0;
    if (found == nullptr) return;
    require_pointer(value, "value");
    // The standard's valuelen leaves out the terminating null, which value has room for.
    copy_out(*found, value, static_cast<size_t>(valuelen) + 1);
  });
}
WEFT_MPI_ALIAS(Info_get)

int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  return mpi_call("MPI_Info_get_string", MPI_COMM_WORLD, [&] {
    InfoEntries entries = info_entries(info);
    std::string k = checked_key(key);
    require_pointer(buflen, "buflen");
    require_pointer(flag, "flag");
    if (*buflen < 0) {
      throw MpiError(MPI_ERR_ARG, "buflen " + std::to_string(*buflen) + " is negative");
    }
    const std::string* found = find_entry(entries, k);
    *flag = found != nullptr ? 1 : 0;
    if (found == nullptr) return;
    if (*buflen > 0) {
      require_pointer(value, "value");
      copy_out(*found, value, static_cast<size_t>(*buflen));
    }
    *buflen = static_cast<int>(found->size()) + 1;
  });
}
WEFT_MPI_ALIAS(Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  return mpi_call("MPI_Info_get_valuelen", MPI_COMM_WORLD, [&] {
    InfoEntries entries = info_entries(info);
    std::string k = checked_key(key);
    require_pointer(valuelen, "valuelen");
    require_pointer(flag, "flag");
    const std::string* found = find_entry(entries, k);
    *flag = found != nullptr ? 1 : 0;
    if (found != nullptr) *valuelen = static_cast<int>(found->size());
  });
}
WEFT_MPI_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  return mpi_call("MPI_Info_get_nkeys", MPI_COMM_WORLD, [&] {
    require_pointer(nkeys, "nkeys");
    *nkeys = static_cast<int>(info_entries(info).size());
  });
}
WEFT_MPI_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  return mpi_call("MPI_Info_get_nthkey", MPI_COMM_WORLD, [&] {
    InfoEntries entries = info_entries(info);
    require_pointer(key, "key");
    if (n < 0 || static_cast<size_t>(n) >= entries.size()) {
      throw MpiError(MPI_ERR_ARG, "n " + std::to_string(n) + " is not below the " +
                                      std::to_string(entries.size()) + " keys of the info");
    }
    copy_out(entries[static_cast<size_t>(n)].first, key, MPI_MAX_INFO_KEY);
  });
}
WEFT_MPI_ALIAS(Info_get_nthkey)

// A communicator keeps the hints it was given; weft acts on none of them, and the
// standard lets MPI_Comm_get_info return the hints set all the same.
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return mpi_call("MPI_Comm_set_info", comm, [&] {
    MPI_ABI_Comm& c = weft::mpi::communicator(comm, "MPI_Comm_set_info");
    for (auto& [key, value] : hints_of(info)) set_entry(c.hints, key, value);
  });
}
WEFT_MPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  return mpi_call("MPI_Comm_get_info", comm, [&] {
    MPI_ABI_Comm& c = weft::mpi::communicator(comm, "MPI_Comm_get_info");
    require_pointer(info_used, "info_used");
    *info_used = new_info(c.hints);
  });
}
WEFT_MPI_ALIAS(Comm_get_info)

int PMPI_Abi_get_info(MPI_Info* info) {
  return mpi_call("MPI_Abi_get_info", MPI_COMM_WORLD, [&] {
    require_pointer(info, "info");
    *info = new_info({
        {"mpi_aint_size", std::to_string(sizeof(MPI_Aint))},
        {"mpi_count_size", std::to_string(sizeof(MPI_Count))},
        {"mpi_offset_size", std::to_string(sizeof(MPI_Offset))},
    });
  });
}
WEFT_MPI_ALIAS(Abi_get_info)

// The library has no Fortran bindings: MPI_INFO_NULL says so, unless a Fortran layer
// has described itself with MPI_Abi_set_fortran_info.
int PMPI_Abi_get_fortran_info(MPI_Info* info) {
  return mpi_call("MPI_Abi_get_fortran_info", MPI_COMM_WORLD, [&] {
    require_pointer(info, "info");
    const FortranAbi& abi = fortran_abi();
    *info = abi.info_set ? new_info(abi.info) : MPI_INFO_NULL;
  });
}
WEFT_MPI_ALIAS(Abi_get_fortran_info)

int PMPI_Abi_set_fortran_info(MPI_Info info) {
  return mpi_call("MPI_Abi_set_fortran_info", MPI_COMM_WORLD, [&] {
    FortranAbi& abi = fortran_abi();
    abi.info = info_entries(info);
    abi.info_set = true;
  });
}
WEFT_MPI_ALIAS(Abi_set_fortran_info)

int PMPI_Abi_set_fortran_booleans(int logical_size, void* logical_true, void* logical_false) {
  return mpi_call("MPI_Abi_set_fortran_booleans", MPI_COMM_WORLD, [&] {
    if (logical_size <= 0 || logical_size > 16) {
      throw MpiError(MPI_ERR_ARG,
                     "logical_size " + std::to_string(logical_size) + " is not in 1..16 bytes");
    }
    require_pointer(logical_true, "logical_true");
    require_pointer(logical_false, "logical_false");
    FortranAbi& abi = fortran_abi();
    auto* t = static_cast<unsigned char*>(logical_true);
    auto* f = static_cast<unsigned char*>(logical_false);
    abi.logical_size = logical_size;
    abi.logical_true.assign(t, t + logical_size);
    abi.logical_false.assign(f, f + logical_size);
  });
}
WEFT_MPI_ALIAS(Abi_set_fortran_booleans)

int PMPI_Abi_get_fortran_booleans(int logical_size, void* logical_true, void* logical_false,
                                  int* is_set) {
  return mpi_call("MPI_Abi_get_fortran_booleans", MPI_COMM_WORLD, [&] {
    require_pointer(is_set, "is_set");
    const FortranAbi& abi = fortran_abi();
    *is_set = abi.logical_size != 0 && abi.logical_size == logical_size ? 1 : 0;
    if (!*is_set) return;
    require_pointer(logical_true, "logical_true");
    require_pointer(logical_false, "logical_false");
    std::memcpy(logical_true, abi.logical_true.data(), abi.logical_true.size());
    std::memcpy(logical_false, abi.logical_false.data(), abi.logical_false.size());
  });
}
WEFT_MPI_ALIAS(Abi_get_fortran_booleans)

// Weft does not probe the hardware's hierarchy: an info with no resources, which the
// standard allows.
int PMPI_Get_hw_resource_info(MPI_Info* hw_info) {
  return mpi_call("MPI_Get_hw_resource_info", MPI_COMM_WORLD, [&] {
    require_pointer(hw_info, "hw_info");
    *hw_info = new_info({});
  });
}
WEFT_MPI_ALIAS(Get_hw_resource_info)

}  // extern "C"
