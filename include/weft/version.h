// weft's version, as weftrun --version, weft-bench --version, weft-info and the
// installed pkg-config and CMake files report it.
#pragma once

namespace weft {

inline constexpr const char* kVersion = "0.1.0";

}  // namespace weft
