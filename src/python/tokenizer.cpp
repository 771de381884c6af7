#include "python/tokenizer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "common/utf8.h"
#include "python/lexer.h"

namespace banjia::python {

const char* token_kind_name(TokenKind kind) {
  switch (kind) {
    case TokenKind::Name: return "NAME";
    case TokenKind::Number: return "NUMBER";
    case TokenKind::String: return "STRING";
    case TokenKind::FStringStart: return "FSTRING_START";
    case TokenKind::FStringMiddle: return "FSTRING_MIDDLE";
    case TokenKind::FStringEnd: return "FSTRING_END";
    case TokenKind::Op: return "OP";
    case TokenKind::Comment: return "COMMENT";
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::NL: return "NL";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::EndMarker: return "ENDMARKER";
    case TokenKind::Whitespace: return "WHITESPACE";
    case TokenKind::ErrorToken: return "ERRORTOKEN";
  }
  return "?";
}

TokenPosition token_end(const Token& t, std::string_view src) {
  const std::string_view full = t.text(src);
  std::string_view text = full;
  if (t.end_flags & Token::kTrailingBreakStays) {  // drop the final terminator ("\r\n" as one)
    size_t cut = text.ends_with("\r\n") ? 2 : (text.ends_with('\n') || text.ends_with('\r')) ? 1 : 0;
    text.remove_suffix(cut);
  }
  const uint32_t breaks = lex::line_breaks(text);
  if (breaks == 0) {
    uint32_t width = static_cast<uint32_t>(utf8_count_code_points(full));
    return {t.line, t.col + width + ((t.end_flags & Token::kPhantomNewline) ? 1u : 0u)};
  }
  const size_t last_start = text.find_last_of("\r\n") + 1;  // just past the last terminator
  return {t.line + breaks, static_cast<uint32_t>(utf8_count_code_points(full.substr(last_start)))};
}

TokenStream tokenize(std::string_view text, FStringMode mode) {
  TokenStream ts;
  tokenize(text, mode, ts);
  return ts;
}

void tokenize(std::string_view text, FStringMode mode, TokenStream& out) {
  out.tokens.clear();
  out.error.reset();
  if (text.size() >= UINT32_MAX) {
    out.error = TokenizeError{1, 0, "source too large to tokenize (4 GiB or more)"};
    return;
  }
  detail::Lexer(text, mode, out).run();
}

namespace detail {
using lex::at;

Lexer::Lexer(std::string_view text, FStringMode mode, TokenStream& out)
    : s_(text), n_(text.size()), py312_(mode == FStringMode::py312), out_(out) {
  uint64_t any = 0;  // OR of all bytes, 8 at a time
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    any |= w;
  }
  for (; i < text.size(); ++i) any |= static_cast<unsigned char>(text[i]);
  ascii_ = (any & 0x8080808080808080ull) == 0;
}

#ifdef BANJIA_VERIFY_TOKEN_ENDS
// One-off check build (-DBANJIA_VERIFY_TOKEN_ENDS): the derived end equals the one the lexer knew.
void Lexer::verify_end(const Token& t, uint32_t el, uint32_t ec) const {
  TokenPosition p = token_end(t, s_);
  if (p.line != el || p.col != ec) {
    std::fprintf(stderr, "token end mismatch: %s at %u:%u derived %u:%u expected %u:%u\n", token_kind_name(t.kind),
                 t.line, t.col, p.line, p.col, el, ec);
    std::abort();
  }
}
#endif

uint32_t Lexer::col_non_ascii(size_t off) {
  if (cp_line_ != line_start_ || off < cp_off_) {
    cp_line_ = line_start_;
    cp_off_ = line_start_;
    cp_col_ = 0;
  }
  cp_col_ += static_cast<uint32_t>(utf8_count_code_points(s_.substr(cp_off_, off - cp_off_)));
  cp_off_ = off;
  return cp_col_;
}

void Lexer::run() {
  // Torch's sources average one token per 5 bytes; n/3 leaves room for dense files without growing
  // (the slots are not initialised, so the unused ones cost only address space).
  out_.tokens.resize(n_ / 3 + 64);
  toks_ = out_.tokens.data();
  cap_ = out_.tokens.size();
  while (i_ < n_) {
    if (at_line_start_) {
      at_line_start_ = false;
      bool statement_start = fstack_.empty() && open_brackets_.empty() && !continued_;
      continued_ = false;
      if (statement_start && !line_start()) continue;
    }
    if (!fstack_.empty() && !in_field_expression()) scan_fstring_text();
    else scan_inline();
  }
  finish();
}

// Mirrors tokenize.py at a new statement: measure indentation (tab stops of 8, form feed resets),
// pass blank and comment-only lines through as COMMENT/NL, then emit INDENT or DEDENTs. Like
// CPython's compiler (Parser/tokenizer.c), indentation that depends on the width of a tab is an
// error (TabError): `alt_column` measures it with tabs one column wide.
bool Lexer::line_start() {
  size_t j = lex::skip_spaces(s_, i_);  // spaces first: one column each
  uint32_t column = static_cast<uint32_t>(j - i_);
  uint32_t alt_column = column;
  for (; j < n_; ++j) {
    char c = s_[j];
    if (c == ' ') ++column, ++alt_column;
    else if (c == '\t') column = (column / 8 + 1) * 8, ++alt_column;
    else if (c == '\f') column = alt_column = 0;
    else break;
  }
  if (j == n_) {  // trailing blank line without terminator: tokenize stops here
    if (j > i_) emit(TokenKind::Whitespace, i_, j, line_, 0);
    i_ = j;
    return false;
  }
  char c = s_[j];
  if (c == '#' || c == '\n' || c == '\r') {
    if (j > i_) emit(TokenKind::Whitespace, i_, j, line_, 0);
    if (c == '#') {
      size_t k = line_end(j);
      emit(TokenKind::Comment, j, k, line_, col(j));
      j = k;
    }
    size_t nl = lex::newline_len(s_, j);
    emit(TokenKind::NL, j, j + nl, line_, col(j));
    i_ = j + nl;
    if (nl) {
      advance_line(i_);
      at_line_start_ = true;
    }
    return false;
  }
  constexpr const char* kTabError = "inconsistent use of tabs and spaces in indentation";
  if (column > indents_.back()) {
    if (alt_column <= alt_indents_.back()) error(line_, col(j), kTabError);
    indents_.push_back(column);
    alt_indents_.push_back(alt_column);
    emit(TokenKind::Indent, i_, j, line_, 0);
  } else {
    if (j > i_) emit(TokenKind::Whitespace, i_, j, line_, 0);
    if (column < indents_.back()) {
      uint32_t c0 = col(j);
      while (column < indents_.back()) {
        indents_.pop_back();
        alt_indents_.pop_back();
        emit(TokenKind::Dedent, j, j, line_, c0);
      }
      if (column != indents_.back()) {
        error(line_, c0, "unindent does not match any outer indentation level");
        indents_.push_back(column);
        alt_indents_.push_back(alt_column);
      }
    }
    if (alt_column != alt_indents_.back()) error(line_, col(j), kTabError);
  }
  i_ = j;
  return true;
}

// The tokens of one logical line outside f-strings, in one call: run() only needs to look again at a
// line start or when an f-string opens, and a call per token cost more than most tokens' own work.
void Lexer::scan_inline() {
  do {
    if (ascii_ && fstack_.empty()) {
      scan_plain_run();
      if (i_ >= n_) return;
    }
    scan_token();
  } while (i_ < n_ && !at_line_start_ && fstack_.empty());
}

inline void Lexer::scan_token() {
  const size_t b = i_;
  const char c = s_[b];
  lex::StringStart st;
  switch (lex::char_class(c)) {
    case lex::CharClass::Blank: {
      size_t j = b + 1;
      while (j < n_ && lex::is_blank(s_[j])) ++j;
      last_inline_ws_ = token_count();
      emit(TokenKind::Whitespace, b, j, line_, col(b));
      i_ = j;
      return;
    }
    case lex::CharClass::Newline: {
      size_t nl = lex::newline_len(s_, b);
      bool nested = !open_brackets_.empty() || !fstack_.empty();
      emit(nested ? TokenKind::NL : TokenKind::Newline, b, b + nl, line_, col(b));
      i_ = b + nl;
      advance_line(i_);
      at_line_start_ = true;
      return;
    }
    case lex::CharClass::Backslash:
      if (size_t nl = lex::newline_len(s_, b + 1)) {
        emit(TokenKind::Whitespace, b, b + 1 + nl, line_, col(b));
        i_ = b + 1 + nl;
        advance_line(i_);
        at_line_start_ = true;
        continued_ = true;
      } else {
        error_char(b);
      }
      return;
    case lex::CharClass::Hash: {
      size_t j = line_end(b);
      emit(TokenKind::Comment, b, j, line_, col(b));
      i_ = j;
      return;
    }
    case lex::CharClass::Dot:
      if (!lex::is_digit(at(s_, b + 1))) break;  // an operator: '.' or '...'
      [[fallthrough]];
    case lex::CharClass::Digit: {
      size_t j = lex::number(s_, b);
      emit(TokenKind::Number, b, j, line_, col(b));
      i_ = j;
      return;
    }
    case lex::CharClass::Quote:
    case lex::CharClass::Prefix:
      if (lex::string_start(s_, b, st)) {
        scan_string(b, st);
        return;
      }
      [[fallthrough]];
    case lex::CharClass::Name: {
      size_t j = b + 1;
      while (j < n_ && lex::kNameChar[static_cast<unsigned char>(s_[j])]) ++j;
      emit(TokenKind::Name, b, j, line_, col(b));
      i_ = j;
      return;
    }
    case lex::CharClass::Op:
    case lex::CharClass::Other:
      break;
  }
  size_t len = lex::op_length(s_, b);
  if (len == 0 && c == '!' && at_field_top_level()) len = 1;  // f"{x!r}" conversion
  if (len) scan_op(b, len);
  else error_char(b);
}

void Lexer::scan_op(size_t b, size_t len) {
  char c = s_[b];
  if (at_field_top_level()) {
    if (c == '}') {  // end of a replacement field
      emit(TokenKind::Op, b, b + 1, line_, col(b));
      open_brackets_.pop_back();
      fstack_.pop_back();
      i_ = b + 1;
      return;
    }
    if (c == ':') {  // format spec follows; ':=' here is ':' then spec "=..."
      emit(TokenKind::Op, b, b + 1, line_, col(b));
      fstack_.back().in_spec = true;
      i_ = b + 1;
      return;
    }
  }
  uint32_t tok = token_count();
  emit(TokenKind::Op, b, b + len, line_, col(b));
  i_ = b + len;
  if (c == '(' || c == '[' || c == '{') {
    open_brackets_.push_back(tok);
  } else if (c == ')' || c == ']' || c == '}') {
    size_t floor = fstack_.empty() ? 0 : fstack_.back().paren_base + (fstack_.back().is_field ? 1 : 0);
    if (open_brackets_.size() > floor) open_brackets_.pop_back();
    else error_at_token(tok, fmt::format("unmatched '{}'", c));
  }
}

// tokenize.py's pseudo-token regex fails at the blank run before an unknown character, so each of
// those blanks becomes its own ERRORTOKEN; reproduce that so the streams compare equal.
void Lexer::error_char(size_t b) {
  if (count_ > 0 && last_inline_ws_ == count_ - 1 && out_.tokens[count_ - 1].end == b) {
    Token ws = out_.tokens[--count_];
    for (size_t k = ws.begin; k < ws.end; ++k) {  // blanks are ASCII: columns follow from ws.col
      uint32_t ck = ws.col + static_cast<uint32_t>(k - ws.begin);
      push(TokenKind::ErrorToken, k, k + 1, line_, ck, line_, ck + 1);
    }
  }
  uint32_t c0 = col(b);
  emit(TokenKind::ErrorToken, b, b + 1, line_, c0);
  unsigned char ch = static_cast<unsigned char>(s_[b]);
  if (!out_.error)  // only the first error is kept; binary junk can have millions
    error(line_, c0, ch >= 0x20 && ch < 0x7f ? fmt::format("unexpected character '{}'", s_[b])
                                             : fmt::format("unexpected character U+{:04X}", ch));
  i_ = b + 1;
}

// End of the line's content at or after b: the next '\n' or '\r', or the end of the text.
size_t Lexer::line_end(size_t b) const {
  const char* s = s_.data();
  const void* lf = std::memchr(s + b, '\n', n_ - b);
  size_t e = lf ? static_cast<size_t>(static_cast<const char*>(lf) - s) : n_;
  const void* cr = std::memchr(s + b, '\r', e - b);
  return cr ? static_cast<size_t>(static_cast<const char*>(cr) - s) : e;
}

void Lexer::finish() {
  if (!fstack_.empty()) abandon_fstrings("unterminated f-string literal");
  if (!open_brackets_.empty())
    error_at_token(open_brackets_.front(),
                   fmt::format("'{}' was never closed", out_.tokens[open_brackets_.front()].text(s_)));
  if (continued_) error(line_, 0, "unexpected end of file after line continuation character");
  // tokenize.py adds NEWLINE '' (one column wide) when the last physical line has no terminator,
  // unless that line is blank or starts with '#'.
  std::string_view last = s_.substr(line_start_);
  bool partial = last.find_first_not_of(" \t\f") != std::string_view::npos;
  size_t first = last.find_first_not_of(" \t\f\v");
  if (partial && (first == std::string_view::npos || last[first] != '#')) {
    uint32_t c0 = col(n_);
    push(TokenKind::Newline, n_, n_, line_, c0, line_, c0 + 1);
  }
  uint32_t eof_line = partial ? line_ + 1 : line_;
  for (size_t k = 1; k < indents_.size(); ++k) push(TokenKind::Dedent, n_, n_, eof_line, 0, eof_line, 0);
  push(TokenKind::EndMarker, n_, n_, eof_line, 0, eof_line, 0);
  out_.tokens.resize(count_);
}

}  // namespace detail
}  // namespace banjia::python
