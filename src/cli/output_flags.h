// Registers the output flags every reporting verb shares (-f/--format, -o/--output, --color,
// --fail-on, --html) on a CLI11 subcommand, bound to an OutputOptions.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/output_options.h"

namespace banjia {

struct OutputFlags {
  std::vector<std::string> formats = {"text", "json", "csv", "sarif"};  // what --format accepts
  std::string default_fail_on = "error";
  // What each --fail-on level means for this verb's results, for its help line.
  std::string fail_on_help = "Exit 1 when a finding reaches this severity";
  // Deprecated spellings of --fail-on this verb accepts, each with the level it stands for: users' CI
  // scripts keep working, and each use says so once on stderr.
  std::vector<std::pair<std::string, std::string>> deprecated_fail_on;
  bool color = true;  // text output has colour
  bool html = false;  // the verb renders an HTML report
};

void add_output_flags(CLI::App* cmd, OutputOptions& out, const OutputFlags& flags = {});

// --max-input-size SIZE for a verb that reads compressed inputs (common/input_limits.h).
void add_max_input_size_flag(CLI::App* cmd);

// The sentence every reporting verb's help footer ends with.
inline constexpr const char* kOutputFlagsFooter =
    "Output flags and --fail-on levels are shared by every verb: see docs/cli/banjia.md.";

}  // namespace banjia
