// `banjia env check`, `env translate` and `env doctor`: the subcommands that read files or the system.
#include "env/command.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "env/analysis/checker.h"
#include "env/report/cross_rule_page.h"
#include "env/analysis/doctor.h"
#include "env/analysis/subprocess.h"
#include "env/analysis/translate.h"

namespace banjia::env {
namespace {

std::optional<EnvFileKind> parse_kind(const std::string& s) {
  if (s == "shell") return EnvFileKind::shell;
  if (s == "dotenv") return EnvFileKind::dotenv;
  if (s == "dockerfile") return EnvFileKind::dockerfile;
  return std::nullopt;
}

// Environment scripts, .env files and Dockerfiles are a few KiB; the cap only stops a device or a
// huge file from being read into memory whole.
constexpr size_t kMaxScriptBytes = size_t{16} << 20;

std::string read_text(const std::string& path) { return read_text_file(path, kMaxScriptBytes, "a script"); }

std::vector<RuleInfo> env_rules() {
  std::vector<RuleInfo> out;
  for (const auto& r : knowledge_base().rules) out.push_back({r.id, r.summary, r.source, ""});
  return out;
}

void count_summary(Report& report, size_t assignments) {
  size_t e = 0, w = 0, i = 0;
  for (const auto& f : report.findings)
    (f.severity == Severity::error ? e : f.severity == Severity::warning ? w : i)++;
  report.summary_json = [=](JsonWriter& j) {
    j.field("assignments", static_cast<uint64_t>(assignments)).field("errors", static_cast<uint64_t>(e))
        .field("warnings", static_cast<uint64_t>(w)).field("infos", static_cast<uint64_t>(i));
  };
  report.summary_text = fmt::format("{} assignment(s) checked: {} error(s), {} warning(s), {} info\n", assignments, e, w, i);
}

}  // namespace

int run_env_check(const EnvCheckOptions& a, const OutputOptions& out) {
  if (!a.explain.empty()) {
    out.write(cross_rule_page(a.explain));
    return kExitOk;
  }
  Report report;
  report.command = "env check";
  report.rules = env_rules();
  Purpose purpose = a.purpose == "debug" ? Purpose::debug : Purpose::production;
  size_t assignments = 0;
  if (a.files.empty()) {
    const std::vector<std::string> entries = current_environment();
    report.findings = check_environment(entries, purpose);
    assignments = entries.size();
  }
  for (const auto& file : a.files) {
    std::string text = read_text(file);
    EnvFileKind kind = a.type == "auto" ? detect_env_file_kind(file) : *parse_kind(a.type);
    auto parsed = parse_env_file(text, kind);
    assignments += parsed.assignments.size();
    for (auto& f : check_parsed_file(file, parsed, purpose)) report.findings.push_back(std::move(f));
    ++report.files_scanned;
  }
  count_summary(report, assignments);
  return out.emit(report);
}

int run_env_translate(const EnvTranslateOptions& a) {
  if (a.files.size() > 1 && !a.in_place && !a.check)
    throw InputError("", "several files need --in-place or --check (stdout takes one file)");
  if (a.in_place && !a.output.empty()) throw InputError("", "--in-place and --output exclude each other");
  // Checked before any file is read, so that a refusal is the only line on stderr.
  for (const auto& file : a.files) note_input_file(file);
  if (!a.output.empty() && a.output != "-") refuse_if_input(a.output);
  bool changed = false;
  for (const auto& file : a.files) {
    std::string text = read_text(file);
    EnvFileKind kind = a.type == "auto" ? detect_env_file_kind(file) : *parse_kind(a.type);
    std::vector<ShellEdit> edits;
    std::vector<Finding> notes;
    TranslateOptions options;
    options.target_torch_npu = a.target_torch_npu;
    std::string result = translate_env_file(text, kind, edits, &notes, options);
    changed = changed || result != text;
    // Report every edit and note on stderr (stdout stays the translated file), in the order of the
    // file as a compiler would: a note on line 3 after line 5's edit is easy to miss. An edit comes
    // before a note at the same place (stable sort).
    struct Message {
      int line, column;
      std::string text;
    };
    std::vector<Message> messages;
    for (const auto& e : edits)
      messages.push_back({e.line, e.column, fmt::format("{}: {} -> {}", e.rule, e.before, e.after)});
    for (const auto& n : notes)
      messages.push_back({n.line, n.column, fmt::format("{}: {} [{}]", to_string(n.severity), n.message, n.rule)});
    std::stable_sort(messages.begin(), messages.end(), [](const Message& x, const Message& y) {
      return std::tie(x.line, x.column) < std::tie(y.line, y.column);
    });
    for (const auto& m : messages) fmt::print(stderr, "{}:{}:{}: {}\n", file, m.line, m.column, m.text);
    if (a.check) continue;
    if (a.in_place) {
      if (result != text) replace_file_atomic(file, result);
    } else {
      write_output(a.output, result);
    }
  }
  return a.check && changed ? kExitFindings : kExitOk;
}

int run_env_doctor(const DoctorOptions& options, const OutputOptions& out) {
  Report report = run_doctor(options);
  report.rules = env_rules();
  return out.emit(report);
}

}  // namespace banjia::env
