#include "trace/readers/decimal_time.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace banjia::trace {

namespace {
std::string_view strip(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}
}  // namespace

namespace {
std::optional<int64_t> parse_exponent_form(std::string_view s) {
  std::string tmp(s);
  char* end = nullptr;
  double v = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size() || !std::isfinite(v) || std::fabs(v) > 9e12) return std::nullopt;
  return static_cast<int64_t>(std::llround(v * 1000.0));
}
}  // namespace

std::optional<int64_t> parse_us_to_ns(std::string_view text) {
  std::string_view s = strip(text);
  if (s.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  int64_t whole = 0;  // at most 16 integer digits, checked below so that whole * 1000 + 999 fits
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    if (digits == 16) return std::nullopt;
    whole = whole * 10 + (s[i] - '0');
  }
  if (whole > (INT64_MAX - 1000) / 1000) return std::nullopt;
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
      if (frac_digits < 3) {
        frac = frac * 10 + (s[i] - '0');
        ++frac_digits;
      } else if (frac_digits == 3) {
        round_up = s[i] >= '5';
        ++frac_digits;
      }
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && digits > 0) return parse_exponent_form(s);
  if (i != s.size() || digits == 0) return std::nullopt;
  while (frac_digits < 3) {
    frac *= 10;
    ++frac_digits;
  }
  int64_t ns = whole * 1000 + frac + (round_up ? 1 : 0);
  if (ns > kMaxTimeNs) return std::nullopt;
  return neg ? -ns : ns;
}

std::optional<uint64_t> parse_u64(std::string_view text) {
  std::string_view s = strip(text);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace banjia::trace
