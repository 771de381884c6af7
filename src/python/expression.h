// Expressions on the significant-token view, without a syntax tree: the slot an expression fills
// (a call argument, an assignment's value, a parameter default, a dict value, an element of a tuple
// or list, ...) and the top-level structure around a sub-expression inside that slot (the branch of
// a conditional expression, an operand of a comparison or of `and`/`or`). Enough to follow where a
// value goes; every function here is total on any token sequence, including broken code.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "python/module.h"

namespace banjia::python {

// Significant-token indices [first, last], inclusive.
struct SigRange {
  uint32_t first = 0, last = 0;
  bool operator==(const SigRange&) const = default;
};

enum class SlotKind {
  call_argument,      // f(x) / f(k=x): keyword, position and open_sig say which
  parameter_default,  // def f(name=x) / def f(name: T = x) / lambda name=x: ...
  assignment_value,   // name = x, a.b = x, a[k] = x, name: T = x (targets says which)
  dict_value,         // {key: x}: key is the range of the key expression
  element,            // (x, ...) / [x, ...] / {x, ...}: a display's element (position says which)
  subscript,          // a[x]
  return_value,       // return x / yield x
  header,             // if x: / elif x: / while x: / assert x / with x:
  statement,          // an expression statement (a docstring, a bare call)
  other,
};

struct Slot {
  SlotKind kind = SlotKind::other;
  SigRange range;                 // the whole expression that fills the slot
  uint32_t open_sig = kNoIndex;   // call_argument/element/subscript/dict_value: the bracket it sits in
  std::string_view keyword;       // call_argument: the keyword; parameter_default: the parameter name
  int position = -1;              // call_argument: index among positional arguments; element: index
  std::vector<SigRange> targets;  // assignment_value: each target (a = b = x has two)
  SigRange key;                   // dict_value: the key expression
};

// The slot that the expression `e` belongs to: `e` is widened to the whole expression between the
// nearest enclosing delimiters (brackets, commas, `=`, `:`, a statement keyword, the statement's
// ends), skipping bracketed groups.
Slot slot_of(const ModuleView& v, SigRange e);

// One step from an expression down to a part of it.
enum class Part {
  whole,           // the range is the target itself (or the target with .format(...) / % operand)
  condition_then,  // X in `X if C else Y`
  condition_else,  // Y
  condition_test,  // C
  boolean_operand, // an operand of `or` / `and` / `not`
  compared,        // an operand of a comparison (==, !=, in, not in, is, <, ...)
  other,           // inside a larger atom: `"cuda:" + s`, `(x,) + rest`, a call, ...
};

struct Step {
  Part part = Part::other;
  SigRange node;            // the expression this step looks into
  SigRange inner;           // the part of it that contains the target
  // compared: the operator next to the target's operand and the operand on its other side.
  // condition_then/condition_else: `other` is the condition's test.
  std::string_view op;      // "==", "!=", "in", "not in", "is", "is not", "<", ...
  SigRange other;
  bool target_on_left = false;
};

// The steps from `outer` down to the operand that contains `target` (target lies inside outer).
// The last step's `inner` is the smallest operand found (an atom).
std::vector<Step> locate(const ModuleView& v, SigRange outer, SigRange target);

// The end of the primary expression starting at sig index si: a name, literal or bracketed group,
// followed by any number of `.name`, `(...)` and `[...]` trailers. Stops at `limit`.
uint32_t primary_end(const ModuleView& v, uint32_t si, uint32_t limit);

// The start of the primary expression ending at sig index `end` (the inverse of primary_end), not
// before `limit`.
uint32_t primary_start(const ModuleView& v, uint32_t end, uint32_t limit);

// A name chain NAME(.NAME)* exactly covering r; its last name, or "" when r is not such a chain.
std::string_view chain_last_name(const ModuleView& v, SigRange r);

}  // namespace banjia::python
