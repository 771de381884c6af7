#include "ops/coverage.h"

#include <algorithm>

#include "common/embedded_data.h"
#include "common/toml_document.h"

namespace banjia::ops {

namespace {
constexpr std::string_view kPrefix = "data/ops/torch_npu-";

template <class Node>
void add_strings(std::set<std::string, std::less<>>& out, Node n) {
  if (auto* arr = n.as_array())
    for (auto& e : *arr)
      if (auto s = e.template value<std::string>()) out.insert(*s);
}

std::string version_of(std::string_view path) {
  std::string_view v = path.substr(kPrefix.size());
  return std::string(v.substr(0, v.size() - std::string_view(".toml").size()));
}
}  // namespace

std::string_view status_name(OpStatus s) {
  switch (s) {
    case OpStatus::npu_kernel: return "npu_kernel";
    case OpStatus::inside_npu_kernel: return "inside_npu_kernel";
    case OpStatus::composite: return "composite";
    case OpStatus::dtype_unsupported: return "dtype_unsupported";
    case OpStatus::fallback: return "fallback";
    case OpStatus::no_npu_kernel: return "no_npu_kernel";
    case OpStatus::unknown: return "unknown";
  }
  return "unknown";
}

bool off_npu(OpStatus s) {
  return s == OpStatus::dtype_unsupported || s == OpStatus::fallback || s == OpStatus::no_npu_kernel;
}

std::vector<std::string> ops_data_versions() {
  std::vector<std::string> out;
  for (auto& f : embedded_under(kPrefix))
    if (f.path.ends_with(".toml")) out.push_back(version_of(f.path));
  // "master" is the newest branch; release branches ("v2.1.0") sort by name before it.
  std::stable_partition(out.begin(), out.end(), [](const std::string& v) { return v != "master"; });
  return out;
}

OpsDataSet parse_ops_data(std::string_view toml_text, const std::string& file, std::string version) {
  toml::table root = parse_toml(toml_text, file);
  OpsDataSet d;
  d.version = std::move(version);
  d.torch_line = root["meta"]["torch_line"].value_or(std::string());
  d.source = root["meta"]["source"].value_or(std::string());
  for (const char* k : {"op_api", "acl_op", "op_api_and_acl_op"}) add_strings(d.kernel_overloads, root["aten"][k]);
  add_strings(d.kernel_overloads, root["native"]["supported"]);
  // [aten] sparse_only overloads have no dense kernel: a dense call of them falls back like an op
  // outside the tables, so they are not kernel overloads here.
  add_strings(d.ai_cpu_ops, root["fallback"]["ai_cpu_marked_ops"]);
  d.dense_fallback_to_cpu = root["fallback"]["unlisted_dense_ops_run_on_cpu"].value_or(true);
  if (auto* limits = root["docs"]["dtype_limits"].as_table()) {
    for (auto& [api, args] : *limits) {
      auto* t = args.as_table();
      if (!t) continue;
      for (const char* arg : {"input", "self"}) {
        std::set<std::string, std::less<>> dtypes;
        add_strings(dtypes, (*t)[arg]);
        if (!dtypes.empty()) {
          d.input_dtype_limits[std::string(api.str())] = {dtypes.begin(), dtypes.end()};
          break;
        }
      }
    }
  }
  return d;
}

void add_composite_ops(OpsDataSet& d, std::string_view toml_text, const std::string& file) {
  toml::table root = parse_toml(toml_text, file);
  for (const char* k : {"implicit", "explicit", "explicit_non_functional"})
    add_strings(d.composite_overloads, root["composite"][k]);
  d.composite_source = root["meta"]["source"].value_or(std::string());
}

std::optional<OpsDataSet> load_ops_data(std::string_view version) {
  auto versions = ops_data_versions();
  if (versions.empty()) return std::nullopt;
  std::string v = version.empty() ? versions.back() : std::string(version);
  std::string path = std::string(kPrefix) + v + ".toml";
  auto text = embedded_file(path);
  if (!text) return std::nullopt;
  OpsDataSet d = parse_ops_data(*text, path, v);
  // One torch's dispatcher (the newest in data/dispatch) serves every data set: docs/ops.md.
  auto dispatch = embedded_under("data/dispatch/torch-");
  if (!dispatch.empty()) add_composite_ops(d, dispatch.back().contents, std::string(dispatch.back().path));
  return d;
}

std::string_view aten_base_name(std::string_view trace_name) {
  constexpr std::string_view aten = "aten::";
  if (!trace_name.starts_with(aten)) return {};
  std::string_view base = trace_name.substr(aten.size());
  // A name that already carries an overload ("aten::add.Tensor") keeps only its op name.
  return base.substr(0, base.find('.'));
}

std::vector<std::string> matching_overloads(const OpsDataSet& d, std::string_view base) {
  return matching_overloads(d.kernel_overloads, base);
}

std::vector<std::string> matching_overloads(const std::set<std::string, std::less<>>& names, std::string_view base) {
  std::vector<std::string> out;
  if (base.empty()) return out;
  for (auto it = names.lower_bound(base); it != names.end(); ++it) {
    std::string_view o = *it;
    if (!o.starts_with(base)) break;
    if (o.size() == base.size() || o[base.size()] == '.') out.push_back(*it);
  }
  return out;
}

std::string_view dtype_of_kineto_type(std::string_view k) {
  // The C++ type names Kineto writes (c10::toString of the ScalarType's C++ type).
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {"float", "fp32"},          {"double", "fp64"},          {"c10::Half", "fp16"},
      {"c10::BFloat16", "bf16"},  {"c10::complex<float>", "complex64"}, {"c10::complex<double>", "complex128"},
      {"c10::complex<c10::Half>", "complex32"}, {"long int", "int64"}, {"long", "int64"},
      {"int", "int32"},           {"short int", "int16"},      {"short", "int16"},
      {"signed char", "int8"},    {"unsigned char", "uint8"},  {"bool", "bool"},
      {"unsigned short", "uint16"}, {"c10::Float8_e4m3fn", "fp8_e4m3fn"}, {"c10::Float8_e5m2", "fp8_e5m2"}};
  for (auto& [from, to] : kTypes)
    if (k == from) return to;
  return {};
}

std::vector<std::string> dtypes_of_input_types(std::string_view raw) {
  // A flat JSON array of strings: Kineto writes no escapes in type names.
  std::vector<std::string> out;
  size_t i = raw.find('[');
  if (i == std::string_view::npos) return out;
  while (true) {
    size_t open = raw.find('"', i + 1);
    if (open == std::string_view::npos) break;
    size_t close = raw.find('"', open + 1);
    if (close == std::string_view::npos) break;
    out.emplace_back(dtype_of_kineto_type(raw.substr(open + 1, close - open - 1)));
    i = close;
  }
  return out;
}

bool is_out_overload(std::string_view overload) {
  size_t dot = overload.find('.');
  return dot != std::string_view::npos && overload.substr(dot + 1).ends_with("out");
}

bool has_composite_functional_overload(const OpsDataSet& d, std::string_view base) {
  // torch generates a composite `.out` overload for many backend-specific ops (cudnn_*.out): it says
  // nothing of the functional form a trace records.
  for (auto& o : matching_overloads(d.composite_overloads, base))
    if (!is_out_overload(o)) return true;
  return false;
}

bool owns_callees(OpStatus s) {
  return s == OpStatus::npu_kernel || s == OpStatus::dtype_unsupported || s == OpStatus::fallback ||
         s == OpStatus::no_npu_kernel;
}

std::string_view forward_of_backward(std::string_view base) {
  constexpr std::string_view suffix = "_backward";
  return base.ends_with(suffix) ? base.substr(0, base.size() - suffix.size()) : std::string_view();
}

OpVerdict judge_op(const OpsDataSet& d, std::string_view base, bool path_may_differ, std::string_view first_dtype) {
  OpVerdict v;
  v.overloads = matching_overloads(d, base);
  for (auto& o : d.ai_cpu_ops)
    if (o == base || (o.starts_with(base) && o.size() > base.size() && o[base.size()] == '.')) {
      v.status = OpStatus::fallback;
      return v;
    }
  if (v.overloads.empty()) {
    if (has_composite_functional_overload(d, base)) v.status = OpStatus::composite;
    else if (path_may_differ) v.status = OpStatus::unknown;
    else v.status = d.dense_fallback_to_cpu ? OpStatus::fallback : OpStatus::no_npu_kernel;
    return v;
  }
  v.status = OpStatus::npu_kernel;
  if (first_dtype.empty()) return v;
  std::string api(base);
  while (api.size() > 1 && api.back() == '_') api.pop_back();  // in-place form: the same limits
  for (const char* prefix : {"torch.", "torch.nn.functional."}) {
    auto it = d.input_dtype_limits.find(prefix + api);
    if (it == d.input_dtype_limits.end()) continue;
    v.limit_api = it->first;
    v.limit_dtypes = it->second;
    if (std::find(it->second.begin(), it->second.end(), first_dtype) == it->second.end())
      v.status = OpStatus::dtype_unsupported;
    break;
  }
  return v;
}

}  // namespace banjia::ops
