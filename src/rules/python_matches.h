// Rule matching on an analysed Python file: what a match is and what every matcher is given. The
// matchers are the kind units of kinds/ (registry.h lists them); match_python runs them all.
// `migrate` applies the `edit` of every automatic match; `scan` reports them all.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rules/python_analysis.h"
#include "rules/python_prefilter.h"
#include "rules/catalog.h"

namespace banjia::rules {

struct TextEdit {
  uint32_t begin, end;  // byte range in PythonAnalysis::text()
  std::string text;     // replacement
};

struct PyMatch {
  const Rule* rule = nullptr;
  uint32_t first_tok = 0, last_tok = 0;  // token indices of the reported span (inclusive)
  std::string message;                   // overrides rule->message when not empty
  std::string source;                    // overrides rule->source when not empty (a fact of data/env)
  std::optional<std::string> replacement;  // overrides rule->replacement where no edit is shown
  std::optional<TextEdit> edit;          // the rewrite, for automatic rules (absent: none needed here)
  // An insertion that closes what `edit` opens ("(" ... ")"), for a rewrite that wraps an expression
  // whose inside other matches edit (an f-string's fields): applied with `edit` or not at all.
  std::optional<TextEdit> closing_edit;
  // Insertions that go with `edit` (a keyword for an argument passed by position that the new
  // function takes by keyword; the shim import split off an import, on a line above it): applied
  // with it or not at all.
  std::vector<TextEdit> inserts;
  bool blocked = false;                  // automatic rule whose rewrite is not safe here: report as manual
  // Why a blocked match stays. Most would fail on an NPU; a CUDA check kept as the NVIDIA path (and
  // the code it selects) is false there and runs nothing (safety/rewrite_safety.h).
  enum class Hold : uint8_t { crash_risk, nvidia_path };
  Hold hold = Hold::crash_risk;
};

}  // namespace banjia::rules
namespace banjia::env {
struct CudaPair;  // env/knowledge_base.h
}  // namespace banjia::env
namespace banjia::rules {

// Resolves environment variable names (filled from the env knowledge base).
struct EnvNameTable {
  // The documented CUDA -> Ascend pair of a variable (data/env/cuda.toml), or nullptr: whether it is
  // renamed (`automatic`), to what, with which note and source, and how its values map.
  std::function<const env::CudaPair*(std::string_view)> pair;
  // Names that look CUDA/NCCL-specific start with one of these (CUDA_, NCCL_, PYTORCH_CUDA_, ...).
  std::vector<std::string> cuda_prefixes;
  bool is_cuda_name(std::string_view name) const;
};

struct TreeContext;  // rules/tree_flow.h

// What every matcher is given: the file, the catalogue, and the analyses several kinds share.
struct MatchContext {
  const PythonAnalysis& analysis;
  const RuleCatalog& rules;
  const TreeContext* tree;   // what the other files of the tree know (nullptr: this file alone)
  const EnvNameTable& env;
};

// Target rewrites (target_rewrites.cpp): the edit, or nullopt with `why` said.
// rename-call at a use of a qualified name (closing: what a whole-call template writes in place of the
// call's ")"); method-to at `.cuda(` whose name is at sig index name_sig
// (index_names: the names the device-index rule knows to hold integer device indices).
std::optional<TextEdit> rename_call_edit(const PythonAnalysis& a, const python::DottedRef& ref, const Rule& r,
                                         std::optional<TextEdit>& closing, std::vector<TextEdit>& inserts, std::string& why);
std::optional<TextEdit> method_to_edit(const PythonAnalysis& a, uint32_t name_sig, const Rule& r,
                                       const std::vector<std::string>& index_names, std::string& why);

// The components of a dotted name: "torch.cuda.amp" -> torch, cuda, amp.
std::vector<std::string_view> split_dots(std::string_view dotted);

// All matchers, in a stable order (by first token, then rule id); duplicate edits removed. `tree`:
// what the other files of the tree know, and where to leave this file's questions (tree_flow.h).
std::vector<PyMatch> match_python(const PythonAnalysis& a, const RuleCatalog& rules, const TreeContext* tree = nullptr);

// The default table, backed by data/env.
const EnvNameTable& builtin_env_names();

}  // namespace banjia::rules
