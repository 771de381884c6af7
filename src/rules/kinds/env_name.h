// Match kind "env-name": a CUDA/NCCL environment variable name used as one (os.environ, getenv, an
// env= dict). A rule with `names` lists the variables whose value is a device list.
#pragma once
#include "rules/kinds/kind.h"

namespace banjia::rules {

struct EnvNameMatch {
  static constexpr std::string_view kName = "env-name";
  std::vector<std::string> names;     // variables whose value is a CUDA device list
  std::optional<bool> equivalent;     // the rule for names with (true) or without an Ascend equivalent
  std::vector<std::string> prefixes;  // names starting with these are CUDA/NCCL-specific (CUDA_, NCCL_)

  static EnvNameMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
