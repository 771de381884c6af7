// Name/overload matching, dtype names and the status rules of `trace ops` on small hand-made data
// sets and traces (the real data and traces are covered in tests/e2e/test_trace_ops.py).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/errors.h"
#include "ops/coverage.h"
#include "trace/readers/json_trace_reader.h"
#include "trace/analysis/ops_report.h"
#include "trace/report/ops_render.h"

using namespace banjia::trace;
using namespace banjia::ops;
namespace fs = std::filesystem;

namespace {
OpsDataSet small_data() {
  OpsDataSet d;
  d.version = "test";
  d.kernel_overloads = {"add.Tensor", "add.Scalar", "add.out", "add_.Tensor", "addmm", "mm", "empty.memory_format",
                        "softmax.int", "abs", "abs.out"};
  d.composite_overloads = {"linear", "conv2d", "batch_norm", "cudnn_batch_norm_backward.out", "t"};
  d.input_dtype_limits = {{"torch.mm", {"fp16", "fp32"}}, {"torch.abs", {"fp32", "fp64"}}};
  return d;
}

const OpCoverageRow* row(const OpsCoverage& c, std::string_view name, OpStatus s) {
  for (auto& r : c.rows)
    if (r.name == name && r.status == s) return &r;
  return nullptr;
}

fs::path write_temp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("banjia_ops_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p;
}
}  // namespace

TEST(OpsMatching, BaseNameIsThePartAfterAtenBeforeAnyOverload) {
  EXPECT_EQ(aten_base_name("aten::add_"), "add_");
  EXPECT_EQ(aten_base_name("aten::add.Tensor"), "add");
  EXPECT_EQ(aten_base_name("autograd::engine::evaluate_function: MmBackward0"), "");
  EXPECT_EQ(aten_base_name("ProfilerStep#3"), "");
}

TEST(OpsMatching, OverloadsMatchOnTheWholeOpName) {
  OpsDataSet d = small_data();
  EXPECT_EQ(matching_overloads(d, "add"), (std::vector<std::string>{"add.Scalar", "add.Tensor", "add.out"}));
  // The in-place op is another op: add_ never matches add.*, add never matches add_.* or addmm.
  EXPECT_EQ(matching_overloads(d, "add_"), (std::vector<std::string>{"add_.Tensor"}));
  EXPECT_EQ(matching_overloads(d, "addmm"), (std::vector<std::string>{"addmm"}));
  EXPECT_EQ(matching_overloads(d, "empty"), (std::vector<std::string>{"empty.memory_format"}));
  EXPECT_TRUE(matching_overloads(d, "ad").empty());
  EXPECT_TRUE(matching_overloads(d, "").empty());
}

TEST(OpsMatching, OutOverloadsAreTold) {
  EXPECT_TRUE(is_out_overload("add.out"));
  EXPECT_TRUE(is_out_overload("sum.IntList_out"));
  EXPECT_FALSE(is_out_overload("add.Tensor"));
  EXPECT_FALSE(is_out_overload("out"));
  OpsDataSet d = small_data();
  EXPECT_TRUE(has_composite_functional_overload(d, "linear"));
  EXPECT_FALSE(has_composite_functional_overload(d, "cudnn_batch_norm_backward"));  // only its .out
}

TEST(OpsDtypes, KinetoTypeNames) {
  EXPECT_EQ(dtype_of_kineto_type("float"), "fp32");
  EXPECT_EQ(dtype_of_kineto_type("c10::BFloat16"), "bf16");
  EXPECT_EQ(dtype_of_kineto_type("c10::complex<double>"), "complex128");
  EXPECT_EQ(dtype_of_kineto_type("long int"), "int64");
  EXPECT_EQ(dtype_of_kineto_type("Scalar"), "");
  EXPECT_EQ(dtypes_of_input_types(R"(["float", "Scalar", "", "c10::Half"])"),
            (std::vector<std::string>{"fp32", "", "", "fp16"}));
  EXPECT_TRUE(dtypes_of_input_types("[]").empty());
}

TEST(OpsStatus, KernelCompositeFallbackUnknownAndDtype) {
  OpsDataSet d = small_data();
  EXPECT_EQ(judge_op(d, "add", false, "fp32").status, OpStatus::npu_kernel);
  EXPECT_EQ(judge_op(d, "mm", false, "fp32").status, OpStatus::npu_kernel);
  auto mm_bf16 = judge_op(d, "mm", false, "bf16");
  EXPECT_EQ(mm_bf16.status, OpStatus::dtype_unsupported);
  EXPECT_EQ(mm_bf16.limit_api, "torch.mm");
  EXPECT_EQ(judge_op(d, "mm", false, "").status, OpStatus::npu_kernel);  // no dtype, no verdict on it
  EXPECT_EQ(judge_op(d, "add", false, "complex128").status, OpStatus::npu_kernel);  // no documented limit
  EXPECT_EQ(judge_op(d, "linear", false, "fp32").status, OpStatus::composite);
  EXPECT_EQ(judge_op(d, "huber_loss", false, "fp32").status, OpStatus::fallback);
  EXPECT_EQ(judge_op(d, "cudnn_batch_norm", true, "fp32").status, OpStatus::unknown);
  d.dense_fallback_to_cpu = false;
  EXPECT_EQ(judge_op(d, "huber_loss", false, "fp32").status, OpStatus::no_npu_kernel);
  d.ai_cpu_ops = {"mm"};
  EXPECT_EQ(judge_op(d, "mm", false, "fp32").status, OpStatus::fallback);
  EXPECT_TRUE(off_npu(OpStatus::fallback) && off_npu(OpStatus::dtype_unsupported) && off_npu(OpStatus::no_npu_kernel));
  EXPECT_FALSE(off_npu(OpStatus::unknown) || off_npu(OpStatus::composite) || off_npu(OpStatus::inside_npu_kernel));
  EXPECT_EQ(forward_of_backward("cudnn_batch_norm_backward"), "cudnn_batch_norm");
  EXPECT_EQ(forward_of_backward("mm"), "");
}

TEST(OpsStatus, EmbeddedDataSetsLoad) {
  auto versions = ops_data_versions();
  ASSERT_FALSE(versions.empty());
  EXPECT_EQ(versions.back(), "master");
  auto newest = load_ops_data("");
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->version, "master");
  EXPECT_TRUE(newest->kernel_overloads.contains("add.Tensor"));
  EXPECT_TRUE(newest->composite_overloads.contains("linear"));
  EXPECT_FALSE(load_ops_data("0.0"));
}

// A two-step trace: linear (composite) -> addmm (kernel) -> copy_ (inside it); huber_loss (fallback)
// -> mean (on the CPU with it); batch_norm (composite) -> cudnn_batch_norm (unknown) and, on the
// autograd thread, its backward (unknown: the forward does not run on its own); mm on bf16
// (dtype limit); one op outside the steps, which is not counted.
TEST(OpsReport, SelfTimesStatusesAndSteps) {
  auto p = write_temp("ops.json", R"({"traceEvents": [
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":1,"dur":30,"args":{"Input type":["float","float","float"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":2,"dur":20,"args":{"Input type":["float","float","float","Scalar","Scalar"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":3,"dur":5,"args":{"Input type":["float","float",""]}},
    {"ph":"X","cat":"cpu_op","name":"aten::huber_loss","pid":1,"tid":1,"ts":40,"dur":10,"args":{"Input type":["float","float","Scalar","Scalar"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::mean","pid":1,"tid":1,"ts":41,"dur":4,"args":{"Input type":["float",""]}},
    {"ph":"X","cat":"cpu_op","name":"aten::batch_norm","pid":1,"tid":1,"ts":60,"dur":10},
    {"ph":"X","cat":"cpu_op","name":"aten::cudnn_batch_norm","pid":1,"tid":1,"ts":61,"dur":8},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":110,"dur":50,"args":{"Input type":["c10::BFloat16","c10::BFloat16"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::cudnn_batch_norm_backward","pid":1,"tid":2,"ts":170,"dur":6},
    {"ph":"X","cat":"cpu_op","name":"aten::huber_loss","pid":1,"tid":1,"ts":300,"dur":10}
  ]})");
  TraceData t = read_json_trace(p, 0, 1, true);
  fs::remove(p);
  OpsDataSet d = small_data();
  OpsCoverage c = op_coverage(t, d);
  EXPECT_EQ(c.time_basis, "steps");
  EXPECT_EQ(c.steps, 2u);
  EXPECT_EQ(c.step_ns, 200'000);
  EXPECT_TRUE(c.input_types);
  auto* linear = row(c, "aten::linear", OpStatus::composite);
  ASSERT_TRUE(linear);
  EXPECT_EQ(linear->self_ns, 10'000);  // 30 less addmm's 20
  auto* addmm = row(c, "aten::addmm", OpStatus::npu_kernel);
  ASSERT_TRUE(addmm);
  EXPECT_EQ(addmm->self_ns, 15'000);
  auto* copy = row(c, "aten::copy_", OpStatus::inside_npu_kernel);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->inside, (std::set<std::string>{"aten::addmm"}));
  auto* huber = row(c, "aten::huber_loss", OpStatus::fallback);
  ASSERT_TRUE(huber);
  EXPECT_EQ(huber->calls, 1u);  // the call after the last step is not counted
  auto* mean = row(c, "aten::mean", OpStatus::fallback);
  ASSERT_TRUE(mean);
  EXPECT_EQ(mean->own_calls, 0u);
  EXPECT_TRUE(row(c, "aten::cudnn_batch_norm", OpStatus::unknown));
  EXPECT_TRUE(row(c, "aten::cudnn_batch_norm_backward", OpStatus::unknown));
  auto* mm = row(c, "aten::mm", OpStatus::dtype_unsupported);
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->dtypes, (std::set<std::string>{"bf16"}));
  // Off the NPU: huber_loss and mm on their own (mean only inside huber_loss); time: 6 + 4 + 50 us.
  EXPECT_EQ(c.ops_off_npu(), 2u);
  EXPECT_EQ(c.self_ns_off_npu(), 60'000);
  EXPECT_EQ(ops_headline(c), "2 ops (30.0 % of step time) will not run as NPU kernels");
}

TEST(OpsReport, NoAtenOpsIsAnInputError) {
  auto p = write_temp("none.json", R"({"traceEvents": [
    {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":0,"dur":1}]})");
  TraceData t = read_json_trace(p, 0, 1, true);
  fs::remove(p);
  EXPECT_THROW(op_coverage(t, small_data()), banjia::InputError);
}

TEST(OpsReport, InputTypesAreReadOnlyWhenAsked) {
  auto p = write_temp("types.json", R"({"traceEvents": [
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":1,"args":{"Input type":["float","float"]}}]})");
  TraceData plain = read_json_trace(p, 0, 1);
  TraceData typed = read_json_trace(p, 0, 1, true);
  fs::remove(p);
  EXPECT_TRUE(plain.input_type.empty());
  ASSERT_EQ(typed.input_type.size(), 1u);
  EXPECT_EQ(typed.strings.view(typed.input_type[0]), R"(["float","float"])");
}

TEST(OpsReport, InputTypesSurviveTheSplitIntoParts) {
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; i < 50; ++i)
    text += std::string(i ? ",\n" : "") + R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" +
            std::to_string(i * 10) + R"(,"dur":1,"args":{"Input type":[")" + (i % 2 ? "float" : "double") + R"("]}})";
  text += "\n]}\n";
  auto p = write_temp("parts.json", text);
  TraceData whole = read_json_trace(p, 0, 1, true);
  TraceData parts = read_json_trace(p, 256, 2, true);
  fs::remove(p);
  ASSERT_EQ(parts.size(), 50u);
  ASSERT_EQ(parts.input_type.size(), 50u);
  for (size_t i = 0; i < 50; ++i)
    EXPECT_EQ(parts.strings.view(parts.input_type[i]), whole.strings.view(whole.input_type[i]));
}
