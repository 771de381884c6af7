// Per-variable checks: the name (known, deprecated, set_option key, invented, CUDA) and the value.
#include <charconv>

#include <fmt/format.h>

#include "common/fuzzy.h"
#include "env/analysis/alloc_conf.h"
#include "env/analysis/checker.h"
#include "env/analysis/translate.h"

namespace banjia::env {
namespace {

const std::vector<std::string>& candidate_names() {
  static const std::vector<std::string> names = knowledge_base().all_names();
  return names;
}

std::optional<long long> parse_int(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  long long v;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

bool equals(std::string_view a, std::string_view b, bool ci) { return ci ? upper(a) == upper(b) : a == b; }

std::string documented(const VarInfo& v) {
  if (!v.values.empty()) return fmt::format("documented values: {}", fmt::join(v.values, ", "));
  if (v.min && v.max) return fmt::format("documented range: [{}, {}]", *v.min, *v.max);
  if (v.min) return fmt::format("documented minimum: {}", *v.min);
  return "see banjia env explain " + v.name;
}

// Reports a value outside the documented set according to the variable's invalid policy.
void report_invalid(const VarInfo& v, std::string_view value, const std::string& why, const Site& site,
                    std::vector<Finding>& out) {
  switch (v.invalid) {
    case InvalidPolicy::error:
      out.push_back(make_finding(site, "env-invalid-value", Severity::error,
                                 fmt::format("{}={} makes {}: {}", v.name, value, v.fails,
                                             v.invalid_message.empty() ? why : v.invalid_message),
                                 documented(v), v.source));
      break;
    case InvalidPolicy::normalised:
      out.push_back(make_finding(site, "env-normalised-value", Severity::warning,
                                 fmt::format("{}={} is invalid ({}) and is silently replaced by {}", v.name, value,
                                             why, v.normalised_to),
                                 documented(v), v.source));
      break;
    case InvalidPolicy::unchecked:
      out.push_back(make_finding(site, "env-undocumented-value", Severity::warning,
                                 fmt::format("{}={} is outside the documented values ({})", v.name, value, why),
                                 documented(v), v.source));
      break;
  }
}

void check_device_list(const VarInfo& v, std::string_view value, const Site& site, std::vector<Finding>& out) {
  long long prev = -1;
  size_t pos = 0;
  std::string parsed;
  while (pos <= value.size()) {
    size_t comma = value.find(',', pos);
    std::string_view item = value.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    auto id = parse_int(item);
    if (!id || *id < 0 || item.starts_with('+')) {
      report_invalid(v, value, fmt::format("'{}' is not a device ID; parsing stops there, leaving '{}'", item, parsed),
                     site, out);
      return;
    }
    if (*id <= prev) {
      out.push_back(make_finding(site, "env-undocumented-value", Severity::warning,
                                 fmt::format("{}={}: device IDs must be in ascending order", v.name, value),
                                 documented(v), v.source));
      return;
    }
    prev = *id;
    parsed += (parsed.empty() ? "" : ",") + std::string(item);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
}

bool value_is_constrained(const VarInfo& v) {
  return v.type == "enum" || v.type == "int" || v.type == "alloc_conf" || v.type == "size" ||
         v.type == "device_list" || (v.type == "list" && !v.values.empty());
}

}  // namespace

bool check_known_name(std::string_view name, const Site& site, std::vector<Finding>& out, const VarInfo** var,
                      std::optional<std::string_view> value) {
  const auto& kb = knowledge_base();
  *var = nullptr;
  if (const CudaPair* c = kb.cuda_pair(name)) {
    if (const VarInfo* ascend = value ? ascend_list_hidden_by(*c, *value) : nullptr) {
      out.push_back(make_finding(site, "env-cuda-name", Severity::warning,
                                 fmt::format("{}=\"{}\" hides every GPU so that the program runs on the CPU; {} takes "
                                             "only a comma list of ascending device IDs, so there is no Ascend "
                                             "spelling of this value", name, *value, c->ascend),
                                 std::string(kForceCpuAdvice), ascend->source, FixKind::manual));
      return true;
    }
    std::string suggestion = c->automatic ? fmt::format("rename to {} (banjia env translate does this)", c->ascend)
                                          : fmt::format("configure {} by hand", c->ascend);
    if (!c->note.empty()) suggestion += "; " + c->note;
    auto f = make_finding(site, "env-cuda-name", Severity::warning,
                          fmt::format("{} is a CUDA/NCCL variable that torch_npu and CANN do not read; the Ascend "
                                      "equivalent is {}", name, c->ascend),
                          suggestion, c->source, c->automatic ? FixKind::automatic : FixKind::manual);
    if (c->automatic) f.replacement = c->ascend;
    out.push_back(std::move(f));
    return true;
  }
  if (const VarInfo* v = kb.var(name)) {
    if (v->cls == VarClass::set_option) {
      out.push_back(make_finding(site, "env-set-option-key", Severity::warning,
                                 fmt::format("{} is a torch.npu.set_option key, not an environment variable: torch_npu "
                                             "never reads it from the environment", name),
                                 fmt::format("use {}", v->api), v->source));
      return true;
    }
    if (v->cls == VarClass::deprecated)
      out.push_back(make_finding(site, "env-deprecated", Severity::warning, fmt::format("{} is deprecated", name),
                                 fmt::format("use {}", v->replacement), v->source));
    *var = v;
    return true;
  }
  if (const NameInfo* n = kb.name_info(name)) {
    if (n->kind == "legacy") {
      out.push_back(make_finding(site, "env-legacy-name", Severity::info,
                                 fmt::format("{} is a legacy name with no effect on current torch_npu", name), n->use,
                                 n->source));
    } else if (n->kind == "invented") {
      out.push_back(make_finding(site, "env-invented-name", Severity::warning,
                                 fmt::format("{} does not exist: it is not read by torch_npu or CANN", name), n->use,
                                 n->source));
    } else if (n->kind == "wrong-name") {
      out.push_back(make_finding(site, "env-wrong-name", Severity::warning,
                                 fmt::format("{} is not a valid name and is not read by torch_npu or CANN", name),
                                 n->use, n->source));
    } else {
      out.push_back(make_finding(site, "env-not-an-env-var", Severity::warning,
                                 fmt::format("{} is not an environment variable: torch_npu and CANN never read it", name),
                                 n->use, n->source));
    }
    return true;
  }
  return false;
}

void check_unknown_name(std::string_view name, const Site& site, std::vector<Finding>& out) {
  const auto& kb = knowledge_base();
  std::string up = upper(name);
  if (up != name && kb.var(up)) {
    out.push_back(make_finding(site, "env-unknown-name", Severity::warning,
                               fmt::format("{} is not read by torch_npu or CANN (variable names are case-sensitive)", name),
                               fmt::format("did you mean {}?", up), kb.var(up)->source));
    return;
  }
  if (up != name) return;  // lower-case shell variables are not environment settings
  if (kb.looks_ascendish(name)) {
    auto near = closest_names(name, candidate_names());
    out.push_back(make_finding(site, "env-unknown-name", Severity::warning,
                               fmt::format("{} is not read by torch_npu or CANN", name),
                               near.empty() ? "not a documented torch_npu / CANN / HCCL variable; `banjia env explain "
                                              "WORD` searches the documented ones"
                                            : fmt::format("did you mean {}?", fmt::join(near, ", ")),
                               kb.ascendish_source));
    return;
  }
  // A near miss of a documented name (TASK_QUEUE_ENABLED) is a typo even without an Ascend-looking prefix.
  if (name.size() >= 8) {
    std::vector<std::string> near;
    for (const auto& c : closest_names(name, candidate_names()))
      if (edit_distance(name, c) <= 2) near.push_back(c);
    if (!near.empty()) {
      out.push_back(make_finding(site, "env-unknown-name", Severity::warning,
                                 fmt::format("{} is not read by torch_npu or CANN", name),
                                 fmt::format("did you mean {}?", fmt::join(near, ", ")), kb.var(near[0])->source));
      return;
    }
  }
  if (kb.looks_cuda(name))
    out.push_back(make_finding(site, "env-cuda-no-equivalent", Severity::info,
                               fmt::format("{} is a CUDA/NCCL variable with no documented Ascend equivalent; it has no "
                                           "effect on Ascend", name),
                               "remove it from NPU launch scripts or keep it for GPU runs only",
                               kb.cuda_prefixes_source));
}

void check_value(const VarInfo& v, std::string_view value, bool unresolved, const Site& site, Purpose purpose,
                 std::vector<Finding>& out) {
  if (unresolved) {
    if (value_is_constrained(v))
      out.push_back(make_finding(site, "env-unresolved-value", Severity::info,
                                 fmt::format("{}={} contains a shell expansion; kept as unresolved text and not checked",
                                             v.name, value),
                                 documented(v), v.source));
    return;
  }
  size_t before = out.size();
  if (value.empty() && value_is_constrained(v)) {
    out.push_back(make_finding(site, "env-undocumented-value", Severity::warning,
                               fmt::format("{} is set to an empty string", v.name), documented(v), v.source));
  } else if (v.type == "enum") {
    bool ok = false;
    for (const auto& allowed : v.values) ok = ok || equals(value, allowed, v.case_insensitive);
    if (!ok && v.strtol && !parse_int(value)) {
      out.push_back(make_finding(site, "env-strtol-misread", Severity::warning,
                                 fmt::format("{}={} is read with strtol, so it means 0 (off)", v.name, value),
                                 documented(v), v.source));
    } else if (!ok && v.strtol && parse_int(value) && *parse_int(value) != 0) {
      out.push_back(make_finding(site, "env-undocumented-value", Severity::warning,
                                 fmt::format("{}={} is outside the documented values; any non-zero number reads as on",
                                             v.name, value),
                                 documented(v), v.source));
    } else if (!ok) {
      report_invalid(v, value, fmt::format("expected one of {}", fmt::join(v.values, ", ")), site, out);
    }
  } else if (v.type == "int") {
    auto n = parse_int(value);
    if (!n) report_invalid(v, value, "not an integer", site, out);
    else if (v.min && *n < *v.min) report_invalid(v, value, fmt::format("below {}", *v.min), site, out);
    else if (v.max && *n > *v.max && v.max_checked) report_invalid(v, value, fmt::format("above {}", *v.max), site, out);
    else if (v.max && *n > *v.max)
      out.push_back(make_finding(site, "env-undocumented-value", Severity::warning,
                                 fmt::format("{}={} is above the documented maximum {}", v.name, value, *v.max),
                                 documented(v), v.source));
    else if (v.multiple_of && *n % *v.multiple_of != 0)
      out.push_back(make_finding(site, "env-undocumented-value", Severity::warning,
                                 fmt::format("{}={} is not a multiple of {}", v.name, value, *v.multiple_of),
                                 documented(v), v.source));
  } else if (v.type == "list" && !v.values.empty()) {
    size_t pos = 0;
    while (pos <= value.size()) {
      size_t comma = value.find(',', pos);
      auto item = value.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
      bool ok = false;
      for (const auto& allowed : v.values) ok = ok || item == allowed;
      if (!ok) {
        report_invalid(v, value, fmt::format("unknown key '{}'", item), site, out);
        break;
      }
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  } else if (v.type == "size") {
    size_t digits = value.find_first_not_of("0123456789");
    std::string_view rest = digits == std::string_view::npos ? std::string_view{} : value.substr(digits);
    bool ok = digits != 0 && (rest.empty() || (rest.size() <= 2 && std::string_view("kKmMgGtT").find(rest[0]) != std::string_view::npos &&
                                               (rest.size() == 1 || rest[1] == 'b' || rest[1] == 'B')));
    if (!ok) report_invalid(v, value, "expected a size with a k/m/g/t suffix", site, out);
  } else if (v.type == "device_list") {
    check_device_list(v, value, site, out);
  } else if (v.type == "alloc_conf") {
    check_alloc_conf(v.name, value, site, out);
  }
  if (out.size() != before) return;  // an invalid value is not also reported as a debug setting
  if (v.cls == VarClass::debug_only) {
    bool debug = v.debug_values.empty();
    for (const auto& d : v.debug_values) debug = debug || value == d;
    if (debug) {
      bool production = purpose == Purpose::production;
      out.push_back(make_finding(
          site, production ? "env-debug-in-production" : "env-debug-setting",
          production ? Severity::warning : Severity::info,
          fmt::format("{}={} is a debug-only setting: {}", v.name, value, v.cost),
          production ? "remove it from production scripts (or mark a debug script with '# banjia-env: purpose=debug')"
                     : "expected in a debug script; do not copy it into production scripts",
          v.source));
    }
  }
}

}  // namespace banjia::env
