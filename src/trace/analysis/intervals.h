// Length of the union of half-open time intervals: overlapping device work is counted once.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace banjia::trace {

using Interval = std::pair<int64_t, int64_t>;  // [start, end) in ns

// Union length of intervals fed in order of start time; empty intervals are ignored.
struct IntervalUnion {
  int64_t total = 0, cur_s = 0, cur_e = 0;
  bool open = false;
  void add(int64_t s, int64_t e) {
    if (e <= s) return;
    if (!open || s > cur_e) {
      if (open) total += cur_e - cur_s;
      cur_s = s, cur_e = e, open = true;
    } else if (e > cur_e) {
      cur_e = e;
    }
  }
  int64_t length() const { return total + (open ? cur_e - cur_s : 0); }
};

// Sorts `v` in place and returns the total length covered.
inline int64_t union_length(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end());
  IntervalUnion u;
  for (auto [s, e] : v) u.add(s, e);
  return u.length();
}

}  // namespace banjia::trace
