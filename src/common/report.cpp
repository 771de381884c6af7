#include "common/report.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/safe_paths.h"

#ifndef BANJIA_VERSION
#define BANJIA_VERSION "0.0.0"
#endif

namespace banjia {

std::string banjia_version() { return BANJIA_VERSION; }

std::optional<OutputFormat> parse_output_format(std::string_view s) {
  if (s == "text") return OutputFormat::text;
  if (s == "json") return OutputFormat::json;
  if (s == "csv") return OutputFormat::csv;
  if (s == "sarif") return OutputFormat::sarif;
  return std::nullopt;
}

std::optional<ColorMode> parse_color_mode(std::string_view s) {
  if (s == "auto") return ColorMode::automatic;
  if (s == "always") return ColorMode::always;
  if (s == "never") return ColorMode::never;
  return std::nullopt;
}

bool use_color(ColorMode mode, int fd) {
  if (mode == ColorMode::always) return true;
  if (mode == ColorMode::never) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return ::isatty(fd) != 0;
}

namespace {
// The findings in report order, by pointer: copying them (eight strings each) cost more than
// writing them out.
std::vector<const Finding*> sorted(const std::vector<Finding>& findings) {
  std::vector<const Finding*> v;
  v.reserve(findings.size());
  for (const Finding& f : findings) v.push_back(&f);
  stable_sort_unless_sorted(v.begin(), v.end(), [](const Finding* a, const Finding* b) { return finding_less(*a, *b); });
  return v;
}

void write_finding(JsonWriter& w, const Finding& f) {
  w.begin_object();
  w.field("file", f.file);
  w.field("line", f.line).field("column", f.column);
  w.field("end_line", f.end_line).field("end_column", f.end_column);
  w.field("rule", f.rule).field("category", f.category);
  w.field("severity", to_string(f.severity)).field("fix", to_string(f.fix));
  w.field("message", f.message);
  w.field("replacement", f.replacement);
  w.field("source", f.source);
  if (!f.suggestion.empty()) w.field("suggestion", f.suggestion);
  if (!f.evidence.empty()) w.field("evidence", f.evidence);
  if (f.est_saving_us) w.field("est_saving_us", *f.est_saving_us);
  w.end_object();
}
}  // namespace

std::string render_json(const Report& r) {
  JsonWriter w;
  w.begin_object();
  w.field("tool", "banjia").field("version", banjia_version()).field("command", r.command);
  w.field("files_scanned", r.files_scanned);
  w.key("summary").begin_object();
  if (r.summary_json) r.summary_json(w);
  w.end_object();
  w.key("findings").begin_array();
  for (const Finding* f : sorted(r.findings)) write_finding(w, *f);
  w.end_array();
  w.end_object();
  std::string out = w.take();
  out.push_back('\n');
  return out;
}

std::string csv_field(std::string_view s) {
  bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos ||
               (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string render_csv(const Report& r) {
  std::string out =
      "file,line,column,end_line,end_column,rule,category,severity,fix,message,replacement,source\n";
  for (const Finding* p : sorted(r.findings)) {
    const Finding& f = *p;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(f.file), f.line, f.column,
                       f.end_line, f.end_column, csv_field(f.rule), csv_field(f.category),
                       to_string(f.severity), to_string(f.fix), csv_field(f.message),
                       csv_field(f.replacement.value_or("")), csv_field(f.source));
  }
  return out;
}

std::string render_sarif(const Report& r) {
  auto findings = sorted(r.findings);
  std::map<std::string, RuleInfo> rules;
  for (const auto& ri : r.rules) rules[ri.id] = ri;
  for (const Finding* f : findings)
    if (!rules.count(f->rule)) rules[f->rule] = RuleInfo{f->rule, f->category, f->source, ""};
  std::map<std::string, size_t> rule_index;
  JsonWriter w;
  w.begin_object();
  w.field("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  w.field("version", "2.1.0");
  w.key("runs").begin_array().begin_object();
  w.key("tool").begin_object().key("driver").begin_object();
  w.field("name", "banjia").field("version", banjia_version());
  w.field("informationUri", "https://github.com/banjia/banjia");
  w.key("rules").begin_array();
  size_t idx = 0;
  for (const auto& [id, ri] : rules) {
    rule_index[id] = idx++;
    w.begin_object().field("id", id);
    w.key("shortDescription").begin_object().field("text", ri.summary.empty() ? id : ri.summary).end_object();
    if (!ri.help_uri.empty()) w.field("helpUri", ri.help_uri);
    w.key("help").begin_object().field("text", ri.help_text.empty() ? "Source: " + ri.source : ri.help_text);
    if (!ri.help_markdown.empty()) w.field("markdown", ri.help_markdown);
    w.end_object();
    w.key("properties").begin_object().field("source", ri.source).end_object();
    w.end_object();
  }
  w.end_array().end_object().end_object();  // rules, driver, tool
  w.field("columnKind", "unicodeCodePoints");
  w.key("results").begin_array();
  for (const Finding* p : findings) {
    const Finding& f = *p;
    w.begin_object();
    w.field("ruleId", f.rule).field("ruleIndex", static_cast<uint64_t>(rule_index[f.rule]));
    std::string_view level = f.severity == Severity::error ? "error"
                             : f.severity == Severity::warning ? "warning" : "note";
    w.field("level", level);
    std::string text = f.message;
    if (f.replacement) text += " Replacement: " + *f.replacement;
    w.key("message").begin_object().field("text", text).end_object();
    w.key("locations").begin_array().begin_object();
    w.key("physicalLocation").begin_object();
    w.key("artifactLocation").begin_object().field("uri", f.file.empty() ? std::string("(environment)") : f.file).end_object();
    if (f.line > 0) {
      w.key("region").begin_object().field("startLine", f.line);
      if (f.column > 0) w.field("startColumn", f.column);
      if (f.end_line > 0) w.field("endLine", f.end_line);
      if (f.end_column > 0) w.field("endColumn", f.end_column);
      w.end_object();
    }
    w.end_object().end_object().end_array();  // physicalLocation, location, locations
    w.key("properties").begin_object().field("category", f.category).field("fix", to_string(f.fix))
        .field("source", f.source).end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object().end_array();  // run, runs
  w.end_object();
  std::string out = w.take();
  out.push_back('\n');
  return out;
}

std::string render_text(const Report& r, bool color) {
  auto paint = [&](std::string_view code, std::string_view s) {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : std::string(s);
  };
  std::string out = r.summary_text;
  auto findings = sorted(r.findings);
  if (!out.empty() && !findings.empty()) out += "\n";
  std::string current;
  for (const Finding* p : findings) {
    const Finding& f = *p;
    if (f.file != current) {
      current = f.file;
      // A file name may hold a newline or an escape sequence: printed inert, on its one line.
      out += paint("1", current.empty() ? std::string("(no file)") : printable(current)) + "\n";
    }
    std::string_view sev_color = f.severity == Severity::error ? "31" : f.severity == Severity::warning ? "33" : "36";
    std::string loc = f.line > 0 ? fmt::format("{}:{}", f.line, f.column) : std::string("-");
    out += fmt::format("  {:>8}  {} {} [{}] {}\n", loc, paint(sev_color, to_string(f.severity)),
                       paint("2", std::string(to_string(f.fix))), f.rule, printable(f.message));
    if (f.replacement) out += fmt::format("            -> {}\n", *f.replacement);
    if (!f.suggestion.empty()) out += fmt::format("            suggestion: {}\n", f.suggestion);
    if (!f.evidence.empty()) out += fmt::format("            evidence: {}\n", f.evidence);
    out += fmt::format("            source: {}\n", f.source);
  }
  return out;
}

std::string render(const Report& r, OutputFormat format, bool color) {
  switch (format) {
    case OutputFormat::json: return render_json(r);
    case OutputFormat::csv: return r.csv_table ? r.csv_table() : render_csv(r);
    case OutputFormat::sarif: return render_sarif(r);
    case OutputFormat::text: return render_text(r, color);
  }
  return render_text(r, color);
}

bool parse_fail_on(std::string_view s, std::optional<Severity>& out) {
  if (s == "none" || s == "never") {
    out.reset();
    return true;
  }
  out = parse_severity(s);
  return out.has_value();
}

std::optional<Severity> worst_severity(const std::vector<Finding>& findings) {
  std::optional<Severity> worst;
  for (const auto& f : findings)
    if (!worst || static_cast<int>(f.severity) > static_cast<int>(*worst)) worst = f.severity;
  return worst;
}

int exit_code_for(std::optional<Severity> worst, std::optional<Severity> fail_on) {
  return worst && fail_on && static_cast<int>(*worst) >= static_cast<int>(*fail_on) ? kExitFindings : kExitOk;
}

}  // namespace banjia
