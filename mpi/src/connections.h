// What the dynamic-process connection functions share (mpi/src/ports.cc, comm_join.cc,
// name_service.cc): the job's identity, the library's own channel between any two
// processes of the job, and the job's directory of open ports and published names.
//
// weftrun starts a job whole, so every connection is between processes of one job: a
// port names a world rank, and the roots of MPI_Comm_accept and MPI_Comm_connect meet
// over the channel, a world-wide weft group made at MPI_Init whose messages no
// communicator's receives (wildcards included) can ever match.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <optional>
#include <string>

namespace weft::mpi {

// Collective over the world, from start_runtime: makes the channel and agrees on the
// job's identity (rank 0 draws it at random and tells the others).
void start_connections();
// From MPI_Finalize: forgets this process's open ports and published names, removing
// their files, and the job's directory once it is empty (the last process out).
void end_connections();

// The channel, in which group rank = world rank.
const weft::Group& connection_channel();
// The job's identity, the same on every process of the job, as 16 hex digits.
const std::string& job_identity();

// The job's directory: "weft-mpi-<job identity>" under $TMPDIR (else /tmp), so it is
// shared by the processes of the job on one host, or on hosts whose $TMPDIR is one
// shared file system. Made (mode 0700) on demand: false when it cannot be.
std::string job_directory();
bool make_job_directory();
// Writes `text` to the job directory's `name` only if no such file is there, atomically
// (a reader sees the whole text or no file): false when it exists already.
bool create_job_file(const std::string& name, const std::string& text);
std::optional<std::string> read_job_file(const std::string& name);
void remove_job_file(const std::string& name);
bool job_file_exists(const std::string& name);

// ports.cc's and name_service.cc's parts of end_connections.
void close_ports_at_finalize();
void unpublish_names_at_finalize();

}  // namespace weft::mpi
