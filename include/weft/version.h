// weft's version: what `weftrun --version` and `weft-bench --version` print, and what a
// program built against weft can check.
#pragma once

namespace weft {

inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;
// "major.minor.patch"
inline constexpr char kVersion[] = "0.1.0";

}  // namespace weft
