// Match kind "keyword-arg" (keyword_arg.h).
#include "rules/kinds/keyword_arg.h"

#include <algorithm>

#include "python/literals.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

namespace {

// The argument is one of `values`: a plain string literal (no escapes, no f-string fields) whose value
// is listed. An expression or a name is not: only what the call certainly passes is reported.
bool passes_listed_value(const PythonAnalysis& a, const python::CallArg& arg, const std::vector<std::string>& values) {
  if (values.empty()) return true;
  if (arg.first_sig != arg.last_sig || a.sig_token(arg.first_sig).kind != python::TokenKind::String) return false;
  const auto value = python::simple_string_value(a.sig_text(arg.first_sig));
  return value && std::find(values.begin(), values.end(), *value) != values.end();
}

// The argument is one token spelled as one of `defaults` (`None`, `0.0`): the call asks for nothing the
// callee would not do without it.
bool passes_default(const PythonAnalysis& a, const python::CallArg& arg, const std::vector<std::string>& defaults) {
  return arg.first_sig == arg.last_sig && std::find(defaults.begin(), defaults.end(), a.sig_text(arg.first_sig)) != defaults.end();
}

}  // namespace

KeywordArgMatch KeywordArgMatch::parse(const MatchFields& m) {
  return {m.strings("names"), m.text("keyword"), m.strings("values"), m.strings("defaults")};
}

void KeywordArgMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<KeywordArgMatch>())
    for (const auto& n : r->params<KeywordArgMatch>().names) needles.add_dotted(n);
}

void KeywordArgMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  const PythonAnalysis& a = c.analysis;
  for (const Rule* r : c.rules.of_kind<KeywordArgMatch>()) {
    const auto& names = r->params<KeywordArgMatch>().names;
    for (const auto& ref : a.dotted.refs) {
      if (!ref.is_call || ref.qualified.empty()) continue;
      if (std::find(names.begin(), names.end(), ref.qualified) == names.end()) continue;
      auto args = python::call_arguments(a.view, ref.call_open_sig);
      const auto* arg = python::find_keyword(args, r->params<KeywordArgMatch>().keyword);
      if (arg && passes_listed_value(a, *arg, r->params<KeywordArgMatch>().values) &&
          !passes_default(a, *arg, r->params<KeywordArgMatch>().defaults)) {
        PyMatch m;
        m.rule = r;
        m.first_tok = a.view.sig[arg->keyword_sig];
        m.last_tok = a.view.sig[arg->last_sig];
        out.push_back(std::move(m));
      }
    }
  }
}

}  // namespace banjia::rules
