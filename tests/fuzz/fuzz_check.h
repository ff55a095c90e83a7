// FUZZ_CHECK: a property a fuzz target asserts. A failure prints what broke and aborts,
// which libFuzzer reports as a crash and saves the input for.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, message)                                                         \
  do {                                                                                         \
    if (!(condition)) {                                                                        \
      std::fprintf(stderr, "%s:%d: property violated: %s (%s)\n", __FILE__, __LINE__, message, \
                   #condition);                                                                \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)
