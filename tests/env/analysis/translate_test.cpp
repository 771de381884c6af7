// CUDA/NCCL -> Ascend rewriting: exact edits, byte-for-byte preservation elsewhere, idempotence.
#include <gtest/gtest.h>

#include <algorithm>

#include "env/analysis/translate.h"

namespace banjia {
namespace {

std::string translate(std::string_view text, std::vector<ShellEdit>* edits_out = nullptr,
                      std::vector<Finding>* notes = nullptr) {
  std::vector<ShellEdit> edits;
  std::string out = translate_shell_env(text, edits, notes);
  if (edits_out) *edits_out = edits;
  return out;
}

TEST(EnvTranslate, RenamesDocumentedPairsOnly) {
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  std::string out = translate(
      "export CUDA_VISIBLE_DEVICES=0,1  # gpus\n"
      "CUDA_LAUNCH_BLOCKING=1 python t.py\n"
      "export NCCL_SOCKET_IFNAME=eth0 TORCH_NCCL_BLOCKING_WAIT=1\n",
      &edits, &notes);
  EXPECT_EQ(out,
            "export ASCEND_RT_VISIBLE_DEVICES=0,1  # gpus\n"
            "ASCEND_LAUNCH_BLOCKING=1 python t.py\n"
            "export NCCL_SOCKET_IFNAME=eth0 TORCH_HCCL_BLOCKING_WAIT=1\n");
  ASSERT_EQ(edits.size(), 3u);
  EXPECT_EQ(edits[0].before, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(edits[0].begin, 7u);
  EXPECT_EQ(edits[0].line, 1);
  EXPECT_EQ(edits[0].column, 8);
  EXPECT_EQ(edits[1].line, 2);
  EXPECT_EQ(edits[1].column, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rule, "env-cuda-no-equivalent");
  EXPECT_EQ(notes[0].line, 3);
}

TEST(EnvTranslate, AllocConfDropsOptionsTorchNpuRejects) {
  std::vector<Finding> notes;
  std::string out = translate(
      "export PYTORCH_CUDA_ALLOC_CONF=\"backend:cudaMallocAsync,expandable_segments:True\"\n"
      "export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,roundup_power2_divisions:[256:1,>:8]\n",
      nullptr, &notes);
  EXPECT_EQ(out,
            "export PYTORCH_NPU_ALLOC_CONF=\"expandable_segments:True\"\n"
            "export PYTORCH_NPU_ALLOC_CONF=max_split_size_mb:128,roundup_power2_divisions:[256:1,>:8]\n");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rule, "env-alloc-unknown-option");
  EXPECT_NE(notes[0].message.find("backend:cudaMallocAsync"), std::string::npos);
}

TEST(EnvTranslate, ReferencesAndUnsetFollowTheRename) {
  std::string out = translate("echo \"${CUDA_VISIBLE_DEVICES:-0}\" $CUDA_VISIBLE_DEVICES\nunset CUDA_VISIBLE_DEVICES\n");
  EXPECT_EQ(out, "echo \"${ASCEND_RT_VISIBLE_DEVICES:-0}\" $ASCEND_RT_VISIBLE_DEVICES\nunset ASCEND_RT_VISIBLE_DEVICES\n");
}

// The shell removes a line continuation before it reads a name (POSIX 2.2.1), so each of these
// references PYTORCH_CUDA_ALLOC_CONF; only its first piece was read as the name, and nothing was
// renamed. A renamed name is joined on one line; a continuation before or after it stays.
TEST(EnvTranslate, ReferenceSplitByALineContinuationIsRenamedWhole) {
  EXPECT_EQ(translate("echo $PYTORCH_CUDA_\\\nALLOC_CONF \"${PYTORCH_\\\r\nCUDA_ALLOC_CONF:-x}\"\n"),
            "echo $PYTORCH_NPU_ALLOC_CONF \"${PYTORCH_NPU_ALLOC_CONF:-x}\"\n");
  EXPECT_EQ(translate("echo \"$\\\nPYTORCH_CUDA_ALLOC_CONF\" $(echo $PYTORCH_CUDA\\\n_ALLOC_CONF)\n"),
            "echo \"$\\\nPYTORCH_NPU_ALLOC_CONF\" $(echo $PYTORCH_NPU_ALLOC_CONF)\n");
  EXPECT_EQ(translate("echo $PYTORCH_CUDA_ALLOC_CONF\\\n  done\n"), "echo $PYTORCH_NPU_ALLOC_CONF\\\n  done\n");
  // Not a name across the continuation: `$PYTORCH_CUDA_` then a word on the next line.
  EXPECT_EQ(translate("echo $CUDA_VISIBLE_\\\n DEVICES\n"), "echo $CUDA_VISIBLE_\\\n DEVICES\n");
}

// In a Dockerfile a comment line inside the split is dropped by Docker; renaming the reference's
// bytes would delete it, so the reference is reported and left alone.
TEST(EnvTranslate, DockerfileReferenceSplitAroundACommentLineIsLeftAlone) {
  const std::string_view text = "RUN echo $PYTORCH_CUDA_\\\n# the allocator\nALLOC_CONF\n";
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  EXPECT_EQ(translate_env_file(text, env::EnvFileKind::dockerfile, edits, &notes), text);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rule, "env-parse-error");
  EXPECT_NE(notes[0].message.find("split around a comment line"), std::string::npos);
  EXPECT_EQ(translate_env_file("RUN echo $PYTORCH_CUDA_\\\nALLOC_CONF\n", env::EnvFileKind::dockerfile, edits),
            "RUN echo $PYTORCH_NPU_ALLOC_CONF\n");
}

// A CUDA name banjia does not rewrite (not an assignment, unset or $ reference) is reported where it
// is, unless it sits in a comment, inside a longer name, or in a here-document (noted on its own).
std::vector<std::pair<int, int>> left_alone(std::string_view text, env::EnvFileKind kind) {
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  translate_env_file(text, kind, edits, &notes);
  std::vector<std::pair<int, int>> at;
  for (const auto& n : notes)
    if (n.message.find("left alone here") != std::string::npos) at.emplace_back(n.line, n.column);
  std::sort(at.begin(), at.end());
  return at;
}

TEST(EnvTranslate, NamesItDoesNotRewriteAreReported) {
  const std::string_view shell =
      "# CUDA_VISIBLE_DEVICES in a comment\n"
      "printenv CUDA_VISIBLE_DEVICES\n"
      "[[ -v CUDA_LAUNCH_BLOCKING ]] && echo set\n"
      "sudo -E CUDA_VISIBLE_DEVICES=2 python b.py\n"
      "echo MY_CUDA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES_X\n"
      "export CUDA_VISIBLE_DEVICES=0  # CUDA_VISIBLE_DEVICES again\n"
      "cat <<EOF\nCUDA_VISIBLE_DEVICES\nEOF\n";
  EXPECT_EQ(left_alone(shell, env::EnvFileKind::shell),
            (std::vector<std::pair<int, int>>{{2, 10}, {3, 7}, {4, 9}}));
  const std::string_view dotenv = "A=\"${CUDA_VISIBLE_DEVICES}\" # CUDA_LAUNCH_BLOCKING\n# CUDA_LAUNCH_BLOCKING\n"
                                  "B=x # CUDA_LAUNCH_BLOCKING\n";
  EXPECT_EQ(left_alone(dotenv, env::EnvFileKind::dotenv), (std::vector<std::pair<int, int>>{{1, 6}}));
  const std::string_view docker = "# CUDA_VISIBLE_DEVICES\nARG CUDA_VISIBLE_DEVICES=0\nENV A=1 \\\n"
                                  "# CUDA_LAUNCH_BLOCKING\n  B=2\nRUN echo 1 # CUDA_LAUNCH_BLOCKING\n";
  EXPECT_EQ(left_alone(docker, env::EnvFileKind::dockerfile), (std::vector<std::pair<int, int>>{{2, 5}}));
}

TEST(EnvTranslate, ValueMapAndManualPairs) {
  std::vector<Finding> notes;
  std::string out = translate("export NCCL_DETERMINISTIC=1 NCCL_ALGO=Ring\n", nullptr, &notes);
  EXPECT_EQ(out, "export HCCL_DETERMINISTIC=true NCCL_ALGO=Ring\n");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].message.find("HCCL_ALGO"), std::string::npos);
}

TEST(EnvTranslate, IsIdempotentAndPreservesEverythingElse) {
  std::string text =
      "#!/bin/bash\n"
      "# CUDA_VISIBLE_DEVICES in a comment stays\n"
      "set -euo pipefail\n"
      "export  CUDA_VISIBLE_DEVICES='0,1'\t# tab\n"
      "cat <<EOF\nexport CUDA_VISIBLE_DEVICES=7\nEOF\n"
      "python train.py \\\n  --devices \"$CUDA_VISIBLE_DEVICES\"\n";
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  std::string once = translate(text, &edits, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].line, 6);  // the here-document body is reported, not rewritten
  std::string twice = translate(once);
  EXPECT_EQ(once, twice);
  // Undo the edits on the result: the original comes back byte for byte.
  std::string rebuilt = once;
  for (const auto& e : edits) {
    size_t at = e.begin;  // earlier edits are already undone, so offsets are the original ones
    EXPECT_EQ(rebuilt.substr(at, e.after.size()), e.after);
    rebuilt.replace(at, e.after.size(), e.before);
  }
  EXPECT_EQ(rebuilt, text);
  EXPECT_NE(once.find("# CUDA_VISIBLE_DEVICES in a comment stays"), std::string::npos);
  EXPECT_NE(once.find("export CUDA_VISIBLE_DEVICES=7"), std::string::npos);  // here-document body untouched
  EXPECT_EQ(edits.size(), 2u);
}

TEST(EnvTranslate, NothingToDoLeavesTextIdentical) {
  std::vector<ShellEdit> edits;
  std::string text = "export TASK_QUEUE_ENABLE=2\n";
  EXPECT_EQ(translate_shell_env(text, edits), text);
  EXPECT_TRUE(edits.empty());
}

TEST(EnvTranslate, DockerfileAndDotenv) {
  std::vector<ShellEdit> edits;
  EXPECT_EQ(translate_env_file("ENV CUDA_VISIBLE_DEVICES=0 \\\n    CUDA_LAUNCH_BLOCKING=0\n", env::EnvFileKind::dockerfile, edits),
            "ENV ASCEND_RT_VISIBLE_DEVICES=0 \\\n    ASCEND_LAUNCH_BLOCKING=0\n");
  // A comment line inside the continuation does not end the instruction (Docker drops it).
  EXPECT_EQ(translate_env_file("ENV A=1 \\\n# devices\n    CUDA_VISIBLE_DEVICES=0\n", env::EnvFileKind::dockerfile, edits),
            "ENV A=1 \\\n# devices\n    ASCEND_RT_VISIBLE_DEVICES=0\n");
  EXPECT_EQ(translate_env_file("CUDA_VISIBLE_DEVICES=2,3\n", env::EnvFileKind::dotenv, edits),
            "ASCEND_RT_VISIBLE_DEVICES=2,3\n");
}

TEST(EnvTranslate, AscendEquivalentForPythonCode) {
  EXPECT_EQ(ascend_equivalent("CUDA_VISIBLE_DEVICES"), "ASCEND_RT_VISIBLE_DEVICES");
  EXPECT_EQ(ascend_equivalent("PYTORCH_CUDA_ALLOC_CONF"), "PYTORCH_NPU_ALLOC_CONF");
  EXPECT_EQ(ascend_equivalent("NCCL_ALGO"), std::nullopt);  // different syntax: not automatic
  EXPECT_EQ(ascend_equivalent("PATH"), std::nullopt);
}

// The force-CPU idiom: CUDA reads device IDs up to the first invalid or negative one, so "-1" or ""
// hides every GPU (torch's own _parse_visible_devices returns [] for both). The Ascend list takes only
// IDs (banjia env check calls ASCEND_RT_VISIBLE_DEVICES=-1 invalid), so these are reported, not renamed.
TEST(EnvTranslate, HidingEveryGpuIsReportedNotTranslated) {
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  const std::string text =
      "export CUDA_VISIBLE_DEVICES=-1\n"
      "CUDA_VISIBLE_DEVICES= python eval.py\n"
      "export CUDA_VISIBLE_DEVICES=\"\"\n"
      "echo $CUDA_VISIBLE_DEVICES\n";
  EXPECT_EQ(translate(text, &edits, &notes), text);
  EXPECT_TRUE(edits.empty());
  ASSERT_EQ(notes.size(), 3u);
  for (size_t i = 0; i < notes.size(); ++i) {
    EXPECT_EQ(notes[i].rule, "env-cuda-name");
    EXPECT_EQ(notes[i].line, static_cast<int>(i) + 1);
    EXPECT_NE(notes[i].message.find("hides every GPU"), std::string::npos) << notes[i].message;
    EXPECT_NE(notes[i].source.find("envref_07_0028"), std::string::npos);  // the ASCEND_RT_VISIBLE_DEVICES page
  }
}

TEST(EnvTranslate, DeviceListsAreTranslatedBesideAHidingCommand) {
  std::vector<Finding> notes;
  EXPECT_EQ(translate("export CUDA_VISIBLE_DEVICES=0,1\nCUDA_VISIBLE_DEVICES=-1 python cpu_eval.py\n"
                      "echo $CUDA_VISIBLE_DEVICES\n",
                      nullptr, &notes),
            "export ASCEND_RT_VISIBLE_DEVICES=0,1\nCUDA_VISIBLE_DEVICES=-1 python cpu_eval.py\n"
            "echo $ASCEND_RT_VISIBLE_DEVICES\n");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].line, 2);
  std::vector<ShellEdit> edits;
  EXPECT_EQ(translate_env_file("ENV CUDA_VISIBLE_DEVICES=-1\n", env::EnvFileKind::dockerfile, edits),
            "ENV CUDA_VISIBLE_DEVICES=-1\n");
  EXPECT_EQ(translate_env_file("CUDA_VISIBLE_DEVICES=\n", env::EnvFileKind::dotenv, edits), "CUDA_VISIBLE_DEVICES=\n");
  // Idempotent: translating the output again changes nothing more.
  const std::string once = translate("export CUDA_VISIBLE_DEVICES=-1\nexport CUDA_VISIBLE_DEVICES=3\n");
  EXPECT_EQ(once, "export CUDA_VISIBLE_DEVICES=-1\nexport ASCEND_RT_VISIBLE_DEVICES=3\n");
  EXPECT_EQ(translate(once), once);
}

// What a checker of translate's output (the env_parse fuzz harness) may expect to stay CUDA-spelled.
TEST(EnvTranslate, NamesKeptForTheForceCpuIdiom) {
  const auto only_hiding = env::parse_env_file("export CUDA_VISIBLE_DEVICES=-1\nexport CUDA_VISIBLE_DEVICES\n", env::EnvFileKind::shell);
  const auto kept = names_kept_untranslated(only_hiding);
  EXPECT_EQ(kept, std::vector<std::string>{"CUDA_VISIBLE_DEVICES"});
  ASSERT_EQ(only_hiding.assignments.size(), 2u);
  EXPECT_TRUE(keeps_cuda_name(only_hiding.assignments[0], kept));
  EXPECT_TRUE(keeps_cuda_name(only_hiding.assignments[1], kept));
  const auto mixed = env::parse_env_file("CUDA_VISIBLE_DEVICES=-1 a\nexport CUDA_VISIBLE_DEVICES=0\nexport CUDA_VISIBLE_DEVICES\n",
                                         env::EnvFileKind::shell);
  const auto none = names_kept_untranslated(mixed);
  EXPECT_TRUE(none.empty());
  ASSERT_EQ(mixed.assignments.size(), 3u);
  EXPECT_TRUE(keeps_cuda_name(mixed.assignments[0], none));
  EXPECT_FALSE(keeps_cuda_name(mixed.assignments[1], none));
  EXPECT_FALSE(keeps_cuda_name(mixed.assignments[2], none));
}

// Expected values from torch's parser (torch/cuda/__init__.py _parse_visible_devices, run with each
// value): [] for the first group, a non-empty list for the second.
TEST(EnvTranslate, WhichValuesHideEveryGpu) {
  for (const char* v : {"-1", "", " ", "-1,0", "none", "NoDevFiles", "-3", ",0"})
    EXPECT_TRUE(hides_every_cuda_device(v)) << v;
  for (const char* v : {"0", "1,0", "0,-1", "-0", "+1", " 2", "3gpu", "GPU-5e7d", "MIG-0"})
    EXPECT_FALSE(hides_every_cuda_device(v)) << v;
}

// The file sets the Ascend variable itself: a CUDA setting with another value keeps its CUDA name (and
// so do its export, unset and $references), and the conflict is reported where it is.
TEST(EnvTranslate, ACudaSettingContradictingTheFilesAscendOneIsKeptAndReported) {
  const std::string text =
      "export ASCEND_RT_VISIBLE_DEVICES=0,1\n"
      "export CUDA_VISIBLE_DEVICES=2,3\n"
      "echo $CUDA_VISIBLE_DEVICES\n"
      "unset CUDA_VISIBLE_DEVICES\n";
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  EXPECT_EQ(translate(text, &edits, &notes), text);
  EXPECT_TRUE(edits.empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rule, "env-cuda-ascend-conflict");
  EXPECT_EQ(notes[0].severity, Severity::warning);
  EXPECT_EQ(notes[0].line, 2);
  EXPECT_EQ(notes[0].column, 8);
  EXPECT_NE(notes[0].message.find("CUDA_VISIBLE_DEVICES=2,3 was not translated: line 1 sets ASCEND_RT_VISIBLE_DEVICES=0,1"),
            std::string::npos)
      << notes[0].message;
  EXPECT_EQ(translate(translate(text)), text);  // idempotent
}

TEST(EnvTranslate, AgreeingOrCommandScopedSettingsAreStillTranslated) {
  // Same value: renaming gives a duplicate, not a contradiction.
  EXPECT_EQ(translate("export ASCEND_RT_VISIBLE_DEVICES=0,1\nexport CUDA_VISIBLE_DEVICES=0,1\n"),
            "export ASCEND_RT_VISIBLE_DEVICES=0,1\nexport ASCEND_RT_VISIBLE_DEVICES=0,1\n");
  // NCCL_DETERMINISTIC=1 means HCCL_DETERMINISTIC=true (the pair's value map): they agree.
  EXPECT_EQ(translate("export HCCL_DETERMINISTIC=true\nexport NCCL_DETERMINISTIC=1\n"),
            "export HCCL_DETERMINISTIC=true\nexport HCCL_DETERMINISTIC=true\n");
  // One command's environment is not the file's: no contradiction.
  EXPECT_EQ(translate("export ASCEND_RT_VISIBLE_DEVICES=0\nCUDA_VISIBLE_DEVICES=1 python t.py\n"),
            "export ASCEND_RT_VISIBLE_DEVICES=0\nASCEND_RT_VISIBLE_DEVICES=1 python t.py\n");
  std::vector<Finding> notes;
  const std::string disagree = "export HCCL_DETERMINISTIC=false\nexport NCCL_DETERMINISTIC=1\n";
  EXPECT_EQ(translate(disagree, nullptr, &notes), disagree);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rule, "env-cuda-ascend-conflict");
}

}  // namespace
}  // namespace banjia
