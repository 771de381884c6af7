#include "env/model/knowledge_base.h"

#include <algorithm>

#include <fmt/format.h>

#include "env/model/toml_fields.h"

namespace banjia::env {
namespace {


std::vector<CrossClause> read_clauses(const TomlFields& r, std::string_view key) {
  std::vector<CrossClause> out;
  if (!r.table().contains(key)) return out;
  const auto* arr = r.table()[key].as_array();
  if (!arr) {
    r.problem(fmt::format("'{}' must be an array of tables", key));
    return out;
  }
  for (const auto& node : *arr) {
    const auto* c = node.as_table();
    if (!c) {
      r.problem(fmt::format("'{}' must contain only tables", key));
      continue;
    }
    TomlFields f = r.within(*c);
    CrossClause clause{f.str("var", true), f.str("test", true), f.list("values"), f.str("evidence")};
    if (!clause.test.empty() && !contains(cross_clause_tests(), clause.test))
      r.problem(fmt::format("{}: unknown test '{}'", key, clause.test));
    bool needs_values = clause.test == "equals" || clause.test == "alloc-conf-has";
    if (needs_values && clause.values.empty()) r.problem(fmt::format("{}: test '{}' needs values", key, clause.test));
    if (!needs_values && !clause.values.empty()) r.problem(fmt::format("{}: test '{}' takes no values", key, clause.test));
    if (clause.test == "alloc-conf-has")
      for (const auto& v : clause.values)
        if (v.find(':') == std::string::npos) r.problem(fmt::format("{}: '{}' is not option:value", key, v));
    if (!clause.evidence.empty() && key != "requires_any") r.problem(fmt::format("{}: only requires_any clauses give evidence", key));
    out.push_back(std::move(clause));
  }
  return out;
}

void check_placeholders(const CrossKind& kind, std::string_view name, const std::string& text, const TomlFields& r) {
  auto names = template_placeholders(text);
  if (!names) return r.problem(fmt::format("template '{}' has an unbalanced brace", name));
  for (const auto& n : *names)
    if (!contains(kind.placeholders, n))
      r.problem(fmt::format("template '{}' uses {{{}}}, which kind '{}' does not fill", name, n, kind.name));
}

CrossRule read_rule(const TomlFields& r) {
  CrossRule rule;
  rule.id = r.str("id", true);
  rule.kind = r.str("kind", true);
  rule.summary = r.str("summary", true);
  rule.source = r.str("source", true);
  std::string severity = r.str("severity", true);
  if (auto s = parse_severity(severity)) rule.severity = *s;
  else if (!severity.empty()) r.problem("unknown severity '" + severity + "' (error, warning, info)");
  rule.at = read_clauses(r, "at");
  rule.requires_any = read_clauses(r, "requires_any");
  rule.unless = read_clauses(r, "unless");
  rule.longer = r.str("longer");
  rule.shorter = r.str("shorter");
  if (auto v = r.integer("never")) rule.never = *v;
  if (const auto* example = r.table()["example"].as_table()) {
    TomlFields f = r.within(*example);
    rule.example_script = f.str("script", true);
    rule.example_line = f.integer("line").value_or(0);
    if (rule.example_line <= 0) r.problem("example: 'line' must be the line of its finding (from 1)");
  } else if (r.table().contains("example")) {
    r.problem("'example' must be a table of script and line");
  }
  const CrossKind* kind = cross_rule_kind(rule.kind);
  if (!kind) {
    if (!rule.kind.empty()) r.problem("unknown kind '" + rule.kind + "'");
    return rule;
  }
  for (const auto& name : kind->templates) {
    rule.templates[name] = r.str(name, true);
    check_placeholders(*kind, name, rule.templates[name], r);
  }
  for (const auto& c : rule.requires_any)
    if (!c.evidence.empty()) check_placeholders(*kind, "requires_any evidence", c.evidence, r);
  bool assignment = rule.kind == "assignment", timeout = rule.kind == "timeout-order";
  if (assignment && rule.at.empty()) r.problem("kind 'assignment' needs 'at'");
  if (!assignment && (!rule.at.empty() || !rule.requires_any.empty() || !rule.unless.empty()))
    r.problem("only kind 'assignment' takes at, requires_any and unless");
  if (timeout && (rule.longer.empty() || rule.shorter.empty())) r.problem("kind 'timeout-order' needs longer and shorter");
  if (!timeout && (!rule.longer.empty() || !rule.shorter.empty() || rule.never))
    r.problem("only kind 'timeout-order' takes longer, shorter and never");
  return rule;
}

}  // namespace

void load_cross_rules(const toml::table& root, const std::string& path, KnowledgeBase& kb) {
  each_table(root, "cross_rule", path, kb.problems, [&](const toml::table&, const TomlFields& fields) {
    CrossRule rule = read_rule(fields);
    kb.rules.push_back({rule.id, rule.summary, rule.source});
    kb.cross_rules.push_back(std::move(rule));
  });
}

}  // namespace banjia::env
