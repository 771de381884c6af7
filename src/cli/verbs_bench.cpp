// `banjia bench`'s command line.
#include <memory>
#include <string>

#include "bench/command.h"
#include "bench/run.h"
#include "cli/output_flags.h"
#include "cli/verbs.h"

namespace banjia {

void register_bench(CLI::App& verb, int& exit_code) {
  CLI::App* bench_cmd = &verb;
  bench_cmd->require_subcommand(1);
  struct Parsed {
    bench::BenchCompareOptions compare;
    OutputOptions out;
  };
  auto args = std::make_shared<Parsed>();
  auto* cmd = bench_cmd->add_subcommand(
      "compare", "Compare a baseline run with other runs: median/p95 step time, throughput, memory, power, energy; "
                 "ratios with bootstrap 95 % CIs and a verdict per metric");
  cmd->add_option("files", args->compare.files, "BASELINE OTHER...: banjia.bench JSON recordings or iteration,ms CSV files")
      ->required()->check(CLI::ExistingPath)->type_name("FILE");
  // The text table has no colour, so there is no --color.
  add_output_flags(cmd, args->out,
                   {.formats = {"text", "json", "csv", "markdown"},
                    .default_fail_on = "none",
                    .fail_on_help = "Exit 1 when a result reaches this severity: a run significantly slower than the "
                                    "baseline is an error, any other warning a warning",
                    .deprecated_fail_on = {{"slower", "error"}},
                    .color = false,
                    .html = true});
  cmd->add_option("--labels", args->compare.labels, "Column names, one per file (default: recorded label or file name)")
      ->option_text("A,B,...");
  cmd->add_option("--batch-size", args->compare.batch_size, "Samples per step for runs that do not record it (CSV)")
      ->check(CLI::Range(bench::kMinMagnitude, bench::kMaxMagnitude));
  cmd->add_option("--sample-unit", args->compare.sample_unit, "What a sample is, for the throughput row (e.g. images, tokens)");
  cmd->add_option("--seed", args->compare.seed, "Bootstrap seed (default from data/bench/policy.toml)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--resamples", args->compare.resamples, "Bootstrap resamples (default from data/bench/policy.toml)")
      ->check(CLI::Range(100, 1000000));
  cmd->footer(
      "Examples:\n"
      "  banjia bench compare bench/gpu.json bench/npu.json bench/npu_tuned.json\n"
      "  banjia bench compare --batch-size 64 --labels fp32,bf16 \\\n"
      "      tests/fixtures/gpu-h200/bench/resnet50_fp32.csv \\\n"
      "      tests/fixtures/gpu-h200/bench/resnet50_bf16_channels_last.csv\n"
      "  banjia bench compare -f markdown --html report.html --fail-on error base.json new.json\n" +
      std::string(kOutputFlagsFooter));
  cmd->callback([args, &exit_code] { exit_code = bench::compare_bench_runs(args->compare, args->out); });
}

}  // namespace banjia
