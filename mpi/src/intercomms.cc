// Intercommunicators: their creation (MPI_Intercomm_create, _create_from_groups), the
// ones MPI_Comm_dup, _split and _create derive from them, MPI_Intercomm_merge, and the
// queries of the remote group. See mpi/src/intercomm.h for how one is laid out.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/message.h"
#include "mpi/src/objects.h"

using weft::mpi::comm_of;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

// weft::subgroup tags of the creations over the world group, kept apart from those a
// program gives MPI_Comm_create_group (small numbers, in practice).
constexpr int kCreationTagBase = 0xC00000;
constexpr int kCreationTagMask = 0x3FFFFF;

weft::Tensor ints(std::vector<int>& values) {
  return weft::Tensor(values.data(), values.size(), weft::DType::kInt32);
}

// A communicator object for an intercommunicator over weft group `both` (local group
// first when `local_first`), with its collective context split off it.
MPI_Comm new_intercomm(const weft::Group& both, const std::vector<int>& local,
                       const std::vector<int>& remote, bool local_first,
                       MPI_Errhandler errhandler) {
  auto* comm = new MPI_ABI_Comm();
  comm->inter = true;
  comm->group = both;
  comm->collective_group = *weft::split_group(both, 0, both.rank());
  comm->world_ranks = local;
  comm->remote_world_ranks = remote;
  comm->local_offset = local_first ? 0 : static_cast<int>(remote.size());
  comm->remote_offset = local_first ? static_cast<int>(local.size()) : 0;
  comm->errhandler = errhandler;
  comm->name = "an intercommunicator of " + std::to_string(local.size()) + " and " +
               std::to_string(remote.size()) + " rank(s)";
  return comm;
}

MPI_ABI_Comm& intercomm_of(MPI_Comm comm) {
  MPI_ABI_Comm& c = comm_of(comm);
  if (!c.inter) throw MpiError(MPI_ERR_COMM, "the communicator is not an intercommunicator");
  return c;
}

void require_disjoint(const std::vector<int>& local, const std::vector<int>& remote) {
  for (int w : local) {
    if (std::find(remote.begin(), remote.end(), w) != remote.end()) {
      throw MpiError(MPI_ERR_COMM, "world rank " + std::to_string(w) +
                                       " is in both the local and the remote group");
    }
  }
}

// Every member's pair of ints, gathered over the intercommunicator's both groups.
std::vector<int> gather_pairs(const MPI_ABI_Comm& c, int first, int second) {
  std::vector<int> mine{first, second};
  std::vector<int> all(2 * static_cast<size_t>(c.collective_group.size()));
  weft::all_gather(ints(mine), ints(all), c.collective_group);
  return all;
}

}  // namespace

namespace weft::mpi {

bool is_intercomm(MPI_Comm comm) {
  try {
    return comm_of(comm).inter;
  } catch (const MpiError&) {
    return false;
  }
}

void require_intracommunicator(const MPI_ABI_Comm& comm) {
  if (comm.inter) {
    throw MpiError(MPI_ERR_COMM, comm.name +
                                     " is an intercommunicator; the standard defines this "
                                     "operation on intracommunicators only");
  }
}

int local_rank(const MPI_ABI_Comm& comm) {
  return comm.inter ? comm.group.rank() - comm.local_offset : comm.group.rank();
}

int local_size(const MPI_ABI_Comm& comm) {
  return comm.inter ? static_cast<int>(comm.world_ranks.size()) : comm.group.size();
}

MPI_Comm make_intercomm(const std::vector<int>& local, const std::vector<int>& remote, int tag,
                        MPI_Errhandler errhandler) {
  if (local.empty() || remote.empty()) {
    throw MpiError(MPI_ERR_GROUP, "an intercommunicator needs two groups that are not empty");
  }
  require_disjoint(local, remote);
  bool local_first = local.front() < remote.front();
  std::vector<int> both = local_first ? local : remote;
  const std::vector<int>& second = local_first ? remote : local;
  both.insert(both.end(), second.begin(), second.end());
  weft::Group group = weft::subgroup(weft::Group(), both, creation_tag(tag));
  return new_intercomm(group, local, remote, local_first, errhandler);
}

MPI_Comm derive_intercomm(const MPI_ABI_Comm& parent, int color, int key) {
  std::vector<int> all = gather_pairs(parent, color < 0 ? -1 : color, key);
  const int nl = local_size(parent), nr = static_cast<int>(parent.remote_world_ranks.size());
  // The union ranks of one side's members with `color`, by key and then rank.
  auto side = [&](int offset, int size) {
    std::vector<int> members;
    for (int u = offset; u < offset + size; ++u) {
      if (all[2 * static_cast<size_t>(u)] == color) members.push_back(u);
    }
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
      return all[2 * static_cast<size_t>(a) + 1] < all[2 * static_cast<size_t>(b) + 1];
    });
    return members;
  };
  std::vector<int> local, remote;
  if (color >= 0) {
    local = side(parent.local_offset, nl);
    remote = side(parent.remote_offset, nr);
  }
  bool formed = !local.empty() && !remote.empty();
  // The new group keeps the parent's order of the two sides.
  bool local_first = parent.local_offset == 0;
  std::vector<int> order = local_first ? local : remote;
  const std::vector<int>& second = local_first ? remote : local;
  order.insert(order.end(), second.begin(), second.end());
  int me = parent.group.rank();
  int position = static_cast<int>(std::find(order.begin(), order.end(), me) - order.begin());
  std::optional<weft::Group> group =
      weft::split_group(parent.group, formed ? color : -1, formed ? position : 0);
  if (!group) return MPI_COMM_NULL;
  auto world = [&](const std::vector<int>& members) {
    std::vector<int> out;
    for (int u : members) out.push_back(parent.group.world_rank(u));
    return out;
  };
  return new_intercomm(*group, world(local), world(remote), local_first, parent.errhandler);
}

void destroy_intercomm(const MPI_ABI_Comm& comm) {
  weft::destroy_group(comm.collective_group);
  weft::destroy_group(comm.group);
}

int compare_intercomms(const MPI_ABI_Comm& a, const MPI_ABI_Comm& b) {
  if (a.inter != b.inter) return MPI_UNEQUAL;
  auto sorted = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  if (a.world_ranks == b.world_ranks && a.remote_world_ranks == b.remote_world_ranks) {
    return MPI_CONGRUENT;
  }
  if (sorted(a.world_ranks) == sorted(b.world_ranks) &&
      sorted(a.remote_world_ranks) == sorted(b.remote_world_ranks)) {
    return MPI_SIMILAR;
  }
  return MPI_UNEQUAL;
}

int creation_tag(int tag) { return kCreationTagBase | (tag & kCreationTagMask); }

int tag_of_string(const char* text) {
  // FNV-1a: any fixed hash does, as long as every process computes the same.
  uint32_t hash = 2166136261u;
  for (const char* p = text; *p != '\0'; ++p) {
    hash = (hash ^ static_cast<unsigned char>(*p)) * 16777619u;
  }
  return static_cast<int>(hash & 0x7FFFFFFF);
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm* newintercomm) {
  return mpi_call("MPI_Intercomm_create", local_comm, [&] {
    const MPI_ABI_Comm& local = weft::mpi::communicator(local_comm, "MPI_Intercomm_create");
    if (local.inter) throw MpiError(MPI_ERR_COMM, "local_comm is an intercommunicator");
    require_pointer(newintercomm, "newintercomm");
    const int n = local.group.size();
    if (local_leader < 0 || local_leader >= n) {
      throw MpiError(MPI_ERR_RANK, "local_leader " + std::to_string(local_leader) +
                                       " is outside [0, " + std::to_string(n) + ") of local_comm");
    }
    // The leaders swap their groups over peer_comm; each tells its own group.
    std::vector<int> remote_size{0};
    std::vector<int> remote;
    if (local.group.rank() == local_leader) {
      const MPI_ABI_Comm& peer = comm_of(peer_comm);
      std::vector<int> local_size{n};
      weft::mpi::exchange(peer, ints(local_size), remote_leader, tag, ints(remote_size),
                          remote_leader, tag)
          .wait();
      remote.resize(static_cast<size_t>(remote_size[0]));
      std::vector<int> mine = local.world_ranks;
      weft::mpi::exchange(peer, ints(mine), remote_leader, tag, ints(remote), remote_leader, tag)
          .wait();
    }
    weft::broadcast(ints(remote_size), weft::GroupRank{local_leader}, local.group);
    remote.resize(static_cast<size_t>(remote_size[0]));
    weft::broadcast(ints(remote), weft::GroupRank{local_leader}, local.group);
    *newintercomm = weft::mpi::make_intercomm(local.world_ranks, remote, 0, local.errhandler);
  });
}
WEFT_MPI_ALIAS(Intercomm_create)

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char* stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  return mpi_call("MPI_Intercomm_create_from_groups", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Intercomm_create_from_groups");
    const MPI_ABI_Group& local = weft::mpi::group_of(local_group, "local_group");
    const MPI_ABI_Group& remote = weft::mpi::group_of(remote_group, "remote_group");
    require_pointer(stringtag, "stringtag");
    require_pointer(newintercomm, "newintercomm");
    weft::mpi::user_errhandler_or_null(errhandler);
    (void)info;  // no hints apply
    // Both groups are known to every member: the leaders need not swap them.
    for (auto [leader, group, what] : {std::tuple{local_leader, &local, "local_leader"},
                                       std::tuple{remote_leader, &remote, "remote_leader"}}) {
      int size = static_cast<int>(group->world_ranks.size());
      if (leader < 0 || leader >= size) {
        throw MpiError(MPI_ERR_RANK, std::string(what) + " " + std::to_string(leader) +
                                         " is outside [0, " + std::to_string(size) +
                                         ") of its group");
      }
    }
    if (std::find(local.world_ranks.begin(), local.world_ranks.end(), weft::get_rank()) ==
        local.world_ranks.end()) {
      throw MpiError(MPI_ERR_GROUP, "this process is not a member of local_group");
    }
    *newintercomm = weft::mpi::make_intercomm(local.world_ranks, remote.world_ranks,
                                              weft::mpi::tag_of_string(stringtag), errhandler);
  });
}
WEFT_MPI_ALIAS(Intercomm_create_from_groups)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  return mpi_call("MPI_Intercomm_merge", intercomm, [&] {
    weft::mpi::require_initialized("MPI_Intercomm_merge");
    const MPI_ABI_Comm& c = intercomm_of(intercomm);
    require_pointer(newintracomm, "newintracomm");
    std::vector<int> all = gather_pairs(c, high ? 1 : 0, 0);
    bool local_high = high != 0, remote_high = all[2 * static_cast<size_t>(c.remote_offset)] != 0;
    // The group that passed high = false comes first; when both passed the same, the
    // intercommunicator's own order decides.
    bool local_first = local_high == remote_high ? c.local_offset == 0 : !local_high;
    int rank = weft::mpi::local_rank(c);
    int key = local_first ? rank : static_cast<int>(c.remote_world_ranks.size()) + rank;
    *newintracomm = weft::mpi::make_comm(*weft::split_group(c.group, 0, key), c);
  });
}
WEFT_MPI_ALIAS(Intercomm_merge)

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  return mpi_call("MPI_Comm_remote_size", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_remote_size");
    const MPI_ABI_Comm& c = intercomm_of(comm);
    require_pointer(size, "size");
    *size = static_cast<int>(c.remote_world_ranks.size());
  });
}
WEFT_MPI_ALIAS(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  return mpi_call("MPI_Comm_remote_group", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_remote_group");
    const MPI_ABI_Comm& c = intercomm_of(comm);
    require_pointer(group, "group");
    auto* g = new MPI_ABI_Group();
    g->world_ranks = c.remote_world_ranks;  // never empty
    *group = g;
  });
}
WEFT_MPI_ALIAS(Comm_remote_group)

}  // extern "C"
