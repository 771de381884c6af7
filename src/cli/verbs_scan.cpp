// `banjia scan`'s command line.
#include <memory>

#include "cli/output_flags.h"
#include "cli/verbs.h"
#include "scan/command.h"

namespace banjia {

void register_scan(CLI::App& verb, int& exit_code) {
  struct Parsed {
    scan::ScanVerbOptions scan;
    OutputOptions out;
  };
  auto args = std::make_shared<Parsed>();
  CLI::App* cmd = &verb;
  cmd->add_option("paths", args->scan.paths, "Files or directories to scan");
  cmd->add_option("--exclude", args->scan.exclude, "Skip paths matching GLOB (repeatable)")->option_text("GLOB");
  cmd->add_option("--select", args->scan.select, "Only report these rule ids or categories (repeatable)")->delimiter(',');
  cmd->add_option("--ignore", args->scan.ignore, "Do not report these rule ids or categories (repeatable)")->delimiter(',');
  cmd->add_option("-j,--threads", args->scan.threads, "Worker threads (default: all cores)");
  cmd->add_flag("--list-rules", args->scan.list_rules, "Print the rule catalogue (id, category, fix kind, source; everything with --format json) and exit");
  cmd->add_option("--explain", args->scan.explain, "Print the documentation page of RULE (Markdown: examples, replacement per target, source) and exit")
      ->option_text("RULE");
  add_output_flags(cmd, args->out);
  cmd->footer(std::string(R"(Examples:
  banjia scan examples/cifar_ddp                    report with statistics, grouped by file
  banjia scan src/ --format sarif -o banjia.sarif   for GitHub code scanning
  banjia scan . --select custom-kernel,distributed --format json --fail-on warning
  banjia scan --explain tensor-cuda-call              what a rule finds, how it migrates, and why
)") + kOutputFlagsFooter);
  cmd->callback([args, &exit_code] {
    if (args->scan.paths.empty() && !args->scan.list_rules && args->scan.explain.empty())
      throw CLI::RequiredError("paths");
    exit_code = scan::run_scan(args->scan, args->out);
  });
}

}  // namespace banjia
