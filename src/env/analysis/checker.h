// `banjia env check`: findings for environment assignments (from files or the process environment).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "env/readers/env_file.h"
#include "env/model/env_finding.h"
#include "env/model/knowledge_base.h"

namespace banjia::env {

enum class Purpose { production, debug };

// One variable's effective setting after a whole file (or the process environment).
struct Setting {
  std::string value;
  bool unresolved = false;
  Site site;
};
using Environment = std::map<std::string, Setting>;

// Checks a name found in the knowledge base (variable, set_option key, invented/legacy name, CUDA name).
// Returns false when the name is in none of them. *var is set when the value should be checked too.
// `value` is the assigned value where the file or environment gives one: a CUDA device list that
// hides every GPU (the force-CPU idiom) has no Ascend translation, so it is not offered as a rename.
bool check_known_name(std::string_view name, const Site& site, std::vector<Finding>& out, const VarInfo** var,
                      std::optional<std::string_view> value = std::nullopt);

// For a name the knowledge base does not know: a near miss of a documented name, a case slip, an
// Ascend-looking name torch_npu does not read, or a CUDA/NCCL name without an Ascend equivalent.
void check_unknown_name(std::string_view name, const Site& site, std::vector<Finding>& out);

// Checks one value of a known variable (enum/range/strtol/alloc-conf rules and debug-only settings).
void check_value(const VarInfo& var, std::string_view value, bool unresolved, const Site& site, Purpose purpose,
                 std::vector<Finding>& out);

// Rules across variables and the msprof-analyze advisor settings, on the final environment.
// The rules are data (KnowledgeBase::cross_rules); the first form reads the embedded knowledge base.
void check_cross_rules(const Environment& env, std::vector<Finding>& out);
void check_cross_rules(const KnowledgeBase& kb, const Environment& env, std::vector<Finding>& out);

// Everything for one parsed file: parse problems, per-assignment checks, cross rules.
// A "# banjia-env: purpose=debug" comment in the file overrides `purpose`.
std::vector<Finding> check_parsed_file(const std::string& display, const ParsedEnvFile& parsed, Purpose purpose);

// Checks `NAME=VALUE` strings (the process environment). Only names that concern Ascend, CUDA or the
// knowledge base produce findings.
std::vector<Finding> check_environment(const std::vector<std::string>& entries, Purpose purpose);

}  // namespace banjia::env
