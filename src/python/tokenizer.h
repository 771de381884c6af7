// Lossless Python tokenizer (3.8-3.13 sources). Every byte of the input belongs to exactly one token
// (trivia such as spaces and backslash-continuations are Whitespace tokens), so concatenating the
// token texts reproduces the source byte for byte. Single pass, no regex, no recursion, no
// per-token allocation; errors never throw: the first one is reported in TokenStream::error.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/uninit_allocator.h"

namespace banjia::python {

enum class TokenKind : uint8_t {
  Name, Number, String, FStringStart, FStringMiddle, FStringEnd, Op, Comment,
  Newline, NL, Indent, Dedent, EndMarker,
  Whitespace,  // spaces, tabs, form feeds, backslash-continuations (never emitted by CPython)
  ErrorToken
};

// CPython's token type name ("NAME", "OP", "FSTRING_START", ...); "WHITESPACE" for trivia.
const char* token_kind_name(TokenKind kind);

struct Token {
  // Deliberately leaves the fields uninitialised: the tokenizer sizes its output vector up front and
  // writes every slot it keeps, so value-initialising (zeroing) it first is pure waste (~6 % of a scan).
  Token() noexcept {}  // NOLINT(cppcoreguidelines-pro-type-member-init)
  Token(TokenKind k, uint8_t f, uint32_t b, uint32_t e, uint32_t l, uint32_t c) noexcept
      : kind(k), end_flags(f), begin(b), end(e), line(l), col(c) {}
  TokenKind kind;
  // How token_end() reads the end position from the text (kTrailingBreakStays, kPhantomNewline).
  // The end is not stored: 20 bytes per token instead of 28, and the scanner never needs it.
  uint8_t end_flags;
  uint32_t begin, end;          // byte offsets into the text; tokens tile the text exactly
  uint32_t line, col;           // 1-based line, 0-based column in code points (as Python's tokenize)
  std::string_view text(std::string_view src) const { return src.substr(begin, end - begin); }

  // A line terminator that ends the token does not move its end to the next line (NL, NEWLINE,
  // backslash continuations, an unterminated string's error token): end = (line, col + length).
  static constexpr uint8_t kTrailingBreakStays = 1;
  // The NEWLINE tokenize adds at the end of a file without a final newline: empty, yet it ends one
  // column after it starts.
  static constexpr uint8_t kPhantomNewline = 2;
};

struct TokenPosition {
  uint32_t line, col;  // as Token::line / Token::col
};
// Where the token ends (CPython tokenize's `end`): derived from its text and `src` (the text it was
// tokenized from): lines advance at each "\r\n", lone '\r' or '\n' inside it, columns count code points.
TokenPosition token_end(const Token& t, std::string_view src);

struct TokenizeError {
  uint32_t line, col;
  std::string message;
};

struct TokenStream {
  UninitVector<Token> tokens;            // including Whitespace trivia; texts concatenate to the source
  std::optional<TokenizeError> error;    // first error; tokenizing goes on after it where it can
};

// py311: f-strings are single String tokens (CPython 3.11 tokenize behaviour; differential test).
// py312: f-strings are FStringStart/Middle/End with the nested expression tokens (PEP 701).
enum class FStringMode { py311, py312 };

TokenStream tokenize(std::string_view text, FStringMode mode = FStringMode::py312);
// Same, into `out`, reusing its capacity: a scanner keeping one TokenStream per thread avoids
// allocating (and page-faulting) fresh token memory for every file.
void tokenize(std::string_view text, FStringMode mode, TokenStream& out);

}  // namespace banjia::python
