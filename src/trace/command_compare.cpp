// `banjia trace compare BASELINE TARGET`.
#include "common/errors.h"
#include "common/file_io.h"
#include "common/report.h"
#include "trace/analysis/compare.h"
#include "trace/analysis/summarize.h"
#include "trace/report/compare_render.h"
#include "trace/report/html_report.h"
#include "trace/command.h"
#include "trace/readers/load.h"
#include "trace/readers/name_map.h"

namespace banjia::trace {

int compare_traces(const TraceCompareOptions& args, const OutputOptions& out) {
  std::map<std::string, std::string> names;
  if (!args.map_file.empty()) names = read_name_map(args.map_file);
  auto in = expand_inputs({args.baseline, args.target});
  if (in.size() != 2) throw InputError(args.baseline, "compare takes exactly one baseline and one target trace");
  SummaryOptions opt;
  Summary base = summarize(load(in[0]), opt), target = summarize(load(in[1]), opt);
  Comparison c = compare_summaries(base, target, names);
  if (!out.html.empty()) write_file_atomic(out.html, comparison_html(c));
  Report report;
  report.csv_table = [&] { return comparison_csv(c); };
  report.command = "trace compare";
  report.files_scanned = 2;
  report.summary_json = [&](JsonWriter& w) { write_comparison_json(w, c); };
  report.summary_text = comparison_text(c, args.top);
  return out.emit(report);
}

}  // namespace banjia::trace
