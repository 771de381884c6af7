// Rewrites one configuration file (YAML, JSON, TOML): the values the config rules rewrite
// (rules/sources/config_scanner.h) are edited where they stand, byte for byte everything else; the other
// findings are left for a person.
#pragma once
#include <string>
#include <string_view>

#include "migrate/change.h"
#include "rules/core/catalog.h"

namespace banjia::migrate {

// Never throws for bad content: a file that does not parse is returned unchanged with an input-error
// leftover, one over the configuration size cap with an input-skipped one.
FileRewrite rewrite_config(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules);

}  // namespace banjia::migrate
