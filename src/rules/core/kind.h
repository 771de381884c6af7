// What every match kind unit (src/rules/kinds/<kind>.h) declares, as static members of its params
// struct:
//   kName                 the kind as data/rules spells it (`match.kind`);
//   parse(MatchFields)    its [match] fields, typed;
//   add_needles(...)      what a Python file must contain for the kind to match (analyses/python_prefilter.h);
//                         the prefilter is sound only if every Python kind declares its needles;
//   match(ctx, out)       its matcher on an analysed Python file;
//   Index (optional)      a type built once per catalogue from its rules, which the matcher looks
//                         rules up in (RuleCatalog::index_of<K>()).
// A kind that another kind's matcher serves (a family sharing one pass) has no `match`; a kind
// matched outside Python files (CUDA sources, dependency lists) has neither `match` nor needles.
// kinds/registry.cpp lists the kinds.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::rules {

class MatchFields;
class RuleCatalog;
struct MatchContext;
struct PyMatch;
struct PythonNeedles;

}  // namespace banjia::rules
