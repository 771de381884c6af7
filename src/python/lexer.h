// Internal: the tokenizer's state machine. Split over tokenizer.cpp (lines, indentation, ordinary
// tokens), lexer_string.cpp (string literals) and lexer_fstring.cpp (PEP 701 f-string contents).
// Not part of the public API.
#pragma once
#include <bit>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "python/lex_scan.h"
#include "python/tokenizer.h"

namespace banjia::python::detail {

// One level of f-string nesting (py312 mode): either an f-string's literal text or a replacement
// field inside it. Frames alternate: FString, Field, FString, Field, ...
struct FFrame {
  bool is_field = false;
  bool in_spec = false;       // field: scanning the format spec after ':'
  bool triple = false, raw = false;
  char quote = '"';
  uint32_t paren_base = 0;    // open_brackets_.size() before this frame began
  uint32_t start_tok = 0;     // token that opened the frame (for error positions)
};

class Lexer {
 public:
  Lexer(std::string_view text, FStringMode mode, TokenStream& out);
  void run();

 private:
  // tokenizer.cpp
  bool line_start();            // indentation at a statement start; false when the line was blank
  void scan_inline();
  void scan_token();
  // lexer_plain.cpp: ASCII fast path for names, blanks, numbers and operators outside f-strings
  void scan_plain_run();
  void scan_op(size_t b, size_t len);
  void scan_string(size_t b, const lex::StringStart& st);
  bool skip_triple_quoted(size_t& j, char q);
  void cross_lines(size_t from, size_t to);
  size_t line_end(size_t b) const;
  void error_char(size_t b);
  void finish();
  // lexer_fstring.cpp
  void begin_fstring(size_t b, const lex::StringStart& st);
  void scan_fstring_text();
  void abandon_fstrings(const char* message);
  bool in_field_expression() const { return !fstack_.empty() && fstack_.back().is_field && !fstack_.back().in_spec; }
  bool at_field_top_level() const {
    return in_field_expression() && open_brackets_.size() == fstack_.back().paren_base + 1;
  }

  // Column of byte offset `off` on the current line, in code points (bytes when the text is ASCII).
  uint32_t col(size_t off) { return ascii_ ? static_cast<uint32_t>(off - line_start_) : col_non_ascii(off); }
  uint32_t col_non_ascii(size_t off);
  // Tokens are written by index into a pre-sized vector (trimmed to count_ at the end): cheaper
  // than push_back, whose out-of-line growth check dominated the tokenizer's profile.
  // (el, ec) is where the token ends; only what token_end() cannot see in the text is kept (flags).
  void push(TokenKind k, size_t b, size_t e, uint32_t l, uint32_t c, uint32_t el, uint32_t ec) {
    const uint8_t flags = b == e ? (ec == c + 1 ? Token::kPhantomNewline : 0) : trailing_flag(b, e, l, el);
    store(Token{k, flags, static_cast<uint32_t>(b), static_cast<uint32_t>(e), l, c}, el, ec);
  }
  // Token ending at e on the current line (multi-line tokens advance the line before this call).
  // Its end column is not needed: a non-empty token's is derived, an empty one ends where it starts.
  void emit(TokenKind k, size_t b, size_t e, uint32_t l, uint32_t c) {
    const Token t{k, b == e ? uint8_t{0} : trailing_flag(b, e, l, line_), static_cast<uint32_t>(b),
                  static_cast<uint32_t>(e), l, c};
#ifdef BANJIA_VERIFY_TOKEN_ENDS
    store(t, line_, col(e));
#else
    store(t, 0, 0);
#endif
  }
  // Writes a token as three plain stores (kind, flags and begin; end and line; column): copied as a
  // whole Token (`toks_[i] = t`), it cost twice the instructions in byte and vector shuffles (the
  // plain run writes a token every few bytes of the file). store() and the plain run both use it.
  static void write_token(Token* slot, TokenKind k, uint8_t flags, uint32_t b, uint32_t e, uint32_t l, uint32_t c) {
    static_assert(std::endian::native == std::endian::little, "the words below put kind in byte 0");
    static_assert(sizeof(Token) == 20 && offsetof(Token, end_flags) == 1 && offsetof(Token, begin) == 4 &&
                  offsetof(Token, end) == 8 && offsetof(Token, line) == 12 && offsetof(Token, col) == 16);
    const uint64_t kind_flags_begin = uint64_t{static_cast<uint8_t>(k)} | uint64_t{flags} << 8 | uint64_t{b} << 32;
    const uint64_t end_line = uint64_t{e} | uint64_t{l} << 32;
    char* p = reinterpret_cast<char*>(slot);
    std::memcpy(p, &kind_flags_begin, 8);
    std::memcpy(p + 8, &end_line, 8);
    std::memcpy(p + 16, &c, 4);
  }
  void store(const Token& t, [[maybe_unused]] uint32_t el, [[maybe_unused]] uint32_t ec) {
    if (count_ == cap_) [[unlikely]] grow();
    write_token(toks_ + count_++, t.kind, t.end_flags, t.begin, t.end, t.line, t.col);
#ifdef BANJIA_VERIFY_TOKEN_ENDS
    verify_end(t, el, ec);
#endif
  }
  // kTrailingBreakStays when the token ends with a line terminator and its end line `el` did not
  // move past it (NL, NEWLINE, continuations; not a string's escaped newline at EOF).
  uint8_t trailing_flag(size_t b, size_t e, uint32_t l, uint32_t el) const {
    const char last = s_[e - 1];
    if (last != '\n' && last != '\r') return 0;
    // Tokens ending in a terminator are short, but for error tokens.
    return el < l + lex::line_breaks(s_.substr(b, e - b)) ? Token::kTrailingBreakStays : 0;
  }
#ifdef BANJIA_VERIFY_TOKEN_ENDS
  void verify_end(const Token& t, uint32_t el, uint32_t ec) const;
#endif
  uint32_t token_count() const { return static_cast<uint32_t>(count_); }
  void advance_line(size_t next_line_start) {
    ++line_;
    line_start_ = next_line_start;
  }
  void error(uint32_t l, uint32_t c, std::string message) {
    if (!out_.error) out_.error = TokenizeError{l, c, std::move(message)};
  }
  void error_at_token(uint32_t tok, std::string message) {
    error(out_.tokens[tok].line, out_.tokens[tok].col, std::move(message));  // tok < count_
  }

  std::string_view s_;
  size_t n_;
  bool py312_;
  bool ascii_;                   // no byte >= 0x80: columns are byte offsets
  TokenStream& out_;
  size_t count_ = 0;             // tokens written; out_.tokens.size() is the capacity in use
  Token* toks_ = nullptr;        // out_.tokens.data() and .size(), cached: reaching them through out_
  size_t cap_ = 0;               // on every token cost a load chain the hot loop does not need
  // Out of line: inlined, the vector's reallocation path made emit() too large to inline itself.
  [[gnu::noinline, gnu::cold]] void grow() {
    out_.tokens.resize(count_ * 2 + 1024);
    toks_ = out_.tokens.data();
    cap_ = out_.tokens.size();
  }
  size_t i_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  size_t cp_line_ = SIZE_MAX;    // incremental code-point column: on the line starting at cp_line_,
  size_t cp_off_ = 0;            // col(cp_off_) == cp_col_
  uint32_t cp_col_ = 0;
  bool at_line_start_ = true;
  bool continued_ = false;       // previous line ended with a backslash continuation
  uint32_t last_inline_ws_ = UINT32_MAX;  // index of the latest inline blank run token
  size_t dead_quote_line_[2] = {SIZE_MAX, SIZE_MAX};  // line start where a ' / " string was unterminated
  std::vector<uint32_t> indents_{0};
  // The same indentation levels counting a tab as one column: CPython's compiler measures both ways
  // and rejects a line where the two disagree (TabError), which tokenize.py does not check.
  std::vector<uint32_t> alt_indents_{0};
  std::vector<uint32_t> open_brackets_;   // token index of each unclosed bracket
  std::vector<FFrame> fstack_;
};

}  // namespace banjia::python::detail
