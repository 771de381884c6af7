#include "cli/output_options.h"

#include "common/errors.h"
#include "common/file_io.h"

namespace banjia {

void OutputOptions::add_to(CLI::App* cmd, const std::vector<std::string>& formats,
                           const std::string& default_fail_on) {
  fail_on = default_fail_on;
  cmd->add_option("-f,--format", format, "Output format")->check(CLI::IsMember(formats))->capture_default_str();
  cmd->add_option("-o,--output", output, "Write the report to FILE (atomically) instead of stdout")
      ->option_text("FILE");
  cmd->add_option("--color", color, "Colour in text output: auto (TTY only), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();
  cmd->add_option("--fail-on", fail_on, "Exit 1 when a finding reaches this severity: error, warning, info, none")
      ->check(CLI::IsMember({"error", "warning", "info", "none"}))->capture_default_str();
}

OutputFormat OutputOptions::parsed_format() const { return parse_output_format(format).value_or(OutputFormat::text); }

bool OutputOptions::color_enabled() const {
  auto mode = parse_color_mode(color).value_or(ColorMode::automatic);
  if (output != "-" && !output.empty() && mode == ColorMode::automatic) return false;
  return use_color(mode, 1);
}

std::optional<Severity> OutputOptions::parsed_fail_on() const {
  std::optional<Severity> level = Severity::error;
  if (!parse_fail_on(fail_on, level)) level = Severity::error;
  return level;
}

int OutputOptions::emit(const Report& report) const {
  write_output(output, render(report, parsed_format(), color_enabled()));
  return exit_code_for(report.findings, parsed_fail_on());
}

}  // namespace banjia
