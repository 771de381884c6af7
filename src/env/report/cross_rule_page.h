// The documentation page of one rule across variables (`banjia env check --explain ID`;
// tools/gen_rule_docs.py writes docs/rules/env/<id>.md from it), rendered from
// data/env/cross_rules.toml. Its example's finding is the one `env check` reports on the example when
// the page is rendered, so a page whose example no longer fires says so.
#pragma once
#include <string>
#include <string_view>

namespace banjia::env {

// Markdown. Throws InputError for an id that is not a rule across variables (with the nearest id).
std::string cross_rule_page(std::string_view id);

}  // namespace banjia::env
