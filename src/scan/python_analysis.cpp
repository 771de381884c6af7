#include "scan/python_analysis.h"

#include "common/errors.h"

namespace banjia::scan {

using python::TokenKind;

std::unique_ptr<PythonAnalysis> analyse_python(std::string_view bytes, const std::string& display) {
  auto a = std::make_unique<PythonAnalysis>();
  analyse_python(bytes, display, *a);
  return a;
}

void analyse_python(std::string_view bytes, const std::string& display, PythonAnalysis& a) {
  a.source = python::decode_source(bytes, display);
  python::tokenize(a.source.text, python::FStringMode::py312, a.tokens);
  if (a.tokens.error) {
    const auto& e = *a.tokens.error;
    throw InputError(display, "syntax error at line " + std::to_string(e.line) + ", column " +
                                  std::to_string(e.col + 1) + ": " + e.message);
  }
  python::build_view(a.source.text, a.tokens, a.view);
  a.imports = python::collect_imports(a.view);
  a.refs = python::resolve_dotted_names(a.view, a.imports);
  a.ref_ending_at.assign(a.tokens.tokens.size(), -1);
  a.in_resolved_ref.assign(a.tokens.tokens.size(), false);
  for (size_t i = 0; i < a.refs.size(); ++i) {
    const auto& r = a.refs[i];
    a.ref_ending_at[r.last_tok(a.view)] = static_cast<int32_t>(i);
    if (!r.qualified.empty())
      for (uint32_t c = 0; c < r.name_count(); ++c) a.in_resolved_ref[r.name_tok(a.view, c)] = true;
  }
}

Callee callee_of(const PythonAnalysis& a, uint32_t open_sig) {
  Callee c;
  if (open_sig == 0 || !a.sig_is_name(open_sig - 1)) return c;
  uint32_t last_tok = a.view.sig[open_sig - 1];
  c.last = a.sig_text(open_sig - 1);
  int32_t ref = a.ref_ending_at[last_tok];
  if (ref >= 0) c.qualified = a.refs[static_cast<size_t>(ref)].qualified;
  c.is_method = c.qualified.empty() && open_sig >= 2 && a.sig_is_op(open_sig - 2, ".");
  return c;
}

}  // namespace banjia::scan
