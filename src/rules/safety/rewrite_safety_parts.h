// The parts of rewrite_safety.h and what they share. Internal to src/rules/safety/.
#pragma once
#include <string>
#include <vector>

#include "python/expression.h"
#include "rules/analyses/blocks.h"
#include "rules/core/match.h"

namespace banjia::rules::safety {

// An automatic match migrate would apply: unblocked, with an edit.
bool applies(const PyMatch& m);
// A CUDA use that stays in the program and fails on an NPU: blocked for a reason of its own, or of
// a manual or unsupported rule at warning or error. Checks kept as the NVIDIA path are not: they are
// false on an NPU and select nothing there.
bool is_leftover(const PyMatch& m);

// The sig index of token index `tok` (the next significant token when `tok` is not one).
uint32_t sig_of_token(const PythonAnalysis& a, uint32_t tok);
uint32_t line_of_token(const PythonAnalysis& a, uint32_t tok);
// The source text of a match's span, shortened to a line's worth.
std::string span_text(const PythonAnalysis& a, const PyMatch& m);

// Blocks matches of one file: a blocked match is reported as manual work, with the reason, and loses
// its edit. A use whose edit is carried by its import (`from torch.cuda import X`: the import changes,
// the use does not) blocks the matches of that import statement and the other uses that rely on it,
// once per import statement.
class Blocker {
 public:
  Blocker(const PythonAnalysis& a, std::vector<PyMatch>& matches) : a_(a), matches_(matches) {}
  std::vector<PyMatch>& matches() { return matches_; }
  // Blocks matches()[index]; returns how many other matches it blocked through their import.
  size_t block(size_t index, const std::string& why, PyMatch::Hold hold = PyMatch::Hold::crash_risk);

 private:
  size_t block_import(uint32_t stmt, uint32_t use_tok);
  const PythonAnalysis& a_;
  std::vector<PyMatch>& matches_;
  std::vector<uint32_t> blocked_imports_;  // import statements already blocked
};

// 1. rewrite_safety_gpu_paths.cpp
void keep_gpu_paths(const PythonAnalysis& a, const RuleCatalog& rules, const Blocks& b, Blocker& blocker);
// 2. rewrite_safety_result_uses.cpp
void block_unsafe_results(const PythonAnalysis& a, Blocker& blocker);
// 3. rewrite_safety_guards.cpp
void block_unsafe_checks(const PythonAnalysis& a, const Blocks& b, Blocker& blocker);

}  // namespace banjia::rules::safety
