// `banjia bench compare BASELINE OTHER...`: the article's §6 table (step time, throughput, memory,
// power, energy) with one column per run, ratios to the baseline with bootstrap confidence intervals,
// and a verdict per metric. Inputs are banjia.bench recordings (JSON) or `iteration,ms` CSVs.
#include <fmt/format.h>

#include "bench/comparison.h"
#include "bench/render.h"
#include "cli/verbs.h"
#include "common/errors.h"
#include "common/file_io.h"

namespace banjia {

namespace {

struct CompareOptions {
  std::vector<std::string> files;
  std::string labels;  // comma-separated; split here so the option never swallows the file arguments
  std::string format = "text";
  std::string output = "-";
  std::string html;
  std::string fail_on = "none";
  double batch_size = 0;
  std::string sample_unit;
  int64_t seed = -1;
  int resamples = 0;
};

int run_compare(const CompareOptions& o) {
  std::vector<std::string> labels;
  if (!o.labels.empty()) {
    for (size_t start = 0;;) {
      size_t comma = o.labels.find(',', start);
      labels.push_back(o.labels.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (labels.size() != o.files.size())
      throw InputError("", fmt::format("--labels has {} names for {} files", labels.size(), o.files.size()));
  }
  std::vector<bench::Run> runs;
  for (size_t i = 0; i < o.files.size(); ++i) {
    bench::Run r = bench::load_run(o.files[i]);
    if (!labels.empty()) r.label = labels[i];
    if (!r.batch_size && o.batch_size > 0) r.batch_size = o.batch_size;
    if (!o.sample_unit.empty()) r.sample_unit = o.sample_unit;
    runs.push_back(std::move(r));
  }
  bench::Policy policy = bench::default_policy();
  if (o.seed >= 0) policy.bootstrap_seed = static_cast<uint64_t>(o.seed);
  if (o.resamples > 0) policy.bootstrap_resamples = o.resamples;
  bench::Comparison c = bench::compare_runs(std::move(runs), policy);

  std::string text;
  if (o.format == "json") text = bench::render_json(c);
  else if (o.format == "csv") text = bench::render_csv(c);
  else if (o.format == "markdown") text = bench::render_markdown(c);
  else text = bench::render_text(c);
  if (!o.html.empty()) write_file_atomic(o.html, bench::render_html(c));
  write_output(o.output, text);
  if (o.format == "csv")  // CSV has no place for prose: warnings go to stderr
    for (const auto& w : bench::all_warnings(c)) std::fprintf(stderr, "banjia: warning: %s\n", w.c_str());

  if (o.fail_on == "slower" && bench::any_significantly_slower(c)) return kExitFindings;
  if (o.fail_on == "warning" && (bench::any_significantly_slower(c) || bench::any_warning(c))) return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_bench(CLI::App& app, int& exit_code) {
  auto* bench = app.add_subcommand("bench", "Benchmark results: compare runs recorded with banjia.bench (or CSV)");
  bench->require_subcommand(1);
  auto opts = std::make_shared<CompareOptions>();
  auto* cmd = bench->add_subcommand(
      "compare", "Compare a baseline run with other runs: median/p95 step time, throughput, memory, power, energy; "
                 "ratios with bootstrap 95 % CIs and a verdict per metric");
  cmd->add_option("files", opts->files, "BASELINE OTHER...: banjia.bench JSON recordings or iteration,ms CSV files")
      ->required()->check(CLI::ExistingPath)->type_name("FILE");
  cmd->add_option("-f,--format", opts->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv", "markdown"}))->capture_default_str();
  cmd->add_option("-o,--output", opts->output, "Write the table to FILE (atomically) instead of stdout")
      ->option_text("FILE");
  cmd->add_option("--html", opts->html, "Also write a self-contained HTML page with per-iteration distributions")
      ->option_text("FILE");
  cmd->add_option("--labels", opts->labels, "Column names, one per file (default: recorded label or file name)")
      ->option_text("A,B,...");
  cmd->add_option("--batch-size", opts->batch_size, "Samples per step for runs that do not record it (CSV)")
      ->check(CLI::Range(bench::kMinMagnitude, bench::kMaxMagnitude));
  cmd->add_option("--sample-unit", opts->sample_unit, "What a sample is, for the throughput row (e.g. images, tokens)");
  cmd->add_option("--seed", opts->seed, "Bootstrap seed (default from data/bench/policy.toml)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--resamples", opts->resamples, "Bootstrap resamples (default from data/bench/policy.toml)")
      ->check(CLI::Range(100, 1000000));
  cmd->add_option("--fail-on", opts->fail_on,
                  "Exit 1 when a run is significantly slower than the baseline (slower), or also on any warning "
                  "(warning); none never fails")
      ->check(CLI::IsMember({"none", "slower", "warning"}))->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  banjia bench compare bench/gpu.json bench/npu.json bench/npu_tuned.json\n"
      "  banjia bench compare --batch-size 64 --labels fp32,bf16 \\\n"
      "      tests/fixtures/gpu-h200/bench/resnet50_fp32.csv \\\n"
      "      tests/fixtures/gpu-h200/bench/resnet50_bf16_channels_last.csv\n"
      "  banjia bench compare -f markdown --html report.html --fail-on slower base.json new.json");
  cmd->callback([opts, &exit_code] { exit_code = run_compare(*opts); });
}

}  // namespace banjia
