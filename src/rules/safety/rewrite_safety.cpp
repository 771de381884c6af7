#include "rules/core/catalog.h"
#include "rules/kinds/gpu_path.h"
#include "rules/safety/rewrite_safety.h"

#include <algorithm>

#include "rules/safety/rewrite_safety_parts.h"

namespace banjia::rules {

namespace safety {

bool applies(const PyMatch& m) { return m.rule && m.rule->fix == FixKind::automatic && !m.blocked && m.edit.has_value(); }

bool is_leftover(const PyMatch& m) {
  if (m.blocked) return m.hold == PyMatch::Hold::crash_risk;
  return (m.rule->fix == FixKind::manual || m.rule->fix == FixKind::unsupported) && m.rule->severity != Severity::info;
}

uint32_t sig_of_token(const PythonAnalysis& a, uint32_t tok) {
  const auto& sig = a.view.sig;
  return static_cast<uint32_t>(std::lower_bound(sig.begin(), sig.end(), tok) - sig.begin());
}

uint32_t line_of_token(const PythonAnalysis& a, uint32_t tok) { return a.tokens.tokens[tok].line; }

std::string span_text(const PythonAnalysis& a, const PyMatch& m) {
  const auto& toks = a.tokens.tokens;
  std::string s(a.text().substr(toks[m.first_tok].begin, toks[m.last_tok].end - toks[m.first_tok].begin));
  if (const size_t nl = s.find('\n'); nl != std::string::npos) s = s.substr(0, nl) + " ...";
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

namespace {

void set_blocked(PyMatch& m, const std::string& why, PyMatch::Hold hold) {
  m.blocked = true;
  m.hold = hold;
  m.message = why;
  m.edit.reset();
  m.closing_edit.reset();
  m.inserts.clear();
}

// The import binding a use's first name comes from, when the use has no edit of its own (its
// rewrite is carried by that import).
const python::ImportBinding* carrying_import(const PythonAnalysis& a, const PyMatch& m) {
  if (m.edit || m.rule->fix != FixKind::automatic) return nullptr;
  const auto* b = a.imports.binding_for(a.tokens.tokens[m.first_tok].text(a.text()));
  return b && b->origin == python::BindingOrigin::import_statement ? b : nullptr;
}

bool in_statement(const PythonAnalysis& a, uint32_t tok, uint32_t stmt) {
  const auto& st = a.view.statements[stmt];
  return a.view.sig[st.first_sig] <= tok && tok <= a.view.sig[st.last_sig];
}

}  // namespace

size_t Blocker::block(size_t index, const std::string& why, PyMatch::Hold hold) {
  const python::ImportBinding* import = carrying_import(a_, matches_[index]);
  set_blocked(matches_[index], why, hold);
  return import ? block_import(import->stmt, matches_[index].first_tok) : 0;
}

size_t Blocker::block_import(uint32_t stmt, uint32_t use_tok) {
  if (std::find(blocked_imports_.begin(), blocked_imports_.end(), stmt) != blocked_imports_.end()) return 0;
  blocked_imports_.push_back(stmt);
  // The import statement stays as written: its edits go, and so do the uses that relied on them.
  // What the import leaves unrewritten stays as CUDA code wherever it is used: a risk on the NPU.
  const std::string stays = "imported on line " + std::to_string(a_.view.statements[stmt].first_sig < a_.view.sig.size()
                                                                    ? a_.sig_token(a_.view.statements[stmt].first_sig).line
                                                                    : 0) +
                            " by an import that stays (a use of it is not rewritten: line " +
                            std::to_string(line_of_token(a_, use_tok)) + "); rewrite by hand";
  std::vector<std::string_view> locals;
  for (const auto& b : a_.imports.bindings)
    if (b.stmt == stmt) locals.push_back(b.local);
  size_t n = 0;
  for (PyMatch& m : matches_) {
    if (m.blocked) continue;
    const bool of_statement = in_statement(a_, m.first_tok, stmt);
    const std::string_view head = a_.tokens.tokens[m.first_tok].text(a_.text());
    const bool relies = !m.edit && m.rule->fix == FixKind::automatic && std::find(locals.begin(), locals.end(), head) != locals.end();
    if ((of_statement && m.edit) || (!of_statement && relies)) {
      set_blocked(m, stays, PyMatch::Hold::crash_risk);
      ++n;
    }
  }
  return n;
}

}  // namespace safety

bool is_gpu_path_rule(std::string_view id) {
  const Rule* r = RuleCatalog::builtin().find(id);
  return r && r->match.is<GpuPathMatch>();
}

void make_rewrites_safe(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& matches) {
  if (matches.empty()) return;
  const Blocks b = block_structure(a);
  safety::Blocker blocker(a, matches);
  safety::keep_gpu_paths(a, rules, b, blocker);
  safety::block_unsafe_results(a, blocker);
  safety::block_unsafe_checks(a, b, blocker);
}

}  // namespace banjia::rules
