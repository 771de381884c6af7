// `env check` rules on small scripts: every rule of docs/sources/env-vars.md, "7. Checker rules", fires
// where it should and nowhere else.
#include <algorithm>

#include <gtest/gtest.h>

#include "env/analysis/checker.h"

namespace banjia::env {
namespace {

std::vector<Finding> check(std::string_view text, Purpose purpose = Purpose::production) {
  return check_parsed_file("t.sh", parse_env_file(text, EnvFileKind::shell), purpose);
}

std::vector<std::string> rules(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.rule);
  std::sort(out.begin(), out.end());
  return out;
}

const Finding* find(const std::vector<Finding>& fs, std::string_view rule) {
  for (const auto& f : fs)
    if (f.rule == rule) return &f;
  return nullptr;
}

TEST(EnvCheck, ValidProductionSettingsAreQuiet) {
  EXPECT_TRUE(check("export TASK_QUEUE_ENABLE=2 CPU_AFFINITY_CONF=1 ASCEND_GLOBAL_LOG_LEVEL=3\n"
                    "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True HCCL_CONNECT_TIMEOUT=1200\n"
                    "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3 HCCL_DETERMINISTIC=TRUE PATH=/usr/bin\n")
                  .empty());
}

TEST(EnvCheck, StartupFailuresAreErrors) {
  const char* cases[][2] = {{"TASK_QUEUE_ENABLE=3", "env-invalid-value"},
                            {"MULTI_STREAM_MEMORY_REUSE=4", "env-invalid-value"},
                            {"NPU_ASD_ENABLE=7", "env-invalid-value"},
                            {"ASCEND_GLOBAL_LOG_LEVEL=5", "env-invalid-value"},
                            {"TORCH_HCCL_ASYNC_ERROR_HANDLING=4", "env-invalid-value"},
                            {"TORCH_HCCL_DESYNC_DEBUG=2", "env-invalid-value"},
                            {"TORCH_HCCL_ZERO_COPY=2", "env-invalid-value"},
                            {"ACL_DEVICE_SYNC_TIMEOUT=0", "env-invalid-value"},
                            {"HCCL_BUFFSIZE=0", "env-invalid-value"},
                            {"P2P_HCCL_BUFFSIZE=-1", "env-invalid-value"},
                            {"NPU_SHMEM_SYMMETRIC_SIZE=lots", "env-invalid-value"},
                            {"PYTORCH_NPU_ALLOC_CONF=foo:1", "env-alloc-unknown-option"},
                            {"PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,max_split_size_mb:64",
                             "env-alloc-expandable-conflict"},
                            {"PYTORCH_NPU_ALLOC_CONF=garbage_collection_threshold:0.6,expandable_segments:True",
                             "env-alloc-expandable-conflict"},
                            {"PYTORCH_NPU_ALLOC_CONF=page_size:2m", "env-alloc-invalid-value"}};
  for (const auto& c : cases) {
    auto fs = check(std::string("export ") + c[0] + "\n");
    const Finding* f = find(fs, c[1]);
    ASSERT_NE(f, nullptr) << c[0];
    EXPECT_EQ(f->severity, Severity::error) << c[0];
    EXPECT_EQ(f->line, 1);
    EXPECT_EQ(f->column, 8);
    EXPECT_FALSE(f->source.empty());
  }
}

// HCCL reads HCCL_CONNECT_TIMEOUT itself (ParseLinkConnTimeOut): only decimal digits in [120, 7200],
// anything else makes communicator creation fail, which is an error, not a documentation warning.
TEST(EnvCheck, HcclRefusesAConnectTimeoutOutsideDigitsAndItsRange) {
  for (const char* bad : {"abc", "60", "7201", "12x"}) {
    auto fs = check(std::string("export HCCL_CONNECT_TIMEOUT=") + bad + "\n");
    ASSERT_EQ(rules(fs), std::vector<std::string>{"env-invalid-value"}) << bad;
    EXPECT_EQ(fs[0].severity, Severity::error) << bad;
    EXPECT_NE(fs[0].message.find("makes HCCL fail to create a communicator"), std::string::npos) << fs[0].message;
  }
  for (const char* good : {"120", "1200", "7200"}) EXPECT_TRUE(check(std::string("export HCCL_CONNECT_TIMEOUT=") + good + "\n").empty()) << good;
}

TEST(EnvCheck, BothAllocNamesIsAnError) {
  auto fs = check("export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\nexport PYTORCH_ALLOC_CONF=expandable_segments:True\n");
  const Finding* f = find(fs, "env-alloc-both-names");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_EQ(f->line, 2);
}

TEST(EnvCheck, SilentNormalisationIsAWarning) {
  for (const char* c : {"STREAMS_PER_DEVICE=16", "ACL_OP_INIT_MODE=9", "ACL_OP_COMPILER_CACHE_MODE=on",
                        "HCCL_EXEC_TIMEOUT=-5", "HCCL_EVENT_TIMEOUT=-1"}) {
    auto fs = check(std::string("export ") + c + "\n");
    const Finding* f = find(fs, "env-normalised-value");
    ASSERT_NE(f, nullptr) << c;
    EXPECT_EQ(f->severity, Severity::warning) << c;
  }
  auto fs = check("export ASCEND_LAUNCH_BLOCKING=true COMBINED_ENABLE=yes\n");
  EXPECT_EQ(rules(fs), (std::vector<std::string>{"env-strtol-misread", "env-strtol-misread"}));
}

TEST(EnvCheck, CrossVariableRules) {
  EXPECT_NE(find(check("export TORCH_HCCL_ZERO_COPY=1\n"), "env-zero-copy-needs-expandable"), nullptr);
  EXPECT_EQ(find(check("export TORCH_HCCL_ZERO_COPY=1 PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\n"),
                 "env-zero-copy-needs-expandable"),
            nullptr);
  EXPECT_NE(find(check("export HCCL_EXEC_TIMEOUT=1800 HCCL_EVENT_TIMEOUT=1800\n"), "env-event-timeout-order"), nullptr);
  EXPECT_EQ(find(check("export HCCL_EXEC_TIMEOUT=1800 HCCL_EVENT_TIMEOUT=1900\n"), "env-event-timeout-order"), nullptr);
  EXPECT_NE(find(check("export HCCL_EXEC_TIMEOUT=0 HCCL_EVENT_TIMEOUT=1900\n"), "env-event-timeout-order"), nullptr);
  EXPECT_NE(find(check("export TASK_QUEUE_ENABLE=2 ASCEND_LAUNCH_BLOCKING=1\n"), "env-blocking-overrides-task-queue"),
            nullptr);
  EXPECT_NE(find(check("export TASK_QUEUE_ENABLE=0 PER_STREAM_QUEUE=1\n"), "env-needs-task-queue"), nullptr);
  EXPECT_NE(find(check("export TORCH_NPU_LAZY_FUSION=True ASCEND_LAUNCH_BLOCKING=1\n"), "env-needs-task-queue"),
            nullptr);
  EXPECT_NE(find(check("export OOM_SNAPSHOT_PATH=/tmp\n"), "env-oom-path-without-enable"), nullptr);
  EXPECT_EQ(find(check("export OOM_SNAPSHOT_PATH=/tmp OOM_SNAPSHOT_ENABLE=2\n"), "env-oom-path-without-enable"), nullptr);
  EXPECT_NE(find(check("export INF_NAN_MODE_ENABLE=0\n"), "env-inf-nan-needs-force-disable"), nullptr);
  EXPECT_EQ(find(check("export INF_NAN_MODE_ENABLE=0 INF_NAN_MODE_FORCE_DISABLE=1\n"), "env-inf-nan-needs-force-disable"),
            nullptr);
  EXPECT_NE(find(check("export HCCL_INTRA_PCIE_ENABLE=1 HCCL_INTRA_ROCE_ENABLE=1\n"), "env-intra-link-conflict"), nullptr);
}

TEST(EnvCheck, UnsetRemovesAVariableFromCrossRules) {
  EXPECT_EQ(find(check("export TORCH_HCCL_ZERO_COPY=1\nunset TORCH_HCCL_ZERO_COPY\n"), "env-zero-copy-needs-expandable"),
            nullptr);
}

TEST(EnvCheck, DebugSettingsDependOnPurpose) {
  std::string text = "export ASCEND_LAUNCH_BLOCKING=1 ASCEND_GLOBAL_LOG_LEVEL=0 HCCL_DIAGNOSE_ENABLE=1\n";
  auto prod = check(text);
  EXPECT_EQ(std::count_if(prod.begin(), prod.end(), [](const Finding& f) { return f.rule == "env-debug-in-production"; }), 3);
  for (const auto& f : prod) EXPECT_NE(f.rule, "env-advisor") << f.message;  // not repeated by the advisor rule
  auto debug = check(text, Purpose::debug);
  for (const auto& f : debug) EXPECT_EQ(f.severity, Severity::info) << f.rule;
  auto directive = check("# banjia-env: purpose=debug\n" + text);
  EXPECT_EQ(rules(directive), rules(debug));
}

TEST(EnvCheck, NamesThatAreNotVariables) {
  auto fs = check("export TASK_QUEUE_ENABLED=2 task_queue_enable=2 NPU_FOO=1 MM_BMM_ND_ENABLE=1 "
                  "TORCH_NPU_DISABLED_WARNING=1 HCCL_ASYNC_ERROR_HANDLING=1 CUDA_VISIBLE_DEVICES=0 NCCL_DEBUG=INFO "
                  "PTCOPY_ENABLE=1 ACL_DEBUG=1\n");
  EXPECT_EQ(rules(fs), (std::vector<std::string>{"env-cuda-name", "env-cuda-no-equivalent", "env-deprecated",
                                                 "env-deprecated", "env-legacy-name", "env-not-an-env-var",
                                                 "env-set-option-key", "env-unknown-name", "env-unknown-name",
                                                 "env-unknown-name"}));
  EXPECT_EQ(find(fs, "env-unknown-name")->suggestion, "did you mean TASK_QUEUE_ENABLE?");
  EXPECT_EQ(find(fs, "env-cuda-name")->replacement, "ASCEND_RT_VISIBLE_DEVICES");
}

// The force-CPU idiom (CUDA_VISIBLE_DEVICES="-1" or "") has no Ascend spelling: ASCEND_RT_VISIBLE_DEVICES
// takes only device IDs, so "-1" there is a value env check itself reports. The check therefore offers
// the rename exactly where following it yields a valid Ascend setting: the rename is applied by hand
// here and the renamed file is checked again.
TEST(EnvCheck, RenameIsOfferedOnlyWhereTheAscendValueIsValid) {
  for (std::string value : {"-1", "", "0", "0,1", "2,3,5", "none"}) {
    SCOPED_TRACE(value);
    auto fs = check("export CUDA_VISIBLE_DEVICES=\"" + value + "\"\n");
    const Finding* f = find(fs, "env-cuda-name");
    ASSERT_NE(f, nullptr);
    auto renamed = check("export ASCEND_RT_VISIBLE_DEVICES=\"" + value + "\"\n");
    const bool ascend_value_valid = find(renamed, "env-invalid-value") == nullptr &&
                                    find(renamed, "env-normalised-value") == nullptr &&
                                    find(renamed, "env-undocumented-value") == nullptr;
    EXPECT_EQ(f->fix == FixKind::automatic, ascend_value_valid);
    EXPECT_EQ(f->replacement.has_value(), ascend_value_valid);
    if (!ascend_value_valid) {
      EXPECT_NE(f->message.find("hides every GPU"), std::string::npos) << f->message;
    }
  }
}

TEST(EnvCheck, UnresolvedValuesAreSaidNotChecked) {
  auto fs = check("export TASK_QUEUE_ENABLE=${TQ:-9} HCCL_IF_IP=$(hostname -I)\n");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "env-unresolved-value");
  EXPECT_EQ(fs[0].severity, Severity::info);
}

TEST(EnvCheck, ParseProblemsAreFindings) {
  auto fs = check("export A=1\necho 'open\n");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].rule, "env-parse-error");
  EXPECT_EQ(fs[0].line, 2);
}

TEST(EnvCheck, ProcessEnvironment) {
  auto fs = check_environment({"PATH=/usr/bin", "HOME=/root", "TASK_QUEUE_ENABLE=5", "NPU_MEMCHECK=1"},
                              Purpose::production);
  EXPECT_EQ(rules(fs), (std::vector<std::string>{"env-invalid-value", "env-invented-name"}));
  EXPECT_EQ(fs[0].file, "(environment)");
}

TEST(EnvCheck, AdvisorSettingsAreInfo) {
  auto fs = check("export HCCL_ALGO=level0:NA ACLNN_CACHE_LIMIT=100 HOST_CACHE_CAPACITY=0 ASCEND_GLOBAL_LOG_LEVEL=2\n");
  EXPECT_EQ(rules(fs), (std::vector<std::string>{"env-advisor", "env-advisor", "env-advisor", "env-advisor"}));
  for (const auto& f : fs) EXPECT_EQ(f.severity, Severity::info);
}

// A file that sets a CUDA name and its Ascend equivalent to different values: on Ascend only the Ascend
// one is read, and env translate would not rename the CUDA one, so check offers no rename either.
TEST(EnvCheck, CudaAndAscendNamesSetToDifferentValues) {
  auto fs = check("export ASCEND_RT_VISIBLE_DEVICES=0,1\nexport CUDA_VISIBLE_DEVICES=2,3\n");
  const Finding* conflict = find(fs, "env-cuda-ascend-conflict");
  ASSERT_NE(conflict, nullptr);
  EXPECT_EQ(conflict->severity, Severity::warning);
  EXPECT_EQ(conflict->line, 2);
  EXPECT_EQ(conflict->evidence, "CUDA_VISIBLE_DEVICES=2,3 and ASCEND_RT_VISIBLE_DEVICES=0,1 (line 1)");
  const Finding* cuda = find(fs, "env-cuda-name");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->fix, FixKind::manual);
  EXPECT_FALSE(cuda->replacement.has_value());

  EXPECT_EQ(find(check("export ASCEND_RT_VISIBLE_DEVICES=0,1\nexport CUDA_VISIBLE_DEVICES=0,1\n"),
                 "env-cuda-ascend-conflict"), nullptr);
  EXPECT_EQ(find(check("export HCCL_DETERMINISTIC=true\nexport NCCL_DETERMINISTIC=1\n"), "env-cuda-ascend-conflict"),
            nullptr);
  EXPECT_NE(find(check("export HCCL_DETERMINISTIC=false\nexport NCCL_DETERMINISTIC=1\n"), "env-cuda-ascend-conflict"),
            nullptr);
  EXPECT_NE(find(check_environment({"CUDA_VISIBLE_DEVICES=1", "ASCEND_RT_VISIBLE_DEVICES=0"}, Purpose::production),
                 "env-cuda-ascend-conflict"),
            nullptr);
}

}  // namespace
}  // namespace banjia::env
