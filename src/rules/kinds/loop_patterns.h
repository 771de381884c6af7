// Match kinds of the per-iteration advisories: "loop-call" (a call of one of the rule's `names`, or
// an `operator` such as "@", inside a loop body), "loop-method" (`.name()` in a loop body, on device
// work) and "attention-pattern" (softmax(q @ k.transpose(...)) in one statement). One matcher serves
// the three: the loop structure of a file is computed once, for the first candidate.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct LoopCallMatch {
  static constexpr std::string_view kName = "loop-call";
  std::vector<std::string> names;  // the callables, dotted
  std::string op;  // an operator such as "@" (TOML `operator`)

  static LoopCallMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

// Matched by LoopCallMatch::match.
struct LoopMethodMatch {
  static constexpr std::string_view kName = "loop-method";
  std::vector<std::string> names;  // the method names (item, cpu)

  static LoopMethodMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
};

// Matched by LoopCallMatch::match.
struct AttentionPatternMatch {
  static constexpr std::string_view kName = "attention-pattern";

  static AttentionPatternMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
};

}  // namespace banjia::rules
