// A CUDA variable's value as its Ascend counterpart takes it (translate.h, translate_cuda_value): the
// one decision `env translate`, shell rewriting and Python code share.
#include <fmt/format.h>

#include "common/version.h"
#include "env/analysis/alloc_conf.h"
#include "env/model/knowledge_base.h"
#include "env/analysis/translate.h"

namespace banjia {

using env::knowledge_base;

namespace {

bool too_new(const env::AllocOption& o, const TranslateOptions& options) {
  return !options.target_torch_npu.empty() && !o.min_torch_npu.empty() &&
         compare_versions(options.target_torch_npu, o.min_torch_npu) < 0;
}

// PYTORCH_CUDA_ALLOC_CONF's options torch_npu's allocator takes, in their order; the others dropped.
void alloc_value(std::string_view name, std::string_view value, const TranslateOptions& options, ValueTranslation& t) {
  const auto& kb = knowledge_base();
  std::vector<std::string> kept;
  bool dropped = false;
  for (const auto& e : env::split_alloc_conf(value)) {
    const env::AllocOption* opt = e.has_colon ? kb.alloc_option(e.key) : nullptr;
    if (opt && too_new(*opt, options)) {
      dropped = true;
      t.notes.push_back({"env-alloc-option-too-new", Severity::warning,
                         fmt::format("dropped '{}:{}' from {}: the option needs TorchNPU >= {} and the target is {}", e.key,
                                     e.value, name, opt->min_torch_npu, options.target_torch_npu),
                         "raise --target-torch-npu if the machine runs a newer TorchNPU", opt->source});
      continue;
    }
    if (opt) {
      kept.push_back(std::string(value.substr(e.begin, e.end - e.begin)));
      continue;
    }
    dropped = true;
    t.notes.push_back({"env-alloc-unknown-option", Severity::warning,
                       fmt::format("dropped '{}' from {}: torch_npu does not know option '{}' and would fail with "
                                   "\"Unrecognized key '{}' in NPU allocator config\"",
                                   e.key + (e.has_colon ? ":" + e.value : ""), name, e.key, e.key),
                       "see banjia env explain PYTORCH_NPU_ALLOC_CONF for the options torch_npu accepts",
                       kb.rule("env-alloc-unknown-option").source});
  }
  if (!dropped) return;
  std::string joined;
  for (const auto& k : kept) joined += (joined.empty() ? "" : ",") + k;
  t.value = std::move(joined);
}

}  // namespace

ValueTranslation translate_cuda_value(const env::CudaPair& pair, std::string_view value, bool unresolved,
                                      const TranslateOptions& options) {
  ValueTranslation t;
  if (pair.name == "PYTORCH_CUDA_ALLOC_CONF") {
    if (unresolved)
      t.notes.push_back({"env-unresolved-value", Severity::warning,
                         fmt::format("{} value contains a shell expansion; its options were not checked against torch_npu",
                                     pair.name),
                         "check the expanded value with banjia env check", pair.source});
    else
      alloc_value(pair.name, value, options, t);
    return t;
  }
  if (pair.value_map.empty()) return t;
  for (const auto& [from, to] : pair.value_map)
    if (value == from && !unresolved) {
      t.value = to;
      return t;
    }
  t.notes.push_back({"env-cuda-name", Severity::warning,
                     fmt::format("{} value '{}' was kept as is; {}", pair.ascend, value, pair.note), "check the value by hand",
                     pair.source});
  return t;
}

}  // namespace banjia
