// Builds a Finding from a rule and a byte range in a file.
#pragma once
#include <string>

#include "common/diagnostic.h"
#include "scan/rule_catalog.h"
#include "scan/source_position.h"

namespace banjia::scan {

Finding make_finding(const Rule& rule, const std::string& file, const LineIndex& lines, size_t begin, size_t end);

}  // namespace banjia::scan
