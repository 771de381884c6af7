// Match kind "device-index": one of the rule's `names` (an integer index such as rank) passed where a
// device goes.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct DeviceIndexMatch {
  static constexpr std::string_view kName = "device-index";
  std::vector<std::string> names;  // the index names (rank, local_rank)

  static DeviceIndexMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
