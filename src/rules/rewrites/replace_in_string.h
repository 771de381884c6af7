// Rewrite kind "replace-in-string": a name replaced inside a string literal ("cuda:0" -> "npu:0",
// "NCCL" -> "HCCL").
#pragma once
#include <string_view>

#include "rules/analyses/string_literal_site.h"
#include "rules/core/match.h"

namespace banjia::rules {

// The edit replacing `from` inside the literal's value, keeping the case of its first letter.
TextEdit replace_in_value(const Literal& l, std::string_view from, std::string_view to);

}  // namespace banjia::rules
