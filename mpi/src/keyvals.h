// Attribute caching: keyvals (MPI_Comm_create_keyval and its datatype and window
// relatives) and the values the program attaches to objects under them. The functions
// that duplicate or free objects call these hooks, so that the keyvals' copy and delete
// callbacks run when the standard says they do.
#pragma once

#include <mpi.h>

namespace weft::mpi {

// As `child` becomes a duplicate of `parent` (MPI_Comm_dup, MPI_Type_dup): each
// attribute of `parent` whose copy callback says so is attached to `child`. Throws
// MpiError with the code a callback returned, after deleting what was copied.
void copy_attributes(MPI_Comm parent, MPI_Comm child);
void copy_attributes(MPI_Datatype parent, MPI_Datatype child);

// As an object is freed: every attribute is deleted, each keyval's delete callback
// called, newest attribute first. Throws MpiError with the code a callback returned.
void delete_attributes(MPI_Comm comm);
void delete_attributes(MPI_Datatype datatype);
void delete_attributes(MPI_Win win);

// MPI_Finalize's first step, as the standard orders it: MPI_COMM_SELF's attributes are
// deleted as if it were freed, then MPI_COMM_WORLD's.
void delete_attributes_at_finalize();

// The predefined attributes of a communicator (MPI_TAG_UB ... MPI_UNIVERSE_SIZE, and
// MPI_LASTUSEDCODE): false when `keyval` is not one; otherwise `*value` is the
// attribute's address, or nullptr where it is not set (MPI_APPNUM).
bool predefined_comm_attribute(int keyval, void** value);

}  // namespace weft::mpi
