// Linked into a test binary (alwayslink), makes every process of it whose environment
// sets WEFT_TEST_SOFT_VERBS use the soft device, from before main: the ranks a
// multi-process test starts, and programs a launcher starts, need no code of their own.
#include <cstdlib>

#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace {

[[maybe_unused]] const bool installed = [] {
  const char* requested = std::getenv("WEFT_TEST_SOFT_VERBS");
  if (requested == nullptr || requested[0] == '\0') return false;
  weft::testing::install_soft_verbs();
  return true;
}();

}  // namespace
