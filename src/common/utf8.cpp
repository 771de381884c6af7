#include "common/utf8.h"

#include <simdjson.h>

namespace banjia {

size_t utf8_sequence_length(std::string_view s) {
  if (s.empty()) return 0;
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t len;
  unsigned min_cp;
  unsigned cp;
  if ((c & 0xE0) == 0xC0) { len = 2; min_cp = 0x80; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { len = 3; min_cp = 0x800; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { len = 4; min_cp = 0x10000; cp = c & 0x07; }
  else return 0;
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

size_t utf8_first_invalid(std::string_view s) {
  // simdjson validates a whole buffer many bytes per cycle; every scanned file takes this path once,
  // and only an invalid one needs the byte-by-byte walk to find where.
  if (simdjson::validate_utf8(s.data(), s.size())) return s.size();
  return utf8_first_invalid_scalar(s);
}

size_t utf8_first_invalid_scalar(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // Fast path for ASCII runs.
    if (static_cast<unsigned char>(s[i]) < 0x80) { ++i; continue; }
    size_t len = utf8_sequence_length(s.substr(i));
    if (len == 0) return i;
    i += len;
  }
  return s.size();
}

size_t utf8_count_code_points(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace banjia
