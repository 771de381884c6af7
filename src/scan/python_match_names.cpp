// Matchers on names: resolved dotted names (torch.cuda.X, DataParallel, ...), imports of third-party
// CUDA libraries, attribute access (`.cuda()`, `.is_cuda`), and keyword arguments of known calls.
#include <algorithm>
#include <unordered_map>

#include "common/string_hash.h"
#include "scan/python_matches.h"

namespace banjia::scan {

using python::TokenKind;

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '.') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

namespace {

std::string_view first_component(std::string_view s) { return s.substr(0, s.find('.')); }

bool is_automatic_module_rewrite(const Rule* r) { return r && r->rewrite == RewriteKind::replace_module; }

// The token that spells component `index` of the rule's `from` module (e.g. the `cuda` of
// torch.cuda) in a written chain, or UINT32_MAX when the written chain does not contain it (the
// component is hidden behind an import alias).
uint32_t component_token(const python::ModuleView& v, const python::DottedRef& ref, size_t index) {
  size_t qualified_parts = split_dots(ref.qualified).size();
  size_t written_parts = ref.name_count();
  if (written_parts > qualified_parts) return UINT32_MAX;
  size_t head_parts = qualified_parts - written_parts + 1;  // components covered by the head name
  if (index < head_parts) return UINT32_MAX;
  return ref.name_tok(v, static_cast<uint32_t>(index - head_parts + 1));
}

PyMatch make(const Rule* r, uint32_t first, uint32_t last) {
  PyMatch m;
  m.rule = r;
  m.first_tok = first;
  m.last_tok = last;
  return m;
}

// Sig indices of `import` statements' module path tokens for one binding: for `from A.B import x`
// the tokens of A.B; for `import A.B as c` the binding's own dotted name.
std::pair<uint32_t, uint32_t> module_path_tokens(const PythonAnalysis& a, const python::ImportBinding& b) {
  if (!b.is_from) return {b.first_tok, b.last_tok};
  const auto& st = a.view.statements[b.stmt];
  uint32_t first = UINT32_MAX, last = UINT32_MAX;
  for (uint32_t si = st.first_sig; si <= st.last_sig; ++si) {
    std::string_view t = a.sig_text(si);
    if (a.sig_token(si).kind == TokenKind::Name && t == "import") break;
    if (a.sig_token(si).kind == TokenKind::Name && t != "from") {
      if (first == UINT32_MAX) first = a.view.sig[si];
      last = a.view.sig[si];
    }
  }
  return {first, last};
}

// The token index of name `component` inside [first, last] (token indices), or UINT32_MAX.
uint32_t find_name_token(const PythonAnalysis& a, uint32_t first, uint32_t last, std::string_view component,
                         size_t occurrence_index) {
  size_t seen = 0;
  for (uint32_t t = first; t <= last && t < a.tokens.tokens.size(); ++t) {
    const auto& tok = a.tokens.tokens[t];
    if (tok.kind != TokenKind::Name) continue;
    if (seen++ == occurrence_index) return tok.text(a.text()) == component ? t : UINT32_MAX;
  }
  return UINT32_MAX;
}

}  // namespace

void match_names(const PythonAnalysis& a, const RuleCatalog& rules, std::vector<PyMatch>& out) {
  // 1. Uses of imported names (not inside import statements).
  // Per import binding: is every use an automatic module rewrite? Then the import itself is rewritten.
  std::unordered_map<std::string_view, bool, StringHash> binding_all_automatic;
  for (const auto& ref : a.dotted.refs) {
    if (ref.qualified.empty() || ref.in_import_stmt) continue;
    if (!rules.has_qualified_root(first_component(ref.qualified))) continue;
    const Rule* r = rules.match_qualified(ref.qualified);
    std::string_view head = a.sig_text(ref.first_sig);
    if (r) {
      auto [it, inserted] = binding_all_automatic.try_emplace(head, true);
      if (!is_automatic_module_rewrite(r)) it->second = false;
    }
    if (!r || r->match != MatchKind::qualified) continue;
    PyMatch m = make(r, ref.first_tok(a.view), ref.last_tok(a.view));
    if (r->rewrite == RewriteKind::replace_module) {
      size_t idx = split_dots(r->rewrite_from).size() - 1;
      uint32_t tok = component_token(a.view, ref, idx);
      if (tok != UINT32_MAX) {
        const auto& t = a.tokens.tokens[tok];
        m.edit = TextEdit{t.begin, t.end, std::string(split_dots(r->rewrite_to).back())};
      }
      // else: the module is reached through an alias; the import statement carries the edit.
    } else if (r->rewrite == RewriteKind::rename_last) {
      const auto& t = a.tokens.tokens[ref.last_tok(a.view)];
      m.edit = TextEdit{t.begin, t.end, r->rewrite_to};
    }
    out.push_back(std::move(m));
  }

  // 2. Import statements: third-party CUDA libraries, and imports of torch.cuda modules.
  for (const auto& b : a.imports.bindings) {
    std::string_view target = b.target;
    if (const Rule* r = rules.match_import(target)) {
      PyMatch m = make(r, b.first_tok, b.last_tok);
      out.push_back(std::move(m));
      continue;
    }
    if (!rules.has_qualified_root(first_component(target))) continue;
    // `import torch.cuda` (no alias) binds `torch`; the module it loads is the dotted name itself.
    auto [mfirst, mlast] = module_path_tokens(a, b);
    std::string module_path;
    for (uint32_t t = mfirst; mfirst != UINT32_MAX && t <= mlast; ++t)
      if (a.tokens.tokens[t].kind == TokenKind::Name || a.tokens.tokens[t].kind == TokenKind::Op)
        module_path += a.tokens.tokens[t].text(a.text());
    std::string subject = b.is_from || b.alias_tok != UINT32_MAX ? std::string(target) : module_path;
    const Rule* r = rules.match_qualified(subject);
    // Rules without a rewrite are reported where the name is used, not again at its import.
    if (!r || r->rewrite == RewriteKind::none) continue;
    PyMatch m = make(r, b.first_tok, b.last_tok);
    if (r->rewrite == RewriteKind::replace_module) {
      bool alias_binding = b.is_from || b.alias_tok != UINT32_MAX;
      auto it = binding_all_automatic.find(b.local);
      bool safe = !alias_binding || it == binding_all_automatic.end() || it->second;
      // `from torch import cuda` would have to rename the bound name itself: not a minimal edit.
      size_t idx = split_dots(r->rewrite_from).size() - 1;
      uint32_t tok = find_name_token(a, mfirst, mlast, split_dots(r->rewrite_from).back(), idx);
      if (tok == UINT32_MAX || !safe) {
        m.blocked = true;
        m.message = tok == UINT32_MAX
                        ? "imports a torch.cuda name directly; rename it by hand (e.g. `from torch import npu`)"
                        : "this import alias is also used for APIs torch_npu does not provide; rewrite those first";
      } else {
        const auto& t = a.tokens.tokens[tok];
        m.edit = TextEdit{t.begin, t.end, std::string(split_dots(r->rewrite_to).back())};
      }
    } else if (r->rewrite == RewriteKind::rename_last && b.is_from && b.alias_tok == UINT32_MAX) {
      // `from torch.distributed import is_nccl_available`: renaming would change the bound name.
      m.blocked = true;
    }
    out.push_back(std::move(m));
  }

  // 3. Attributes on arbitrary expressions: `.cuda(...)`, `.is_cuda`.
  const auto& attr_rules = rules.of_kind(MatchKind::attribute);
  if (!attr_rules.empty()) {
    const auto& sig = a.view.sig;
    a.view.for_each_op1('.', [&](uint32_t si) {
      if (si + 1 >= sig.size() || !a.sig_is_name(si + 1)) return;
      uint32_t name_tok = sig[si + 1];
      std::string_view name = a.sig_text(si + 1);
      int resolved = -1;  // looked up only for names a rule wants
      for (const Rule* r : attr_rules) {
        if (r->name != name) continue;
        if (resolved < 0) resolved = a.in_resolved_ref(si + 1);
        if (resolved) break;  // part of an imported module path (torch.cuda)
        bool called = a.sig_is_op(si + 2, "(");
        if (r->call && *r->call != called) continue;
        PyMatch m = make(r, sig[si], name_tok);
        if (r->rewrite == RewriteKind::rename_attribute) {
          const auto& t = a.tokens.tokens[name_tok];
          m.edit = TextEdit{t.begin, t.end, r->rewrite_to};
        }
        out.push_back(std::move(m));
      }
    });
  }

  // 4. Keyword arguments of known calls: load_inline(cuda_sources=...).
  for (const Rule* r : rules.of_kind(MatchKind::keyword_arg)) {
    for (const auto& ref : a.dotted.refs) {
      if (!ref.is_call || ref.qualified.empty()) continue;
      if (std::find(r->names.begin(), r->names.end(), ref.qualified) == r->names.end()) continue;
      auto args = python::call_arguments(a.view, ref.call_open_sig);
      if (const auto* arg = python::find_keyword(args, r->keyword))
        out.push_back(make(r, a.view.sig[arg->keyword_sig], a.view.sig[arg->last_sig]));
    }
  }
}

void add_name_needles(const RuleCatalog& rules, PythonNeedles& needles) {
  // Attribute names first: `cuda` then also stands for every torch.cuda name added below.
  for (const Rule* r : rules.of_kind(MatchKind::attribute)) needles.add_name(r->name);
  // An import matches its module or a submodule: the module's components are Name tokens.
  for (const Rule* r : rules.of_kind(MatchKind::import_module))
    for (const auto& m : r->modules) needles.add_dotted(m);
  for (MatchKind kind : {MatchKind::qualified, MatchKind::keyword_arg})
    for (const Rule* r : rules.of_kind(kind))
      for (const auto& n : r->names) needles.add_dotted(n);
}

}  // namespace banjia::scan
