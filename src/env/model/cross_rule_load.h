// Reading the [[cross_rule]] tables of one knowledge-base file (used by knowledge_base.cpp).
#pragma once
#include <string>

#include <toml++/toml.h>

#include "env/model/knowledge_base.h"

namespace banjia::env {

// Appends each rule to kb.cross_rules and its id, summary and source to kb.rules; what is wrong with
// an entry (unknown kind or test, missing field, a placeholder its kind does not fill) goes to kb.problems.
void load_cross_rules(const toml::table& root, const std::string& path, KnowledgeBase& kb);

}  // namespace banjia::env
