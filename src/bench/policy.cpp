#include "bench/policy.h"

#include <map>

#include <toml++/toml.h>

#include "common/embedded_data.h"
#include "common/errors.h"

namespace banjia::bench {

Policy parse_policy(const std::string& text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, std::string("invalid TOML: ") + std::string(e.description()));
  }
  std::map<std::string, double> values;
  const auto* settings = root["setting"].as_array();
  if (!settings) throw InputError(file, "no [[setting]] entries");
  for (const auto& node : *settings) {
    const auto* t = node.as_table();
    if (!t) throw InputError(file, "[[setting]] is not a table");
    auto name = (*t)["name"].value<std::string>();
    auto source = (*t)["source"].value<std::string>();
    auto value = (*t)["value"].value<double>();
    if (!name || !value) throw InputError(file, "a [[setting]] lacks name or numeric value");
    if (!source || source->empty()) throw InputError(file, "setting '" + *name + "' has no source");
    values[*name] = *value;
  }
  auto get = [&](const char* name, double lo, double hi) {
    auto it = values.find(name);
    if (it == values.end()) throw InputError(file, std::string("missing setting '") + name + "'");
    if (!(it->second >= lo && it->second <= hi))
      throw InputError(file, std::string("setting '") + name + "' is out of range");
    return it->second;
  };
  Policy p;
  p.min_iterations = static_cast<int>(get("min_iterations", 1, 1e6));
  p.max_cv = get("max_cv", 0, 10);
  p.confidence = get("confidence", 0.5, 0.999);
  p.bootstrap_resamples = static_cast<int>(get("bootstrap_resamples", 100, 1e6));
  p.bootstrap_seed = static_cast<uint64_t>(get("bootstrap_seed", 0, 9.0e15));
  p.tukey_k = get("tukey_k", 0, 100);
  return p;
}

const Policy& default_policy() {
  static const Policy policy = [] {
    const char* path = "data/bench/policy.toml";
    auto text = embedded_file(path);
    if (!text) throw InputError(path, "not embedded in this build");
    return parse_policy(std::string(*text), path);
  }();
  return policy;
}

}  // namespace banjia::bench
