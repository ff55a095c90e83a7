// An array of counts or displacements as the program passed it: ints from the classic
// functions, MPI_Count or MPI_Aint from the large-count (_c) ones. The collectives take
// either and read 64-bit values, so one implementation serves both forms and no count
// is ever narrowed to an int.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <type_traits>

namespace weft::mpi {

// MPI_Count and MPI_Aint are both 64-bit on the targets the ABI defines (LP64), so one
// pointer type covers the _c forms' counts and displacements alike.
static_assert(std::is_same_v<MPI_Count, MPI_Aint>, "MPI_Count and MPI_Aint differ");

class CountArray {
 public:
  CountArray(const int* ints) : ints_(ints) {}        // NOLINT: implicit by design
  CountArray(const MPI_Count* wide) : wide_(wide) {}  // NOLINT: implicit by design

  int64_t operator[](int i) const { return wide_ != nullptr ? wide_[i] : ints_[i]; }
  bool null() const { return ints_ == nullptr && wide_ == nullptr; }

 private:
  const int* ints_ = nullptr;
  const MPI_Count* wide_ = nullptr;
};

}  // namespace weft::mpi
