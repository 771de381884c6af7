#include "compare/readers/relaxed_json.h"

#include "common/errors.h"
#include "common/file_io.h"

#include <cmath>
#include <limits>

namespace banjia::compare {

std::string quote_nonfinite_tokens(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 64);
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) out += json[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') { in_string = true; out += c; continue; }
    auto token_at = [&](std::string_view t) { return json.substr(i, t.size()) == t; };
    if (token_at("NaN")) { out += "\"NaN\""; i += 2; continue; }
    if (token_at("Infinity")) { out += "\"Infinity\""; i += 7; continue; }
    if (token_at("-Infinity")) { out += "\"-Infinity\""; i += 8; continue; }
    out += c;
  }
  return out;
}

std::optional<double> relaxed_number(simdjson::dom::element v) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (v.type()) {
    case simdjson::dom::element_type::DOUBLE: return double(v.get_double());
    case simdjson::dom::element_type::INT64: return static_cast<double>(int64_t(v.get_int64()));
    case simdjson::dom::element_type::UINT64: return static_cast<double>(uint64_t(v.get_uint64()));
    case simdjson::dom::element_type::BOOL: return bool(v.get_bool()) ? 1.0 : 0.0;
    case simdjson::dom::element_type::STRING: {
      std::string_view s = v.get_string();
      if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "Infinity" || s == "inf") return kInf;
      if (s == "-Infinity" || s == "-inf") return -kInf;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::optional<std::vector<int64_t>> shape_dimensions(simdjson::dom::array shape) {
  std::vector<int64_t> dims;
  for (simdjson::dom::element d : shape) {
    int64_t v = 0;
    if (d.get(v) != simdjson::SUCCESS || v < 0) return std::nullopt;  // 1e30, -1, "2", 2^64...
    dims.push_back(v);
  }
  return dims;
}

// simdjson parses documents up to 4 GiB; the cap also stops a device or FIFO from being read without end.
constexpr size_t kMaxJsonBytes = size_t{4} << 30;

simdjson::dom::element parse_relaxed_json_file(const std::string& path, simdjson::dom::parser& parser,
                                               std::string_view what) {
  std::string text = quote_nonfinite_tokens(read_text_file(path, kMaxJsonBytes, what));
  simdjson::dom::element root;
  if (auto err = parser.parse(text).get(root))
    throw InputError(path, std::string("not valid ") + std::string(what) + ": " + simdjson::error_message(err));
  return root;
}

}  // namespace banjia::compare
