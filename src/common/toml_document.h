// Parsing a TOML document (knowledge-base files, pyproject.toml) with one error convention:
// InputError("FILE", "TOML error at line N: what").
#pragma once
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace banjia {

toml::table parse_toml(std::string_view text, const std::string& file);

}  // namespace banjia
