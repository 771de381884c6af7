#include "env/model/knowledge_base.h"

#include "common/version.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "common/embedded_data.h"
#include "common/toml_document.h"
#include "common/errors.h"
#include "common/file_walk.h"
#include "env/model/toml_fields.h"

namespace banjia::env {

// Appends the [[cross_rule]] tables of one knowledge-base file to kb.cross_rules, and each rule's id,
// summary and source to kb.rules; what is wrong with an entry (unknown kind or test, missing field, a
// placeholder its kind does not fill) goes to kb.problems. Defined in
// knowledge_base_cross_rules.cpp, the part of this unit that reads them.
void load_cross_rules(const toml::table& root, const std::string& path, KnowledgeBase& kb);

namespace {

using Fields = TomlFields;

std::optional<InvalidPolicy> parse_policy(std::string_view s) {
  if (s.empty() || s == "unchecked") return InvalidPolicy::unchecked;
  if (s == "error") return InvalidPolicy::error;
  if (s == "normalised") return InvalidPolicy::normalised;
  return std::nullopt;
}

std::optional<VarClass> parse_class(std::string_view s) {
  if (s == "production") return VarClass::production;
  if (s == "debug-only") return VarClass::debug_only;
  if (s == "deprecated") return VarClass::deprecated;
  if (s == "set_option") return VarClass::set_option;
  return std::nullopt;
}

const std::vector<std::string> kVarTypes = {"enum", "bool", "int", "float", "string", "path",
                                            "list", "alloc_conf", "size", "device_list"};
const std::vector<std::string> kComponents = {"torch_npu", "CANN runtime", "HCCL", "ACL"};
const std::vector<std::string> kOptionTypes = {"bool", "int", "float", "enum", "roundup", "mb"};
const std::vector<std::string> kNameKinds = {"invented", "not-env-var", "wrong-name", "legacy"};
const std::vector<std::string> kAdviceWhen = {"set", "not_equal", "less_than", "equals", "lacks"};


void load_var(const toml::table& /*t*/, const Fields& f, KnowledgeBase& kb) {
  VarInfo v;
  v.name = f.str("name", true);
  v.component = f.str("component", true);
  v.type = f.str("type", true);
  v.default_value = f.str("default", true);
  v.effect = f.str("effect", true);
  v.impact = f.str("impact");
  v.versions = f.str("versions");
  v.source = f.str("source", true);
  v.values = f.list("values");
  v.min = f.integer("min");
  v.max = f.integer("max");
  v.multiple_of = f.integer("multiple_of");
  v.replacement = f.str("replacement");
  v.api = f.str("api");
  v.cost = f.str("cost");
  v.invalid_message = f.str("invalid_message");
  v.normalised_to = f.str("normalised_to");
  if (std::string fails = f.str("fails"); !fails.empty()) v.fails = std::move(fails);
  v.debug_values = f.list("debug_values");
  v.strtol = f.boolean("strtol");
  v.case_insensitive = f.boolean("case_insensitive");
  v.max_checked = f.boolean("max_checked");
  if (!v.component.empty() && !contains(kComponents, v.component)) f.problem("unknown component '" + v.component + "'");
  if (!v.type.empty() && !contains(kVarTypes, v.type)) f.problem("unknown type '" + v.type + "'");
  if (auto c = parse_class(f.str("class", true))) v.cls = *c;
  else f.problem("unknown class (production, debug-only, deprecated, set_option)");
  if (auto p = parse_policy(f.str("invalid"))) v.invalid = *p;
  else f.problem("unknown invalid policy (error, normalised, unchecked)");
  if (v.type == "enum" && v.values.empty()) f.problem("enum without values");
  if (v.type != "enum" && v.type != "list" && !v.values.empty()) f.problem("values given for a non-enum type");
  if ((v.min || v.max || v.multiple_of) && v.type != "int") f.problem("min/max/multiple_of need type int");
  if (v.min && v.max && *v.min > *v.max) f.problem("min > max");
  if (v.cls == VarClass::deprecated && v.replacement.empty()) f.problem("deprecated without replacement");
  if (v.cls == VarClass::set_option && v.api.empty()) f.problem("set_option without api");
  if (v.cls == VarClass::debug_only && v.cost.empty()) f.problem("debug-only without cost");
  if (v.invalid == InvalidPolicy::normalised && v.normalised_to.empty()) f.problem("normalised without normalised_to");
  if (v.max_checked && !v.max) f.problem("max_checked without max");
  if (!f.str("fails").empty() && v.invalid != InvalidPolicy::error) f.problem("fails given without invalid = \"error\"");
  if (v.type == "enum")
    for (const auto& d : v.debug_values)
      if (!contains(v.values, d)) f.problem("debug value '" + d + "' is not one of the values");
  kb.vars.push_back(std::move(v));
}

void load_option(const Fields& f, KnowledgeBase& kb) {
  AllocOption o;
  o.name = f.str("name", true);
  o.type = f.str("type", true);
  o.default_value = f.str("default", true);
  o.meaning = f.str("meaning", true);
  o.versions = f.str("versions");
  o.min_torch_npu = f.str("min_torch_npu");
  if (!o.min_torch_npu.empty() && !is_release_version(o.min_torch_npu))
    f.problem("min_torch_npu must be a release version such as 26.1.0");
  o.source = f.str("source", true);
  o.replacement = f.str("replacement");
  o.invalid_message = f.str("invalid_message");
  o.values = f.list("values");
  o.min = f.number("min");
  o.max = f.number("max");
  o.gt = f.number("gt");
  o.lt = f.number("lt");
  auto cls = f.str("class", true);
  if (cls == "deprecated") o.deprecated = true;
  else if (cls != "production") f.problem("unknown class (production, deprecated)");
  if (o.deprecated && o.replacement.empty()) f.problem("deprecated without replacement");
  if (!o.type.empty() && !contains(kOptionTypes, o.type)) f.problem("unknown type '" + o.type + "'");
  if (o.type == "enum" && o.values.empty()) f.problem("enum without values");
  if (auto p = parse_policy(f.str("invalid"))) o.invalid = *p;
  else f.problem("unknown invalid policy");
  kb.alloc_options.push_back(std::move(o));
}

void load_file(const std::string& path, const std::string& text, KnowledgeBase& kb) {
  toml::table root;
  try {
    root = parse_toml(text, path);
  } catch (const InputError& e) {
    kb.problems.push_back(e.what());  // the knowledge base collects its problems instead of failing early
    return;
  }
  auto& P = kb.problems;
  each_table(root, "var", path, P, [&](const toml::table& t, const Fields& f) { load_var(t, f, kb); });
  each_table(root, "option", path, P, [&](const toml::table&, const Fields& f) { load_option(f, kb); });
  each_table(root, "name", path, P, [&](const toml::table&, const Fields& f) {
    NameInfo n{f.str("name", true), f.str("kind", true), f.str("use", true), f.str("source", true),
               f.list("did_you_mean")};
    if (!n.kind.empty() && !contains(kNameKinds, n.kind)) f.problem("unknown kind '" + n.kind + "'");
    kb.names.push_back(std::move(n));
  });
  each_table(root, "cuda", path, P, [&](const toml::table&, const Fields& f) {
    CudaPair c{f.str("name", true), f.str("ascend", true), f.str("note"), f.str("source", true),
               f.boolean("automatic"), {}};
    for (const auto& m : f.list("value_map")) {
      auto eq = m.find('=');
      if (eq == std::string::npos) f.problem("value_map entry '" + m + "' is not from=to");
      else c.value_map.emplace_back(m.substr(0, eq), m.substr(eq + 1));
    }
    kb.cuda.push_back(std::move(c));
  });
  each_table(root, "rule", path, P, [&](const toml::table&, const Fields& f) {
    kb.rules.push_back({f.str("id", true), f.str("summary", true), f.str("source", true)});
  });
  load_cross_rules(root, path, kb);
  each_table(root, "advice", path, P, [&](const toml::table&, const Fields& f) {
    Advice a{f.str("name", true), f.str("when", true), f.str("value"), f.str("suggestion", true), f.str("source", true)};
    if (!contains(kAdviceWhen, a.when)) f.problem("unknown condition '" + a.when + "'");
    kb.advice.push_back(std::move(a));
  });
  each_table(root, "tag", path, P, [&](const toml::table&, const Fields& f) {
    f.str("source", true);
    kb.tags.push_back({f.str("name", true), f.str("location", true)});
  });
  each_table(root, "template", path, P, [&](const toml::table& t, const Fields& f) {
    Template tpl{f.str("scenario", true), f.str("purpose", true), f.str("description", true), {}};
    if (tpl.purpose != "production" && tpl.purpose != "debug") f.problem("purpose must be production or debug");
    each_table(t, "setting", path + " template " + tpl.scenario, P, [&](const toml::table&, const Fields& s) {
      tpl.settings.push_back({s.str("name", true), s.str("value", true), s.str("why", true), s.str("source", true)});
    });
    kb.templates.push_back(std::move(tpl));
  });
  if (const auto* a = root["ascendish"].as_table()) {
    Fields f(*a, path + ": ascendish", P);
    kb.ascendish_prefixes = f.list("prefixes");
    kb.ascendish_contains = f.list("contains");
    kb.ascendish_source = f.str("source", true);
  }
  if (const auto* c = root["cuda_prefixes"].as_table()) {
    Fields f(*c, path + ": cuda_prefixes", P);
    kb.cuda_prefixes = f.list("prefixes");
    kb.cuda_prefixes_source = f.str("source", true);
  }
}

}  // namespace

std::string_view to_string(VarClass c) {
  switch (c) {
    case VarClass::production: return "production";
    case VarClass::debug_only: return "debug-only";
    case VarClass::deprecated: return "deprecated";
    case VarClass::set_option: return "set_option key";
  }
  return "production";
}

KnowledgeBase load_knowledge_base(const std::vector<std::pair<std::string, std::string>>& files) {
  KnowledgeBase kb;
  for (const auto& [path, text] : files) load_file(path, text, kb);
  // Names must be unique across the variable, name and CUDA tables: one fact per name.
  std::vector<std::string> seen;
  auto unique = [&](const std::string& n, std::string_view table) {
    if (contains(seen, n)) kb.problems.push_back(fmt::format("{} '{}' is defined twice", table, n));
    seen.push_back(n);
  };
  for (const auto& v : kb.vars) unique(v.name, "variable");
  for (const auto& n : kb.names) unique(n.name, "name");
  for (const auto& c : kb.cuda) unique(c.name, "cuda name");
  std::vector<std::string> ids;
  for (const auto& r : kb.rules) {
    if (contains(ids, r.id)) kb.problems.push_back("rule '" + r.id + "' is defined twice");
    ids.push_back(r.id);
  }
  // An unset `longer` variable of a timeout-order rule stands for its documented default.
  for (const auto& r : kb.cross_rules) {
    if (r.kind != "timeout-order") continue;
    const VarInfo* v = kb.var(r.longer);
    if (!v || v->type != "int" || v->default_value.empty() || v->default_value.find_first_not_of("0123456789") != std::string::npos)
      kb.problems.push_back(fmt::format("cross_rule '{}': '{}' needs a [[var]] entry with an integer default", r.id, r.longer));
  }
  std::vector<std::string> opts;
  for (const auto& o : kb.alloc_options) {
    if (contains(opts, o.name)) kb.problems.push_back("allocator option '" + o.name + "' is defined twice");
    opts.push_back(o.name);
  }
  return kb;
}

const KnowledgeBase& knowledge_base() {
  static const KnowledgeBase kb = [] {
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& f : embedded_under("data/env/")) files.emplace_back(std::string(f.path), std::string(f.contents));
    return load_knowledge_base(files);
  }();
  return kb;
}

const KnowledgeBase& cuda_name_pairs() {
  static const KnowledgeBase kb = [] {
    constexpr std::string_view kPath = "data/env/cuda.toml";
    std::vector<std::pair<std::string, std::string>> files;
    if (auto text = embedded_file(kPath)) files.emplace_back(std::string(kPath), std::string(*text));
    return load_knowledge_base(files);
  }();
  return kb;
}

const VarInfo* KnowledgeBase::var(std::string_view name) const {
  for (const auto& v : vars)
    if (v.name == name) return &v;
  for (const auto& v : vars)
    if (v.name.find('*') != std::string::npos && glob_match(v.name, name)) return &v;
  return nullptr;
}

const AllocOption* KnowledgeBase::alloc_option(std::string_view name) const {
  for (const auto& o : alloc_options)
    if (o.name == name) return &o;
  return nullptr;
}

const NameInfo* KnowledgeBase::name_info(std::string_view name) const {
  for (const auto& n : names)
    if (n.name == name) return &n;
  return nullptr;
}

const CudaPair* KnowledgeBase::cuda_pair(std::string_view name) const {
  for (const auto& c : cuda)
    if (c.name == name) return &c;
  return nullptr;
}

const RuleText& KnowledgeBase::rule(std::string_view id) const {
  for (const auto& r : rules)
    if (r.id == id) return r;
  throw std::logic_error(fmt::format("rule '{}' missing from data/env (rules.toml, cross_rules.toml)", id));
}

const Template* KnowledgeBase::find_template(std::string_view scenario) const {
  for (const auto& t : templates)
    if (t.scenario == scenario) return &t;
  return nullptr;
}

bool KnowledgeBase::looks_ascendish(std::string_view name) const {
  for (const auto& p : ascendish_prefixes)
    if (name.starts_with(p)) return true;
  for (const auto& c : ascendish_contains)
    if (name.find(c) != std::string_view::npos) return true;
  return false;
}

bool KnowledgeBase::looks_cuda(std::string_view name) const {
  for (const auto& p : cuda_prefixes)
    if (name.starts_with(p)) return true;
  return false;
}

std::vector<std::string> KnowledgeBase::all_names() const {
  std::vector<std::string> out;
  for (const auto& v : vars)
    if (v.name.find('*') == std::string::npos) out.push_back(v.name);
  return out;
}

}  // namespace banjia::env
