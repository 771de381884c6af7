// Match kind "command-string": a command line whose program is one of `commands` (nvidia-smi), given
// as a string literal to one of the rule's `names` (subprocess.run, os.system): as the whole command
// string or as the first item of the argument list.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct CommandStringMatch {
  static constexpr std::string_view kName = "command-string";
  std::vector<std::string> names;     // the callables taking the command, dotted (subprocess.run)
  std::vector<std::string> commands;  // program names, the command line's first word

  static CommandStringMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
