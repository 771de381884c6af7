// PEP 701 f-strings (py312 mode): FSTRING_START, literal FSTRING_MIDDLE runs, replacement fields
// tokenized as ordinary expressions, format specs with nested fields, FSTRING_END. Nesting is an
// explicit frame stack, never recursion, so f"{f'{x}'}" at any depth cannot overflow the C++ stack.
#include <algorithm>
#include <fmt/format.h>

#include "python/lexer.h"

namespace banjia::python::detail {
using lex::at;

void Lexer::begin_fstring(size_t b, const lex::StringStart& st) {
  size_t e = b + st.prefix_len + (st.triple ? 3 : 1);
  FFrame f;
  f.triple = st.triple;
  f.raw = st.raw;
  f.quote = st.quote;
  f.paren_base = static_cast<uint32_t>(open_brackets_.size());
  f.start_tok = token_count();
  emit(TokenKind::FStringStart, b, e, line_, col(b));
  fstack_.push_back(f);
  i_ = e;
}

// Drops every open f-string (error recovery); brackets opened inside them are forgotten too.
void Lexer::abandon_fstrings(const char* message) {
  error_at_token(fstack_.front().start_tok, message);
  open_brackets_.resize(fstack_.front().paren_base);
  fstack_.clear();
}

// Literal text of the innermost f-string, or the format spec of its innermost field.
void Lexer::scan_fstring_text() {
  const bool spec = fstack_.back().is_field;
  const FFrame fs = spec ? fstack_[fstack_.size() - 2] : fstack_.back();
  const size_t b = i_;
  const uint32_t l = line_, c0 = col(b);
  size_t j = b;
  while (j < n_) {
    char c = s_[j];
    if (c == '\\') {
      char d = at(s_, j + 1);
      if (!fs.raw && d == 'N' && at(s_, j + 2) == '{') {  // \N{NAME} is an escape, not a field
        // Unicode character names are short; a bounded search keeps junk like "\N{\N{..." linear.
        size_t close = s_.substr(0, std::min(n_, j + 3 + 128)).find_first_of("}\n\r", j + 3);
        j = (close != std::string_view::npos && s_[close] == '}') ? close + 1 : j + 1;
      } else if (d == '{' || d == '}') {
        j += 1;
      } else if (size_t nl = lex::newline_len(s_, j + 1)) {
        j += 1 + nl;
        advance_line(j);
      } else {
        j += 2;
      }
      continue;
    }
    if ((c == '{' || c == '}') && !spec && at(s_, j + 1) == c) {  // {{ and }} are literal braces
      j += 2;
      continue;
    }
    if (c == '{' || c == '}') break;
    if (c == fs.quote && (!fs.triple || (at(s_, j + 1) == c && at(s_, j + 2) == c))) break;
    if (c == '\n' || c == '\r') {
      if (!fs.triple) break;
      j += lex::newline_len(s_, j);
      advance_line(j);
      continue;
    }
    ++j;
  }
  if (j > n_) j = n_;
  if (j > b) emit(TokenKind::FStringMiddle, b, j, l, c0);
  i_ = j;
  if (j == n_) {
    abandon_fstrings("unterminated f-string literal");
    return;
  }
  const char c = s_[j];
  const uint32_t cj = col(j);
  if (c == '{') {
    FFrame field;
    field.is_field = true;
    field.paren_base = static_cast<uint32_t>(open_brackets_.size());
    field.start_tok = token_count();
    open_brackets_.push_back(field.start_tok);
    emit(TokenKind::Op, j, j + 1, line_, cj);
    fstack_.push_back(field);
    i_ = j + 1;
  } else if (c == '}') {
    emit(spec ? TokenKind::Op : TokenKind::ErrorToken, j, j + 1, line_, cj);
    if (spec) {
      open_brackets_.resize(fstack_.back().paren_base);
      fstack_.pop_back();
    } else {
      error(line_, cj, "f-string: single '}' is not allowed");
    }
    i_ = j + 1;
  } else if (spec) {  // closing quote or end of line inside a format spec
    error(line_, cj, "f-string: expecting '}'");
    open_brackets_.resize(fstack_.back().paren_base);
    fstack_.pop_back();
  } else if (c == fs.quote) {
    size_t e = j + (fs.triple ? 3 : 1);
    emit(TokenKind::FStringEnd, j, e, line_, cj);
    fstack_.pop_back();
    i_ = e;
  } else {  // newline in a single-quoted f-string
    error_at_token(fstack_.back().start_tok, fmt::format("unterminated f-string literal (detected at line {})", line_));
    open_brackets_.resize(fstack_.back().paren_base);
    fstack_.pop_back();
  }
}

}  // namespace banjia::python::detail
