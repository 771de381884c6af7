#include "env/report/cross_rule_page.h"

#include <fmt/format.h>

#include "common/errors.h"
#include "env/analysis/checker.h"
#include "common/fuzzy.h"

namespace banjia::env {

namespace {
std::string clause_text(const CrossClause& c) {
  std::string o = fmt::format("`{}` {}", c.var, c.test);
  for (size_t i = 0; i < c.values.size(); ++i) o += fmt::format("{}`{}`", i ? ", " : " ", c.values[i]);
  if (!c.evidence.empty()) o += fmt::format(" (evidence: `{}`)", c.evidence);
  return o;
}

void clauses(std::string& o, std::string_view label, const std::vector<CrossClause>& list) {
  for (const auto& c : list) o += fmt::format("- {}: {}\n", label, clause_text(c));
}

// What `env check` reports for `rule` on its example script, one line per finding.
std::string example_findings(const CrossRule& rule) {
  auto found = check_parsed_file("example.sh", parse_env_file(rule.example_script, EnvFileKind::shell), Purpose::production);
  std::string o;
  for (const auto& f : found)
    if (f.rule == rule.id) o += fmt::format("line {}: {}\n", f.line, f.evidence);
  return o.empty() ? "(no finding: the example is out of date)\n" : o;
}

std::string page(const CrossRule& r, const CrossKind& kind) {
  std::string o = fmt::format("# {}\n\n{}\n\n| | |\n|---|---|\n", r.id, r.summary);
  o += "| Family | rule across variables (`banjia env check`) |\n";
  o += fmt::format("| Severity | `{}` |\n| Kind | `{}` |\n", to_string(r.severity), r.kind);
  o += "| Defined in | `data/env/cross_rules.toml` |\n";
  o += fmt::format("\n## Condition\n\nKind `{}`: {}.\n\n", kind.name, kind.description);
  clauses(o, "at", r.at);
  clauses(o, "requires any", r.requires_any);
  clauses(o, "unless", r.unless);
  if (!r.longer.empty()) o += fmt::format("- longer: `{}`\n- shorter: `{}`\n", r.longer, r.shorter);
  if (r.never) o += fmt::format("- never: `{}`\n", *r.never);
  o += "\n## What it reports\n\n";
  for (const auto& name : kind.templates) o += fmt::format("- {}: `{}`\n", name, r.templates.at(name));
  if (!r.example_script.empty())
    o += fmt::format("\n## Example\n\n```sh\n{}```\n\n`banjia env check` reports:\n\n```text\n{}```\n", r.example_script,
                     example_findings(r));
  o += fmt::format("\n## Source\n\n{}\n", r.source);
  return o;
}
}  // namespace

std::string cross_rule_page(std::string_view id) {
  const KnowledgeBase& kb = knowledge_base();
  std::vector<std::string> ids;
  for (const auto& r : kb.cross_rules) {
    if (r.id == id)
      if (const CrossKind* kind = cross_rule_kind(r.kind)) return page(r, *kind);
    ids.push_back(r.id);
  }
  throw InputError(std::string(id), no_such("rule across variables", id, ids));
}

}  // namespace banjia::env
