// Rule matching on an analysed Python file: what a match is and what every matcher is given. The
// matchers are the kind units of kinds/ (kinds/registry.cpp lists them); match_python
// (sources/python_scanner.h) runs them all. `migrate` applies the `edit` of every automatic match;
// `scan` reports them all.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace banjia::rules {

struct PythonAnalysis;
class RuleCatalog;
struct Rule;
struct TreeContext;   // analyses/tree_context.h
struct EnvNameTable;  // kinds/env_name.h

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
namespace banjia::rules {

// What every matcher is given: the file, the catalogue, and the analyses several kinds share.
struct MatchContext {
  const PythonAnalysis& analysis;
  const RuleCatalog& rules;
  const TreeContext* tree;   // what the other files of the tree know (nullptr: this file alone)
  const EnvNameTable& env;
};

}  // namespace banjia::rules
