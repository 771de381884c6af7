// Identifiers as words: what several checks ask of a variable name (does it say it holds a device,
// a backend, an NVIDIA GPU?).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace banjia::rules {

// `name` split into lower-case words at '_', digits and lower-to-upper case changes:
// "dist_backend" -> dist, backend; "isNvidia" -> is, nvidia; "sm90" -> sm.
std::vector<std::string> name_words(std::string_view name);

}  // namespace banjia::rules
