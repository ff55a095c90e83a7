// The build without CUDA: there is nothing to compare with.
#include "tools/bench/nccl_baseline.h"

namespace weft::bench {

std::unique_ptr<NcclBaseline> NcclBaseline::connect(int, std::string& why) {
  why = "this weft-bench was built without --config=cuda";
  return nullptr;
}

}  // namespace weft::bench
