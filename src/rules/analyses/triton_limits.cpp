#include "rules/analyses/triton_limits.h"

#include <algorithm>
#include <array>
#include <utility>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/toml_document.h"

namespace banjia::rules {

namespace {

constexpr std::string_view kLimitsFile = "data/triton/ascend_limits.toml";

constexpr std::array<std::pair<std::string_view, TritonLimit::Check>, 8> kChecks{{
    {"grid-max", TritonLimit::Check::grid_max},
    {"keyword", TritonLimit::Check::keyword},
    {"in-loop", TritonLimit::Check::in_loop},
    {"transpose", TritonLimit::Check::transpose},
    {"dtype", TritonLimit::Check::dtype},
    {"string-arg", TritonLimit::Check::string_arg},
    {"asm-constraints", TritonLimit::Check::asm_constraints},
    {"call", TritonLimit::Check::call},
}};

std::vector<std::string> strings(const toml::table& t, std::string_view key, const std::string& where) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  const auto* arr = n->as_array();
  if (!arr) throw InputError(where, std::string(key) + " must be an array of strings");
  for (const auto& v : *arr) {
    const auto s = v.value<std::string>();
    if (!s) throw InputError(where, std::string(key) + " must be an array of strings");
    out.push_back(*s);
  }
  return out;
}

std::vector<TritonLimit> load() {
  const auto text = embedded_file(kLimitsFile);
  if (!text) throw InputError(std::string(kLimitsFile), "not compiled into this binary");
  const toml::table doc = parse_toml(*text, std::string(kLimitsFile));
  std::vector<TritonLimit> out;
  const auto* limits = doc["limit"].as_array();
  if (!limits) throw InputError(std::string(kLimitsFile), "no [[limit]] entries");
  for (const auto& node : *limits) {
    const auto* t = node.as_table();
    if (!t) continue;
    TritonLimit l;
    l.id = (*t)["id"].value_or(std::string());
    const std::string where = std::string(kLimitsFile) + ": limit '" + l.id + "'";
    const std::string check = (*t)["check"].value_or(std::string());
    const auto it = std::find_if(kChecks.begin(), kChecks.end(), [&](const auto& c) { return c.first == check; });
    if (it == kChecks.end()) throw InputError(where, "unknown check '" + check + "'");
    l.check = it->second;
    l.names = strings(*t, "names", where);
    l.methods = strings(*t, "methods", where);
    l.keywords = strings(*t, "keywords", where);
    l.allowed = strings(*t, "allowed", where);
    l.values = strings(*t, "values", where);
    l.value = (*t)["value"].value_or(int64_t{0});
    l.message = (*t)["message"].value_or(std::string());
    l.source = (*t)["source"].value_or(std::string());
    if (l.id.empty() || l.message.empty() || l.source.empty()) throw InputError(where, "needs id, message and source");
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

bool TritonLimit::names_has(std::string_view n) const { return std::find(names.begin(), names.end(), n) != names.end(); }

const std::vector<TritonLimit>& triton_limits() {
  static const std::vector<TritonLimit> limits = load();
  return limits;
}

}  // namespace banjia::rules
