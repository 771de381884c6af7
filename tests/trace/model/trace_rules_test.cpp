// The facts behind `banjia trace` (data/trace/*.toml): every entry has a source, the loader
// understands them, and the advisor rules and the advisors in the code match one to one.
#include "trace/model/trace_rules.h"

#include <gtest/gtest.h>

#include "common/embedded_data.h"
#include "trace/analysis/advisor_registry.h"

using namespace banjia::trace;

TEST(TraceRules, EveryEntryHasASource) {
  const TraceRules& r = trace_rules();
  ASSERT_FALSE(r.classes.empty());
  for (auto& c : r.classes) EXPECT_FALSE(c.source.empty()) << c.name;
  for (auto* s : {&r.sync, &r.cast, &r.compile, &r.step}) EXPECT_FALSE(s->source.empty());
  ASSERT_GE(r.advisors.size(), 8u);
  for (auto& a : r.advisors) {
    EXPECT_FALSE(a.source.empty()) << a.id;
    EXPECT_FALSE(a.advice.empty()) << a.id;
  }
}

TEST(TraceRules, DataFilesAreEmbedded) {
  EXPECT_EQ(banjia::embedded_under("data/trace/").size(), 3u);
}

TEST(TraceRules, MissingSourceIsRejected) {
  EXPECT_THROW(parse_trace_rules("[[class]]\nname = \"gemm\"\ncontains = [\"gemm\"]\n",
                                 "[sync]\nsource=\"s\"\n[cast]\nsource=\"s\"\n[compile]\nsource=\"s\"\n[step]\nsource=\"s\"\n",
                                 ""),
               std::runtime_error);
}

TEST(TraceRules, EveryRuleHasAnAdvisorAndEveryAdvisorARule) {
  const auto bound = bind_advisors(trace_rules());
  ASSERT_EQ(bound.size(), trace_rules().advisors.size());
  ASSERT_EQ(bound.size(), advisor_units().size());
  for (const auto& b : bound) EXPECT_EQ(b.unit->id, b.rule->id);
}

// The built-in rules with the last one dropped, or with one the code lacks added.
std::string advisors_toml_edited(bool drop_last, bool add_unknown) {
  std::string text(*banjia::embedded_file("data/trace/advisors.toml"));
  if (drop_last) text = text.substr(0, text.rfind("[[rule]]"));
  if (add_unknown)
    text += "\n[[rule]]\nid = \"no-such-advisor\"\nneeds = []\nseverity = \"info\"\nmessage = \"m\"\nadvice = \"a\"\n"
            "source = \"s\"\n[rule.example]\ntrace = \"t\"\nevidence = \"e\"\n";
  return text;
}

TraceRules rules_with_advisors(const std::string& advisors_toml) {
  auto get = [](std::string_view p) { return *banjia::embedded_file(p); };
  return parse_trace_rules(get("data/trace/kernel_classes.toml"), get("data/trace/events.toml"), advisors_toml);
}

TEST(TraceRules, ARuleWithoutAnAdvisorIsALoadError) {
  auto rules = rules_with_advisors(advisors_toml_edited(false, true));
  try {
    bind_advisors(rules);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rule 'no-such-advisor' of data/trace/advisors.toml has no advisor in the code"),
              std::string::npos) << e.what();
  }
}

TEST(TraceRules, AnAdvisorWithoutARuleIsALoadError) {
  auto rules = rules_with_advisors(advisors_toml_edited(true, false));
  const std::string dropped = trace_rules().advisors.back().id;
  try {
    bind_advisors(rules);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("advisor '" + dropped + "' has no [[rule]]"), std::string::npos) << e.what();
  }
}

TEST(TraceRules, ARuleWithoutAnExampleIsRejected) {
  std::string text = advisors_toml_edited(false, false);
  text = text.substr(0, text.rfind("[rule.example]"));
  EXPECT_THROW(rules_with_advisors(text), std::runtime_error);
}

TEST(TraceRules, Thresholds) {
  EXPECT_EQ(trace_rules().advisor("recompilation")->param("min_compiles"), 20);  // mstt MAX_OP_COMPILE_NUM
  EXPECT_EQ(trace_rules().advisor("aicpu-fallback")->param("min_task_us"), 20);  // mstt _MIN_TASK_DURATION
}

TEST(TraceRules, ClassifiesKernelNames) {
  const TraceRules& r = trace_rules();
  EXPECT_EQ(r.classify_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "communication");
  EXPECT_EQ(r.classify_kernel("Memcpy HtoD (Pageable -> Device)"), "memory");
  EXPECT_EQ(r.classify_kernel("sm80_xmma_fprop_implicit_gemm_indexed_f32f32"), "conv");
  EXPECT_EQ(r.classify_kernel("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>"), "gemm");
  EXPECT_EQ(r.classify_kernel("pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits>"), "attention");
  EXPECT_EQ(r.classify_kernel("aclnnMm_MatMulCommon_MatMulV2"), "gemm");
  EXPECT_EQ(r.classify_kernel("void at::native::reduce_kernel<512, 1>"), "reduction");
  EXPECT_EQ(r.classify_kernel("void at::native::vectorized_elementwise_kernel<4>"), "elementwise");
  EXPECT_EQ(r.classify_kernel("hcom_allReduce__586_0_1"), "communication");
  EXPECT_EQ(r.classify_kernel("ZerosLike"), "other");
}

TEST(TraceRules, SyncAndStepNames) {
  const TraceRules& r = trace_rules();
  EXPECT_TRUE(r.sync.matches("cudaStreamSynchronize"));
  EXPECT_TRUE(r.sync.matches("aten::_local_scalar_dense"));
  EXPECT_FALSE(r.sync.matches("cudaLaunchKernel"));
  EXPECT_TRUE(r.step.matches("ProfilerStep#12"));
  EXPECT_TRUE(r.compile.matches("AscendCL@aclopCompileAndExecute"));
}
