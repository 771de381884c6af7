// Building findings for `banjia env`: every finding names its rule (data/env/rules.toml) and its source.
#pragma once
#include <string>
#include <string_view>

#include "common/diagnostic.h"

namespace banjia::env {

struct Site {  // where an assignment is; line 0 for the process environment
  std::string file;
  int line = 0, column = 0;
};

Finding make_finding(const Site& site, std::string_view rule, Severity severity, std::string message,
                     std::string suggestion, std::string source, FixKind fix = FixKind::manual);

// The same for a rule the caller took from a knowledge base (documented there by construction), which
// may be another than the embedded one.
Finding make_listed_rule_finding(const Site& site, std::string_view rule, Severity severity, std::string message,
                                 std::string suggestion, std::string source, FixKind fix = FixKind::manual);

}  // namespace banjia::env
