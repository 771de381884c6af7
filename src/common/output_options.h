// What a reporting verb's output flags hold (--format, --output, --color, --fail-on, --html), and the
// one way every verb writes its report and derives its exit code from them. The flags themselves are
// registered by the CLI layer (cli/output_flags.h); this header stays free of CLI11 so capability
// libraries and their tests can fill it in directly.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/report.h"

namespace banjia {

struct OutputOptions {
  std::string format = "text";  // one of the formats the verb registered
  std::string output = "-";     // "-" or empty: stdout
  std::string color = "auto";   // auto, always, never
  std::string fail_on = "error";  // error, warning, info, none
  std::string html;             // a file for the HTML report; empty: none (verbs that render HTML)

  OutputFormat parsed_format() const;  // for verbs that render a Report
  // Colour for the stream the report goes to: never for a file; in auto mode only on a TTY and only
  // when NO_COLOR is unset or empty (no-color.org).
  bool color_enabled() const;
  std::optional<Severity> fail_on_level() const;  // empty for "none"
  // Exit code for a result whose worst finding has severity `worst` (empty: nothing found).
  int exit_code(std::optional<Severity> worst) const;
  // Writes `text` to --output (atomically for a file).
  void write(const std::string& text) const;
  // Renders the report in --format, writes it to --output, returns the exit code implied by --fail-on.
  int emit(const Report& report) const;
};

}  // namespace banjia
