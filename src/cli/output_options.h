// Options every reporting verb shares: --format, --output, --color, --fail-on.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/report.h"

namespace banjia {

struct OutputOptions {
  std::string format = "text";
  std::string output = "-";
  std::string color = "auto";
  std::string fail_on = "error";

  // `formats` lists the values --format accepts for this verb.
  void add_to(CLI::App* cmd, const std::vector<std::string>& formats = {"text", "json", "csv", "sarif"},
              const std::string& default_fail_on = "error");
  OutputFormat parsed_format() const;
  bool color_enabled() const;  // for the stream the output goes to
  std::optional<Severity> parsed_fail_on() const;
  // Renders the report, writes it to --output, returns the exit code implied by --fail-on.
  int emit(const Report& report) const;
};

}  // namespace banjia
