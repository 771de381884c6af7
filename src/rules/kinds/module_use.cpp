// Match kind "module-use" (module_use.h).
#include "rules/kinds/module_use.h"

#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

namespace {

const Rule* rule_for(const RuleCatalog& rules, std::string_view dotted) {
  for (const Rule* r : rules.of_kind<ModuleUseMatch>())
    for (const auto& m : r->params<ModuleUseMatch>().modules)
      if (python::within_module(dotted, m)) return r;
  return nullptr;
}

}  // namespace

ModuleUseMatch ModuleUseMatch::parse(const MatchFields& m) { return {m.strings("modules")}; }

void ModuleUseMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  // Both an import and a use spell the module's components as Name tokens.
  for (const Rule* r : rules.of_kind<ModuleUseMatch>())
    for (const auto& m : r->params<ModuleUseMatch>().modules) needles.add_dotted(m);
}

void ModuleUseMatch::match(const MatchContext& c, std::vector<PyMatch>& out) {
  if (c.rules.of_kind<ModuleUseMatch>().empty()) return;
  const PythonAnalysis& a = c.analysis;
  auto add = [&](const Rule* r, uint32_t first, uint32_t last) {
    PyMatch m;
    m.rule = r;
    m.first_tok = first;
    m.last_tok = last;
    out.push_back(std::move(m));
  };
  for (const auto& b : a.imports.bindings)
    if (const Rule* r = rule_for(c.rules, b.imported)) add(r, b.first_tok, b.last_tok);
  for (const auto& ref : a.dotted.refs) {
    if (ref.qualified.empty() || ref.in_import_stmt) continue;
    if (const Rule* r = rule_for(c.rules, ref.qualified)) add(r, ref.first_tok(a.view), ref.last_tok(a.view));
  }
}

}  // namespace banjia::rules
