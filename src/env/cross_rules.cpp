// Rules across variables (env-vars.md §7) and the msprof-analyze advisor settings (§6.4).
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "env/alloc_conf.h"
#include "env/checker.h"
#include "env/translate.h"

namespace banjia::env {
namespace {

class View {
 public:
  explicit View(const Environment& env) : env_(env) {}
  const Setting* get(const std::string& name) const {
    auto it = env_.find(name);
    return it == env_.end() || it->second.unresolved ? nullptr : &it->second;
  }
  bool is(const std::string& name, std::string_view value) const {
    const Setting* s = get(name);
    return s && s->value == value;
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

Finding rule_finding(const Site& site, std::string_view id, Severity sev, std::string evidence, std::string suggestion) {
  const auto& r = knowledge_base().rule(id);
  auto f = make_finding(site, id, sev, r.summary, std::move(suggestion), r.source);
  f.evidence = std::move(evidence);
  return f;
}

long long as_timeout(long long v) { return v == 0 ? std::numeric_limits<long long>::max() : v; }  // 0 = never

void advisor(const View& env, std::vector<Finding>& out) {
  for (const auto& a : knowledge_base().advice) {
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

void check_cross_rules(const Environment& environment, std::vector<Finding>& out) {
  View env(environment);
  const auto& kb = knowledge_base();
  if (env.set("PYTORCH_NPU_ALLOC_CONF") && env.set("PYTORCH_ALLOC_CONF"))
    out.push_back(rule_finding(env.site("PYTORCH_ALLOC_CONF"), "env-alloc-both-names", Severity::error,
                               "torch_npu fails with \"Both PYTORCH_NPU_ALLOC_CONF and PYTORCH_ALLOC_CONF have been set\"",
                               "keep only one of the two names"));
  if (env.is("TORCH_HCCL_ZERO_COPY", "1")) {
    bool expandable = false;
    for (const char* n : {"PYTORCH_NPU_ALLOC_CONF", "PYTORCH_ALLOC_CONF"})
      if (const Setting* s = env.get(n)) expandable = expandable || alloc_conf_expandable(s->value);
    if (!expandable && !(env.set("PYTORCH_NPU_ALLOC_CONF") && !env.get("PYTORCH_NPU_ALLOC_CONF")))
      out.push_back(rule_finding(env.site("TORCH_HCCL_ZERO_COPY"), "env-zero-copy-needs-expandable", Severity::warning,
                                 "TORCH_HCCL_ZERO_COPY=1 without expandable_segments:True",
                                 "set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (Atlas A3 only; not with TorchAir)"));
  }
  if (env.set("HCCL_EVENT_TIMEOUT") || env.set("HCCL_EXEC_TIMEOUT")) {
    auto event = env.set("HCCL_EVENT_TIMEOUT") ? env.integer("HCCL_EVENT_TIMEOUT") : std::optional<long long>(1868);
    auto exec = env.integer("HCCL_EXEC_TIMEOUT");
    if (event && exec && *event >= 0 && *exec >= 0 && as_timeout(*event) <= as_timeout(*exec)) {
      std::string where = env.set("HCCL_EVENT_TIMEOUT") ? "HCCL_EVENT_TIMEOUT" : "HCCL_EXEC_TIMEOUT";
      out.push_back(rule_finding(
          env.site(where), "env-event-timeout-order", Severity::warning,
          fmt::format("HCCL_EVENT_TIMEOUT={}{} is not greater than HCCL_EXEC_TIMEOUT={} (0 means never)", *event,
                      env.set("HCCL_EVENT_TIMEOUT") ? "" : " (default)", *exec),
          "set HCCL_EVENT_TIMEOUT above HCCL_EXEC_TIMEOUT"));
    }
  }
  auto blocking = env.integer("ASCEND_LAUNCH_BLOCKING");
  bool launch_blocking = blocking && *blocking != 0;
  if (launch_blocking && (env.is("TASK_QUEUE_ENABLE", "1") || env.is("TASK_QUEUE_ENABLE", "2")))
    out.push_back(rule_finding(env.site("TASK_QUEUE_ENABLE"), "env-blocking-overrides-task-queue", Severity::warning,
                               fmt::format("ASCEND_LAUNCH_BLOCKING={} turns task_queue off, so TASK_QUEUE_ENABLE={} "
                                           "has no effect", *blocking, env.get("TASK_QUEUE_ENABLE")->value),
                               "unset ASCEND_LAUNCH_BLOCKING outside debugging"));
  bool no_queue = launch_blocking || env.is("TASK_QUEUE_ENABLE", "0");
  for (const auto& [name, on] : {std::pair<std::string, std::string>{"PER_STREAM_QUEUE", "1"},
                                 {"TORCH_NPU_LAZY_FUSION", "True"}}) {
    if (no_queue && env.is(name, on))
      out.push_back(rule_finding(env.site(name), "env-needs-task-queue", Severity::warning,
                                 fmt::format("{}={} while {}", name, on,
                                             launch_blocking ? "ASCEND_LAUNCH_BLOCKING is on" : "TASK_QUEUE_ENABLE=0"),
                                 "set TASK_QUEUE_ENABLE to 1 or 2 and keep ASCEND_LAUNCH_BLOCKING off"));
  }
  if (env.set("OOM_SNAPSHOT_PATH") && (!env.set("OOM_SNAPSHOT_ENABLE") || env.is("OOM_SNAPSHOT_ENABLE", "0")))
    out.push_back(rule_finding(env.site("OOM_SNAPSHOT_PATH"), "env-oom-path-without-enable", Severity::warning,
                               "OOM_SNAPSHOT_PATH is set but OOM_SNAPSHOT_ENABLE is not 1 or 2",
                               "set OOM_SNAPSHOT_ENABLE=1 (state + history) or 2 (state only)"));
  if (env.is("PYTORCH_NO_NPU_MEMORY_CACHING", "1"))
    out.push_back(rule_finding(env.site("PYTORCH_NO_NPU_MEMORY_CACHING"), "env-uncached-blocks-uce-check", Severity::info,
                               "PYTORCH_NO_NPU_MEMORY_CACHING=1", "unset it where check_uce_in_memory is used"));
  if (env.is("INF_NAN_MODE_ENABLE", "0") && !env.is("INF_NAN_MODE_FORCE_DISABLE", "1"))
    out.push_back(rule_finding(env.site("INF_NAN_MODE_ENABLE"), "env-inf-nan-needs-force-disable", Severity::warning,
                               "INF_NAN_MODE_ENABLE=0 without INF_NAN_MODE_FORCE_DISABLE=1 is blocked on A2/A3",
                               "set INF_NAN_MODE_FORCE_DISABLE=1 if saturation mode is really wanted (it changes "
                               "precision: Inf clamps to +-max, NaN becomes 0)"));
  if (env.is("HCCL_INTRA_PCIE_ENABLE", "1") && env.is("HCCL_INTRA_ROCE_ENABLE", "1"))
    out.push_back(rule_finding(env.site("HCCL_INTRA_ROCE_ENABLE"), "env-intra-link-conflict", Severity::warning,
                               "HCCL_INTRA_PCIE_ENABLE=1 and HCCL_INTRA_ROCE_ENABLE=1", "enable only one link type"));
  for (const auto& pair : kb.cuda) {
    if (!pair.automatic || !env.set(pair.name) || !env.set(pair.ascend)) continue;
    const Setting& cuda = env.all().at(pair.name);
    const Setting& ascend = env.all().at(pair.ascend);
    const std::string wanted = cuda.unresolved ? cuda.value : cuda_value_in_ascend_terms(pair, cuda.value);
    if (wanted != ascend.value)
      out.push_back(rule_finding(cuda.site, "env-cuda-ascend-conflict", Severity::warning,
                                 fmt::format("{}={} and {}={}{}", pair.name, cuda.value, pair.ascend, ascend.value,
                                             ascend.site.line > 0 ? fmt::format(" (line {})", ascend.site.line) : ""),
                                 fmt::format("keep one of the two; torch_npu reads only {}", pair.ascend)));
  }
  for (const auto& v : kb.vars) {
    if (v.cls != VarClass::deprecated || !env.set(v.name)) continue;
    std::string replacement = v.replacement.substr(0, v.replacement.find(' '));
    if (replacement != v.name && env.set(replacement))
      out.push_back(rule_finding(env.site(v.name), "env-deprecated-and-replacement", Severity::info,
                                 fmt::format("{} and {} are both set; {} wins", v.name, replacement, replacement),
                                 fmt::format("remove {}", v.name)));
  }
  advisor(env, out);
}

}  // namespace banjia::env
