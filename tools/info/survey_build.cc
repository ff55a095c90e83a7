#include "collectives/reduce/reduce_kernels.h"
#include "tools/info/survey.h"
#include "weft/version.h"

namespace weft::info {

InfoNode survey_build() {
  InfoNode build;
  build.add("version", kVersion);
#ifdef WEFT_WITH_CUDA
  build.add("cuda", true);
#else
  build.add("cuda", false);
#endif
  build.add("reduction kernels", collectives::reduce::kernel_instruction_set());
#ifdef __OPTIMIZE__
  build.add("optimized", true);
#else
  build.add("optimized", false);
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(WEFT_SANITIZER_BUILD)
  build.add("sanitizer build", true);
#else
  build.add("sanitizer build", false);
#endif
#if defined(__clang__)
  build.add("compiler", "clang " __clang_version__);
#else
  build.add("compiler", "gcc " __VERSION__);
#endif
  return build;
}

}  // namespace weft::info
