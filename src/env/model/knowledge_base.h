// The Ascend environment-variable knowledge base: every data/env/*.toml file compiled into the binary,
// parsed once. Code asks it questions ("what is X?", "what replaces Y?"); the facts stay in the data files.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/model/cross_rule.h"

namespace banjia::env {

enum class VarClass { production, debug_only, deprecated, set_option };
enum class InvalidPolicy { unchecked, error, normalised };

struct VarInfo {
  std::string name;  // may contain '*' (a family of names, e.g. HCOMM_TA_*_TIMEOUT)
  std::string component, type, default_value, effect, impact, versions, source;
  std::vector<std::string> values;
  std::optional<long long> min, max, multiple_of;
  VarClass cls = VarClass::production;
  std::string replacement, api, cost, invalid_message, normalised_to;
  // What an invalid value breaks (policy error), completing "NAME=VALUE makes ...".
  std::string fails = "torch_npu fail at startup";
  std::vector<std::string> debug_values;
  InvalidPolicy invalid = InvalidPolicy::unchecked;
  bool strtol = false, case_insensitive = false;
  // The reader refuses a value above max as it does one below min (otherwise max is only documented,
  // and a product may accept more).
  bool max_checked = false;
};

struct AllocOption {
  std::string name, type, default_value, meaning, versions, source, replacement, invalid_message;
  std::string min_torch_npu;  // first TorchNPU release that accepts the option ("" = all known releases)
  std::vector<std::string> values;
  std::optional<double> min, max, gt, lt;
  bool deprecated = false;
  InvalidPolicy invalid = InvalidPolicy::unchecked;
};

struct NameInfo {  // names.toml: invented / not-env-var / wrong-name / legacy
  std::string name, kind, use, source;
  std::vector<std::string> did_you_mean;
};

struct CudaPair {
  std::string name, ascend, note, source;
  bool automatic = false;
  std::vector<std::pair<std::string, std::string>> value_map;
};

struct RuleText {
  std::string id, summary, source;
};

struct Advice {
  std::string name, when, value, suggestion, source;
};

struct TemplateSetting {
  std::string name, value, why, source;
};
struct Template {
  std::string scenario, purpose, description;
  std::vector<TemplateSetting> settings;
};

struct SourceTag {
  std::string name, location;
};

struct KnowledgeBase {
  std::vector<VarInfo> vars;
  std::vector<AllocOption> alloc_options;
  std::vector<NameInfo> names;
  std::vector<CudaPair> cuda;
  std::vector<std::string> cuda_prefixes;
  std::string cuda_prefixes_source;
  std::vector<std::string> ascendish_prefixes, ascendish_contains;
  std::string ascendish_source;
  std::vector<RuleText> rules;  // every rule, cross rules included
  std::vector<CrossRule> cross_rules;
  std::vector<Advice> advice;
  std::vector<Template> templates;
  std::vector<SourceTag> tags;
  // Problems found while loading (missing source, unknown class, bad value spec...). Empty when valid.
  std::vector<std::string> problems;

  const VarInfo* var(std::string_view name) const;  // exact name or a '*' family
  const AllocOption* alloc_option(std::string_view name) const;
  const NameInfo* name_info(std::string_view name) const;
  const CudaPair* cuda_pair(std::string_view name) const;
  const RuleText& rule(std::string_view id) const;  // throws std::logic_error for an unknown id
  const Template* find_template(std::string_view scenario) const;
  bool looks_ascendish(std::string_view name) const;
  bool looks_cuda(std::string_view name) const;
  // Every name a user might mean: variables, set_option keys, allocator options are excluded.
  std::vector<std::string> all_names() const;
};

// Parses a set of (path, contents) TOML files. Never throws for bad data: problems are collected.
KnowledgeBase load_knowledge_base(const std::vector<std::pair<std::string, std::string>>& files);

// The knowledge base compiled into the binary (data/env/*.toml), loaded on first use.
const KnowledgeBase& knowledge_base();
// Only the CUDA -> Ascend name pairs (data/env/cuda.toml, the one file that defines them), for callers
// that need nothing else: `banjia scan` checking environment names in Python strings parses a
// twentieth of the knowledge base. Its `cuda` table equals knowledge_base().cuda (tested).
const KnowledgeBase& cuda_name_pairs();

std::string_view to_string(VarClass c);

}  // namespace banjia::env
