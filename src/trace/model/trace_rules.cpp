#include "trace/model/trace_rules.h"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <toml++/toml.h>

#include "common/embedded_data.h"
#include "common/fuzzy.h"

namespace banjia::trace {

namespace {
constexpr std::pair<Need, std::string_view> kNeedNames[] = {{Need::device, "device"},
                                                             {Need::device_kernels, "device_kernels"},
                                                             {Need::input_shapes, "input_shapes"},
                                                             {Need::ascend, "ascend"},
                                                             {Need::communication, "communication"}};

template <class View>
std::vector<std::string> strings_of(View n, bool to_lower) {
  std::vector<std::string> out;
  if (auto* arr = n.as_array())
    for (auto& e : *arr)
      if (auto s = e.template value<std::string>()) out.push_back(to_lower ? lower(*s) : *s);
  return out;
}

std::string required_string(const toml::table& t, const char* key, std::string_view what) {
  auto v = t[key].value<std::string>();
  if (!v || v->empty()) throw std::runtime_error(std::string(what) + ": missing '" + key + "'");
  return *v;
}

std::vector<Need> needs_of(const toml::table& t, const std::string& id) {
  // Required (possibly empty), so that every rule states what it needs from a trace.
  std::vector<Need> out;
  const toml::node* n = t.get("needs");
  const toml::array* arr = n ? n->as_array() : nullptr;
  if (!arr) throw std::runtime_error(id + ": 'needs' must be an array of strings (e.g. needs = [\"device_kernels\"])");
  for (auto& e : *arr) {
    auto name = e.value<std::string>();
    auto need = name ? parse_need(*name) : std::nullopt;
    if (!need) {
      std::string known;
      for (auto& [k, s] : kNeedNames) known += (known.empty() ? "" : ", ") + std::string(s);
      throw std::runtime_error(id + ": unknown need " + (name ? "'" + *name + "'" : std::string("(not a string)")) +
                               " (known: " + known + ")");
    }
    out.push_back(*need);
  }
  return out;
}

NameSet name_set(const toml::table& root, const char* key) {
  auto* t = root[key].as_table();
  if (!t) throw std::runtime_error(std::string("data/trace/events.toml: missing [") + key + "]");
  NameSet s;
  s.exact = strings_of((*t)["exact"], false);
  s.prefix = strings_of((*t)["prefix"], false);
  s.source = required_string(*t, "source", key);
  return s;
}
}  // namespace

std::optional<Need> parse_need(std::string_view name) {
  for (auto& [n, s] : kNeedNames)
    if (s == name) return n;
  return std::nullopt;
}

std::string_view to_string(Need n) {
  for (auto& [need, s] : kNeedNames)
    if (need == n) return s;
  return "?";
}

bool NameSet::matches(std::string_view name) const {
  for (auto& e : exact)
    if (name == e) return true;
  for (auto& p : prefix)
    if (name.starts_with(p)) return true;
  return false;
}

double AdvisorRule::param(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end()) throw std::logic_error("advisor rule " + id + " lacks parameter " + key);
  return it->second;
}

std::string_view TraceRules::classify_kernel(std::string_view name) const {
  std::string n = lower(name);
  for (auto& c : classes) {
    for (auto& p : c.prefix)
      if (std::string_view(n).starts_with(p)) return c.name;
    for (auto& p : c.contains)
      if (n.find(p) != std::string::npos) return c.name;
  }
  return "other";
}

const AdvisorRule* TraceRules::advisor(std::string_view id) const {
  for (auto& r : advisors)
    if (r.id == id) return &r;
  return nullptr;
}

TraceRules parse_trace_rules(std::string_view classes_toml, std::string_view events_toml,
                             std::string_view advisors_toml) {
  TraceRules r;
  toml::table classes = toml::parse(classes_toml);
  if (auto* arr = classes["class"].as_array())
    for (auto& n : *arr) {
      auto& t = *n.as_table();
      KernelClass k;
      k.name = required_string(t, "name", "kernel class");
      k.prefix = strings_of(t["prefix"], true);
      k.contains = strings_of(t["contains"], true);
      k.source = required_string(t, "source", k.name);
      r.classes.push_back(std::move(k));
    }
  toml::table events = toml::parse(events_toml);
  r.sync = name_set(events, "sync");
  r.cast = name_set(events, "cast");
  r.compile = name_set(events, "compile");
  r.step = name_set(events, "step");
  r.host_collective = name_set(events, "host_collective");
  toml::table adv = toml::parse(advisors_toml);
  if (auto* arr = adv["rule"].as_array())
    for (auto& n : *arr) {
      auto& t = *n.as_table();
      AdvisorRule a;
      a.id = required_string(t, "id", "advisor rule");
      a.severity = required_string(t, "severity", a.id);
      a.message = required_string(t, "message", a.id);
      a.advice = required_string(t, "advice", a.id);
      a.source = required_string(t, "source", a.id);
      a.needs = needs_of(t, a.id);
      const toml::table* example = t["example"].as_table();
      if (!example) throw std::runtime_error(a.id + ": missing [rule.example] (trace and evidence)");
      a.example_trace = required_string(*example, "trace", a.id + " example");
      a.example_evidence = required_string(*example, "evidence", a.id + " example");
      for (auto& [k, v] : t)
        if (auto d = v.value<double>()) a.params[std::string(k.str())] = *d;
      r.advisors.push_back(std::move(a));
    }
  return r;
}

const TraceRules& trace_rules() {
  static const TraceRules rules = [] {
    auto get = [](std::string_view p) {
      auto f = embedded_file(p);
      if (!f) throw std::runtime_error("embedded data file missing: " + std::string(p));
      return *f;
    };
    return parse_trace_rules(get("data/trace/kernel_classes.toml"), get("data/trace/events.toml"),
                             get("data/trace/advisors.toml"));
  }();
  return rules;
}

const std::vector<std::string>& kernel_class_names() {
  static const std::vector<std::string> names = {"gemm",          "conv",   "attention", "elementwise",
                                                 "reduction",     "communication", "memory", "other"};
  return names;
}

}  // namespace banjia::trace
