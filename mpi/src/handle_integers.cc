// MPI_<handle>_toint and _fromint: handles as integers, for Fortran and for programs
// that store handles in integer arrays. A predefined handle's integer is its value
// (the standard keeps those below 1024); any other handle gets a number the first time
// it is converted, which stays its number for the life of the process.
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "mpi/src/export.h"
#include "mpi/src/objects.h"

namespace weft::mpi {
namespace {

constexpr intptr_t kPredefinedLimit = 1024;

// One numbering for every kind of handle: an integer names one object whatever its kind,
// and converting it back with the wrong kind's _fromint gives a handle that kind's
// functions reject.
class HandleNumbers {
 public:
  int number_of(void* handle) {
    auto value = reinterpret_cast<intptr_t>(handle);
    if (value >= 0 && value < kPredefinedLimit) return static_cast<int>(value);
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, added] = numbers_.emplace(handle, 0);
    if (added) {
      handles_.push_back(handle);
      it->second = static_cast<int>(kPredefinedLimit + handles_.size() - 1);
    }
    return it->second;
  }

  void* handle_of(int number) {
    if (number >= 0 && number < kPredefinedLimit) return reinterpret_cast<void*>(intptr_t{number});
    std::lock_guard<std::mutex> lock(mutex_);
    size_t index = static_cast<size_t>(number) - kPredefinedLimit;
    // An integer this process never handed out: a handle no function accepts.
    if (number < 0 || index >= handles_.size()) return reinterpret_cast<void*>(intptr_t{-1});
    return handles_[index];
  }

 private:
  std::mutex mutex_;
  std::unordered_map<void*, int> numbers_;
  std::vector<void*> handles_;
};

HandleNumbers& numbers() {
  static HandleNumbers* instance = new HandleNumbers;  // outlives static destructors
  return *instance;
}

}  // namespace

template <typename Handle>
int to_int(Handle handle) {
  return numbers().number_of(reinterpret_cast<void*>(handle));
}

template <typename Handle>
Handle from_int(int number) {
  return reinterpret_cast<Handle>(numbers().handle_of(number));
}

}  // namespace weft::mpi

using weft::mpi::from_int;
using weft::mpi::to_int;

extern "C" {

int PMPI_Comm_toint(MPI_Comm comm) { return to_int(comm); }
WEFT_MPI_ALIAS(Comm_toint)
MPI_Comm PMPI_Comm_fromint(int comm) { return from_int<MPI_Comm>(comm); }
WEFT_MPI_ALIAS(Comm_fromint)

int PMPI_Errhandler_toint(MPI_Errhandler errhandler) { return to_int(errhandler); }
WEFT_MPI_ALIAS(Errhandler_toint)
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler) {
  return from_int<MPI_Errhandler>(errhandler);
}
WEFT_MPI_ALIAS(Errhandler_fromint)

int PMPI_File_toint(MPI_File file) { return to_int(file); }
WEFT_MPI_ALIAS(File_toint)
MPI_File PMPI_File_fromint(int file) { return from_int<MPI_File>(file); }
WEFT_MPI_ALIAS(File_fromint)

int PMPI_Group_toint(MPI_Group group) { return to_int(group); }
WEFT_MPI_ALIAS(Group_toint)
MPI_Group PMPI_Group_fromint(int group) { return from_int<MPI_Group>(group); }
WEFT_MPI_ALIAS(Group_fromint)

int PMPI_Info_toint(MPI_Info info) { return to_int(info); }
WEFT_MPI_ALIAS(Info_toint)
MPI_Info PMPI_Info_fromint(int info) { return from_int<MPI_Info>(info); }
WEFT_MPI_ALIAS(Info_fromint)

int PMPI_Message_toint(MPI_Message message) { return to_int(message); }
WEFT_MPI_ALIAS(Message_toint)
MPI_Message PMPI_Message_fromint(int message) { return from_int<MPI_Message>(message); }
WEFT_MPI_ALIAS(Message_fromint)

int PMPI_Op_toint(MPI_Op op) { return to_int(op); }
WEFT_MPI_ALIAS(Op_toint)
MPI_Op PMPI_Op_fromint(int op) { return from_int<MPI_Op>(op); }
WEFT_MPI_ALIAS(Op_fromint)

int PMPI_Request_toint(MPI_Request request) { return to_int(request); }
WEFT_MPI_ALIAS(Request_toint)
MPI_Request PMPI_Request_fromint(int request) { return from_int<MPI_Request>(request); }
WEFT_MPI_ALIAS(Request_fromint)

int PMPI_Session_toint(MPI_Session session) { return to_int(session); }
WEFT_MPI_ALIAS(Session_toint)
MPI_Session PMPI_Session_fromint(int session) { return from_int<MPI_Session>(session); }
WEFT_MPI_ALIAS(Session_fromint)

int PMPI_Type_toint(MPI_Datatype datatype) { return to_int(datatype); }
WEFT_MPI_ALIAS(Type_toint)
MPI_Datatype PMPI_Type_fromint(int datatype) { return from_int<MPI_Datatype>(datatype); }
WEFT_MPI_ALIAS(Type_fromint)

int PMPI_Win_toint(MPI_Win win) { return to_int(win); }
WEFT_MPI_ALIAS(Win_toint)
MPI_Win PMPI_Win_fromint(int win) { return from_int<MPI_Win>(win); }
WEFT_MPI_ALIAS(Win_fromint)

}  // extern "C"
