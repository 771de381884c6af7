// What the cluster view needs of one rank, written into each trace of `trace summary --format json`
// as "cluster_input", and read back from such reports, so that per-rank summaries made apart (Ray
// tasks, a Slurm job array) merge into the same cluster view as one `trace summary DIR` (`trace
// cluster`).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/json_writer.h"
#include "trace/analysis/summary.h"

namespace banjia::trace {

void write_cluster_input_json(JsonWriter& w, const Summary& s);

// One Summary per trace of a `trace summary --format json` report, holding what the cluster view
// reads: the file, the step and overall breakdowns and "cluster_input". Throws InputError naming
// `file` for anything else than such a report, or for values out of range.
std::vector<Summary> read_summary_report_json(std::string_view json, const std::string& file);

}  // namespace banjia::trace
