// Match kinds "qualified" and "import" (qualified.h): resolved dotted names (torch.cuda.X,
// DataParallel, ...), imports of third-party CUDA libraries and of rewritten modules.
//
// A `replace-module` rule rewrites the components of its `from` module that differ from `to`
// (torch.cuda -> torch.npu: the `cuda`; torch.profiler -> torch_npu.profiler: the `torch`). At a use
// the components written out are edited there; those hidden in an imported name (`tc` for
// torch.cuda, `profile` for torch.profiler.profile) are edited once, in the import statement, and
// only when every use of that name is rewritten too.
#include "rules/kinds/qualified.h"
#include "rules/rewrites/rename_call.h"

#include <algorithm>
#include <unordered_map>

#include "common/string_hash.h"
#include "rules/analyses/aten_ops.h"
#include "rules/analyses/python_analysis.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

using python::BindingOrigin;
using python::TokenKind;

namespace {

std::string_view first_component(std::string_view s) { return s.substr(0, s.find('.')); }

bool is_module_rewrite(const Rule* r) { return r && r->rewrite == RewriteKind::replace_module; }

PyMatch make(const Rule* r, uint32_t first, uint32_t last) {
  PyMatch m;
  m.rule = r;
  m.first_tok = first;
  m.last_tok = last;
  return m;
}

// A replace-module rule's `from` and `to`, component by component.
struct ModuleMap {
  std::vector<std::string_view> from, to;
  explicit ModuleMap(const Rule& r) : ModuleMap(r.rewrite_as<NameRewrite>()) {}
  explicit ModuleMap(const NameRewrite& w) : from(split_dots(w.from)), to(split_dots(w.to)) {}
  // `qualified` is `from` or below it, and `to` has as many components (what this file can rewrite).
  bool applies_to(const std::vector<std::string_view>& q) const {
    return from.size() == to.size() && q.size() >= from.size() && std::equal(from.begin(), from.end(), q.begin());
  }
  bool differs(size_t i) const { return i < from.size() && from[i] != to[i]; }
  std::string to_prefix(size_t n) const {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.append(i ? "." : "").append(to[i]);
    return s;
  }
};

// Token edits joined into one edit from the first to the last, keeping the bytes between them.
std::optional<TextEdit> joined_edit(const PythonAnalysis& a, const std::vector<std::pair<uint32_t, std::string>>& parts) {
  if (parts.empty()) return std::nullopt;
  const auto& toks = a.tokens.tokens;
  TextEdit e{toks[parts.front().first].begin, toks[parts.back().first].end, {}};
  uint32_t pos = e.begin;
  for (const auto& [tok, text] : parts) {
    e.text.append(a.text().substr(pos, toks[tok].begin - pos)).append(text);
    pos = toks[tok].end;
  }
  return e;
}

// Can an edit write `torch_npu.` here? Yes when the file binds the name torch_npu, or imports nothing
// of torch_npu (migrate then inserts `import torch_npu`).
bool torch_npu_nameable(const PythonAnalysis& a) {
  if (const auto* b = a.imports.binding_for("torch_npu")) return b->target == "torch_npu";
  for (const auto& b : a.imports.bindings)
    if (b.target == "torch_npu" || b.target.starts_with("torch_npu.")) return false;
  return true;
}

// `module` (dotted) spelled through a name this file can use: as is when its first component is
// bound to that module; torch.npu as torch_npu.npu (torch_npu registers its `npu` module as torch.npu:
// Ascend/pytorch : torch_npu/_init/registry/backend.py). Empty when neither works.
std::string spell_module(const PythonAnalysis& a, const std::string& module) {
  const std::string_view root = first_component(module);
  if (const auto* b = a.imports.binding_for(root); b && b->target == root && b->origin == BindingOrigin::import_statement)
    return module;
  if (root == "torch_npu") return torch_npu_nameable(a) ? module : std::string();
  if ((module == "torch.npu" || module.starts_with("torch.npu.")) && torch_npu_nameable(a)) return "torch_npu" + module.substr(5);
  return {};
}

constexpr std::string_view kUnsafeAlias =
    "this name is also used for APIs the NPU module does not provide; rewrite those first";

class NameMatcher {
 public:
  NameMatcher(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& out)
      : a_(a), index_(rules.index_of<QualifiedMatch>()), out_(out) {}

  void run() {
    classify_uses();
    match_imports();
    match_uses();
  }

 private:
  // Per bound name: is every use of it rewritten by a replace-module rule? Only then may the import
  // (or alias assignment) that binds it be rewritten.
  void classify_uses() {
    for (const auto& ref : a_.dotted.refs) {
      if (ref.qualified.empty() || ref.in_import_stmt) continue;
      const Rule* r = index_.has_qualified_root(first_component(ref.qualified)) ? index_.match_qualified(ref.qualified) : nullptr;
      auto [it, inserted] = all_rewritten_.try_emplace(a_.sig_text(ref.first_sig), true);
      if (!is_module_rewrite(r) || !ModuleMap(*r).applies_to(split_dots(ref.qualified))) it->second = false;
    }
  }
  bool all_uses_rewritten(std::string_view local) const {
    auto it = all_rewritten_.find(local);
    return it == all_rewritten_.end() || it->second;
  }

  void match_imports() {
    for (const auto& b : a_.imports.bindings) {
      if (const Rule* r = index_.match_import(b.imported)) {
        out_.push_back(make(r, b.first_tok, b.last_tok));
        continue;
      }
      if (!index_.has_qualified_root(first_component(b.target))) continue;
      const bool plain = !b.is_from && b.alias_tok == python::kNoIndex;  // `import a.b` binds `a`
      const std::string_view subject = plain ? std::string_view(b.imported) : std::string_view(b.target);
      const Rule* r = index_.match_qualified(subject);
      // Rules without a rewrite are reported where the name is used, not again at its import.
      if (!r || r->rewrite == RewriteKind::none) continue;
      if (r->rewrite == RewriteKind::replace_module) {
        match_module_import(b, *r, subject, plain);
      } else if (r->rewrite == RewriteKind::rename_last && b.is_from && b.alias_tok == python::kNoIndex) {
        // `from torch.distributed import is_nccl_available`: renaming would change the bound name.
        PyMatch m = make(r, b.first_tok, b.last_tok);
        m.blocked = true;
        out_.push_back(std::move(m));
      }
    }
  }

  // The name tokens an import statement spells its binding's qualified name with: the `from` module's
  // components then the imported name, or the dotted name of `import a.b [as c]`.
  std::vector<uint32_t> spelled_components(const python::ImportBinding& b) const {
    std::vector<uint32_t> toks;
    if (b.is_from) {
      const auto& st = a_.view.statements[b.stmt];
      for (uint32_t si = st.first_sig + 1; si <= st.last_sig && !a_.view.is_name(si, "import"); ++si)
        if (a_.sig_is_name(si)) toks.push_back(a_.view.sig[si]);
      toks.push_back(b.first_tok);
      return toks;
    }
    for (uint32_t t = b.first_tok; t <= b.last_tok; ++t)
      if (a_.tokens.tokens[t].kind == TokenKind::Name) toks.push_back(t);
    return toks;
  }

  void match_module_import(const python::ImportBinding& b, const Rule& r, std::string_view subject, bool plain) {
    const ModuleMap map(r);
    const auto q = split_dots(subject);
    // `import torch.profiler` binds `torch`: changing its first name would unbind torch. Its uses are
    // rewritten where they are written out in full.
    if (plain && map.differs(0)) return;
    PyMatch m = make(&r, b.first_tok, b.last_tok);
    const auto toks = spelled_components(b);
    std::vector<std::pair<uint32_t, std::string>> parts;
    bool module_path_edited = false;
    for (size_t i = 0; map.applies_to(q) && toks.size() == q.size() && i < map.from.size(); ++i) {
      if (!map.differs(i)) continue;
      std::string text(map.to[i]);
      if (b.is_from && i + 1 == toks.size()) {
        if (b.alias_tok == python::kNoIndex) text += " as " + std::string(map.from[i]);  // keep the bound name
      } else {
        module_path_edited = module_path_edited || b.is_from;
      }
      parts.emplace_back(toks[i], std::move(text));
    }
    if (parts.empty()) {
      m.blocked = true;
      m.message = "imports " + std::string(subject) + " in a form banjia cannot rewrite; rewrite it by hand to " +
                  r.rewrite_as<NameRewrite>().to;
    } else if (!plain && !all_uses_rewritten(b.local)) {
      m.blocked = true;
      m.message = kUnsafeAlias;
    } else if (module_path_edited && !whole_statement_moves(b, r)) {
      m.blocked = true;
      m.message = "this import also brings in names " + r.rewrite_as<NameRewrite>().to +
                  " does not provide; split it and rewrite by hand";
    } else {
      m.edit = joined_edit(a_, parts);
      carried_.push_back(b.local);
    }
    reported_.push_back(b.local);
    out_.push_back(std::move(m));
  }

  // Every name a from-import statement brings in moves with its module (same rule mapping, every use
  // rewritten): only then may the statement's module path change.
  bool whole_statement_moves(const python::ImportBinding& b, const Rule& r) const {
    for (const auto& other : a_.imports.bindings) {
      if (other.stmt != b.stmt || &other == &b) continue;
      const Rule* o = index_.match_qualified(other.target);
      if (!is_module_rewrite(o) || o->rewrite_as<NameRewrite>() != r.rewrite_as<NameRewrite>()) return false;
      if (!all_uses_rewritten(other.local)) return false;
    }
    return true;
  }

  void match_uses() {
    for (const auto& ref : a_.dotted.refs) {
      if (ref.qualified.empty() || ref.in_import_stmt) continue;
      if (!index_.has_qualified_root(first_component(ref.qualified))) continue;
      const Rule* r = index_.match_qualified(ref.qualified);
      if (!r || !r->match.is<QualifiedMatch>()) continue;
      std::optional<std::string> no_kernel;
      if (r->params<QualifiedMatch>().only_without_npu_kernel && !(no_kernel = aten_op_without_npu_kernel(ref.qualified))) continue;
      PyMatch m = make(r, ref.first_tok(a_.view), ref.last_tok(a_.view));
      if (no_kernel) m.message = *no_kernel;
      if (r->rewrite == RewriteKind::replace_module) {
        module_use(ref, *r, m);
      } else if (r->rewrite == RewriteKind::rename_last) {
        rename_use(ref, *r, m);
      } else if (r->rewrite == RewriteKind::rename_call) {
        std::string why;
        m.edit = rename_call_edit(a_, ref, *r, m.closing_edit, m.inserts, why);
        if (!m.edit) {
          m.blocked = true;
          m.message = why;
        }
      }
      out_.push_back(std::move(m));
    }
  }

  void module_use(const python::DottedRef& ref, const Rule& r, PyMatch& m) {
    const ModuleMap map(r);
    const auto q = split_dots(ref.qualified);
    const size_t written = ref.name_count();
    if (!map.applies_to(q) || written > q.size()) {
      m.blocked = true;
      m.message = "no mechanical rewrite of this spelling; write it as " + r.rewrite_as<NameRewrite>().to + " by hand";
      return;
    }
    const size_t head_parts = q.size() - written + 1;  // components the first written name stands for
    const std::string_view head = a_.sig_text(ref.first_sig);
    const python::ImportBinding* binding = a_.imports.binding_for(head);
    std::vector<std::pair<uint32_t, std::string>> parts;
    bool hidden = false;
    for (size_t i = 0; i < map.from.size(); ++i) {
      if (!map.differs(i)) continue;
      if (head_parts > 1 && i < head_parts) hidden = true;
      else parts.emplace_back(ref.name_tok(a_.view, static_cast<uint32_t>(i + 1 - head_parts)), std::string(map.to[i]));
    }
    if (hidden && binding && binding->origin == BindingOrigin::star_import) {
      // `cuda` from a star import: no import statement to carry the change; spell the module out
      // at each use (uses torch.npu lacks are reported on their own).
      const std::string spelled = spell_module(a_, map.to_prefix(head_parts));
      if (spelled.empty()) {
        m.blocked = true;
        m.message = "`" + std::string(head) + "` comes from a star import; write " + map.to_prefix(head_parts) + " by hand";
        return;
      }
      parts.insert(parts.begin(), std::make_pair(ref.first_tok(a_.view), spelled));
    } else if (hidden && binding && binding->origin == BindingOrigin::import_statement && !contains(carried_, head)) {
      // Its import is not rewritten. Reported there when a rule covers the import; else here.
      if (!contains(reported_, head)) {
        m.blocked = true;
        m.message = "imported as `" + std::string(head) + "`: rewrite its import to " + r.rewrite_as<NameRewrite>().to + " by hand";
      }
      return;
    }
    if (!parts.empty() && parts.front().second.starts_with("torch_npu") && !torch_npu_nameable(a_)) {
      m.blocked = true;
      m.message = "rewrite to " + r.rewrite_as<NameRewrite>().to + " by hand (this file imports torch_npu without binding the name)";
      return;
    }
    if (const python::ImportBinding* alias = alias_assigned_from(ref); alias && !all_uses_rewritten(alias->local)) {
      m.blocked = true;
      m.message = kUnsafeAlias;
      return;
    }
    m.edit = joined_edit(a_, parts);
  }

  void rename_use(const python::DottedRef& ref, const Rule& r, PyMatch& m) const {
    if (ref.name_count() == 1) {
      // A lone bound name: renamed with the alias assignment it comes from; an imported one
      // (`from ... import is_nccl_available`) only by hand, with its import.
      const python::ImportBinding* b = a_.imports.binding_for(a_.sig_text(ref.first_sig));
      if (!b || b->origin != BindingOrigin::assignment) {
        m.blocked = true;
        m.message = "rename this imported name and its import to " + r.rewrite_as<NameRewrite>().to + " by hand";
      }
      return;
    }
    const auto& t = a_.tokens.tokens[ref.last_tok(a_.view)];
    m.edit = TextEdit{t.begin, t.end, r.rewrite_as<NameRewrite>().to};
  }

  static bool contains(const std::vector<std::string_view>& names, std::string_view n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  }

  // The module-level alias (`sync = torch.cuda.synchronize`) whose chain this ref is, if any.
  const python::ImportBinding* alias_assigned_from(const python::DottedRef& ref) const {
    for (const auto& d : a_.imports.derived)
      if (d.origin == BindingOrigin::assignment && d.first_tok == ref.first_tok(a_.view)) return &d;
    return nullptr;
  }

  const PythonAnalysis& a_;
  const QualifiedIndex& index_;
  std::vector<PyMatch>& out_;
  std::unordered_map<std::string_view, bool, StringHash, std::equal_to<>> all_rewritten_;
  std::vector<std::string_view> carried_;   // bound names whose import statement carries the rewrite
  std::vector<std::string_view> reported_;  // bound names whose import statement is reported
};

}  // namespace

QualifiedMatch QualifiedMatch::parse(const MatchFields& m) {
  return {m.strings("names"), m.flag("prefix").value_or(false), m.flag("exact_only").value_or(false),
          m.flag("only_without_npu_kernel").value_or(false), m.flag("returns_none").value_or(false),
          m.strings("result_fields")};
}

void QualifiedMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  for (const Rule* r : rules.of_kind<QualifiedMatch>())
    for (const auto& n : r->params<QualifiedMatch>().names) needles.add_dotted(n);
}

void QualifiedMatch::match(const MatchContext& c, std::vector<PyMatch>& out) { NameMatcher(c.analysis, c.rules, out).run(); }

ImportMatch ImportMatch::parse(const MatchFields& m) { return {m.strings("modules")}; }

void ImportMatch::add_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  // An import matches its module or a submodule: the module's components are Name tokens.
  for (const Rule* r : rules.of_kind<ImportMatch>())
    for (const auto& m : r->params<ImportMatch>().modules) needles.add_dotted(m);
}

}  // namespace banjia::rules
