// `banjia compare A B`: per-entry precision comparison of two dumps (B is the reference).
#include <unistd.h>

#include <memory>

#include "cli/verbs.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "compare/comparison.h"
#include "compare/render.h"

namespace banjia {

namespace {
struct CompareArgs {
  std::string a, b;
  std::string format = "text";
  std::string output = "-";
  std::string html;
  std::string color = "auto";
  std::string fail_on = "fail";
  size_t top = 10;
  unsigned threads = 0;
};

int run_compare(const CompareArgs& args) {
  using namespace compare;
  Dump a = load_dump(args.a);
  Dump b = load_dump(args.b);
  CompareResult result = compare_dumps(a, b, CompareOptions{args.threads});
  std::string text;
  if (args.format == "json") {
    text = render_json(a, b, result);
  } else if (args.format == "csv") {
    text = render_csv(result);
  } else {
    bool to_tty = (args.output.empty() || args.output == "-") && ::isatty(STDOUT_FILENO);
    bool color = args.color == "always" || (args.color == "auto" && to_tty && !std::getenv("NO_COLOR"));
    text = render_text(a, b, result, args.top, color);
  }
  if (!args.html.empty()) write_file_atomic(args.html, render_html(a, b, result));
  write_output(args.output, text);
  bool failed = result.count(Status::kFail) + result.count(Status::kError) > 0;
  if (args.fail_on == "warn") failed |= result.count(Status::kWarn) > 0;
  return failed ? kExitFindings : kExitOk;
}
}  // namespace

void register_compare(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two tensor dumps (banjia capture dirs, msprobe dumps, .npy/.npz) entry by entry and find the first "
      "layer where they diverge. B is the reference (msprobe's \"bench\").");
  cmd->add_option("A", args->a, "dump under test (e.g. the NPU run)")->required();
  cmd->add_option("B", args->b, "reference dump (e.g. the GPU run)")->required();
  cmd->add_option("--format", args->format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->add_option("-o,--output", args->output, "write the report here instead of stdout ('-')");
  cmd->add_option("--html", args->html, "also write an HTML page with the per-layer error curve");
  cmd->add_option("--color", args->color, "colour text output")->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--fail-on", args->fail_on, "exit 1 when any entry has this status or worse (error counts as fail)")
      ->check(CLI::IsMember({"fail", "warn"}));
  cmd->add_option("--top", args->top, "entries listed in the text report's worst-N table");
  cmd->add_option("-j,--threads", args->threads, "worker threads (0 = all cores)");
  cmd->footer(
      "Examples:\n"
      "  banjia compare dumps/npu dumps/gpu                      # banjia capture dirs; B is the reference\n"
      "  banjia compare npu/step0/rank0 gpu/step0/rank0 --format csv -o result.csv   # msprobe dumps\n"
      "  banjia compare out_npu.npz out_gpu.npz --format json --html report.html\n"
      "Exit status: 0 all entries pass (or warn), 1 an entry fails or cannot be compared, 2 bad input.");
  cmd->callback([args, &exit_code] { exit_code = run_compare(*args); });
}

}  // namespace banjia
