// A TOML table of a rule ([match], [rewrite]) as the parsers of kinds read it: seen only by the
// catalogue parser and those parsers' helpers, so that the headers every matcher includes do not pull
// in the TOML library.
#pragma once
#include <toml++/toml.h>

namespace banjia::rules {

struct TomlTable {
  const toml::table& fields;
};

}  // namespace banjia::rules
