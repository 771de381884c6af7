// Text, JSON, CSV and HTML forms of the `trace ops` table.
#pragma once
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "trace/analysis/ops_report.h"

namespace banjia::trace {

std::string ops_headline(const OpsCoverage& c);
std::string ops_text(const OpsCoverage& c, const ops::OpsDataSet& data, size_t top);
void write_ops_json(JsonWriter& w, const OpsCoverage& c);
std::string ops_csv(const std::vector<OpsCoverage>& all);
std::string ops_html(const std::vector<OpsCoverage>& all, const ops::OpsDataSet& data);

}  // namespace banjia::trace
