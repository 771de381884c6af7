// Parsing a TOML document (knowledge-base files, pyproject.toml) with one error convention:
// InputError("FILE", "TOML error at line N: what").
#pragma once
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace banjia {

// A knowledge-base file compiled into banjia (`file` names an embedded file and `text` is its
// contents) is read from the JSON the build wrote of it (common/toml_json.h): the same document,
// loaded in a fraction of the time.
toml::table parse_toml(std::string_view text, const std::string& file);

}  // namespace banjia
