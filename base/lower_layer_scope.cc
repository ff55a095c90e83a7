#include "base/lower_layer_scope.h"

#include <cstdint>

namespace weft::base {
namespace {

// Internal, and reached through functions: a thread-local variable of the library's
// interface would appear in the dynamic symbol table of libmpi_abi.so, which exports the
// MPI functions alone. In the static TLS block (initial-exec), so that reaching it is
// one load rather than a call, on every MPI call.
[[gnu::tls_model("initial-exec")]] thread_local uint32_t depth = 0;

}  // namespace

LowerLayerScope::LowerLayerScope() { ++depth; }
LowerLayerScope::~LowerLayerScope() { --depth; }
bool in_lower_layer() { return depth != 0; }

}  // namespace weft::base
