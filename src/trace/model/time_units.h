// The units and range of every time in the trace model: integer nanoseconds, reported as
// microseconds, within +-kMaxTimeNs.
#pragma once
#include <cstdint>

namespace banjia::trace {

// Event times and durations are in nanoseconds; reports give microseconds.
inline constexpr double kNsPerUs = 1000.0;

// Largest time magnitude accepted (3e15 µs: the year 2065 as epoch microseconds). With every ts and
// dur read within ±kMaxTimeNs, every event ends within [-kMaxTimeNs, 2 kMaxTimeNs], so any ts + dur
// and any difference of two ends fits in int64: the analyses cannot overflow on a hostile trace.
inline constexpr int64_t kMaxTimeNs = 3'000'000'000'000'000'000;

}  // namespace banjia::trace
