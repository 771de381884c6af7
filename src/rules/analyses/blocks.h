// The block structure of a Python file on its statements: which statements a compound statement's
// header governs, and the arms of an if/elif/else chain. Derived from indentation alone, so it is
// total on broken code. A body on the header's own line (`if x: f()`) is a statement at the header's
// depth on the header's line; it counts as the body.
#pragma once
#include <cstdint>
#include <vector>

#include "rules/analyses/python_analysis.h"

namespace banjia::rules {

struct Blocks {
  // Per statement: for a header (its last token is ':'), the last statement of its body; else kNoIndex.
  std::vector<uint32_t> body_end;
  // Per statement: the innermost header whose body holds it, or kNoIndex.
  std::vector<uint32_t> parent;
};
Blocks block_structure(const PythonAnalysis& a);

// One arm of an if/elif/else chain: its header statement and the statements of its body.
struct Arm {
  uint32_t header = 0;
  uint32_t body_first = 0, body_last = 0;  // body_first > body_last: an empty body (broken code)
  bool is_else = false;
};
// The arms of the chain whose `if` is statement `if_stmt`, in order (empty when it is no `if`).
std::vector<Arm> chain_arms(const PythonAnalysis& a, const Blocks& b, uint32_t if_stmt);

// The statement index of the sig token `si`, or kNoIndex.
uint32_t statement_of(const PythonAnalysis& a, uint32_t si);
// Whether statement `s` lies in the body of header `header` (at any depth).
bool inside(const Blocks& b, uint32_t s, uint32_t header);

}  // namespace banjia::rules
