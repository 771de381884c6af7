#include "rules/analyses/python_analysis.h"

#include <algorithm>

#include "common/errors.h"

namespace banjia::rules {

using python::TokenKind;

std::unique_ptr<PythonAnalysis> analyse_python(std::string_view bytes, const std::string& display) {
  auto a = std::make_unique<PythonAnalysis>();
  analyse_python(bytes, display, *a);
  return a;
}

void analyse_python(std::string_view bytes, const std::string& display, PythonAnalysis& a) {
  tokenize_python(bytes, display, a);
  analyse_structure(a);
}

void tokenize_python(std::string_view bytes, const std::string& display, PythonAnalysis& a) {
  a.text_ = python::decode_source_in_place(bytes, display, a.source);
  python::tokenize(a.text_, python::FStringMode::py312, a.tokens);
  if (a.tokens.error) {
    const auto& e = *a.tokens.error;
    throw InputError(display, "syntax error at line " + std::to_string(e.line) + ", column " +
                                  std::to_string(e.col + 1) + ": " + e.message);
  }
}

void analyse_structure(PythonAnalysis& a) {
  python::build_view(a.text_, a.tokens, a.view);
  a.imports = python::collect_imports(a.view);
  python::resolve_dotted_names(a.view, a.imports, a.dotted);
}

namespace {
// The first ref whose last name is at or after sig index si.
std::vector<python::DottedRef>::const_iterator first_ending_at_or_after(const std::vector<python::DottedRef>& refs,
                                                                        uint32_t si) {
  return std::lower_bound(refs.begin(), refs.end(), si,
                          [](const python::DottedRef& r, uint32_t s) { return r.last_sig < s; });
}
}  // namespace

const python::DottedRef* PythonAnalysis::ref_ending_at(uint32_t si) const {
  auto it = first_ending_at_or_after(dotted.refs, si);
  return it != dotted.refs.end() && it->last_sig == si ? &*it : nullptr;
}

bool PythonAnalysis::in_resolved_ref(uint32_t si) const {
  auto it = first_ending_at_or_after(dotted.refs, si);
  return it != dotted.refs.end() && it->first_sig <= si && !it->qualified.empty();
}

Callee callee_of(const PythonAnalysis& a, uint32_t open_sig) {
  Callee c;
  if (open_sig == 0 || !a.sig_is_name(open_sig - 1)) return c;
  c.last = a.sig_text(open_sig - 1);
  if (const auto* ref = a.ref_ending_at(open_sig - 1)) c.qualified = ref->qualified;
  c.is_method = c.qualified.empty() && open_sig >= 2 && a.sig_is_op(open_sig - 2, ".");
  return c;
}

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

}  // namespace banjia::rules
