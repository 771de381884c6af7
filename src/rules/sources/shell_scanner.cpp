#include "rules/sources/shell_scanner.h"

#include "common/line_index.h"
#include "env/analysis/translate.h"
#include "rules/core/finding_factory.h"

namespace banjia::rules {

void scan_shell(std::string_view text, const std::string& display, const RuleCatalog& rules, std::vector<Finding>& out) {
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  translate_shell_env(text, edits, &notes);
  const Rule* rule = rules.find("cuda-env-var");
  LineIndex lines(text);
  for (const auto& e : edits) {
    if (!rule) break;
    Finding f = make_finding(*rule, display, lines, e.begin, e.end);
    f.message = rule->message + ": " + e.before + " -> " + e.after;
    f.replacement = e.after;
    if (!e.source.empty()) f.source = e.source;
    out.push_back(std::move(f));
  }
  for (auto& n : notes) {
    n.file = display;
    out.push_back(std::move(n));
  }
}

}  // namespace banjia::rules
