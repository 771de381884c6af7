// Text, JSON and CSV forms of a `trace compare` Comparison.
#pragma once
#include <string>

#include "common/json_writer.h"
#include "trace/analysis/compare.h"

namespace banjia::trace {

void write_comparison_json(JsonWriter& w, const Comparison& c);
std::string comparison_text(const Comparison& c, size_t top);
std::string comparison_csv(const Comparison& c);

}  // namespace banjia::trace
