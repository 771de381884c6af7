// Match kind "string-literal" (string_literal.h).
#include "rules/kinds/string_literal.h"

#include <algorithm>

#include "python/literals.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

StringLiteralMatch StringLiteralMatch::parse(const MatchFields& m) { return {m.strings("values")}; }

void StringLiteralMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<StringLiteralMatch>())
    for (const auto& v : r->params<StringLiteralMatch>().values) needles.add_string_value(v);
}

void StringLiteralMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const auto& rules = c.rules.of_kind<StringLiteralMatch>();
  if (rules.empty()) return;
  const PythonAnalysis& a = c.analysis;
  for (uint32_t si : a.view.string_starts) {
    if (a.sig_token(si).kind != python::TokenKind::String) continue;  // an f-string
    const std::string_view text = a.sig_text(si);
    const auto lit = python::split_string_literal(text);
    if (!lit || lit->bytes) continue;
    const auto value = python::simple_string_value(text);
    if (!value) continue;
    for (const Rule* r : rules) {
      const auto& values = r->params<StringLiteralMatch>().values;
      if (std::find(values.begin(), values.end(), *value) == values.end()) continue;
      PyMatch m;
      m.rule = r;
      m.first_tok = m.last_tok = a.view.sig[si];
      out.push_back(std::move(m));
      break;
    }
  }
}

}  // namespace banjia::rules
