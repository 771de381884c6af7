#include "common/toml_json.h"

#include <cmath>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>
#include <simdjson.h>

#include "common/errors.h"
#include "common/json_writer.h"

namespace banjia {

namespace {
void write_node(JsonWriter& w, const toml::node& node, const std::string& where);

void write_table(JsonWriter& w, const toml::table& t, const std::string& where) {
  w.begin_object();
  for (const auto& [key, value] : t) {
    w.key(key.str());
    write_node(w, value, where.empty() ? std::string(key.str()) : where + "." + std::string(key.str()));
  }
  w.end_object();
}

void write_node(JsonWriter& w, const toml::node& node, const std::string& where) {
  if (const auto* t = node.as_table()) return write_table(w, *t, where);
  if (const auto* a = node.as_array()) {
    w.begin_array();
    size_t i = 0;
    for (const auto& item : *a) write_node(w, item, fmt::format("{}[{}]", where, i++));
    w.end_array();
    return;
  }
  if (const auto* s = node.as_string()) return void(w.value(s->get()));
  if (const auto* b = node.as_boolean()) return void(w.value(b->get()));
  if (const auto* i = node.as_integer()) return void(w.value(i->get()));
  if (const auto* f = node.as_floating_point()) {
    const double d = f->get();
    if (!std::isfinite(d)) throw std::runtime_error(where + ": nan and inf have no JSON form");
    // fmt writes 1.0 as "1", which would come back an integer.
    std::string text = fmt::format("{}", d);
    if (text.find_first_of(".eE") == std::string::npos) text += ".0";
    w.raw(text);
    return;
  }
  throw std::runtime_error(where + ": dates and times are not used in the knowledge base");
}

using TomlValue = std::variant<toml::table, toml::array, std::string, int64_t, double, bool>;

// The TOML form of `value` (recursive for tables and arrays).
TomlValue convert(simdjson::dom::element value, const std::string& file) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    case element_type::OBJECT: {
      toml::table t;
      simdjson::dom::object object;
      if (value.get_object().get(object)) throw InputError(file, "unreadable object");
      for (const simdjson::dom::key_value_pair field : object)
        std::visit([&](auto&& v) { t.insert(field.key, std::move(v)); }, convert(field.value, file));
      return t;
    }
    case element_type::ARRAY: {
      toml::array a;
      simdjson::dom::array array;
      if (value.get_array().get(array)) throw InputError(file, "unreadable array");
      for (simdjson::dom::element item : array)
        std::visit([&](auto&& v) { a.push_back(std::move(v)); }, convert(item, file));
      return a;
    }
    case element_type::STRING: return std::string(value.get_string().value());
    case element_type::INT64: return value.get_int64().value();
    case element_type::DOUBLE: return value.get_double().value();
    case element_type::BOOL: return value.get_bool().value();
    default: throw InputError(file, "null, or an integer beyond 64 bits: no TOML form");
  }
}
}  // namespace

void write_toml_as_json(JsonWriter& w, const toml::table& table) { write_table(w, table, ""); }

toml::table toml_from_json(std::string_view json, const std::string& file) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root)) throw InputError(file, simdjson::error_message(error));
  if (!root.is_object()) throw InputError(file, "not a JSON object");
  return std::get<toml::table>(convert(root, file));
}

}  // namespace banjia
