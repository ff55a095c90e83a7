// Communicators: each is a weft group with a matching context of its own, so messages
// of one communicator never match receives of another, even among the same ranks.
#include <algorithm>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/keyvals.h"
#include "mpi/src/objects.h"

using weft::mpi::comm_of;
using weft::mpi::make_comm;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

// MPI_Comm_dup's communicator (and _dup_with_info's, _idup's): the same ranks in a new
// context, with the parent's topology and the attributes its keyvals' copy callbacks
// choose to carry over.
MPI_Comm duplicate(MPI_Comm parent_handle) {
  const MPI_ABI_Comm& parent = comm_of(parent_handle);
  MPI_Comm copy;
  if (parent.inter) {
    copy = weft::mpi::derive_intercomm(parent, 0, weft::mpi::local_rank(parent));
  } else {
    // One color, keys in the parent's order.
    std::optional<weft::Group> group = weft::split_group(parent.group, 0, parent.group.rank());
    copy = make_comm(*group, parent);
  }
  comm_of(copy).topology = parent.topology;
  weft::mpi::copy_attributes(parent_handle, copy);
  return copy;
}

}  // namespace

extern "C" {

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  return mpi_call("MPI_Comm_rank", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_rank");
    *rank = weft::mpi::local_rank(comm_of(comm));
  });
}
WEFT_MPI_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  return mpi_call("MPI_Comm_size", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_size");
    *size = weft::mpi::local_size(comm_of(comm));
  });
}
WEFT_MPI_ALIAS(Comm_size)

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_dup", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_dup");
    *newcomm = duplicate(comm);
  });
}
WEFT_MPI_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_dup_with_info", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_dup_with_info");
    comm_of(comm);  // an invalid communicator is reported before a null pointer
    weft::mpi::require_pointer(newcomm, "newcomm");
    (void)info;  // no hints apply to a weft communicator
    *newcomm = duplicate(comm);
  });
}
WEFT_MPI_ALIAS(Comm_dup_with_info)

// The duplicate is made during the call, so the request is complete at once; the
// standard asks only that newcomm be valid once it completes.
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                             MPI_Request* request) {
  return mpi_call("MPI_Comm_idup_with_info", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_idup_with_info");
    comm_of(comm);  // an invalid communicator is reported before a null pointer
    weft::mpi::require_pointer(newcomm, "newcomm");
    weft::mpi::require_pointer(request, "request");
    (void)info;
    *newcomm = duplicate(comm);
    auto* r = new MPI_ABI_Request();
    r->comm = comm;
    r->collective = true;
    r->proc_null = true;  // completes empty, as a collective with nothing left to do
    *request = r;
  });
}
WEFT_MPI_ALIAS(Comm_idup_with_info)

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  return PMPI_Comm_idup_with_info(comm, MPI_INFO_NULL, newcomm, request);
}
WEFT_MPI_ALIAS(Comm_idup)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return mpi_call("MPI_Comm_split", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_split");
    const MPI_ABI_Comm& parent = comm_of(comm);
    if (color < 0 && color != MPI_UNDEFINED) {
      throw MpiError(MPI_ERR_ARG,
                     "color " + std::to_string(color) + " is negative and not MPI_UNDEFINED");
    }
    if (parent.inter) {
      *newcomm = weft::mpi::derive_intercomm(parent, color == MPI_UNDEFINED ? -1 : color, key);
      return;
    }
    std::optional<weft::Group> group =
        weft::split_group(parent.group, color == MPI_UNDEFINED ? -1 : color, key);
    *newcomm = group ? make_comm(*group, parent) : MPI_COMM_NULL;
  });
}
WEFT_MPI_ALIAS(Comm_split)

int PMPI_Comm_free(MPI_Comm* comm) {
  return mpi_call("MPI_Comm_free", *comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_free");
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
      throw MpiError(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
    }
    MPI_ABI_Comm& c = comm_of(*comm);
    weft::mpi::delete_attributes(*comm);
    if (c.inter) {
      weft::mpi::destroy_intercomm(c);
    } else {
      weft::destroy_group(c.group);
    }
    c.magic = 0;  // a later use of the stale handle is an error, not a crash
    delete &c;
    *comm = MPI_COMM_NULL;
  });
}
WEFT_MPI_ALIAS(Comm_free)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return mpi_call("MPI_Comm_compare", comm1, [&] {
    weft::mpi::require_initialized("MPI_Comm_compare");
    const MPI_ABI_Comm& a = comm_of(comm1);
    const MPI_ABI_Comm& b = comm_of(comm2);
    if (&a == &b) {
      *result = MPI_IDENT;
    } else if (a.inter || b.inter) {
      *result = weft::mpi::compare_intercomms(a, b);
    } else if (a.world_ranks == b.world_ranks) {
      *result = MPI_CONGRUENT;
    } else {
      std::vector<int> sa = a.world_ranks, sb = b.world_ranks;
      std::sort(sa.begin(), sa.end());
      std::sort(sb.begin(), sb.end());
      *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
    }
  });
}
WEFT_MPI_ALIAS(Comm_compare)

}  // extern "C"
