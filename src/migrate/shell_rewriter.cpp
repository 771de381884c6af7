#include "migrate/shell_rewriter.h"

#include "env/analysis/translate.h"
#include "rules/sources/shell_scanner.h"

namespace banjia::migrate {

FileRewrite rewrite_shell(std::string_view bytes, const std::string& display, const std::string& target_torch_npu) {
  FileRewrite fr;
  fr.display = display;
  fr.original = std::string(bytes);
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  TranslateOptions options;
  options.target_torch_npu = target_torch_npu;
  fr.rewritten = translate_shell_env(bytes, edits, &notes, options);
  for (const auto& e : edits) fr.changes.push_back({display, e.line, e.column, e.rule, e.before, e.after, FixKind::automatic});
  for (auto& n : notes) {
    n.file = display;
    fr.leftovers.push_back(std::move(n));
  }
  return fr;
}

FileRewrite report_shell(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules) {
  FileRewrite fr;
  fr.display = display;
  fr.original = std::string(bytes);
  fr.rewritten = fr.original;
  rules::scan_shell(bytes, display, rules, fr.leftovers);
  return fr;
}

}  // namespace banjia::migrate
