// A string literal in code and the position it stands in: the shared vocabulary of the matchers on
// string values (device and backend strings, environment variable names).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "rules/analyses/python_analysis.h"

namespace banjia::rules {

// A string literal expression: one String token, or an f-string FStringStart ... FStringEnd.
struct Literal {
  uint32_t first_sig, last_sig;
  uint32_t value_tok;        // token holding the leading text (String, or the first FStringMiddle)
  std::string_view value;    // leading literal text (whole value for plain strings)
  bool complete;             // value is the whole string (no replacement fields)
  size_t value_offset;       // byte offset of `value` in the text
};

// The literal starting at sig index si; nullopt for bytes, implicit concatenations and f-strings
// that do not start with literal text.
std::optional<Literal> literal_at(const PythonAnalysis& a, uint32_t si);

// Where a literal stands: as an argument of a call (which callee, which keyword/position), or as
// an operand of ==/!=, or as a subscript.
struct Position {
  bool in_call = false;
  uint32_t open_sig = 0;
  std::string_view keyword;
  int positional_index = -1;
  bool compared = false;                 // operand of == / !=
  std::string_view compared_with_last;   // last name of the other operand's chain
  bool subscript_of_environ = false;
  bool membership_in_environ = false;    // "X" in os.environ
};
Position position_of(const PythonAnalysis& a, const Literal& l);

// The last name of the chain NAME(.NAME)* starting at sig index si ("" when si is not a name).
std::string_view chain_last_name_after(const PythonAnalysis& a, uint32_t si);

}  // namespace banjia::rules
