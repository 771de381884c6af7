// On-Demand parser compiled for AVX2 (simdjson's "haswell" implementation); json_trace_reader.cpp
// calls it only after checking that the CPU supports AVX2, BMI2 and PCLMUL.
//
// GCC: the target pragma has to precede every include: simdjson's always-inline functions cannot be
// inlined into standard-library templates compiled for the baseline target.
//
// clang (the fuzz build, the Zig toolchain of the portable wheels) ignores that pragma. AVX2 as flags
// for the whole file would also compile the inline functions of the headers (std::vector members,
// banjia::InputError's constructor, ...) for AVX2, and the linker keeps one copy of each for the
// whole program: lld took this file's, and a CPU without AVX2 then crashed outside the AVX2 paths.
// So the headers are compiled for the baseline, simdjson's haswell code carries its own target
// attributes, and only the parser's own functions (internal to this file) get AVX2, by attribute.
#if defined(__x86_64__)
#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
#define PARSE_FN parse_document_haswell
#define PARSE_ARRAY_FN parse_event_array_haswell
#if defined(__clang__)
#include <cstring>
#include <memory>
#include <simdjson.h>

#include "common/errors.h"
#include "trace/readers/decimal_time.h"
#include "trace/readers/json_source.h"
#include "trace/model/trace_model.h"
#pragma clang attribute push(__attribute__((target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt"))), apply_to = function)
#include "trace/readers/json_event_parser.inc"
#pragma clang attribute pop
#else
#pragma GCC target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt")
#include "trace/readers/json_event_parser.inc"
#endif
#endif
