// Each MPI function is defined once, as PMPI_name, and MPI_name is a weak alias of it:
// a profiling tool that defines MPI_name itself wins the link and reaches the library
// through PMPI_name, as the standard's profiling interface requires.
#pragma once

#define WEFT_MPI_PRAGMA(text) _Pragma(#text)
#define WEFT_MPI_ALIAS(name) WEFT_MPI_PRAGMA(weak MPI_##name = PMPI_##name)
