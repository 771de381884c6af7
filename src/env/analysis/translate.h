// Rewriting CUDA/NCCL environment variables to their Ascend equivalents in shell scripts, .env files and
// Dockerfiles. Shared by `banjia env translate` and `banjia migrate` (for .sh files). Only pairs in
// data/env/cuda.toml marked automatic are renamed; everything else is left byte for byte and reported.
#pragma once
#include <map>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "env/readers/env_file.h"
#include "env/model/knowledge_base.h"

namespace banjia {

struct ShellEdit {
  size_t begin = 0, end = 0;  // byte range in the original text
  std::string before, after;
  int line = 0, column = 0;   // 1-based; column in code points
  std::string rule, source;
};

struct TranslateOptions {
  // TorchNPU release the result must run on (e.g. "7.3.0"); allocator options newer than it are
  // dropped with a note. Empty: the newest release the knowledge base knows.
  std::string target_torch_npu;
};

// Translates a shell script. `edits` receives every change (in text order); `notes` (when given) receives
// findings about what was left alone (no documented equivalent, unresolved values, dropped allocator
// options). Idempotent: translating the result again changes nothing.
std::string translate_shell_env(std::string_view text, std::vector<ShellEdit>& edits,
                                std::vector<Finding>* notes = nullptr, const TranslateOptions& options = {});

// The same for any environment file kind (shell, .env, Dockerfile).
std::string translate_env_file(std::string_view text, env::EnvFileKind kind, std::vector<ShellEdit>& edits,
                               std::vector<Finding>* notes = nullptr, const TranslateOptions& options = {});

// True when a CUDA_VISIBLE_DEVICES value makes no GPU visible (the "force CPU" idiom: "-1", "", "none"):
// CUDA, like torch's own parser, reads device IDs up to the first invalid or negative one, so a first
// entry without a non-negative number leaves nothing (pytorch/pytorch : torch/cuda/__init__.py,
// _parse_visible_devices). UUID lists ("GPU-...", "MIG-...") name devices. Such a value is not
// translated: the Ascend device list takes only IDs (see translate_env_file).
bool hides_every_cuda_device(std::string_view value);

// The Ascend variable of `pair` when it is a device list and `value`, set on the CUDA one, hides every
// GPU (hides_every_cuda_device): the value has no Ascend spelling. nullptr otherwise. Translate and
// check both decide with this, so that check never offers a rename translate would not make.
const env::VarInfo* ascend_list_hidden_by(const env::CudaPair& pair, std::string_view value);
// What to do instead, for the findings about such a value.
inline constexpr std::string_view kForceCpuAdvice =
    "to run on the CPU on an Ascend machine, select the CPU device in the program (device='cpu')";

// What translation says about a setting it did not simply rename (the rule ids of data/env/rules.toml).
struct EnvNote {
  std::string rule;
  Severity severity = Severity::warning;
  std::string message, suggestion, source;
};
// A CUDA variable's value as its Ascend counterpart takes it: PYTORCH_CUDA_ALLOC_CONF without the
// options torch_npu does not know (or that are newer than the target), a mapped value (NCCL_DETERMINISTIC
// 1 -> true). `value`: the new value, absent when it stays; `notes`: what was dropped or left. The one
// decision `env translate`, shell rewriting and Python code (os.environ[...] = ...) share.
struct ValueTranslation {
  std::optional<std::string> value;
  std::vector<EnvNote> notes;
};
// `unresolved`: the value holds an expansion that is not known here.
ValueTranslation translate_cuda_value(const env::CudaPair& pair, std::string_view value, bool unresolved,
                                      const TranslateOptions& options = {});

// A CUDA value as the Ascend variable would spell it (the pair's value map: NCCL_DETERMINISTIC 1 -> true).
std::string cuda_value_in_ascend_terms(const env::CudaPair& pair, std::string_view value);

// The contradictions of one file between CUDA settings and the file's own settings of their Ascend
// counterparts, indexed once so that asking stays cheap on files with many assignments.
class AscendConflicts {
 public:
  explicit AscendConflicts(const env::ParsedEnvFile& parsed);
  // The file's first file-wide setting of pair.ascend that `cuda`, a file-wide setting of pair.name
  // (other than one hiding every device), would contradict once renamed: their values differ.
  const env::Assignment* contradicting(const env::Assignment& cuda, const env::CudaPair& pair) const;
  // The same for the first setting of pair.name that contradicts one; nullptr when none does.
  const env::Assignment* of_pair(const env::CudaPair& pair) const;

 private:
  // Per Ascend name: its file-wide settings, the first of each distinct value, in file order.
  std::map<std::string, std::vector<const env::Assignment*>, std::less<>> ascend_values_;
  std::set<std::pair<std::string_view, std::string_view>> seen_values_;  // (name, value) already in ascend_values_
  std::map<std::string, const env::Assignment*, std::less<>> by_cuda_name_;
};

// What translation leaves untranslated, for callers that check its result (the env_parse fuzz
// harness): a name the file sets only to values that hide every device, or whose Ascend counterpart
// the file sets to another value (AscendConflicts), keeps its CUDA spelling in all its
// assignments and $references; an assignment that hides every device keeps it too.
std::vector<std::string> names_kept_untranslated(const env::ParsedEnvFile& parsed);
std::vector<std::string> names_kept_untranslated(const env::ParsedEnvFile& parsed, const AscendConflicts& conflicts);
bool keeps_cuda_name(const env::Assignment& a, const std::vector<std::string>& kept_names);

// The Ascend variable torch_npu reads instead of a CUDA one (CUDA_VISIBLE_DEVICES ->
// ASCEND_RT_VISIBLE_DEVICES), for rewriting Python code such as os.environ["CUDA_VISIBLE_DEVICES"].
std::optional<std::string> ascend_equivalent(std::string_view cuda_name);

}  // namespace banjia
