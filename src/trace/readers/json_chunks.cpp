#include "trace/readers/json_chunks.h"

#include <cstring>
#include <string_view>

#include "common/errors.h"
#include "trace/readers/decimal_time.h"

namespace banjia::trace {

namespace {
struct Scanner {
  const char* d;
  size_t n;
  const std::string& file;

  size_t ws(size_t p) const {
    while (p < n && (d[p] == ' ' || d[p] == '\n' || d[p] == '\r' || d[p] == '\t')) ++p;
    return p;
  }
  // p at '"': index after the closing quote, or npos when unterminated.
  size_t string_end(size_t p) const {
    ++p;
    for (;;) {
      const void* q = p < n ? std::memchr(d + p, '"', n - p) : nullptr;
      if (!q) return std::string_view::npos;
      size_t i = static_cast<size_t>(static_cast<const char*>(q) - d);
      size_t bs = 0;
      while (i - bs > p - 1 && d[i - bs - 1] == '\\') ++bs;
      if (bs % 2 == 0) return i + 1;
      p = i + 1;
    }
  }
  // Index of the ']' or '}' that closes the container p is inside of (depth 0 at p), or npos.
  size_t container_end(size_t p) const {
    long depth = 0;
    while (p < n) {
      char c = d[p];
      if (c == '"') {
        p = string_end(p);
        if (p == std::string_view::npos) return p;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      else if (c == '}' || c == ']') {
        if (--depth < 0) return p;
      }
      ++p;
    }
    return std::string_view::npos;
  }
  // p at the start of a value: index just past it, or npos.
  size_t value_end(size_t p) const {
    if (p >= n) return std::string_view::npos;
    if (d[p] == '"') return string_end(p);
    if (d[p] == '{' || d[p] == '[') {
      size_t e = container_end(p + 1);
      return e == std::string_view::npos ? e : e + 1;
    }
    while (p < n && d[p] != ',' && d[p] != '}' && d[p] != ']' && d[p] != ' ' && d[p] != '\n' && d[p] != '\r' &&
           d[p] != '\t')
      ++p;
    return p;
  }
};
}  // namespace

EventChunks split_events(char* data, size_t len, size_t chunk_bytes, const std::string& file) {
  EventChunks out;
  Scanner s{data, len, file};
  size_t p = s.ws(0);
  size_t array = std::string_view::npos;
  if (p < len && data[p] == '[') {
    out.bare_array = true;
    array = p;
  } else if (p < len && data[p] == '{') {
    // Walk the top-level members until "traceEvents".
    p = s.ws(p + 1);
    while (p < len && data[p] == '"') {
      size_t ke = s.string_end(p);
      if (ke == std::string_view::npos) return out;
      std::string_view key(data + p + 1, ke - p - 2);
      p = s.ws(ke);
      if (p >= len || data[p] != ':') return out;
      p = s.ws(p + 1);
      if (key == "traceEvents") {
        if (p >= len || data[p] != '[') return out;
        array = p;
        break;
      }
      size_t ve = s.value_end(p);
      if (ve == std::string_view::npos) return out;
      if (key == "baseTimeNanoseconds")
        if (auto v = parse_u64(std::string_view(data + p, ve - p))) out.base_time_ns = static_cast<int64_t>(*v);
      if (key == "distributedInfo") out.distributed_info.assign(data + p, ve - p);
      p = s.ws(ve);
      if (p < len && data[p] == ',') p = s.ws(p + 1);
    }
  }
  if (array == std::string_view::npos) return out;
  size_t first = s.ws(array + 1);
  if (first >= len || data[first] != '{') return out;
  std::string_view prefix(data + array + 1, first - array - 1);
  if (prefix.find('\n') == std::string_view::npos) return out;  // minified: no safe separator
  std::string sep = "," + std::string(prefix) + "{";
  size_t begin = array;
  for (;;) {
    size_t target = begin + chunk_bytes;
    if (target >= len) break;
    const void* hit = memmem(data + target, len - target, sep.data(), sep.size());
    if (!hit) break;
    size_t comma = static_cast<size_t>(static_cast<const char*>(hit) - data);
    data[comma] = ']';
    out.docs.emplace_back(begin, comma + 1);
    begin = comma + prefix.size();  // last indentation byte before the next '{'
    data[begin] = '[';
  }
  size_t end = s.container_end(begin + 1);
  if (end == std::string_view::npos || data[end] != ']') {
    // Truncated: report it through simdjson's error on the last part.
    out.docs.emplace_back(begin, len);
    out.chunked = true;
    return out;
  }
  out.docs.emplace_back(begin, end + 1);
  // Members after the event array (e.g. "traceName") may hold baseTimeNanoseconds and distributedInfo too.
  p = s.ws(end + 1);
  while (!out.bare_array && p < len && data[p] == ',') {
    p = s.ws(p + 1);
    size_t ke = p < len && data[p] == '"' ? s.string_end(p) : std::string_view::npos;
    if (ke == std::string_view::npos) throw InputError(file, "invalid JSON after the traceEvents array");
    std::string_view key(data + p + 1, ke - p - 2);
    if (key == "traceEvents") throw InputError(file, "JSON object has more than one \"traceEvents\" array");
    p = s.ws(ke);
    if (p >= len || data[p] != ':') throw InputError(file, "invalid JSON after the traceEvents array");
    p = s.ws(p + 1);
    size_t ve = s.value_end(p);
    if (ve == std::string_view::npos) throw InputError(file, "invalid or truncated JSON after the traceEvents array");
    if (key == "baseTimeNanoseconds")
      if (auto v = parse_u64(std::string_view(data + p, ve - p))) out.base_time_ns = static_cast<int64_t>(*v);
    if (key == "distributedInfo") out.distributed_info.assign(data + p, ve - p);
    p = s.ws(ve);
  }
  if (!out.bare_array) {
    if (p >= len || data[p] != '}') throw InputError(file, "invalid or truncated JSON after the traceEvents array");
    p = s.ws(p + 1);
  }
  if (p != len) throw InputError(file, "invalid JSON: trailing content after the trace");
  out.chunked = true;
  return out;
}

}  // namespace banjia::trace
