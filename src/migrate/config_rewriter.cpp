#include "migrate/config_rewriter.h"

#include <algorithm>

#include "common/errors.h"
#include "common/line_index.h"
#include "rules/core/source_files.h"
#include "rules/sources/config_scanner.h"

namespace banjia::migrate {

FileRewrite rewrite_config(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules) {
  FileRewrite fr;
  fr.display = display;
  fr.original = std::string(bytes);
  fr.rewritten = fr.original;
  const auto format = rules::config_format(display.substr(display.rfind('/') + 1));
  if (!format) return fr;
  if (bytes.size() > rules::kMaxConfigBytes) {
    std::vector<Finding> skipped;
    rules::scan_config(bytes, display, rules, skipped);
    fr.leftovers = std::move(skipped);
    return fr;
  }
  std::vector<rules::ConfigMatch> matches;
  try {
    matches = rules::match_config(bytes, *format, display, rules);
  } catch (const InputError& e) {
    fr.leftovers.push_back(rules::input_error_finding(display, e.problem()));
    return fr;
  }
  const LineIndex lines(bytes);
  std::sort(matches.begin(), matches.end(), [](const auto& x, const auto& y) { return x.at.begin < y.at.begin; });
  std::string out;
  size_t pos = 0;
  for (const auto& m : matches) {
    if (!m.edit || m.edit->begin < pos) {
      fr.leftovers.push_back(rules::finding_for_config_match(m, display, lines));
      continue;
    }
    const auto [line, column] = lines.locate(m.edit->begin);
    fr.changes.push_back({display, line, column, m.rule->id,
                          std::string(bytes.substr(m.edit->begin, m.edit->end - m.edit->begin)), m.edit->text,
                          FixKind::automatic});
    out.append(bytes.substr(pos, m.edit->begin - pos)).append(m.edit->text);
    pos = m.edit->end;
  }
  out.append(bytes.substr(pos));
  fr.rewritten = std::move(out);
  return fr;
}

}  // namespace banjia::migrate
