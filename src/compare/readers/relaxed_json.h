// Python's json.dump writes NaN/Infinity/-Infinity as bare tokens (msprobe dumps do): not JSON, so
// simdjson rejects them. This rewrites those tokens, outside strings only, as the strings "NaN",
// "Infinity" and "-Infinity", which the readers then turn back into numbers.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

namespace banjia::compare {

std::string quote_nonfinite_tokens(std::string_view json);

// Reads `path`, quotes its non-finite tokens and parses it into `parser`'s document. Throws
// InputError(path, "<what>: not valid JSON ...") on read or parse errors.
simdjson::dom::element parse_relaxed_json_file(const std::string& path, simdjson::dom::parser& parser,
                                               std::string_view what);

// A number from a JSON value that may be a number, a bool, one of the quoted non-finite strings,
// "nan"/"inf", or null (-> nullopt).
std::optional<double> relaxed_number(simdjson::dom::element v);

// The dimensions of a JSON "shape" array, or nullopt when one is not an integer in [0, 2^63):
// a dimension that cannot be read must not silently vanish (a shorter shape would pair and compare
// the tensor as something else).
std::optional<std::vector<int64_t>> shape_dimensions(simdjson::dom::array shape);

}  // namespace banjia::compare
