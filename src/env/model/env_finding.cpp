#include "env/model/env_finding.h"

#include "env/model/knowledge_base.h"

namespace banjia::env {

Finding make_finding(const Site& site, std::string_view rule, Severity severity, std::string message,
                     std::string suggestion, std::string source, FixKind fix) {
  knowledge_base().rule(rule);  // every emitted rule must be documented in data/env
  return make_listed_rule_finding(site, rule, severity, std::move(message), std::move(suggestion), std::move(source),
                                  fix);
}

Finding make_listed_rule_finding(const Site& site, std::string_view rule, Severity severity, std::string message,
                                 std::string suggestion, std::string source, FixKind fix) {
  Finding f;
  f.file = site.file;
  f.line = site.line;
  f.column = site.column;
  f.rule = std::string(rule);
  f.category = "environment";
  f.severity = severity;
  f.fix = fix;
  f.message = std::move(message);
  f.suggestion = std::move(suggestion);
  f.source = std::move(source);
  return f;
}

}  // namespace banjia::env
