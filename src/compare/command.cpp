// `banjia compare A B`: per-entry precision comparison of two dumps (B is the reference).
#include "compare/model/dump_loader.h"
#include "compare/command.h"

#include "common/file_io.h"
#include "compare/analysis/comparison.h"
#include "compare/report/render.h"

namespace banjia::compare {

int run_compare(const DumpCompareOptions& args, const OutputOptions& out) {
  Dump a = load_dump(args.a);
  Dump b = load_dump(args.b);
  CompareResult result = compare_dumps(a, b, CompareOptions{args.threads});
  std::string text;
  if (out.format == "json") text = render_dump_json(a, b, result);
  else if (out.format == "csv") text = render_dump_csv(result);
  else text = render_dump_text(a, b, result, args.top, out.color_enabled());
  if (!out.html.empty()) write_file_atomic(out.html, render_dump_html(a, b, result));
  out.write(text);
  std::optional<Severity> worst;
  if (result.count(Status::kFail) + result.count(Status::kError) > 0) worst = Severity::error;
  else if (result.count(Status::kWarn) > 0) worst = Severity::warning;
  return out.exit_code(worst);
}

}  // namespace banjia::compare
