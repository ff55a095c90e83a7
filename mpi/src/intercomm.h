// Intercommunicators: two disjoint groups that talk to each other. One is built as a
// weft group over both groups (the local group's members and the remote group's, each
// in its own rank order, the group whose first member has the lower world rank first),
// so a point-to-point rank of the remote group is a rank of that weft group at
// remote_offset, and a second such group, in a context of its own, carries the
// intercommunicator collectives (mpi/src/intercomm_collectives.cc).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "mpi/src/objects.h"

namespace weft::mpi {

// Whether `comm` is a valid intercommunicator; false for anything else, garbage too,
// so the caller's own checks report that.
bool is_intercomm(MPI_Comm comm);

// MPI_ERR_COMM when `comm` is an intercommunicator, for the operations the standard
// defines on intracommunicators only (MPI_Scan and MPI_Exscan in every form).
void require_intracommunicator(const MPI_ABI_Comm& comm);

// This process's rank in, and the size of, the local group of `comm` (inter or intra).
int local_rank(const MPI_ABI_Comm& comm);
int local_size(const MPI_ABI_Comm& comm);

// A new intercommunicator between `local` and `remote` (world ranks), which every member
// of both calls with the same two lists as seen from its side. `tag` tells apart
// creations that may run at once on a common member. Takes `errhandler`.
MPI_Comm make_intercomm(const std::vector<int>& local, const std::vector<int>& remote, int tag,
                        MPI_Errhandler errhandler);

// The intercommunicator MPI_Comm_dup, _split and _create make from `parent`: every
// member of both groups calls it, with a color (negative: none) and a key; the members
// of each group with one color, ordered by key and then rank, face those of the other
// group with that color. MPI_COMM_NULL when either side of a color is empty.
MPI_Comm derive_intercomm(const MPI_ABI_Comm& parent, int color, int key);

// Releases an intercommunicator's weft groups (MPI_Comm_free).
void destroy_intercomm(const MPI_ABI_Comm& comm);

// MPI_Comm_compare for two communicators of which at least one is an intercommunicator.
int compare_intercomms(const MPI_ABI_Comm& a, const MPI_ABI_Comm& b);

// A tag for weft::subgroup from a string (MPI_Comm_create_from_group's and
// MPI_Intercomm_create_from_groups's), the same on every process.
int tag_of_string(const char* text);

// The weft::subgroup tag over the world group of a creation with `tag`, apart from
// those a program gives MPI_Comm_create_group.
int creation_tag(int tag);

}  // namespace weft::mpi
