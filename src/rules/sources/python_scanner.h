// `scan` for Python files: analyse once, run every matcher, turn matches into findings.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "rules/analyses/python_analysis.h"
#include "rules/core/catalog.h"
#include "rules/core/match.h"

namespace banjia::rules {

// All matchers, in a stable order (by first token, then rule id); duplicate edits removed. `tree`:
// what the other files of the tree know, and where to leave this file's questions (analyses/tree_context.h).
std::vector<PyMatch> match_python(const PythonAnalysis& a, const RuleCatalog& rules, const TreeContext* tree = nullptr);

// Throws InputError for a file that is not Python text or does not tokenize.
void scan_python(std::string_view bytes, const std::string& display, const RuleCatalog& rules,
                 std::vector<Finding>& out, const TreeContext* tree = nullptr);

// The finding for one match (replacement: the span's text after the match's edit).
Finding finding_for_match(const PythonAnalysis& a, const PyMatch& m, const std::string& display);

}  // namespace banjia::rules
