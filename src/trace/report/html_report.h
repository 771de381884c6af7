// --html pages: one self-contained HTML file with inline SVG charts (common/html.h).
#pragma once
#include <string>
#include <vector>

#include "trace/analysis/cluster.h"
#include "trace/analysis/compare.h"
#include "trace/analysis/summary.h"

namespace banjia::trace {

std::string summary_html(const std::vector<Summary>& all, const ClusterView* cluster);
std::string comparison_html(const Comparison& c);

}  // namespace banjia::trace
