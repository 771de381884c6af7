// Approximate name matching for "did you mean" and `env explain` lookups, and the ASCII case
// foldings names are compared under.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace banjia {

size_t edit_distance(std::string_view a, std::string_view b);

// Candidates within an edit distance of max(2, len/4) of `name` (case-insensitive), closest first.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       size_t limit = 3);

// "no such <what>", with " (did you mean X?)" naming the closest of `known` when one is close enough.
std::string no_such(std::string_view what, std::string_view name, const std::vector<std::string>& known);

std::string upper(std::string_view s);  // ASCII letters only: names, not prose
std::string lower(std::string_view s);

}  // namespace banjia
