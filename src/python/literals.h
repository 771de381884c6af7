// Reading string literal tokens: split a String token's text into prefix, quotes and body, and
// decode the body when it has no escapes that matter (enough for device strings like "cuda:0").
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace banjia::python {

struct StringLiteral {
  std::string_view prefix;  // "", "r", "b", "f", "rb", ... as written
  std::string_view body;    // between the quotes, escapes not processed
  char quote = '"';
  bool triple = false, raw = false, bytes = false, fstring = false;
};

// Splits the text of a String token (or of an FStringStart token: body is then empty).
// nullopt when the text is not a complete string literal (e.g. an ErrorToken).
std::optional<StringLiteral> split_string_literal(std::string_view token_text);

// The first byte of a String token's body without splitting it (a quote when the body is empty, '\0'
// when the text is not a string literal): enough to turn away most strings when only bodies that
// start with certain bytes matter. Agrees with split_string_literal(t)->body[0] on every literal whose
// body is not empty.
char string_body_first_byte(std::string_view token_text);

// The value of a plain literal whose body has no backslashes and (for f-strings) no fields,
// e.g. 'cuda:0' -> cuda:0. nullopt otherwise: the caller then treats the value as unknown.
std::optional<std::string> simple_string_value(std::string_view token_text);

}  // namespace banjia::python
