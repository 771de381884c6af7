// `scan` for Python files: analyse once, run every matcher, turn matches into findings.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "rules/python_matches.h"
#include "rules/catalog.h"

namespace banjia::rules {

// Throws InputError for a file that is not Python text or does not tokenize.
void scan_python(std::string_view bytes, const std::string& display, const RuleCatalog& rules,
                 std::vector<Finding>& out, const TreeContext* tree = nullptr);

// The finding for one match (replacement: the span's text after the match's edit).
Finding finding_for_match(const PythonAnalysis& a, const PyMatch& m, const std::string& display);

}  // namespace banjia::rules
