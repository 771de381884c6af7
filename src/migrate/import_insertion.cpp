#include "migrate/import_insertion.h"

#include <algorithm>

namespace banjia::migrate {

using python::TokenKind;

std::string line_ending_of(std::string_view text) {
  size_t p = text.find_first_of("\r\n");
  if (p == std::string_view::npos || text[p] == '\n') return "\n";
  return p + 1 < text.size() && text[p + 1] == '\n' ? "\r\n" : "\r";
}

// Where the physical line holding `offset` starts, or, when that line continues an earlier one
// (after a backslash, or inside a string that spans lines), where the first of those lines starts:
// a line inserted between continued lines changes the code. A `# banjia:` note put there is joined
// to the line above by its backslash (docs/fuzzing.md, note-inside-backslash-continuation), and
// `import torch_npu` put there becomes part of that logical line and displaces the statement
// (import-torch-npu-after-continuation); either way a second migrate annotates again.
size_t first_line_of_logical_line(const rules::PythonAnalysis& a, size_t offset) {
  const std::string_view text = a.text();
  const auto& toks = a.tokens.tokens;
  auto physical_start = [&](size_t at) {
    while (at > 0 && text[at - 1] != '\n' && text[at - 1] != '\r') --at;
    return at;
  };
  size_t begin = physical_start(offset);
  while (begin > 0) {
    // The token holding the line break before `begin` (tokens tile the text).
    auto it = std::upper_bound(toks.begin(), toks.end(), begin - 1,
                               [](size_t at, const python::Token& t) { return at < t.begin; });
    if (it == toks.begin()) break;
    const python::Token& t = *(it - 1);
    if (t.kind == python::TokenKind::Newline || t.kind == python::TokenKind::NL) break;
    begin = physical_start(t.begin);
  }
  return begin;
}

bool imports_torch_npu(const rules::PythonAnalysis& a) {
  for (const auto& b : a.imports.bindings)
    if (b.target == "torch_npu" || b.target.rfind("torch_npu.", 0) == 0) return true;
  return false;
}

namespace {

// Where to insert after the statement whose last sig token is given: just after the NEWLINE token
// that ends it, or, when another statement follows on the same line (`import torch; x = 1`), right
// after the statement itself, so no line is split (a split would move the rest of the line and
// its `# banjia:` annotation, and migrating again would annotate it twice).
struct InsertionPoint {
  uint32_t at;
  bool no_newline;  // end of file without a line break
  bool same_line;   // a statement follows on the line: insert `; import torch_npu`
};
InsertionPoint after_statement(const rules::PythonAnalysis& a, uint32_t last_sig) {
  const auto& toks = a.tokens.tokens;
  for (uint32_t t = a.view.sig[last_sig] + 1; t < toks.size(); ++t) {
    if (toks[t].kind == TokenKind::Newline) return {toks[t].end, toks[t].begin == toks[t].end, false};
    if (toks[t].kind == TokenKind::EndMarker) return {toks[t].begin, true, false};
    if (toks[t].kind != TokenKind::Comment && toks[t].kind != TokenKind::Whitespace) break;  // `;` on the line
  }
  return {toks[a.view.sig[last_sig]].end, false, true};
}

// The insertion text for an InsertionPoint.
std::string inserted_after(const InsertionPoint& p, const std::string& line, const std::string& nl) {
  if (p.same_line) return "; " + line;
  return p.no_newline ? nl + line : line + nl;
}

bool is_docstring_or_future(const rules::PythonAnalysis& a, size_t stmt_index) {
  const auto& st = a.view.statements[stmt_index];
  if (st.first_sig == st.last_sig && a.sig_token(st.first_sig).kind == TokenKind::String) return stmt_index == 0;
  return a.sig_is(st.first_sig, "from") && a.sig_is(st.first_sig + 1, "__future__");
}

}  // namespace

bool needs_module_import(const rules::PythonAnalysis& a, std::string_view name) {
  for (const auto& b : a.imports.bindings)
    if (b.indent_depth == 0 && b.local == name && b.target == name && b.origin == python::BindingOrigin::import_statement)
      return false;
  // A name bound to something else stays so: an import would change what the rest of the file means.
  const python::ImportBinding* other = a.imports.binding_for(name);
  return !other || other->target == name;
}

rules::TextEdit torch_npu_import_edit(const rules::PythonAnalysis& a, const std::vector<rules::TextEdit>& applied) {
  return module_import_edit(a, applied, "torch_npu");
}

rules::TextEdit module_import_edit(const rules::PythonAnalysis& a, const std::vector<rules::TextEdit>& applied,
                                  std::string_view module) {
  const std::string nl = line_ending_of(a.text());
  const std::string line = "import " + std::string(module);
  // The first module-level statement importing torch or a torch submodule.
  std::optional<uint32_t> anchor;
  for (const auto& b : a.imports.bindings) {
    if (b.indent_depth != 0) continue;
    if (b.target != "torch" && b.target.rfind("torch.", 0) != 0) continue;
    if (!anchor || b.stmt < *anchor) anchor = b.stmt;
  }
  if (anchor) {
    const auto& st = a.view.statements[*anchor];
    uint32_t begin = a.sig_token(st.first_sig).begin, end = a.sig_token(st.last_sig).end;
    bool rewritten_to_npu = false;
    for (const auto& e : applied) rewritten_to_npu = rewritten_to_npu || (e.begin >= begin && e.end <= end);
    if (rewritten_to_npu) {
      const auto at = static_cast<uint32_t>(first_line_of_logical_line(a, a.sig_token(st.first_sig).begin));
      return {at, at, line + nl};
    }
    InsertionPoint p = after_statement(a, st.last_sig);
    return {p.at, p.at, inserted_after(p, line, nl)};
  }
  // No torch import: after the module docstring and __future__ imports.
  for (size_t i = 0; i < a.view.statements.size(); ++i) {
    if (is_docstring_or_future(a, i)) continue;
    const auto at = static_cast<uint32_t>(first_line_of_logical_line(a, a.sig_token(a.view.statements[i].first_sig).begin));
    return {at, at, line + nl};
  }
  if (!a.view.statements.empty()) {
    InsertionPoint p = after_statement(a, a.view.statements.back().last_sig);
    return {p.at, p.at, p.no_newline ? nl + line + nl : inserted_after(p, line, nl)};
  }
  return {0, 0, line + nl};
}

}  // namespace banjia::migrate
