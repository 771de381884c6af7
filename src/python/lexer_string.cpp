// String literals: single-quoted (with backslash continuation and tokenize.py's error recovery)
// and triple-quoted (memchr jumps over the body). f-strings in py312 mode are in lexer_fstring.cpp.
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "python/lexer.h"

namespace banjia::python::detail {
using lex::at;

// Accounts for the line terminators in [from, to) ("\r\n" once, lone '\r' and '\n' each once).
// memchr from newline to newline: docstring lines are long enough that jumping beats counting bytes.
void Lexer::cross_lines(size_t from, size_t to) {
  std::string_view r = s_.substr(from, to - from);
  size_t lines = 0, last_end = 0;  // last_end: offset in r just past the last terminator
  for (const char *p = r.data(), *e = r.data() + r.size(); p < e; ++p) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(e - p)));
    if (!p) break;
    ++lines;
    last_end = static_cast<size_t>(p - r.data()) + 1;
  }
  if (r.find('\r') != std::string_view::npos) {
    for (size_t k = 0; k < r.size(); ++k) lines += r[k] == '\r' && at(s_, from + k + 1) != '\n';
    last_end = r.find_last_of("\r\n") + 1;
  }
  if (lines == 0) return;
  line_ += static_cast<uint32_t>(lines);
  line_start_ = from + last_end;
}

// Body of a triple-quoted string from j: jumps between quote characters and backslashes with
// memchr (docstrings are most of the bytes of typical code), then accounts for the lines crossed.
// On success j is just past the closing quotes; false (j = end of text) when it is unterminated.
bool Lexer::skip_triple_quoted(size_t& j, char q) {
  const char* s = s_.data();
  const size_t from = j;
  for (;;) {
    const void* qp = j < n_ ? std::memchr(s + j, q, n_ - j) : nullptr;
    size_t qpos = qp ? static_cast<size_t>(static_cast<const char*>(qp) - s) : n_;
    const void* bp = qpos > j ? std::memchr(s + j, '\\', qpos - j) : nullptr;
    if (bp) {  // an escape: skip the backslash and the character after it
      j = static_cast<size_t>(static_cast<const char*>(bp) - s) + 2;
      continue;
    }
    if (!qp) {
      j = n_;
      cross_lines(from, n_);
      return false;
    }
    if (at(s_, qpos + 1) == q && at(s_, qpos + 2) == q) {
      j = qpos + 3;
      cross_lines(from, j);
      return true;
    }
    j = qpos + 1;
  }
}

void Lexer::scan_string(size_t b, const lex::StringStart& st) {
  if (py312_ && st.fstring) {
    begin_fstring(b, st);
    return;
  }
  const uint32_t l = line_, c0 = col(b);
  const char q = st.quote;
  size_t j = b + st.prefix_len + (st.triple ? 3 : 1);
  if (st.triple) {
    if (skip_triple_quoted(j, q)) {
      emit(TokenKind::String, b, j, l, c0);
      i_ = j;
    } else {
      error(l, c0, "unterminated triple-quoted string literal");
      emit(TokenKind::ErrorToken, b, n_, l, c0);
      i_ = n_;
    }
    return;
  }
  // An earlier string with this quote was unterminated on this line. Scanning from any later quote
  // of that kind (escaped in the earlier scan) would step in sync with the earlier scan and fail
  // the same way, so skip it: rescanning would make lines like '\'\'\'... quadratic.
  size_t& dead_line = dead_quote_line_[q == '"'];
  if (dead_line == line_start_) j = n_ + 1;
  bool crossed_line = false;  // continued with backslash-newline
  while (j < n_) {
    char c = s_[j];
    if (c == '\\') {
      if (size_t nl = lex::newline_len(s_, j + 1)) {
        j += 1 + nl;
        advance_line(j);
        crossed_line = true;
      } else {
        j += 2;
      }
    } else if (c == q) {
      emit(TokenKind::String, b, j + 1, l, c0);
      i_ = j + 1;
      return;
    } else if (c == '\n' || c == '\r') {
      error(l, c0, fmt::format("unterminated string literal (detected at line {})", line_));
      if (!crossed_line) break;
      // tokenize.py: the string and the rest of its last line become one ERRORTOKEN.
      size_t nl = lex::newline_len(s_, j);
      emit(TokenKind::ErrorToken, b, j + nl, l, c0);
      i_ = j + nl;
      advance_line(i_);
      at_line_start_ = true;
      return;
    } else {
      ++j;
    }
  }
  if (j >= n_) error(l, c0, "unterminated string literal");
  if (j >= n_ && crossed_line) {  // tokenize.py raises here; keep the tail as one error token
    emit(TokenKind::ErrorToken, b, n_, l, c0);
    i_ = n_;
    return;
  }
  dead_line = line_start_;
  // Unterminated on its first line: like tokenize.py, the prefix is a NAME and the quote an error;
  // scanning resumes right after the quote.
  size_t q_at = b + st.prefix_len;
  if (st.prefix_len) emit(TokenKind::Name, b, q_at, l, c0);
  error_char(q_at);
}

}  // namespace banjia::python::detail
