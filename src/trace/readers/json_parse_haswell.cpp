// On-Demand parser compiled for AVX2 (simdjson's "haswell" implementation); json_trace_reader.cpp
// calls it only after checking that the CPU supports AVX2, BMI2 and PCLMUL. The target pragma has to
// precede every include: simdjson's always-inline functions cannot be inlined into standard-library
// templates compiled for the baseline target.
#if defined(__x86_64__)
#pragma GCC target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt")
#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
#define PARSE_FN parse_document_haswell
#define PARSE_ARRAY_FN parse_event_array_haswell
#include "trace/readers/json_event_parser.inc"
#endif
