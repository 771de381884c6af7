// The TOML table behind MatchFields: seen only by the catalogue parser and MatchFields itself.
#pragma once
#include <toml++/toml.h>

#include "rules/match_fields.h"

namespace banjia::rules {

struct MatchFields::Table {
  const toml::table& fields;
};

}  // namespace banjia::rules
