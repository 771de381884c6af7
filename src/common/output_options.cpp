#include "common/output_options.h"

#include "common/file_io.h"

namespace banjia {

OutputFormat OutputOptions::parsed_format() const { return parse_output_format(format).value_or(OutputFormat::text); }

bool OutputOptions::color_enabled() const {
  auto mode = parse_color_mode(color).value_or(ColorMode::automatic);
  if (output != "-" && !output.empty() && mode == ColorMode::automatic) return false;
  return use_color(mode, 1);
}

std::optional<Severity> OutputOptions::fail_on_level() const {
  std::optional<Severity> level = Severity::error;
  if (!parse_fail_on(fail_on, level)) level = Severity::error;
  return level;
}

int OutputOptions::exit_code(std::optional<Severity> worst) const { return exit_code_for(worst, fail_on_level()); }

void OutputOptions::write(const std::string& text) const { write_output(output, text); }

int OutputOptions::emit(const Report& report) const {
  write(render(report, parsed_format(), color_enabled()));
  return exit_code(worst_severity(report.findings));
}

}  // namespace banjia
