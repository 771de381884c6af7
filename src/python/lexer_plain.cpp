// The tokenizer's fast path: the plain stretches of a line (names, blanks, numbers, operators) in
// ASCII text outside f-strings, which are most of any Python file. It keeps the lexer state in
// locals and writes tokens directly; anything else (strings, comments, newlines, backslashes,
// non-ASCII, closing an unopened bracket, a full token buffer) ends the run and goes to
// scan_token(), the general path that defines the behaviour this one must equal (the differential
// test against CPython's tokenize covers both).
#include "python/lexer.h"

namespace banjia::python::detail {

void Lexer::scan_plain_run() {
  const std::string_view s = s_;
  const size_t n = n_;
  const size_t ls = line_start_;
  const uint32_t line = line_;
  Token* const toks = toks_;
  size_t count = count_;
  size_t i = i_;
  while (i < n && count < cap_) {
    const size_t b = i;
    const char c = s[b];
    TokenKind kind;
    switch (lex::char_class(c)) {
      case lex::CharClass::Blank:
        while (++i < n && lex::is_blank(s[i])) {}
        last_inline_ws_ = static_cast<uint32_t>(count);
        kind = TokenKind::Whitespace;
        break;
      case lex::CharClass::Prefix: {
        lex::StringStart st;
        if (lex::string_start(s, b, st)) goto done;  // a string literal: general path
        [[fallthrough]];
      }
      case lex::CharClass::Name:
        i = lex::ascii_name_end(s, b + 1);
        kind = TokenKind::Name;
        break;
      case lex::CharClass::Dot:
        if (!lex::is_digit(lex::at(s, b + 1))) goto op;
        [[fallthrough]];
      case lex::CharClass::Digit:
        i = lex::number(s, b);
        kind = TokenKind::Number;
        break;
      case lex::CharClass::Op:
      op: {
        const size_t len = lex::op_length(s, b);
        if (len == 0) goto done;  // '!' alone: an error, or a conversion inside an f-string
        if (c == '(' || c == '[' || c == '{') {
          open_brackets_.push_back(static_cast<uint32_t>(count));
        } else if (c == ')' || c == ']' || c == '}') {
          if (open_brackets_.empty()) goto done;  // unmatched: the general path reports it
          open_brackets_.pop_back();
        }
        i = b + len;
        kind = TokenKind::Op;
        break;
      }
      default:
        goto done;
    }
    // One line, no terminator: no end flags.
    write_token(toks + count++, kind, 0, static_cast<uint32_t>(b), static_cast<uint32_t>(i), line,
                static_cast<uint32_t>(b - ls));
  }
done:
  i_ = i;
  count_ = count;
}

}  // namespace banjia::python::detail
