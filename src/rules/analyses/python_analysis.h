// One Python file, analysed once and shared by every matcher (and by migrate): decoded text, tokens,
// significant-token view with brackets and statements, the import table and resolved dotted names.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "python/module.h"
#include "python/source.h"
#include "python/tokenizer.h"

namespace banjia::rules {

struct PythonAnalysis {
  // What decoding found (BOM, encoding, transcoded). The text analysed is text(): a view of the bytes
  // passed to analyse_python / tokenize_python, or of source.text when the file was transcoded; so
  // those bytes must outlive every use of the analysis.
  python::SourceFile source;
  python::TokenStream tokens;
  python::ModuleView view;
  python::ImportTable imports;
  python::DottedNames dotted;  // dotted.refs: in source order, not overlapping

  // The ref whose LAST name is sig index si, or nullptr (binary search: refs are sorted).
  const python::DottedRef* ref_ending_at(uint32_t si) const;
  // True when sig index si is a name inside a ref that resolves to a qualified name.
  bool in_resolved_ref(uint32_t si) const;

  std::string_view text() const { return text_; }
  std::string_view text_;  // set by tokenize_python
  // Shorthands over view.sig (significant-token indices).
  const python::Token& sig_token(uint32_t si) const { return view.tok(si); }
  std::string_view sig_text(uint32_t si) const { return view.text(si); }
  bool sig_is(uint32_t si, std::string_view s) const { return si < view.sig.size() && view.text(si) == s; }
  bool sig_is_op(uint32_t si, std::string_view s) const { return view.is_op(si, s); }
  bool sig_is_name(uint32_t si) const { return si < view.sig.size() && view.tok(si).kind == python::TokenKind::Name; }
};

// Decodes and analyses a file. Throws InputError (file, problem) for input that is not Python text
// or does not tokenize (the error names line and column). The analysis views `bytes` (see text()).
std::unique_ptr<PythonAnalysis> analyse_python(std::string_view bytes, const std::string& display);
// Same, into `into`, reusing its buffers: scanning thousands of files with one PythonAnalysis per
// thread saves allocating and page-faulting token, view and name memory for every file.
void analyse_python(std::string_view bytes, const std::string& display, PythonAnalysis& into);
// The two halves of analyse_python: decode and tokenize (every input error is found here), then the
// view, import table and dotted names. `scan` asks its prefilter in between.
void tokenize_python(std::string_view bytes, const std::string& display, PythonAnalysis& into);
void analyse_structure(PythonAnalysis& a);

// For a '(' at sig index `open_sig`: the callee's qualified name if it resolves through the imports,
// else the written dotted chain ("x.to" -> "x.to"); empty when the callee is not a name chain.
struct Callee {
  std::string_view qualified;  // resolved (points into the analysis), or empty
  std::string_view last;     // last name of the callee chain ("to", "init_process_group")
  bool is_method = false;    // preceded by '.' on a non-import expression (x.to(...))
};
Callee callee_of(const PythonAnalysis& a, uint32_t open_sig);

// The components of a dotted name: "torch.cuda.amp" -> torch, cuda, amp.
std::vector<std::string_view> split_dots(std::string_view dotted);

}  // namespace banjia::rules
