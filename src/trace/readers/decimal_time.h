// Exact conversion of profiler timestamps (microseconds as decimal text, possibly quoted, possibly with
// a trailing tab as in some torch_npu CSVs) into integer nanoseconds. Going through a double would lose
// the nanoseconds of absolute epoch timestamps (1.7e15 µs needs 51 bits before the fraction).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "trace/model/time_units.h"

namespace banjia::trace {


// "5179766322451.942" -> 5179766322451942; "12" -> 12000; "\"1736408883704643.212\"" ->
// 1736408883704643212. Digits beyond the third decimal are rounded half-up. Exponent forms fall
// back to double arithmetic. Returns nullopt for anything that is not a number or is beyond
// ±kMaxTimeNs.
std::optional<int64_t> parse_us_to_ns(std::string_view text);

// Exact unsigned 64-bit integer (for flow ids above 2^53); accepts surrounding quotes.
std::optional<uint64_t> parse_u64(std::string_view text);

}  // namespace banjia::trace
