#include "rules/sources/config_scanner.h"

#include <algorithm>
#include <cctype>

#include "common/fuzzy.h"
#include "env/model/knowledge_base.h"
#include "rules/analyses/device_values.h"
#include "rules/core/finding_factory.h"
#include "rules/kinds/config_value.h"
#include "rules/kinds/env_name.h"

namespace banjia::rules {

namespace {

bool listed(const std::vector<std::string>& keys, std::string_view key) {
  const std::string k = lower(key);
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& x) { return lower(x) == k; });
}

// "cuda" or "cuda:N".
bool cuda_device(std::string_view v) {
  if (v == "cuda") return true;
  if (!v.starts_with("cuda:") || v.size() == 5) return false;
  return std::all_of(v.begin() + 5, v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool cuda_backend(std::string_view v) {
  if (v == "nccl" || v == "NCCL") return true;
  const auto items = composite_backend_items(v);
  return std::any_of(items.begin(), items.end(), [](const auto& i) { return i.first == "cuda" || i.second == "nccl"; });
}

bool switched_off(const ConfigScalar& s) {
  const std::string v = lower(s.value);
  return v.empty() || v == "false" || v == "0" || v == "no" || v == "off" || v == "none" || v == "null" || v == "~";
}

// The innermost key above the scalar, and whether an ancestor key is one of `keys`.
std::string_view own_key(const ConfigScalar& s) {
  for (auto it = s.path.rbegin(); it != s.path.rend(); ++it)
    if (!it->starts_with('[')) return *it;
  return {};
}
// An FP8 switch or recipe: a key naming fp8 set to anything but off (`fp8: true`, `fp8_format: hybrid`),
// the switch of an fp8 section (`fp8: {enabled: true}`), or the value fp8 (`mixed_precision: fp8`).
bool fp8_setting(const ConfigScalar& s) {
  if (s.is_string && lower(s.value) == "fp8") return true;
  if (switched_off(s)) return false;
  const std::string key = lower(own_key(s));
  if (key.find("fp8") != std::string::npos) return true;
  if (key != "enabled" && key != "enable") return false;
  std::vector<std::string_view> keys;
  for (const auto& k : s.path)
    if (!k.starts_with('[')) keys.push_back(k);
  return keys.size() >= 2 && lower(keys[keys.size() - 2]).find("fp8") != std::string::npos;
}

bool under(const ConfigScalar& s, const std::vector<std::string>& keys, size_t skip_last) {
  for (size_t i = 0; i + skip_last < s.path.size(); ++i)
    if (listed(keys, s.path[i])) return true;
  return false;
}

class ConfigMatcher {
 public:
  explicit ConfigMatcher(const RuleCatalog& rules) {
    for (const Rule* r : rules.of_kind<ConfigValueMatch>()) by_role_.emplace_back(r->params<ConfigValueMatch>().role, r);
  }

  std::vector<ConfigMatch> run(const std::vector<ConfigScalar>& scalars) {
    for (const auto& s : scalars) one(s);
    return std::move(out_);
  }

 private:
  const Rule* role(std::string_view name) const {
    for (const auto& [r, rule] : by_role_)
      if (r == name) return rule;
    return nullptr;
  }

  // The `attention` rule whose values list `v`, or nullptr.
  const Rule* attention(std::string_view v) const {
    for (const auto& [r, rule] : by_role_)
      if (const auto& vs = rule->params<ConfigValueMatch>().values; r == "attention" && std::find(vs.begin(), vs.end(), v) != vs.end())
        return rule;
    return nullptr;
  }

  ConfigMatch& add(const Rule* r, const ConfigScalar& s, ByteRange at) {
    ConfigMatch m;
    m.rule = r;
    m.at = at;
    m.message = "`" + key_path_text(s.path) + "`: " + r->message;
    out_.push_back(std::move(m));
    return out_.back();
  }

  // The verbatim value rewritten by the rule's replacement (`from` -> `to` wherever it stands as a
  // whole device or backend name), for automatic rules.
  void edit(ConfigMatch& m, const ConfigScalar& s, std::string value) {
    if (m.rule->fix != FixKind::automatic || !s.verbatim) return;
    m.edit = TextEdit{static_cast<uint32_t>(s.verbatim->begin), static_cast<uint32_t>(s.verbatim->end), std::move(value)};
    m.replacement = m.edit->text;
  }

  static std::string renamed(std::string_view v, const Rule& r) {
    const auto* w = std::get_if<NameRewrite>(&r.rewrite_params);
    if (!w || !v.starts_with(w->from)) return std::string(v);
    return w->to + std::string(v.substr(w->from.size()));
  }

  // A backend value: "nccl" by the backend rule's rewrite; per device, each device by the device
  // rule's and each backend by the backend rule's.
  std::string backend_value(std::string_view v, const Rule& backend) const {
    const auto items = composite_backend_items(v);
    if (items.empty()) {
      const auto* w = std::get_if<NameRewrite>(&backend.rewrite_params);
      if (!w) return std::string(v);
      std::string to = w->to;
      if (v == "NCCL") std::transform(to.begin(), to.end(), to.begin(), [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
      return to;
    }
    const Rule* device = role("device");
    std::string out;
    for (const auto& [dev, be] : items) {
      if (!out.empty()) out += ',';
      out += (dev == "cuda" && device ? renamed(dev, *device) : std::string(dev)) + ":" + renamed(be, backend);
    }
    return out;
  }

  void one(const ConfigScalar& s) {
    const std::string_view key = own_key(s);
    const Rule* r = nullptr;
    if (s.is_string && cuda_device(s.value) && (r = role("device")) && listed(r->params<ConfigValueMatch>().keys, key)) {
      ConfigMatch& m = add(r, s, s.written);
      edit(m, s, renamed(s.value, *r));
      return;
    }
    if (s.is_string && cuda_backend(s.value) && (r = role("backend")) && listed(r->params<ConfigValueMatch>().keys, key)) {
      ConfigMatch& m = add(r, s, s.written);
      edit(m, s, backend_value(s.value, *r));
      return;
    }
    if (env(s)) return;
    if ((r = role("fp8")) && fp8_setting(s)) {
      add(r, s, s.written);
      return;
    }
    if (s.is_string && (r = attention(s.value))) {
      add(r, s, s.written);
      return;
    }
    if (s.is_string && (cuda_device(s.value) || cuda_backend(s.value)) && (r = role("other"))) add(r, s, s.written);
  }

  // A CUDA/NCCL variable set under an environment key: reported where its name stands, with the
  // Ascend counterpart the env table documents (never rewritten: a config's environment may serve a
  // GPU job too).
  bool env(const ConfigScalar& s) {
    const Rule* r = role("env");
    if (!r) return false;
    const auto& keys = r->params<ConfigValueMatch>().keys;
    const EnvNameTable& table = builtin_env_names();
    const std::string_view key = own_key(s);
    std::string_view name;
    std::optional<ByteRange> at;
    if (table.is_cuda_name(key) && s.path.size() >= 2 && under(s, keys, 1)) {
      name = key;
      at = s.key;
    } else if (s.is_string && key == "name" && table.is_cuda_name(s.value) && under(s, keys, 1)) {
      name = s.value;
      at = s.written;
    } else {
      return false;
    }
    ConfigMatch& m = add(r, s, at.value_or(s.written));
    if (const env::CudaPair* pair = table.pair ? table.pair(name) : nullptr) {
      m.message += ": " + std::string(name) + " -> " + pair->ascend + (pair->automatic ? "" : " (needs a manual setting: " + pair->note + ")");
      m.replacement = pair->ascend;
      m.source = pair->source;
    } else {
      m.message += ": " + std::string(name) + " has no documented Ascend equivalent";
    }
    return true;
  }

  std::vector<std::pair<std::string, const Rule*>> by_role_;
  std::vector<ConfigMatch> out_;
};

}  // namespace

std::vector<ConfigMatch> match_config(std::string_view text, ConfigFormat format, const std::string& display,
                                      const RuleCatalog& rules) {
  if (rules.of_kind<ConfigValueMatch>().empty()) return {};
  const auto scalars = read_config(text, format, display);
  return ConfigMatcher(rules).run(scalars);
}

Finding finding_for_config_match(const ConfigMatch& m, const std::string& display, const LineIndex& lines) {
  Finding f = make_finding(*m.rule, display, lines, m.at.begin, m.at.end);
  f.message = m.message;
  if (m.replacement) f.replacement = m.replacement;
  if (!m.source.empty()) f.source = m.source;
  return f;
}

Finding skipped_file_finding(const std::string& file, const std::string& why) {
  Finding f;
  f.file = file;
  f.rule = "input-skipped";
  f.category = "input";
  f.severity = Severity::info;
  f.fix = FixKind::advisory;
  f.message = why;
  f.source = "banjia : src/rules/sources/config_scanner.cpp (configuration files)";
  return f;
}

void scan_config(std::string_view text, const std::string& display, const RuleCatalog& rules, std::vector<Finding>& out) {
  const auto format = config_format(display.substr(display.rfind('/') + 1));
  if (!format) return;
  if (text.size() > kMaxConfigBytes) {
    out.push_back(skipped_file_finding(display, "not scanned: " + std::to_string(text.size() / 1024) +
                                                    " KiB is more than a configuration file holds (the limit is " +
                                                    std::to_string(kMaxConfigBytes / 1024) + " KiB); a data file?"));
    return;
  }
  const LineIndex lines(text);
  for (const auto& m : match_config(text, *format, display, rules)) out.push_back(finding_for_config_match(m, display, lines));
}

}  // namespace banjia::rules
