#include "rules/core/finding_factory.h"

namespace banjia::rules {

Finding make_finding(const Rule& rule, const std::string& file, const LineIndex& lines, size_t begin, size_t end) {
  Finding f;
  f.file = file;
  f.line = lines.line(begin);
  f.column = lines.column(begin);
  f.end_line = lines.line(end);
  f.end_column = lines.column(end);
  f.rule = rule.id;
  f.category = rule.category;
  f.severity = rule.severity;
  f.fix = rule.fix;
  f.message = rule.message;
  f.replacement = rule.replacement;
  f.source = rule.source;
  return f;
}

}  // namespace banjia::rules
