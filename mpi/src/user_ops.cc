// User-defined operations: MPI_Op_create, MPI_Op_free and MPI_Op_commutative, and
// MPI_Reduce_local, which applies any operation to local buffers. A user
// op is reduced as every pairing the core lacks is (collectives.cc): the contributions
// are gathered and combined in rank order, x0 op (x1 op (... op x(n-1))), so a
// non-commutative op sees its operands in the order the standard requires.
#include "mpi/src/user_ops.h"

#include <algorithm>
#include <climits>
#include <string>

#include "mpi/src/block_buffer.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduction.h"

using weft::mpi::BlockBuffer;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::op_of;

namespace weft::mpi {
namespace {

// Predefined op handles are small numbers; a user op object lives far above them.
bool is_predefined_handle(MPI_Op op) { return reinterpret_cast<uintptr_t>(op) < 0x1000; }

struct Predefined {
  MPI_Op op;
  const char* name;
};

const Predefined kPredefined[] = {
    {MPI_SUM, "MPI_SUM"},         {MPI_PROD, "MPI_PROD"},     {MPI_MIN, "MPI_MIN"},
    {MPI_MAX, "MPI_MAX"},         {MPI_LAND, "MPI_LAND"},     {MPI_LOR, "MPI_LOR"},
    {MPI_LXOR, "MPI_LXOR"},       {MPI_BAND, "MPI_BAND"},     {MPI_BOR, "MPI_BOR"},
    {MPI_BXOR, "MPI_BXOR"},       {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
    {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
};

// The name of one of the standard's predefined operations (MPI_OP_NULL is not one), or
// nullptr.
const char* predefined_name(MPI_Op op) {
  for (const Predefined& p : kPredefined) {
    if (op == p.op) return p.name;
  }
  return nullptr;
}

}  // namespace

MPI_ABI_Op& op_of(MPI_Op op) {
  if (op == MPI_OP_NULL) throw MpiError(MPI_ERR_OP, "the operation is MPI_OP_NULL");
  if (const char* name = predefined_name(op)) {
    throw MpiError(MPI_ERR_OP, std::string(name) + " is predefined, not a user-defined operation");
  }
  const MPI_ABI_Op* user = user_op_or_null(op);
  return *const_cast<MPI_ABI_Op*>(user);
}

const MPI_ABI_Op* user_op_or_null(MPI_Op op) {
  if (op == MPI_OP_NULL || predefined_name(op) != nullptr) return nullptr;
  if (is_predefined_handle(op)) {
    throw MpiError(MPI_ERR_OP, "operation " + std::to_string(reinterpret_cast<uintptr_t>(op)) +
                                   " is not a valid operation");
  }
  auto* object = reinterpret_cast<const MPI_ABI_Op*>(op);
  if (object->magic != MPI_ABI_Op::kMagic) {
    throw MpiError(MPI_ERR_OP, "not a valid operation (freed, or never created)");
  }
  return object;
}

void call_user_op(const MPI_ABI_Op& user, const void* in, void* inout, uint64_t count,
                  int64_t extent, MPI_Datatype datatype) {
  // The standard's signature takes invec as void*, though it is only read.
  auto a = reinterpret_cast<uintptr_t>(in);
  auto b = reinterpret_cast<uintptr_t>(inout);
  if (user.function_c != nullptr) {
    MPI_Count len = static_cast<MPI_Count>(count);
    if (count > 0) {
      user.function_c(reinterpret_cast<void*>(a), reinterpret_cast<void*>(b), &len, &datatype);
    }
    return;
  }
  while (count > 0) {
    uint64_t piece = std::min<uint64_t>(count, INT_MAX);
    int len = static_cast<int>(piece);
    user.function(reinterpret_cast<void*>(a), reinterpret_cast<void*>(b), &len, &datatype);
    // Computed as integers: a derived datatype's elements may start before its origin.
    a += static_cast<uintptr_t>(static_cast<int64_t>(piece) * extent);
    b += static_cast<uintptr_t>(static_cast<int64_t>(piece) * extent);
    count -= piece;
  }
}

namespace {

// MPI_Reduce_local's work, for either count type: inoutbuf = inbuf op inoutbuf.
void reduce_local_buffers(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Op op) {
  Reduction reduction(op, datatype, count);
  BlockBuffer in = BlockBuffer::single(inbuf, count, datatype, "inbuf");
  BlockBuffer inout = BlockBuffer::single(inoutbuf, count, datatype, "inoutbuf");
  in.pack();
  inout.pack();
  reduction.apply(static_cast<const std::byte*>(in.tensor().data()),
                  static_cast<std::byte*>(inout.tensor().data()));
  inout.unpack();
}

}  // namespace
}  // namespace weft::mpi

extern "C" {

int PMPI_Op_create(MPI_User_function* function, int commute, MPI_Op* op) {
  return mpi_call("MPI_Op_create", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Op_create");
    if (function == nullptr) throw MpiError(MPI_ERR_ARG, "the user function is NULL");
    if (op == nullptr) throw MpiError(MPI_ERR_ARG, "the op argument (MPI_Op*) is NULL");
    auto* object = new MPI_ABI_Op();
    object->function = function;
    object->commutative = commute != 0;
    *op = object;
  });
}
WEFT_MPI_ALIAS(Op_create)

int PMPI_Op_create_c(MPI_User_function_c* function, int commute, MPI_Op* op) {
  return mpi_call("MPI_Op_create_c", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Op_create_c");
    if (function == nullptr) throw MpiError(MPI_ERR_ARG, "the user function is NULL");
    if (op == nullptr) throw MpiError(MPI_ERR_ARG, "the op argument (MPI_Op*) is NULL");
    auto* object = new MPI_ABI_Op();
    object->function_c = function;
    object->commutative = commute != 0;
    *op = object;
  });
}
WEFT_MPI_ALIAS(Op_create_c)

int PMPI_Op_free(MPI_Op* op) {
  return mpi_call("MPI_Op_free", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Op_free");
    if (op == nullptr) throw MpiError(MPI_ERR_ARG, "the op argument (MPI_Op*) is NULL");
    MPI_ABI_Op& object = op_of(*op);
    object.magic = 0;  // a later use of the stale handle is an error, not a crash
    delete &object;
    *op = MPI_OP_NULL;
  });
}
WEFT_MPI_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  return mpi_call("MPI_Op_commutative", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Op_commutative");
    if (commute == nullptr) throw MpiError(MPI_ERR_ARG, "the commute argument (int*) is NULL");
    if (op == MPI_OP_NULL) throw MpiError(MPI_ERR_OP, "the operation is MPI_OP_NULL");
    // Every predefined operation commutes.
    const MPI_ABI_Op* user = weft::mpi::user_op_or_null(op);
    *commute = user == nullptr || user->commutative ? 1 : 0;
  });
}
WEFT_MPI_ALIAS(Op_commutative)

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op) {
  return mpi_call("MPI_Reduce_local", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Reduce_local");
    weft::mpi::reduce_local_buffers(inbuf, inoutbuf, count, datatype, op);
  });
}
WEFT_MPI_ALIAS(Reduce_local)

int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op) {
  return mpi_call("MPI_Reduce_local_c", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Reduce_local_c");
    weft::mpi::reduce_local_buffers(inbuf, inoutbuf, count, datatype, op);
  });
}
WEFT_MPI_ALIAS(Reduce_local_c)

}  // extern "C"
