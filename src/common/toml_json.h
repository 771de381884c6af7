// A TOML document as JSON and back, for the knowledge base: the build writes each data/*.toml file
// as JSON once (tools/toml_to_json.cpp), and banjia loads that JSON with simdjson instead of parsing
// the TOML at every start (toml++ took about 25 ns per byte: ~2 ms for the rules, ~5 ms for the
// environment facts, on every run). The TOML files stay the one source of truth.
//
// Only what the knowledge base uses maps: tables, arrays, strings, booleans, integers and finite
// floats (a float is written with a '.' or an exponent, so it comes back a float). Dates, times,
// nan and inf are refused when the JSON is written, which fails the build.
#pragma once
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace banjia {

class JsonWriter;

// Throws std::runtime_error naming the key path of a value JSON cannot carry.
void write_toml_as_json(JsonWriter& w, const toml::table& table);

// Throws InputError(file, ...) for JSON that is not such a document.
toml::table toml_from_json(std::string_view json, const std::string& file);

}  // namespace banjia
