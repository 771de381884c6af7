#include "common/json_writer.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/utf8.h"

namespace banjia {

namespace {
// The end of the run from i of bytes a JSON string holds as they are: ASCII from 0x20 up but '"' and
// '\\'. Sixteen bytes per step with SSE2 (x86-64's baseline): reports are mostly such runs (paths,
// messages, sources), and a byte loop would be most of the time spent writing one.
#ifdef __SSE2__
// Bit k is set when byte k of x must not be copied as it is. Signed compare: bytes >= 0x80 are
// negative, so one test finds them and the control bytes.
unsigned special_bytes(__m128i x) {
  const __m128i special = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                                       _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                                    _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
  return static_cast<unsigned>(_mm_movemask_epi8(special));
}
#endif

size_t verbatim_run_end(std::string_view s, size_t i) {
#ifdef __SSE2__
  for (; i + 16 <= s.size(); i += 16) {
    const unsigned mask = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i)));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
  }
  if (i == s.size()) return i;
  // The last 1-15 bytes (all of a short key or value): one more step on a zero-padded copy instead
  // of a byte loop. The padding is a control byte, so the run never reaches past the end.
  alignas(16) char tail[16] = {};
  std::memcpy(tail, s.data() + i, s.size() - i);
  return i + static_cast<size_t>(__builtin_ctz(special_bytes(_mm_load_si128(reinterpret_cast<const __m128i*>(tail)))));
#else
  for (; i < s.size(); ++i) {
    const unsigned char r = static_cast<unsigned char>(s[i]);
    if (r < 0x20 || r >= 0x80 || r == '"' || r == '\\') break;
  }
  return i;
#endif
}
}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    // Copy the run of printable ASCII that needs no escaping in one append (most text is that).
    const size_t run = verbatim_run_end(s, i);
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      if (i == s.size()) break;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) out += fmt::format("\\u{:04x}", c);
          else out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    size_t len = utf8_sequence_length(s.substr(i));
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for an invalid byte
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  out.push_back('"');
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_.push_back('\n');
  out_.append(first_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = 0;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  first_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  first_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  append_json_string(out_, k);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  before_value();
  if (!std::isfinite(d)) out_ += "null";
  else out_ += fmt::format("{}", d);  // shortest round-trip representation
  return *this;
}

JsonWriter& JsonWriter::value(int64_t i) {
  before_value();
  const fmt::format_int digits(i);
  out_.append(digits.data(), digits.size());
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t u) {
  before_value();
  const fmt::format_int digits(u);
  out_.append(digits.data(), digits.size());
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

}  // namespace banjia
