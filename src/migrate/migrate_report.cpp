#include "migrate/migrate_report.h"

#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/json_writer.h"
#include "common/report.h"
#include "common/safe_paths.h"

namespace banjia::migrate {

namespace {

// Per rule with a caution: the caution once, then where its changes are (the code around them must
// respect it).
std::string cautions_text(const MigratePlan& plan) {
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> by_rule;
  for (const auto& pf : plan.files)
    for (const auto& c : pf.rewrite.changes)
      if (!c.caution.empty()) by_rule[{c.rule, c.caution}].push_back(fmt::format("{}:{}", c.file, c.line));
  if (by_rule.empty()) return {};
  std::string out = "  check the code around these changes:\n";
  for (const auto& [key, places] : by_rule) {
    out += fmt::format("    [{}] {}\n", key.first, key.second);
    for (size_t i = 0; i < places.size() && i < 10; ++i) out += fmt::format("      {}\n", places[i]);
    if (places.size() > 10) out += fmt::format("      ... and {} more (see --report)\n", places.size() - 10);
  }
  return out;
}

}  // namespace

MigrateTotals totals(const MigratePlan& plan) {
  MigrateTotals t;
  t.files_examined = plan.rewritable;
  for (const auto& pf : plan.files) {
    const auto& fr = pf.rewrite;
    if (pf.kind == PlannedFile::Kind::rewrite && fr.changed()) ++t.files_changed;
    if (pf.kind == PlannedFile::Kind::shim) ++t.shim_files;
    for (const auto& c : fr.changes) {
      ++t.edits;
      ++t.edits_by_rule[c.rule];
    }
    if (!fr.gpu_paths.empty()) ++t.npu_aware_files;
    for (const auto& f : fr.leftovers) {
      if (f.rule == "input-error") ++t.errors;
      else ++t.leftovers;
      ++t.leftovers_by_rule[f.rule];
    }
  }
  return t;
}

std::string summary_text(const MigratePlan& plan, const MigrateTotals& t, const MigrateOptions& o) {
  std::string out = fmt::format("banjia migrate: {} files examined, {} changed, {} edits; {} items left for manual work",
                                t.files_examined, t.files_changed, t.edits, t.leftovers);
  if (t.errors) out += fmt::format(", {} files not rewritten (errors)", t.errors);
  out += o.write ? (o.in_place ? " (in place)\n" : fmt::format(" -> {}\n", printable(o.output.value_or("?")))) : " (nothing written)\n";
  if (!t.edits_by_rule.empty()) {
    out += "  edits by rule:\n";
    for (const auto& [r, n] : t.edits_by_rule) out += fmt::format("    {:<28} {:>5}\n", r, n);
  }
  out += cautions_text(plan);
  if (t.shim_files) {
    out += fmt::format("  new files{} (shim modules the redirected imports beside them use; launch scripts):\n",
                       o.write ? " written" : " to write");
    for (const auto& pf : plan.files)
      if (pf.kind == PlannedFile::Kind::shim)
        out += fmt::format("    {}  ({}, {})\n", printable(pf.relative), pf.shim_library, pf.shim_rule);
  }
  if (t.npu_aware_files) {
    out += fmt::format("  already support the NPU (CUDA branches kept as the GPU path): {} files\n", t.npu_aware_files);
    for (const auto& pf : plan.files)
      for (const auto& f : pf.rewrite.gpu_paths) out += fmt::format("    {}:{}: {}\n", f.file, f.line, f.message);
  }
  if (!t.leftovers_by_rule.empty()) {
    out += "  left for a person, by rule:\n";
    for (const auto& [r, n] : t.leftovers_by_rule) out += fmt::format("    {:<28} {:>5}\n", r, n);
    out += "  items:\n";
    for (const auto& pf : plan.files)
      for (const auto& f : pf.rewrite.leftovers)
        out += fmt::format("    {}:{}:{}: {} [{}] {}\n", printable(f.file), f.line, f.column, to_string(f.fix), f.rule,
                           printable(f.message));
  }
  return out;
}

std::string report_json(const MigratePlan& plan, const MigrateTotals& t, const MigrateOptions& o) {
  JsonWriter w;
  w.begin_object();
  w.field("tool", "banjia").field("version", banjia_version()).field("command", "migrate");
  w.field("source", o.source);
  if (o.output) w.field("output", *o.output);
  else w.key("output").null();
  w.field("in_place", o.in_place);
  w.field("target", o.rewrite.target);
  w.key("summary").begin_object();
  w.field("files_examined", static_cast<uint64_t>(t.files_examined));
  w.field("files_changed", static_cast<uint64_t>(t.files_changed));
  w.field("edits", static_cast<uint64_t>(t.edits));
  w.field("left_for_manual_work", static_cast<uint64_t>(t.leftovers));
  w.field("errors", static_cast<uint64_t>(t.errors));
  w.field("npu_aware_files", static_cast<uint64_t>(t.npu_aware_files));
  w.field("shim_files", static_cast<uint64_t>(t.shim_files));
  w.key("edits_by_rule").begin_object();
  for (const auto& [r, n] : t.edits_by_rule) w.field(r, static_cast<uint64_t>(n));
  w.end_object();
  w.end_object();
  w.key("changes").begin_array();
  for (const auto& pf : plan.files)
    for (const auto& c : pf.rewrite.changes) {
      w.begin_object().field("file", c.file).field("line", c.line).field("column", c.column).field("rule", c.rule);
      w.field("before", c.before).field("after", c.after).field("fix", to_string(c.fix));
      if (!c.caution.empty()) w.field("caution", c.caution);
      w.end_object();
    }
  w.end_array();
  w.key("shims").begin_array();
  for (const auto& pf : plan.files)
    if (pf.kind == PlannedFile::Kind::shim)
      w.begin_object().field("file", pf.relative).field("library", pf.shim_library).field("rule", pf.shim_rule).end_object();
  w.end_array();
  w.key("gpu_paths_kept").begin_array();
  for (const auto& pf : plan.files)
    for (const auto& f : pf.rewrite.gpu_paths)
      w.begin_object().field("file", f.file).field("line", f.line).field("message", f.message).end_object();
  w.end_array();
  w.key("manual").begin_array();
  for (const auto& pf : plan.files)
    for (const auto& f : pf.rewrite.leftovers) {
      w.begin_object().field("file", f.file).field("line", f.line).field("column", f.column).field("rule", f.rule);
      w.field("category", f.category).field("severity", to_string(f.severity)).field("fix", to_string(f.fix));
      w.field("message", f.message).field("replacement", f.replacement).field("source", f.source).end_object();
    }
  w.end_array();
  w.end_object();
  return w.take() + "\n";
}

std::string report_csv(const MigratePlan& plan) {
  std::string out = "file,line,column,rule,before,after,fix\n";
  for (const auto& pf : plan.files) {
    if (pf.kind == PlannedFile::Kind::shim)
      out += fmt::format("{},0,0,{},,{},automatic\n", csv_field(pf.relative), csv_field(pf.shim_rule),
                         csv_field("new file: shim for " + pf.shim_library));
    for (const auto& c : pf.rewrite.changes)
      out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(c.file), c.line, c.column, csv_field(c.rule),
                         csv_field(c.before), csv_field(c.after), to_string(c.fix));
    for (const auto& f : pf.rewrite.leftovers)
      out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(f.file), f.line, f.column, csv_field(f.rule), "",
                         csv_field(f.replacement.value_or("")), to_string(f.fix));
  }
  return out;
}

}  // namespace banjia::migrate
