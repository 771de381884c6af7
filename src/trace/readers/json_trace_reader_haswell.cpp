// On-Demand parser compiled for AVX2 (simdjson's "haswell" implementation); json_trace_reader.cpp
// calls it only after checking that the CPU supports AVX2, BMI2 and PCLMUL.
//
// Only the parser's own functions (internal to this file, but for the two entry points) are compiled
// for AVX2; the headers are compiled for the baseline, and simdjson's haswell code carries its own
// target attributes. AVX2 for the whole file (flags, or a target pragma before the includes) would
// also compile the inline functions of the headers (std::vector members, banjia::InputError's
// constructor, ...) for AVX2, and the linker keeps one copy of each for the whole program: it may
// take this file's, and a CPU without AVX2 then crashes outside the AVX2 paths
// (tools/check_baseline_isa.py, a ctest test, looks for such copies in the objects and the binary).
//
// simdjson's functions are declared plain `inline` here, not always-inline (simdjson takes a
// definition of simdjson_inline given before its header): newer simdjson (3.12, Debian 13) declares
// its haswell On-Demand types inside its AVX2 target region, and the standard-library templates they
// are used in (std::pair, std::construct_at), compiled for the baseline, cannot force-inline an AVX2
// function: GCC and clang refuse to compile that. The event loop is flattened instead (PARSE_HOT:
// every call in it inlined, simdjson's included, as its target includes theirs), which parses as
// fast as always-inline did.
#if defined(__x86_64__)
#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
#define PARSE_FN parse_document_haswell
#define PARSE_ARRAY_FN parse_event_array_haswell
#define simdjson_inline inline
#define PARSE_HOT __attribute__((flatten))
#include <cstring>
#include <memory>
#include <simdjson.h>

#include "common/errors.h"
#include "trace/readers/decimal_time.h"
#include "trace/readers/json_source.h"
#include "trace/model/trace_model.h"
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt"))), apply_to = function)
#include "trace/readers/json_event_parser.inc"
#pragma clang attribute pop
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt")
#include "trace/readers/json_event_parser.inc"
#pragma GCC pop_options
#endif
#endif
