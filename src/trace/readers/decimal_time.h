// Exact conversion of profiler timestamps (microseconds as decimal text, possibly quoted, possibly with
// a trailing tab as in some torch_npu CSVs) into integer nanoseconds. Going through a double would lose
// the nanoseconds of absolute epoch timestamps (1.7e15 µs needs 51 bits before the fraction).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace banjia::trace {

// Largest time magnitude accepted (3e15 µs: the year 2065 as epoch microseconds). With every ts and
// dur read within ±kMaxTimeNs, every event ends within [-kMaxTimeNs, 2 kMaxTimeNs], so any ts + dur
// and any difference of two ends fits in int64: the analyses cannot overflow on a hostile trace.
constexpr int64_t kMaxTimeNs = 3'000'000'000'000'000'000;

// "5179766322451.942" -> 5179766322451942; "12" -> 12000; "\"1736408883704643.212\"" ->
// 1736408883704643212. Digits beyond the third decimal are rounded half-up. Exponent forms fall
// back to double arithmetic. Returns nullopt for anything that is not a number or is beyond
// ±kMaxTimeNs.
std::optional<int64_t> parse_us_to_ns(std::string_view text);

// Exact unsigned 64-bit integer (for flow ids above 2^53); accepts surrounding quotes.
std::optional<uint64_t> parse_u64(std::string_view text);

}  // namespace banjia::trace
