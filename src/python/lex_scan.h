// Character-level scanners used by the tokenizer: character classes, numbers, operators and string
// prefixes, each mirroring the regular expressions of CPython 3.11's Lib/tokenize.py without a regex
// engine. Stateless; `at(s, i)` returns '\0' past the end so scanners need no bounds checks.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace banjia::python::lex {

constexpr size_t npos = std::string_view::npos;

constexpr char at(std::string_view s, size_t i) { return i < s.size() ? s[i] : '\0'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// Identifier characters. Every non-ASCII byte counts as one: tokenize's \w accepts all Unicode
// letters and digits, and telling them apart from other symbols needs Unicode tables (see docs).
constexpr bool is_name_start(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
constexpr bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// What a byte can start; one table lookup replaces a chain of comparisons in the hot loop.
enum class CharClass : uint8_t { Other, Blank, Newline, Backslash, Hash, Digit, Dot, Quote, Prefix, Name, Op };

inline constexpr std::array<CharClass, 256> kCharClass = [] {
  std::array<CharClass, 256> t{};
  for (int c = 0; c < 256; ++c) {
    char ch = static_cast<char>(c);
    CharClass k = CharClass::Other;
    if (is_blank(ch)) k = CharClass::Blank;
    else if (ch == '\n' || ch == '\r') k = CharClass::Newline;
    else if (ch == '\\') k = CharClass::Backslash;
    else if (ch == '#') k = CharClass::Hash;
    else if (is_digit(ch)) k = CharClass::Digit;
    else if (ch == '.') k = CharClass::Dot;
    else if (ch == '"' || ch == '\'') k = CharClass::Quote;
    else if (ch == 'b' || ch == 'B' || ch == 'r' || ch == 'R' || ch == 'u' || ch == 'U' || ch == 'f' || ch == 'F')
      k = CharClass::Prefix;
    else if (is_name_start(ch)) k = CharClass::Name;
    else if (std::string_view("()[]{},;~:=!-+%&|^@*/<>").find(ch) != std::string_view::npos) k = CharClass::Op;
    t[static_cast<size_t>(c)] = k;
  }
  return t;
}();
inline CharClass char_class(char c) { return kCharClass[static_cast<unsigned char>(c)]; }

inline constexpr std::array<bool, 256> kNameChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[static_cast<size_t>(c)] = is_name_char(static_cast<char>(c));
  return t;
}();

// End of the run of identifier characters from i, in text that is all ASCII (the fast path's
// precondition: kNameChar also takes every byte >= 0x80, this does not). Sixteen bytes per step with
// SSE2 (x86-64's baseline): names vary in length, and the byte loop's exit branch, mispredicted
// for nearly every name, cost more than the test itself.
inline size_t ascii_name_end(std::string_view s, size_t i) {
#ifdef __SSE2__
  const char* p = s.data();
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i folded = _mm_or_si128(x, _mm_set1_epi8(0x20));  // 'A'-'Z' -> 'a'-'z'
    const __m128i letter =
        _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
    const __m128i digit =
        _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    const __m128i name = _mm_or_si128(_mm_or_si128(letter, digit), _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(name));
    if (mask != 0xFFFF) return i + static_cast<size_t>(__builtin_ctz(~mask));
  }
#endif
  while (i < s.size() && kNameChar[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

// The first byte at or after i that is not a space (or s.size()), sixteen bytes per step:
// indentation is nearly always spaces, measured at every statement start.
inline size_t skip_spaces(std::string_view s, size_t i) {
#ifdef __SSE2__
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(' '))));
    if (mask != 0xFFFF) return i + static_cast<size_t>(__builtin_ctz(~mask));
  }
#endif
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

// Length of the line terminator at i ("\r\n", "\n", or a lone "\r"), 0 if none.
inline size_t newline_len(std::string_view s, size_t i) {
  char c = at(s, i);
  if (c == '\n') return 1;
  if (c == '\r') return at(s, i + 1) == '\n' ? 2 : 1;
  return 0;
}

// Line terminators in s: "\r\n" once, lone '\r' and '\n' each once (as the tokenizer counts lines).
inline uint32_t line_breaks(std::string_view s) {
  uint32_t n = 0;
  for (size_t k = 0; k < s.size(); ++k) n += s[k] == '\n' || (s[k] == '\r' && at(s, k + 1) != '\n');
  return n;
}

// [0-9](?:_?[0-9])*  -> end offset, or npos when s[i] is not a digit.
inline size_t digits(std::string_view s, size_t i) {
  if (!is_digit(at(s, i))) return npos;
  ++i;
  for (;;) {
    if (is_digit(at(s, i))) ++i;
    else if (at(s, i) == '_' && is_digit(at(s, i + 1))) i += 2;
    else return i;
  }
}

// [eE][-+]?Digits
inline size_t exponent(std::string_view s, size_t i) {
  char c = at(s, i);
  if (c != 'e' && c != 'E') return npos;
  ++i;
  if (at(s, i) == '+' || at(s, i) == '-') ++i;
  return digits(s, i);
}

// Pointfloat | Expfloat
inline size_t float_number(std::string_view s, size_t i) {
  size_t d = digits(s, i);
  size_t end = npos;
  if (d != npos && at(s, d) == '.') {
    end = d + 1;
    if (size_t frac = digits(s, end); frac != npos) end = frac;
  } else if (d == npos && at(s, i) == '.') {
    end = digits(s, i + 1);
  }
  if (end != npos) {
    size_t e = exponent(s, end);
    return e != npos ? e : end;
  }
  return d == npos ? npos : exponent(s, d);
}

// Hex | Bin | Oct | Dec, each with optional underscores between digits.
inline size_t int_number(std::string_view s, size_t i) {
  char c = at(s, i);
  if (c == '0') {
    char x = at(s, i + 1);
    auto radix = [&](bool (*ok)(char)) -> size_t {
      size_t j = i + 2;
      size_t end = npos;
      for (;;) {
        size_t k = at(s, j) == '_' ? j + 1 : j;
        if (!ok(at(s, k))) return end;
        j = end = k + 1;
      }
    };
    size_t r = npos;
    if (x == 'x' || x == 'X') r = radix(is_hex);
    else if (x == 'b' || x == 'B') r = radix([](char ch) { return ch == '0' || ch == '1'; });
    else if (x == 'o' || x == 'O') r = radix([](char ch) { return ch >= '0' && ch <= '7'; });
    if (r != npos) return r;
    size_t j = i + 1;  // 0(?:_?0)*
    for (;;) {
      if (at(s, j) == '0') ++j;
      else if (at(s, j) == '_' && at(s, j + 1) == '0') j += 2;
      else return j;
    }
  }
  return digits(s, i);
}

// Number = Imagnumber | Floatnumber | Intnumber (first alternative that matches, as re does).
// Call only when s[i] is a digit or '.' followed by a digit.
inline size_t number(std::string_view s, size_t i) {
  auto is_j = [&](size_t k) { return k != npos && (at(s, k) == 'j' || at(s, k) == 'J'); };
  size_t d = digits(s, i);
  if (is_j(d)) return d + 1;
  size_t f = float_number(s, i);
  if (is_j(f)) return f + 1;
  if (f != npos) return f;
  size_t n = int_number(s, i);
  return n != npos ? n : i + 1;
}

// Length of the longest operator of CPython 3.11's EXACT_TOKEN_TYPES at i, 0 if none.
inline size_t op_length(std::string_view s, size_t i) {
  const char c = at(s, i);
  switch (c) {  // the operators that never combine, most of them, before reading further
    case '(': case ')': case '[': case ']': case '{': case '}': case ',': case ';': case '~':
      return 1;
    default: break;
  }
  const char c1 = at(s, i + 1);
  switch (c) {
    case '.': return (c1 == '.' && at(s, i + 2) == '.') ? 3 : 1;
    case '!': return c1 == '=' ? 2 : 0;
    case '-': return (c1 == '=' || c1 == '>') ? 2 : 1;
    case ':': case '=': case '+': case '%': case '&': case '|': case '^': case '@':
      return c1 == '=' ? 2 : 1;
    case '*': case '/': case '<': case '>':
      if (c1 == c) return at(s, i + 2) == '=' ? 3 : 2;
      return c1 == '=' ? 2 : 1;
    default: return 0;
  }
}

struct StringStart {
  size_t prefix_len = 0;  // 0..2 letters before the quote
  char quote = '"';
  bool triple = false, raw = false, fstring = false;
};

// A string literal starts at i: an optional valid prefix (b r u f br rb fr rf, any case) then a quote.
inline bool string_start(std::string_view s, size_t i, StringStart& out) {
  // A quote within three bytes, or no string: turns away at once the many names that merely begin
  // with a prefix letter (`return`, `for`, `range`), which every Name starting b/r/u/f asks about.
  auto is_quote = [](char c) { return c == '"' || c == '\''; };
  if (!is_quote(at(s, i)) && !is_quote(at(s, i + 1)) && !is_quote(at(s, i + 2))) return false;
  bool b = false, r = false, u = false, f = false;
  size_t j = i;
  for (; j < i + 2; ++j) {
    char c = at(s, j) | 0x20;  // ASCII lower case
    if (c == 'b' && !b) b = true;
    else if (c == 'r' && !r) r = true;
    else if (c == 'u' && !u) u = true;
    else if (c == 'f' && !f) f = true;
    else break;
  }
  char q = at(s, j);
  if (q != '"' && q != '\'') return false;
  if ((u && (b || r || f)) || (b && f)) return false;
  out.prefix_len = j - i;
  out.quote = q;
  out.triple = at(s, j + 1) == q && at(s, j + 2) == q;
  out.raw = r;
  out.fstring = f;
  return true;
}

}  // namespace banjia::python::lex
