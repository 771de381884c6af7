// Which aten ops have an NPU kernel, per torch_npu branch (data/ops/torch_npu-*.toml, extracted from
// torch_npu's and op-plugin's sources), and the status `trace ops` gives each op call of a trace.
// docs/ops.md states the rules; here they are mechanisms over the data.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::trace {

enum class OpStatus {
  npu_kernel,         // an overload of the op has an NPU kernel
  inside_npu_kernel,  // called inside an op with an NPU kernel: on an NPU that kernel does its work
  dtype_unsupported,  // has a kernel, but an input dtype is outside the documented limits
  fallback,           // no NPU kernel: runs on the CPU (or AI CPU) through torch_npu's fallback
  no_npu_kernel,      // no NPU kernel and no fallback: fails on an NPU
  unknown,            // not in the data and calls other aten ops: may decompose into them
};
std::string_view status_name(OpStatus s);
// True for the statuses the headline counts as "will not run as NPU kernels".
bool off_npu(OpStatus s);

struct OpsDataSet {
  std::string version;     // "master", "v2.1.0" (from the file name torch_npu-VERSION.toml)
  std::string torch_line;  // [meta] torch_line
  std::string source;      // [meta] source
  std::set<std::string, std::less<>> kernel_overloads;  // [aten] op_api/acl_op/op_api_and_acl_op + [native] supported
  std::set<std::string, std::less<>> ai_cpu_ops;        // [fallback] ai_cpu_marked_ops
  bool dense_fallback_to_cpu = true;                    // [fallback] unlisted_dense_ops_run_on_cpu
  // [docs.dtype_limits]: API name -> the dtypes its first tensor argument ("input" or "self") may have.
  std::map<std::string, std::vector<std::string>, std::less<>> input_dtype_limits;
};

// The versions in data/ops, oldest first by name order; "master" last (it is the newest branch).
std::vector<std::string> ops_data_versions();
// The data set of `version` (empty: the newest); nullopt for a version data/ops does not hold.
std::optional<OpsDataSet> load_ops_data(std::string_view version);
// Parses one data/ops file's text (tests feed their own).
OpsDataSet parse_ops_data(std::string_view toml_text, const std::string& file, std::string version);

// How a trace's op name meets the data's overload names: "aten::add_" -> base "add_", which matches
// "add_", "add_.Tensor", "add_.Scalar" (the part before the first '.'), never "add.*".
std::string_view aten_base_name(std::string_view trace_name);  // "" when not "aten::..."
std::vector<std::string> matching_overloads(const OpsDataSet& d, std::string_view base);

// The dtype names of data/ops ("fp32", "bf16", "complex64", ...) for one Kineto "Input type" entry;
// "" for non-tensor entries ("Scalar", "ScalarList", "", lists).
std::string_view dtype_of_kineto_type(std::string_view kineto_type);
// The dtypes of a raw "Input type" JSON array, in argument order, non-tensor entries as "".
std::vector<std::string> dtypes_of_input_types(std::string_view raw_json_array);

struct OpVerdict {
  OpStatus status = OpStatus::unknown;
  std::vector<std::string> overloads;  // the data's overloads matching the name (with a kernel)
  std::string limit_api;               // the documented API whose dtype limit was applied
  std::vector<std::string> limit_dtypes;  // the dtypes it allows
};

// The status of one call of `base` that is not inside an op with an NPU kernel. `calls_aten` says
// whether the call ran other aten ops in the trace; `first_dtype` is its first tensor input's dtype
// ("" when unknown).
OpVerdict judge_op(const OpsDataSet& d, std::string_view base, bool calls_aten, std::string_view first_dtype);

}  // namespace banjia::trace
