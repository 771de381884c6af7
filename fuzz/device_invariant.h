// The device-value invariant of migrate, checked from the outside: a comparison of a name with an
// NPU value that migrate created ("cuda" -> "npu") must not meet a CUDA value still stored under that
// name (`name = "cuda"`). Written apart from src/rules/analyses/device_flow.cpp, on tokens only: used by
// fuzz_rewrite and by tests/rules/analyses/device_flow_test.cpp.
#pragma once
#include <map>
#include <string>
#include <string_view>

#include "python/literals.h"
#include "python/tokenizer.h"

namespace banjia {

namespace device_invariant_detail {

struct Counts {
  std::map<std::string, int> npu_tests;     // name -> comparisons with an "npu..." string
  std::map<std::string, int> cuda_stored;   // name -> statements `name = "cuda..."`
};

inline bool starts(std::string_view tok_text, std::string_view prefix) {
  auto v = python::simple_string_value(tok_text);
  return v && v->starts_with(prefix) && (v->size() == prefix.size() || (*v)[prefix.size()] == ':');
}

inline Counts count(std::string_view text) {
  Counts c;
  python::TokenStream ts = python::tokenize(text);
  if (ts.error) return c;
  std::vector<const python::Token*> sig;
  for (const auto& t : ts.tokens)
    if (t.kind != python::TokenKind::Whitespace && t.kind != python::TokenKind::Comment && t.kind != python::TokenKind::NL)
      sig.push_back(&t);
  auto txt = [&](size_t i) { return i < sig.size() ? sig[i]->text(text) : std::string_view(); };
  auto kind = [&](size_t i) { return i < sig.size() ? sig[i]->kind : python::TokenKind::EndMarker; };
  int depth = 0;
  size_t stmt_start = 0;
  for (size_t i = 0; i < sig.size(); ++i) {
    std::string_view t = txt(i);
    if (kind(i) == python::TokenKind::Newline || t == ";") {
      stmt_start = i + 1;
      depth = 0;
      continue;
    }
    if (kind(i) == python::TokenKind::Indent || kind(i) == python::TokenKind::Dedent) {
      stmt_start = i + 1;
      continue;
    }
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") --depth;
    if (kind(i) != python::TokenKind::String) continue;
    // name == "npu" / "npu" == name / "npu" in name
    if (starts(t, "npu")) {
      if (i >= 2 && (txt(i - 1) == "==" || txt(i - 1) == "!=") && kind(i - 2) == python::TokenKind::Name)
        ++c.npu_tests[std::string(txt(i - 2))];
      if ((txt(i + 1) == "==" || txt(i + 1) == "!=" || txt(i + 1) == "in") && kind(i + 2) == python::TokenKind::Name) {
        size_t j = i + 2;
        while (txt(j + 1) == "." && kind(j + 2) == python::TokenKind::Name) j += 2;
        ++c.npu_tests[std::string(txt(j))];
      }
    }
    // NAME(.NAME)* = "cuda" (the whole statement, at depth 0; the target a chain and nothing else)
    if (starts(t, "cuda") && depth == 0 && i >= 2 && txt(i - 1) == "=" &&
        (kind(i + 1) == python::TokenKind::Newline || txt(i + 1) == ";" || kind(i + 1) == python::TokenKind::EndMarker) &&
        kind(stmt_start) == python::TokenKind::Name) {
      size_t j = stmt_start;
      while (txt(j + 1) == "." && kind(j + 2) == python::TokenKind::Name) j += 2;
      if (j + 1 == i - 1) ++c.cuda_stored[std::string(txt(j))];
    }
  }
  return c;
}

}  // namespace device_invariant_detail

// "" when the invariant holds for a migration of `original` into `rewritten` (both Python text);
// otherwise the name that breaks it.
inline std::string device_invariant_violation(std::string_view rewritten, std::string_view original) {
  auto out = device_invariant_detail::count(rewritten);
  auto in = device_invariant_detail::count(original);
  for (const auto& [name, n] : out.npu_tests) {
    if (n > in.npu_tests[name] && out.cuda_stored.count(name))
      return name + ": compared with an NPU value migrate wrote, but still set to a CUDA value";
  }
  return {};
}

}  // namespace banjia
