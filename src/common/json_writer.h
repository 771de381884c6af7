// Minimal streaming JSON writer (simdjson parses; it does not write). Produces valid UTF-8 JSON:
// strings are escaped, invalid UTF-8 bytes are replaced by U+FFFD, non-finite numbers become null.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  JsonWriter& value(int64_t i);
  JsonWriter& value(uint64_t u);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(unsigned u) { return value(static_cast<uint64_t>(u)); }
  JsonWriter& value(long long i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(unsigned long long u) { return value(static_cast<uint64_t>(u)); }
  JsonWriter& null();
  // Inserts already-serialised JSON verbatim (caller guarantees validity).
  JsonWriter& raw(std::string_view json);

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }
  template <class T>
  JsonWriter& field(std::string_view k, const std::optional<T>& v) {
    key(k);
    return v ? value(*v) : null();
  }

  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void before_value();
  void newline();
  std::string out_;
  std::string first_;  // per open container: 1 while no element is written yet (a byte each: cheaper than vector<bool>)
  bool pretty_;
  bool after_key_ = false;
};

// Appends s to out as a JSON string literal (with quotes).
void append_json_string(std::string& out, std::string_view s);

}  // namespace banjia
