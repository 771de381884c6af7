// Rules across variables (docs/sources/env-vars.md, "Rules across variables"): the condition kinds that
// data/env/cross_rules.toml names, each a check registered in cross_rule_kinds(), and the
// msprof-analyze advisor settings (docs/sources/env-vars.md, "6.4 msprof-analyze advisor").
#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "env/analysis/alloc_conf.h"
#include "env/analysis/checker.h"
#include "env/model/cross_rule.h"
#include "env/analysis/translate.h"

namespace banjia::env {
namespace {

class View {
 public:
  explicit View(const Environment& env) : env_(env) {}
  const Setting* get(const std::string& name) const {
    auto it = env_.find(name);
    return it == env_.end() || it->second.unresolved ? nullptr : &it->second;
  }
  std::optional<long long> integer(const std::string& name) const {
    const Setting* s = get(name);
    if (!s) return std::nullopt;
    long long v;
    auto r = std::from_chars(s->value.data(), s->value.data() + s->value.size(), v);
    if (s->value.empty() || r.ec != std::errc() || r.ptr != s->value.data() + s->value.size()) return std::nullopt;
    return v;
  }
  bool set(const std::string& name) const { return env_.count(name) > 0; }
  const Site& site(const std::string& name) const { return env_.at(name).site; }
  const Environment& all() const { return env_; }

 private:
  const Environment& env_;
};

// What a clause shows of its variable: the number an integer test read, else the value as written.
std::string shown(const View& env, const CrossClause& c) {
  if (c.test == "integer-nonzero") {
    auto v = env.integer(c.var);
    return v ? std::to_string(*v) : std::string{};
  }
  return env.set(c.var) ? env.all().at(c.var).value : std::string{};
}

bool holds(const View& env, const CrossClause& c) {
  if (c.test == "set") return env.set(c.var);
  if (c.test == "unset") return !env.set(c.var);
  if (c.test == "unresolved") return env.set(c.var) && !env.get(c.var);
  const Setting* s = env.get(c.var);
  if (!s) return false;
  if (c.test == "equals") return std::find(c.values.begin(), c.values.end(), s->value) != c.values.end();
  if (c.test == "integer-nonzero") {
    auto v = env.integer(c.var);
    return v && *v != 0;
  }
  if (c.test == "alloc-conf-has") {
    for (const auto& e : split_alloc_conf(s->value))
      for (const auto& wanted : c.values)
        if (e.has_colon && wanted == e.key + ":" + e.value) return true;
    return false;
  }
  return false;
}

using Values = std::map<std::string, std::string>;

void emit(const CrossRule& rule, const Site& site, std::string_view evidence, const Values& values,
          std::vector<Finding>& out) {
  auto f = make_listed_rule_finding(site, rule.id, rule.severity, rule.summary,
                                    fill_template(rule.templates.at("suggestion"), values), rule.source);
  f.evidence = fill_template(evidence, values);
  out.push_back(std::move(f));
}

void assignment_rule(const KnowledgeBase&, const CrossRule& rule, const Environment& environment, std::vector<Finding>& out) {
  const View env(environment);
  for (const auto& at : rule.at) {
    if (!holds(env, at)) continue;
    const CrossClause* cause = nullptr;
    for (const auto& r : rule.requires_any)
      if (holds(env, r)) {
        cause = &r;
        break;
      }
    if (!rule.requires_any.empty() && !cause) continue;
    if (std::any_of(rule.unless.begin(), rule.unless.end(), [&](const CrossClause& u) { return holds(env, u); })) continue;
    const Site& site = env.site(at.var);
    Values values{{"var", at.var}, {"value", shown(env, at)}, {"line", std::to_string(site.line)}};
    if (cause) {
      values["other"] = cause->var;
      values["other_value"] = shown(env, *cause);
      values["other_line"] = env.set(cause->var) ? std::to_string(env.site(cause->var).line) : "";
    }
    emit(rule, site, cause && !cause->evidence.empty() ? cause->evidence : rule.templates.at("evidence"), values, out);
  }
}

// An integer written in the knowledge base (a [[var]] default), or nullopt.
std::optional<long long> documented_integer(const std::string& text) {
  long long v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

void timeout_order_rule(const KnowledgeBase& kb, const CrossRule& rule, const Environment& environment,
                        std::vector<Finding>& out) {
  const View env(environment);
  const bool longer_set = env.set(rule.longer);
  const VarInfo* longer_var = kb.var(rule.longer);
  const auto longer_read = longer_set ? env.integer(rule.longer)
                                      : (longer_var ? documented_integer(longer_var->default_value) : std::nullopt);
  const auto shorter_read = env.integer(rule.shorter);
  if (!longer_read || !shorter_read) return;
  const long long longer = *longer_read, shorter = *shorter_read;
  const long long never = rule.never.value_or(-1);  // timeouts below 0 are not compared
  auto as_timeout = [never](long long v) { return v == never ? std::numeric_limits<long long>::max() : v; };
  if (longer < 0 || shorter < 0 || as_timeout(longer) > as_timeout(shorter)) return;
  Values values{{"longer", rule.longer},
                {"longer_value", std::to_string(longer)},
                {"shorter", rule.shorter},
                {"shorter_value", std::to_string(shorter)}};
  emit(rule, env.site(longer_set ? rule.longer : rule.shorter),
       rule.templates.at(longer_set ? "evidence" : "evidence_default"), values, out);
}

void cuda_pair_rule(const KnowledgeBase& kb, const CrossRule& rule, const Environment& environment, std::vector<Finding>& out) {
  const View env(environment);
  for (const auto& pair : kb.cuda) {
    if (!pair.automatic || !env.set(pair.name) || !env.set(pair.ascend)) continue;
    const Setting& cuda = env.all().at(pair.name);
    const Setting& ascend = env.all().at(pair.ascend);
    const std::string wanted = cuda.unresolved ? cuda.value : cuda_value_in_ascend_terms(pair, cuda.value);
    if (wanted == ascend.value) continue;
    Values values{{"var", pair.name},
                  {"value", cuda.value},
                  {"other", pair.ascend},
                  {"other_value", ascend.value},
                  {"other_line", std::to_string(ascend.site.line)}};
    emit(rule, cuda.site, rule.templates.at(ascend.site.line > 0 ? "evidence" : "evidence_no_line"), values, out);
  }
}

void deprecated_rule(const KnowledgeBase& kb, const CrossRule& rule, const Environment& environment, std::vector<Finding>& out) {
  const View env(environment);
  for (const auto& v : kb.vars) {
    if (v.cls != VarClass::deprecated || !env.set(v.name)) continue;
    std::string replacement = v.replacement.substr(0, v.replacement.find(' '));
    if (replacement == v.name || !env.set(replacement)) continue;
    const Setting& s = env.all().at(v.name);
    Values values{{"var", v.name}, {"value", s.value}, {"line", std::to_string(s.site.line)}, {"replacement", replacement}};
    emit(rule, s.site, rule.templates.at("evidence"), values, out);
  }
}

void advisor(const KnowledgeBase& kb, const View& env, std::vector<Finding>& out) {
  for (const auto& a : kb.advice) {
    const Setting* s = env.get(a.name);
    if (!s) continue;
    bool hit = false;
    if (a.when == "set") hit = true;
    else if (a.when == "equals") hit = s->value == a.value;
    else if (a.when == "not_equal") hit = s->value != a.value;
    else if (a.when == "lacks") hit = s->value.find(a.value) == std::string::npos;
    else if (a.when == "less_than") {
      auto v = env.integer(a.name);
      long long limit = 0;
      std::from_chars(a.value.data(), a.value.data() + a.value.size(), limit);
      hit = v && *v < limit;
    }
    if (!hit) continue;
    auto f = make_finding(s->site, "env-advisor", Severity::info,
                          fmt::format("{}={}: the msprof-analyze advisor reports this setting", a.name, s->value),
                          a.suggestion, a.source);
    out.push_back(std::move(f));
  }
}

}  // namespace

const std::vector<CrossKind>& cross_rule_kinds() {
  static const std::vector<CrossKind> kinds = {
      {"assignment", {"evidence", "suggestion"}, {"var", "value", "line", "other", "other_value", "other_line"},
       "a finding at each `at` clause that holds, when one `requires_any` clause holds (or there is none) and no "
       "`unless` clause does",
       assignment_rule},
      {"timeout-order", {"evidence", "evidence_default", "suggestion"}, {"longer", "longer_value", "shorter", "shorter_value"},
       "`longer` must be greater than `shorter` (`never` is the value meaning no timeout; an unset `longer` stands for "
       "its documented default)",
       timeout_order_rule},
      {"cuda-pair-differs", {"evidence", "evidence_no_line", "suggestion"}, {"var", "value", "other", "other_value", "other_line"},
       "a CUDA/NCCL variable and its automatic Ascend equivalent (data/env/cuda.toml) both set, to values that differ "
       "after the value map",
       cuda_pair_rule},
      {"deprecated-and-replacement", {"evidence", "suggestion"}, {"var", "value", "line", "replacement"},
       "a deprecated variable and the variable that replaces it both set", deprecated_rule},
  };
  return kinds;
}

void check_cross_rules(const KnowledgeBase& kb, const Environment& environment, std::vector<Finding>& out) {
  for (const auto& rule : kb.cross_rules)
    if (const CrossKind* kind = cross_rule_kind(rule.kind)) kind->check(kb, rule, environment, out);
  advisor(kb, View(environment), out);
}

void check_cross_rules(const Environment& environment, std::vector<Finding>& out) {
  check_cross_rules(knowledge_base(), environment, out);
}

}  // namespace banjia::env
