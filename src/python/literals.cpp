#include "python/literals.h"

#include "python/lex_scan.h"

namespace banjia::python {

std::optional<StringLiteral> split_string_literal(std::string_view t) {
  lex::StringStart st;
  if (t.empty() || !lex::string_start(t, 0, st)) return std::nullopt;
  StringLiteral lit;
  lit.prefix = t.substr(0, st.prefix_len);
  lit.quote = st.quote;
  lit.triple = st.triple;
  lit.raw = st.raw;
  lit.fstring = st.fstring;
  for (char c : lit.prefix) lit.bytes |= (c | 0x20) == 'b';
  size_t q = st.triple ? 3 : 1;
  size_t open_end = st.prefix_len + q;
  if (t.size() == open_end) return lit;  // FStringStart: opening part only
  if (t.size() < open_end + q) return std::nullopt;
  std::string_view close = t.substr(t.size() - q);
  if (close.find_first_not_of(st.quote) != std::string_view::npos) return std::nullopt;
  lit.body = t.substr(open_end, t.size() - open_end - q);
  return lit;
}

char string_body_first_byte(std::string_view t) {
  lex::StringStart st;
  if (!lex::string_start(t, 0, st)) return '\0';
  return lex::at(t, st.prefix_len + (st.triple ? 3 : 1));  // where split_string_literal's body starts
}

std::optional<std::string> simple_string_value(std::string_view token_text) {
  auto lit = split_string_literal(token_text);
  if (!lit || lit->body.find('\\') != std::string_view::npos) return std::nullopt;
  if (lit->fstring && lit->body.find_first_of("{}") != std::string_view::npos) return std::nullopt;
  if (token_text.size() == lit->prefix.size() + (lit->triple ? 3u : 1u)) return std::nullopt;
  return std::string(lit->body);
}

}  // namespace banjia::python
