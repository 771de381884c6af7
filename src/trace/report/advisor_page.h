// The documentation page of one advisor rule (`banjia trace summary --explain ID`; tools/gen_rule_docs.py
// writes docs/rules/trace/<id>.md from it), rendered from data/trace/advisors.toml.
#pragma once
#include <string>
#include <string_view>

namespace banjia::trace {

// Markdown. Throws InputError for an id that is not an advisor rule, naming the ones that are.
std::string advisor_page(std::string_view id);

}  // namespace banjia::trace
