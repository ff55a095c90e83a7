// Reading configuration from the environment. Every WEFT_ variable weft reads is listed
// in weft_variables() (and in docs/ENVIRONMENT.md, which a test keeps in step); a value
// that does not parse is an InvalidArgument naming the variable, never silently ignored.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::base::env {

struct Variable {
  const char* name;
  const char* default_value;
  const char* meaning;
};

const std::vector<Variable>& weft_variables();

// The variable's value; nullopt when it is unset or empty.
std::optional<std::string> get(const char* name);

// An integer in [min, max]; `fallback` when unset.
int64_t get_int(const char* name, int64_t fallback, int64_t min, int64_t max);

// A byte count such as 65536, 64K, 4M or 1G; `fallback` when unset.
uint64_t get_bytes(const char* name, uint64_t fallback);

// Parses a byte count as get_bytes() does; nullopt if `text` is not one.
std::optional<uint64_t> parse_bytes(const std::string& text);

// A duration in seconds (fractions allowed); `fallback` when unset.
std::chrono::milliseconds get_seconds(const char* name, std::chrono::milliseconds fallback);

}  // namespace weft::base::env
