// Renders Summary and the cluster view of several ranks as JSON members, text and CSV tables (the
// JSON field names are the documented public schema; see docs/trace.md).
#pragma once
#include <string>

#include "common/json_writer.h"
#include "trace/analysis/cluster.h"
#include "trace/analysis/summary.h"

namespace banjia::trace {

void write_summary_json(JsonWriter& w, const Summary& s);  // one JSON object
std::string summary_text(const Summary& s);
// CSV tables: "steps" (default), "ops", "kernels", "classes".
std::string summary_csv(const std::vector<Summary>& all, const std::string& table);
bool is_csv_table(const std::string& table);

void write_cluster_json(JsonWriter& w, const ClusterView& c);
std::string cluster_text(const ClusterView& c);
// rank,file,step_us,compute_us,comm_us,memory_us,idle_us,stage_us,bubble_us,last_arrivals,held_us:
// one row per rank.
std::string cluster_ranks_csv(const ClusterView& c);

}  // namespace banjia::trace
