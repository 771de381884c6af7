// Rules across variables as data (data/env/cross_rules.toml): each rule names one condition kind and
// gives its parameters, severity, message templates, summary and source. The code here only knows the
// kinds; adding a rule that an existing kind can express needs no change to C++.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"

namespace banjia::env {

// One test of one variable of the final environment ("set", "equals", "integer-nonzero", ...).
struct CrossClause {
  std::string var, test;
  std::vector<std::string> values;
  std::string evidence;  // a requires_any clause may say the evidence itself, when it is what held
};

struct CrossRule {
  std::string id, kind, summary, source;
  Severity severity = Severity::warning;
  // kind "assignment": a finding at each `at` clause that holds, when one of `requires_any` holds
  // (or it is empty) and none of `unless` does.
  std::vector<CrossClause> at, requires_any, unless;
  // kind "timeout-order": `longer` must be greater than `shorter`; `never` is the value meaning no timeout.
  std::string longer, shorter;
  std::optional<long long> never;
  // Message templates by name ("evidence", "suggestion", and the variants a kind uses), with
  // {placeholder}s the kind fills; {{ and }} are literal braces.
  std::map<std::string, std::string> templates;
  // A script it fires on, and the line of the finding ([cross_rule.example]): the rule's page shows
  // it, and the tests check that the rule fires there.
  std::string example_script;
  long long example_line = 0;
};

struct KnowledgeBase;
struct Setting;

// One condition kind, the unit a rule names: the templates a rule of that kind must give, the
// placeholders it fills, what it tests (for the rule pages) and its check, which appends a finding per
// firing of `rule` on the final environment. The kinds are registered in
// env/analysis/checker_cross_rules.cpp, one line each, beside their checks (which read the final
// Environment of env/analysis/checker.h: Setting is only declared here); a rule naming an unknown kind
// is a load problem, a kind no rule names a test failure (kinds_without_rules).
struct CrossKind {
  using Check = void (*)(const KnowledgeBase& kb, const CrossRule& rule, const std::map<std::string, Setting>& env,
                         std::vector<Finding>& out);
  std::string name;
  std::vector<std::string> templates, placeholders;
  std::string description;
  Check check = nullptr;
};
const std::vector<CrossKind>& cross_rule_kinds();
const CrossKind* cross_rule_kind(std::string_view name);
// The registered kinds that no rule of `rules` names, in registry order.
std::vector<std::string> kinds_without_rules(const std::vector<CrossRule>& rules);
// The tests a clause may name.
const std::vector<std::string>& cross_clause_tests();

// The names between braces in a template, or nullopt when a brace is unbalanced.
std::optional<std::vector<std::string>> template_placeholders(std::string_view text);
// `text` with each {name} replaced by values.at(name) (an unknown name is left as it is).
std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values);

}  // namespace banjia::env
