#include "migrate/shell_rewriter.h"

#include "env/translate.h"

namespace banjia::migrate {

FileRewrite rewrite_shell(std::string_view bytes, const std::string& display) {
  FileRewrite fr;
  fr.display = display;
  fr.original = std::string(bytes);
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  fr.rewritten = translate_shell_env(bytes, edits, &notes);
  for (const auto& e : edits) fr.changes.push_back({display, e.line, e.column, e.rule, e.before, e.after, FixKind::automatic});
  for (auto& n : notes) {
    n.file = display;
    fr.leftovers.push_back(std::move(n));
  }
  return fr;
}

}  // namespace banjia::migrate
