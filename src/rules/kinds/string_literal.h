// Match kind "string-literal": a plain string literal in Python code whose whole value is one of the
// rule's `values` (transformers' attention implementation names, "flash_attention_2"), wherever it
// stands: a keyword argument, an assignment, a default, a comparison, a dict key. For names that are
// a library's vocabulary and mean one thing wherever they are written.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct StringLiteralMatch {
  static constexpr std::string_view kName = "string-literal";
  std::vector<std::string> values;  // exact values; bytes, f-strings with fields and escapes never match

  static StringLiteralMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
