#include "compare/analysis/noise_parameters.h"

#include <algorithm>
#include <initializer_list>

#include <toml++/toml.h>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/toml_document.h"
#include "compare/readers/npy_format.h"

namespace banjia::compare {

namespace {
constexpr const char* kNoiseFile = "data/compare/noise.toml";

template <class T>
T required(const toml::table& t, const char* section, const char* key) {
  auto v = t[section][key].value<T>();
  if (!v) throw InputError(kNoiseFile, std::string("missing ") + section + "." + key);
  return *v;
}

bool flag(const std::map<std::string, std::string>& meta, const char* key, bool& value) {
  auto it = meta.find(key);
  if (it == meta.end()) return false;
  value = it->second == "true";
  return true;
}
}  // namespace

const NoiseParameters& noise_parameters() {
  static const NoiseParameters p = [] {
    auto text = embedded_file(kNoiseFile);
    if (!text) throw InputError(kNoiseFile, "not compiled into the binary");
    toml::table t = parse_toml(*text, kNoiseFile);
    NoiseParameters out;
    if (auto* rows = t["precision"].as_array())
      for (auto& node : *rows)
        if (auto* row = node.as_table()) {
          auto name = (*row)["name"].value<std::string>();
          auto u = (*row)["unit_roundoff"].value<double>();
          if (name && u) out.unit_roundoff[*name] = *u;
        }
    out.cuda_default_f32 = required<std::string>(t, "reduced_float32", "cuda_default");
    out.npu_default_f32 = required<std::string>(t, "reduced_float32", "npu_default");
    out.matmul_high_f32 = required<std::string>(t, "reduced_float32", "matmul_precision_high");
    out.matmul_medium_f32 = required<std::string>(t, "reduced_float32", "matmul_precision_medium");
    out.round = required<double>(t, "rounding", "round");
    out.accumulate = required<double>(t, "rounding", "accumulate");
    out.min_reduction = required<int64_t>(t, "rounding", "min_reduction");
    out.parameter_reduction = required<int64_t>(t, "rounding", "parameter_reduction");
    out.growth_forward = required<double>(t, "growth", "forward");
    out.growth_backward = required<double>(t, "growth", "backward");
    out.growth_param = required<double>(t, "growth", "param_grad");
    out.clear_factor = required<double>(t, "verdict", "clear_factor");
    out.history_factor = required<double>(t, "verdict", "history_factor");
    out.batchnorm_min_values = required<int64_t>(t, "verdict", "batchnorm_min_values");
    return out;
  }();
  return p;
}

double unit_roundoff(const std::string& name) {
  const auto& table = noise_parameters().unit_roundoff;
  if (auto it = table.find(name); it != table.end()) return it->second;
  DType t;
  if (!parse_dtype_name(name, t) || !dtype_is_float(t)) return 0;
  auto it = table.find(std::string(dtype_name(t)));
  return it == table.end() ? 0 : it->second;
}

std::string float32_compute_precision(const std::map<std::string, std::string>& meta) {
  const NoiseParameters& p = noise_parameters();
  std::string coarsest = "float32";
  auto widen = [&](const std::string& precision) {
    if (unit_roundoff(precision) > unit_roundoff(coarsest)) coarsest = precision;
  };
  if (auto it = meta.find("float32_matmul_precision"); it != meta.end()) {
    if (it->second == "high") widen(p.matmul_high_f32);
    if (it->second == "medium") widen(p.matmul_medium_f32);
  }
  std::string device;
  if (auto it = meta.find("device"); it != meta.end()) device = it->second;
  // TF32 (CUDA) or HF32 (NPU) where a recorded flag allows it, or the device's default where none is recorded.
  auto device_flags = [&](std::initializer_list<const char*> keys, const std::string& fallback) {
    bool on = false, recorded = false;
    for (const char* key : keys)
      if (bool v = false; flag(meta, key, v)) {
        recorded = true;
        on = on || v;
      }
    if (on) widen("tf32");
    if (!recorded) widen(fallback);
  };
  if (device.starts_with("cuda")) device_flags({"cuda_matmul_allow_tf32", "cudnn_allow_tf32"}, p.cuda_default_f32);
  if (device.starts_with("npu")) device_flags({"npu_matmul_allow_hf32", "npu_conv_allow_hf32"}, p.npu_default_f32);
  return coarsest;
}

}  // namespace banjia::compare
