// `banjia compare`'s command line.
#include <memory>
#include <string>

#include "cli/output_flags.h"
#include "cli/verbs.h"
#include "compare/command.h"

namespace banjia {

void register_compare(CLI::App& verb, int& exit_code) {
  struct Parsed {
    compare::DumpCompareOptions compare;
    OutputOptions out;
  };
  auto args = std::make_shared<Parsed>();
  CLI::App* cmd = &verb;
  cmd->add_option("A", args->compare.a, "dump under test (e.g. the NPU run)")->required();
  cmd->add_option("B", args->compare.b, "reference dump (e.g. the GPU run)")->required();
  add_output_flags(cmd, args->out,
                   {.formats = {"text", "json", "csv"},
                    .fail_on_help = "Exit 1 when an entry reaches this severity: a fail or an entry that cannot be "
                                    "compared is an error, a warn a warning",
                    .deprecated_fail_on = {{"fail", "error"}, {"warn", "warning"}},
                    .html = true});
  add_max_input_size_flag(cmd);
  cmd->add_option("--top", args->compare.top, "entries listed in the text report's worst-N table");
  cmd->add_option("-j,--threads", args->compare.threads, "worker threads (0 = all cores)");
  cmd->footer(
      "Examples:\n"
      "  banjia compare dumps/npu dumps/gpu                      # banjia capture dirs; B is the reference\n"
      "  banjia compare npu/step0/rank0 gpu/step0/rank0 -f csv -o result.csv   # msprobe dumps\n"
      "  banjia compare out_npu.npz out_gpu.npz -f json --html report.html\n"
      "Exit status (--fail-on error): 0 all entries pass (or warn), 1 an entry fails or cannot be compared, 2 bad "
      "input.\n" +
      std::string(kOutputFlagsFooter));
  cmd->callback([args, &exit_code] { exit_code = compare::run_compare(args->compare, args->out); });
}

}  // namespace banjia
