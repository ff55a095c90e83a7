// Groups, and the communicators made from them. A group is a list of world ranks; the
// group functions are local. MPI_Comm_create is collective over the parent communicator
// (weft::split_group), MPI_Comm_create_group over the group's members only
// (weft::subgroup), and MPI_Comm_split_type groups the ranks that can share memory.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/host_identity.h"
#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/info.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/objects.h"

using weft::mpi::comm_of;
using weft::mpi::group_of;
using weft::mpi::make_comm;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace weft::mpi {

MPI_ABI_Group& group_of(MPI_Group group, const char* what) {
  static MPI_ABI_Group* const empty = new MPI_ABI_Group();  // never destroyed, as library()
  if (group == MPI_GROUP_EMPTY) return *empty;
  auto address = reinterpret_cast<uintptr_t>(group);
  if (group == MPI_GROUP_NULL || address < 0x1000 ||
      reinterpret_cast<MPI_ABI_Group*>(group)->magic != MPI_ABI_Group::kMagic) {
    throw MpiError(MPI_ERR_GROUP,
                   std::string(what) +
                       (group == MPI_GROUP_NULL ? " is MPI_GROUP_NULL" : " is not a valid group"));
  }
  return *reinterpret_cast<MPI_ABI_Group*>(group);
}

}  // namespace weft::mpi

namespace {

// A handle for a group of `world_ranks`: MPI_GROUP_EMPTY when there are none.
MPI_Group make_group(std::vector<int> world_ranks) {
  if (world_ranks.empty()) return MPI_GROUP_EMPTY;
  auto* group = new MPI_ABI_Group();
  group->world_ranks = std::move(world_ranks);
  return group;
}

// The rank of world rank `world_rank` in `group`, or -1.
int rank_in(const MPI_ABI_Group& group, int world_rank) {
  auto at = std::find(group.world_ranks.begin(), group.world_ranks.end(), world_rank);
  return at == group.world_ranks.end() ? -1 : static_cast<int>(at - group.world_ranks.begin());
}

bool contains(const MPI_ABI_Group& group, int world_rank) {
  return rank_in(group, world_rank) >= 0;
}

// `n` ranks of `group` at `ranks`, checked: each in [0, size), none twice.
std::vector<int> checked_ranks(const MPI_ABI_Group& group, int n, const int ranks[],
                               const char* what) {
  if (n < 0) throw MpiError(MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
  if (n > 0) require_pointer(ranks, what);
  const int size = static_cast<int>(group.world_ranks.size());
  std::vector<bool> seen(static_cast<size_t>(size), false);
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    int r = ranks[i];
    std::string item = std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(r);
    if (r < 0 || r >= size) {
      throw MpiError(MPI_ERR_RANK,
                     item + " is outside [0, " + std::to_string(size) + ") of the group");
    }
    if (seen[static_cast<size_t>(r)]) {
      throw MpiError(MPI_ERR_RANK, item + " names a rank that appears earlier in " + what);
    }
    seen[static_cast<size_t>(r)] = true;
    out.push_back(r);
  }
  return out;
}

// The ranks MPI_Group_range_incl/_excl's triplets (first, last, stride) name, in order,
// checked as checked_ranks checks a list: each range must start and end inside the
// group and have a stride other than 0, and no rank may appear twice.
std::vector<int> ranks_of_ranges(const MPI_ABI_Group& group, int n, int ranges[][3]) {
  if (n < 0) throw MpiError(MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
  if (n > 0) require_pointer(ranges, "ranges");
  const int size = static_cast<int>(group.world_ranks.size());
  std::vector<int> listed;
  for (int i = 0; i < n; ++i) {
    int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    std::string item = "ranges[" + std::to_string(i) + "] = (" + std::to_string(first) + ", " +
                       std::to_string(last) + ", " + std::to_string(stride) + ")";
    if (stride == 0) throw MpiError(MPI_ERR_ARG, item + " has a stride of 0");
    for (int end : {first, last}) {
      if (end < 0 || end >= size) {
        throw MpiError(MPI_ERR_RANK, item + " reaches " + std::to_string(end) + ", outside [0, " +
                                         std::to_string(size) + ") of the group");
      }
    }
    for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      listed.push_back(static_cast<int>(r));
    }
  }
  return checked_ranks(group, static_cast<int>(listed.size()), listed.data(), "the ranges");
}

// A new group of `group`'s members at `chosen` ranks, in that order.
MPI_Group included(const MPI_ABI_Group& group, const std::vector<int>& chosen) {
  std::vector<int> world_ranks;
  for (int r : chosen) world_ranks.push_back(group.world_ranks[static_cast<size_t>(r)]);
  return make_group(std::move(world_ranks));
}

// A new group of `group`'s members but those at `left_out` ranks, in group order.
MPI_Group excluded(const MPI_ABI_Group& group, const std::vector<int>& left_out) {
  std::vector<bool> out(group.world_ranks.size(), false);
  for (int r : left_out) out[static_cast<size_t>(r)] = true;
  std::vector<int> world_ranks;
  for (size_t r = 0; r < group.world_ranks.size(); ++r) {
    if (!out[r]) world_ranks.push_back(group.world_ranks[r]);
  }
  return make_group(std::move(world_ranks));
}

// The ranks in `parent` of `group`'s members, in the group's order; MPI_ERR_GROUP when
// one of them is not in `parent`.
std::vector<int> parent_ranks_of(const MPI_ABI_Comm& parent, const MPI_ABI_Group& group) {
  std::vector<int> ranks;
  for (size_t i = 0; i < group.world_ranks.size(); ++i) {
    int w = group.world_ranks[i];
    auto at = std::find(parent.world_ranks.begin(), parent.world_ranks.end(), w);
    if (at == parent.world_ranks.end()) {
      throw MpiError(MPI_ERR_GROUP, "group rank " + std::to_string(i) + " (world rank " +
                                        std::to_string(w) + ") is not a member of " + parent.name);
    }
    ranks.push_back(static_cast<int>(at - parent.world_ranks.begin()));
  }
  return ranks;
}

// The set operations keep the order the standard gives: group1's members first, in
// group1's order.
template <typename Keep>
std::vector<int> members_of(const MPI_ABI_Group& group, Keep keep) {
  std::vector<int> out;
  for (int w : group.world_ranks) {
    if (keep(w)) out.push_back(w);
  }
  return out;
}

}  // namespace

extern "C" {

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return mpi_call("MPI_Comm_group", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_group");
    const MPI_ABI_Comm& c = comm_of(comm);
    require_pointer(group, "group");
    *group = make_group(c.world_ranks);
  });
}
WEFT_MPI_ALIAS(Comm_group)

int PMPI_Group_size(MPI_Group group, int* size) {
  return mpi_call("MPI_Group_size", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_size");
    const MPI_ABI_Group& g = group_of(group);
    require_pointer(size, "size");
    *size = static_cast<int>(g.world_ranks.size());
  });
}
WEFT_MPI_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group group, int* rank) {
  return mpi_call("MPI_Group_rank", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_rank");
    const MPI_ABI_Group& g = group_of(group);
    require_pointer(rank, "rank");
    int r = rank_in(g, weft::get_rank());
    *rank = r < 0 ? MPI_UNDEFINED : r;
  });
}
WEFT_MPI_ALIAS(Group_rank)

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return mpi_call("MPI_Group_incl", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_incl");
    const MPI_ABI_Group& g = group_of(group);
    std::vector<int> chosen = checked_ranks(g, n, ranks, "ranks");
    require_pointer(newgroup, "newgroup");
    *newgroup = included(g, chosen);
  });
}
WEFT_MPI_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return mpi_call("MPI_Group_excl", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_excl");
    const MPI_ABI_Group& g = group_of(group);
    std::vector<int> left_out = checked_ranks(g, n, ranks, "ranks");
    require_pointer(newgroup, "newgroup");
    *newgroup = excluded(g, left_out);
  });
}
WEFT_MPI_ALIAS(Group_excl)

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return mpi_call("MPI_Group_range_incl", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_range_incl");
    const MPI_ABI_Group& g = group_of(group);
    std::vector<int> chosen = ranks_of_ranges(g, n, ranges);
    require_pointer(newgroup, "newgroup");
    *newgroup = included(g, chosen);
  });
}
WEFT_MPI_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return mpi_call("MPI_Group_range_excl", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_range_excl");
    const MPI_ABI_Group& g = group_of(group);
    std::vector<int> left_out = ranks_of_ranges(g, n, ranges);
    require_pointer(newgroup, "newgroup");
    *newgroup = excluded(g, left_out);
  });
}
WEFT_MPI_ALIAS(Group_range_excl)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]) {
  return mpi_call("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_translate_ranks");
    const MPI_ABI_Group& a = group_of(group1, "group1");
    const MPI_ABI_Group& b = group_of(group2, "group2");
    if (n < 0) throw MpiError(MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
    if (n > 0) {
      require_pointer(ranks1, "ranks1");
      require_pointer(ranks2, "ranks2");
    }
    const int size = static_cast<int>(a.world_ranks.size());
    std::vector<int> out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      int r = ranks1[i];
      if (r == MPI_PROC_NULL) {
        out[static_cast<size_t>(i)] = MPI_PROC_NULL;
        continue;
      }
      if (r < 0 || r >= size) {
        throw MpiError(MPI_ERR_RANK, "ranks1[" + std::to_string(i) + "] = " + std::to_string(r) +
                                         " is outside [0, " + std::to_string(size) +
                                         ") of group1 and not MPI_PROC_NULL");
      }
      int t = rank_in(b, a.world_ranks[static_cast<size_t>(r)]);
      out[static_cast<size_t>(i)] = t < 0 ? MPI_UNDEFINED : t;
    }
    // Written only once every rank checked out: ranks1 and ranks2 may be one array.
    std::copy(out.begin(), out.end(), ranks2);
  });
}
WEFT_MPI_ALIAS(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return mpi_call("MPI_Group_compare", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_compare");
    const MPI_ABI_Group& a = group_of(group1, "group1");
    const MPI_ABI_Group& b = group_of(group2, "group2");
    require_pointer(result, "result");
    if (a.world_ranks == b.world_ranks) {
      *result = MPI_IDENT;
    } else {
      std::vector<int> sa = a.world_ranks, sb = b.world_ranks;
      std::sort(sa.begin(), sa.end());
      std::sort(sb.begin(), sb.end());
      *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
    }
  });
}
WEFT_MPI_ALIAS(Group_compare)

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return mpi_call("MPI_Group_union", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_union");
    const MPI_ABI_Group& a = group_of(group1, "group1");
    const MPI_ABI_Group& b = group_of(group2, "group2");
    require_pointer(newgroup, "newgroup");
    // group1's members, then those of group2 not in group1, in group2's order.
    std::vector<int> world_ranks = a.world_ranks;
    for (int w : members_of(b, [&](int w) { return !contains(a, w); })) world_ranks.push_back(w);
    *newgroup = make_group(std::move(world_ranks));
  });
}
WEFT_MPI_ALIAS(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return mpi_call("MPI_Group_intersection", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_intersection");
    const MPI_ABI_Group& a = group_of(group1, "group1");
    const MPI_ABI_Group& b = group_of(group2, "group2");
    require_pointer(newgroup, "newgroup");
    *newgroup = make_group(members_of(a, [&](int w) { return contains(b, w); }));
  });
}
WEFT_MPI_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return mpi_call("MPI_Group_difference", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_difference");
    const MPI_ABI_Group& a = group_of(group1, "group1");
    const MPI_ABI_Group& b = group_of(group2, "group2");
    require_pointer(newgroup, "newgroup");
    *newgroup = make_group(members_of(a, [&](int w) { return !contains(b, w); }));
  });
}
WEFT_MPI_ALIAS(Group_difference)

int PMPI_Group_free(MPI_Group* group) {
  return mpi_call("MPI_Group_free", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Group_free");
    require_pointer(group, "group");
    MPI_ABI_Group& g = group_of(*group);
    // MPI_GROUP_EMPTY, which the set operations hand out for empty results, is freed
    // like any other group handle, but its object stays.
    if (*group != MPI_GROUP_EMPTY) {
      g.magic = 0;  // a later use of the stale handle is an error, not a crash
      delete &g;
    }
    *group = MPI_GROUP_NULL;
  });
}
WEFT_MPI_ALIAS(Group_free)

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_create", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_create");
    const MPI_ABI_Comm& parent = comm_of(comm);
    const MPI_ABI_Group& g = group_of(group);
    require_pointer(newcomm, "newcomm");
    int mine = rank_in(g, weft::get_rank());
    if (parent.inter) {
      // The group is one of the local group; the remote side passes its own.
      if (!g.world_ranks.empty()) parent_ranks_of(parent, g);
      *newcomm = weft::mpi::derive_intercomm(parent, mine >= 0 ? 0 : -1, std::max(mine, 0));
      return;
    }
    std::vector<int> parent_ranks = parent_ranks_of(parent, g);  // every member in comm
    // Ranks may pass different groups, if disjoint (MPI-2.2): each group's members
    // take the parent rank of its first member as their color, and their rank in it as
    // key, so each new communicator's ranks are in its group's order; the others join
    // none.
    int color = mine >= 0 ? parent_ranks.front() : -1;
    std::optional<weft::Group> created = weft::split_group(parent.group, color, std::max(mine, 0));
    *newcomm = created ? make_comm(*created, parent) : MPI_COMM_NULL;
  });
}
WEFT_MPI_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_create_group", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_create_group");
    const MPI_ABI_Comm& parent = comm_of(comm);
    const MPI_ABI_Group& g = group_of(group);
    int checked_tag = weft::mpi::core_tag(tag, false);
    require_pointer(newcomm, "newcomm");
    std::vector<int> parent_ranks = parent_ranks_of(parent, g);
    // A process outside the group (MPI_GROUP_EMPTY, say) calls it alone.
    if (!contains(g, weft::get_rank())) {
      *newcomm = MPI_COMM_NULL;
      return;
    }
    *newcomm = make_comm(weft::subgroup(parent.group, parent_ranks, checked_tag), parent);
  });
}
WEFT_MPI_ALIAS(Comm_create_group)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_split_type", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_split_type");
    const MPI_ABI_Comm& parent = comm_of(comm);
    // The one kind of hardware resource weft tells apart is shared memory:
    // MPI_COMM_TYPE_SHARED splits by it, the guided kinds when the info names
    // "mpi_shared_memory" (and give MPI_COMM_NULL for any other resource), and
    // MPI_COMM_TYPE_HW_UNGUIDED when that makes a smaller communicator.
    constexpr const char* kResourceKey = "mpi_hw_resource_type";
    constexpr const char* kSharedMemory = "mpi_shared_memory";
    bool by_host = false;
    switch (split_type) {
      case MPI_UNDEFINED:
        break;
      case MPI_COMM_TYPE_SHARED:
      case MPI_COMM_TYPE_HW_UNGUIDED:
        weft::mpi::hints_of(info);  // checks the handle
        by_host = true;
        break;
      case MPI_COMM_TYPE_HW_GUIDED:
      case MPI_COMM_TYPE_RESOURCE_GUIDED:
        for (const auto& [key, value] : weft::mpi::hints_of(info)) {
          if (key == kResourceKey) by_host = value == kSharedMemory;
        }
        break;
      default:
        throw MpiError(MPI_ERR_ARG, "split_type " + std::to_string(split_type) +
                                        " is not one of the standard's split types");
    }
    require_pointer(newcomm, "newcomm");
    // Every rank's memory domain (the processes that can share memory: one host, and
    // the same IPC and PID namespaces and /dev/shm, as Win_allocate_shared requires);
    // the ranks of one take the parent rank of the first of them as their color.
    const int n = parent.group.size();
    uint64_t mine = weft::base::local_memory_domain();
    std::vector<uint64_t> everyone(static_cast<size_t>(n));
    weft::all_gather(weft::Tensor(&mine, 1, weft::DType::kUInt64),
                     weft::Tensor(everyone.data(), everyone.size(), weft::DType::kUInt64),
                     parent.group);
    int color =
        static_cast<int>(std::find(everyone.begin(), everyone.end(), mine) - everyone.begin());
    std::optional<weft::Group> shared = weft::split_group(parent.group, by_host ? color : -1, key);
    if (shared && split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
      // Unguided splits must make the communicator smaller; a single host cannot.
      if (shared->size() == parent.group.size()) {
        weft::destroy_group(*shared);
        shared.reset();
      } else if (info != MPI_INFO_NULL) {
        PMPI_Info_set(info, kResourceKey, kSharedMemory);
      }
    }
    *newcomm = shared ? make_comm(*shared, parent) : MPI_COMM_NULL;
  });
}
WEFT_MPI_ALIAS(Comm_split_type)

}  // extern "C"
