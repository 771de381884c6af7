// `banjia env template --scenario S [--cards N]`: a commented shell script of recommended settings
// (data/env/templates.toml), each line citing its source.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace banjia::env {

// Throws InputError for an unknown scenario or a bad --cards value.
std::string render_template(std::string_view scenario, std::optional<int> cards);

}  // namespace banjia::env
