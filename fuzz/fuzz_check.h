// A property violation in a harness: print what broke and abort, so libFuzzer saves the input.
#pragma once
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, what)                                                  \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::fprintf(stderr, "fuzz property violated: %s (%s)\n", what, #cond);   \
      std::abort();                                                             \
    }                                                                           \
  } while (0)
