#include "compare/analysis/compare_result.h"

#include <algorithm>

namespace banjia::compare {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::kPass: return "pass";
    case Status::kSkipped: return "skipped";
    case Status::kWarn: return "warn";
    case Status::kFail: return "fail";
    case Status::kError: return "error";
  }
  return "error";
}

size_t CompareResult::count(Status s) const {
  size_t n = 0;
  for (const auto& e : entries) n += e.status == s;
  return n;
}

}  // namespace banjia::compare
