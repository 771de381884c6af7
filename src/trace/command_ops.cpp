// `banjia trace ops PROFILE...`: which aten ops of the profiled model have an NPU kernel.
#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/report.h"
#include "trace/report/ops_render.h"
#include "trace/command.h"
#include "trace/readers/load.h"

namespace banjia::trace {

int run_ops(const TraceOpsOptions& args, const OutputOptions& out) {
  auto data = ops::load_ops_data(args.torch_npu);
  if (!data) {
    std::string known;
    for (auto& v : ops::ops_data_versions()) known += (known.empty() ? "" : ", ") + v;
    throw InputError("--torch-npu", fmt::format("no operator data for torch_npu '{}' (known: {})", args.torch_npu, known));
  }
  std::vector<OpsCoverage> all;
  for (auto& path : expand_inputs(args.inputs)) {
    TraceData t = read_host_trace(path, args.jobs, true);
    all.push_back(op_coverage(t, *data));
  }
  if (!out.html.empty()) write_file_atomic(out.html, ops_html(all, *data));
  Report report;
  report.csv_table = [&] { return ops_csv(all); };
  report.command = "trace ops";
  report.files_scanned = static_cast<int>(all.size());
  report.summary_json = [&](JsonWriter& w) {
    w.key("torch_npu").value(data->version);
    w.key("torch_line").value(data->torch_line);
    w.key("data_source").value(data->source);
    w.key("composite_source").value(data->composite_source);
    w.key("traces").begin_array();
    for (auto& c : all) write_ops_json(w, c);
    w.end_array();
  };
  for (auto& c : all) report.summary_text += ops_text(c, *data, args.top) + "\n";
  report.summary_text +=
      "Facts read from torch_npu/op-plugin sources, not observed on hardware: see docs/ops.md.\n";
  return out.emit(report);
}

}  // namespace banjia::trace
