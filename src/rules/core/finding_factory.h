// Builds a Finding from a rule and a byte range in a file.
#pragma once
#include <string>

#include "common/diagnostic.h"
#include "common/line_index.h"
#include "rules/core/catalog.h"

namespace banjia::rules {

Finding make_finding(const Rule& rule, const std::string& file, const LineIndex& lines, size_t begin, size_t end);

}  // namespace banjia::rules
