// A verb's result as a list of findings plus a verb-specific summary, and the writers that render
// it: text (grouped by file), JSON (the stable public schema), CSV and SARIF 2.1.0.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "common/json_writer.h"

namespace banjia {

enum class OutputFormat { text, json, csv, sarif };
std::optional<OutputFormat> parse_output_format(std::string_view s);

enum class ColorMode { automatic, always, never };
std::optional<ColorMode> parse_color_mode(std::string_view s);
// True when colour should be used for a stream (stdout when fd==1): forced, or in automatic mode a
// TTY while NO_COLOR is unset or empty (no-color.org).
bool use_color(ColorMode mode, int fd);

// Description of a rule for SARIF's tool.driver.rules and text help.
struct RuleInfo {
  std::string id;
  std::string summary;   // one line
  std::string source;
  std::string help_uri;  // optional: an absolute URI of the rule's documentation page
  std::string help_text;      // optional: the page as plain text (SARIF help.text)
  std::string help_markdown;  // optional: the page in Markdown (SARIF help.markdown)
};

struct Report {
  std::string command;           // e.g. "scan"
  int files_scanned = 0;
  std::vector<Finding> findings;  // writers sort them
  std::vector<RuleInfo> rules;    // for SARIF; rules without info get a generic entry
  // Writes the members of the JSON "summary" object (called between begin_object/end_object).
  std::function<void(JsonWriter&)> summary_json;
  // Text printed before the findings (statistics block); may be empty.
  std::string summary_text;
  // The verb's own CSV (a table of its summary), written by --format csv in place of the findings
  // table; unset: the findings table.
  std::function<std::string()> csv_table;
};

std::string render_json(const Report& report);
std::string render_csv(const Report& report);
std::string render_sarif(const Report& report);
std::string render_text(const Report& report, bool color);
std::string render(const Report& report, OutputFormat format, bool color);

// CSV field quoting per RFC 4180.
std::string csv_field(std::string_view s);

// --fail-on: "error", "warning", "info" or "none" (docs/cli/banjia.md). Returns false for an unknown
// level; `out` is empty for "none".
bool parse_fail_on(std::string_view s, std::optional<Severity>& out);
// The highest severity among `findings`; empty when there are none.
std::optional<Severity> worst_severity(const std::vector<Finding>& findings);
// kExitFindings when `worst` reaches the --fail-on level `fail_on`, else kExitOk.
int exit_code_for(std::optional<Severity> worst, std::optional<Severity> fail_on);

std::string banjia_version();

}  // namespace banjia
