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

namespace banjia::ops {

enum class OpStatus {
  npu_kernel,         // an overload of the op has an NPU kernel
  inside_npu_kernel,  // called inside an op with an NPU kernel: on an NPU that kernel does its work
  composite,          // no NPU kernel, but torch implements it for every backend from other ops
  dtype_unsupported,  // has a kernel, but an input dtype is outside the documented limits
  fallback,           // no NPU kernel: runs on the CPU (or AI CPU) through torch_npu's fallback
  no_npu_kernel,      // no NPU kernel and no fallback: fails on an NPU
  unknown,            // no NPU kernel, but the call may not happen on an NPU (see judge_op)
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
  // data/dispatch/torch-*.toml [composite]: overloads torch implements once for every backend.
  std::set<std::string, std::less<>> composite_overloads;
  std::string composite_source;
  // [docs.dtype_limits]: API name -> the dtypes its first tensor argument ("input" or "self") may have.
  std::map<std::string, std::vector<std::string>, std::less<>> input_dtype_limits;
};

// The versions in data/ops, oldest first by name order; "master" last (it is the newest branch).
std::vector<std::string> ops_data_versions();
// The data set of `version` (empty: the newest); nullopt for a version data/ops does not hold.
std::optional<OpsDataSet> load_ops_data(std::string_view version);
// Parses one data/ops file's text (tests feed their own).
OpsDataSet parse_ops_data(std::string_view toml_text, const std::string& file, std::string version);
// Adds the composite overloads of one data/dispatch file's text.
void add_composite_ops(OpsDataSet& d, std::string_view toml_text, const std::string& file);

// How a trace's op name meets the data's overload names: "aten::add_" -> base "add_", which matches
// "add_", "add_.Tensor", "add_.Scalar" (the part before the first '.'), never "add.*".
std::string_view aten_base_name(std::string_view trace_name);  // "" when not "aten::..."
std::vector<std::string> matching_overloads(const OpsDataSet& d, std::string_view base);
// The same rule over any sorted set of overload names.
std::vector<std::string> matching_overloads(const std::set<std::string, std::less<>>& names, std::string_view base);

// True for out= overloads ("add.out", "sum.IntList_out").
bool is_out_overload(std::string_view overload);
// Whether torch implements a non-out overload of `base` for every backend.
bool has_composite_functional_overload(const OpsDataSet& d, std::string_view base);

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

// The status of one call of `base` that is not inside an op with an NPU kernel or a fallback.
// `path_may_differ`: the call may not happen on an NPU at all, because its nearest enclosing aten op
// is `composite` (such a caller may take another path there: batch_norm calls cudnn_batch_norm only
// on CUDA) or `unknown` (it may not run there), or it is the backward of an op none of whose calls in the trace would run on its own on an
// NPU (each inside another op's kernel or fallback, or unknown). `first_dtype`: its first tensor input's
// dtype ("" when unknown).
OpVerdict judge_op(const OpsDataSet& d, std::string_view base, bool path_may_differ, std::string_view first_dtype);
// "X" for "X_backward" (the op whose autograd node calls it), else "".
std::string_view forward_of_backward(std::string_view base);

// Whether a call with this status does its callees' work itself on an NPU (a kernel) or on the CPU
// (the fallback runs the whole op there), so that its callees inherit its status.
bool owns_callees(OpStatus s);

}  // namespace banjia::ops
