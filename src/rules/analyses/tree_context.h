// What the matchers of one file take from, and leave to, the other files of the tree: the data
// that analyses/tree_flow.h computes between the passes over a tree.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rules/analyses/device_values.h"

namespace banjia::rules {

// What one file leaves to the others: its module-level names that hold an unresolved CUDA value,
// and the unresolved CUDA values it passes positionally to imported functions.
struct TreeQuestions {
  struct Constant { std::string name; ValueKind kind; };
  struct Call { std::string target; int position; ValueKind kind; };  // target: qualified, as imported
  std::vector<Constant> constants;
  std::vector<Call> calls;
  bool empty() const { return constants.empty() && calls.empty(); }
};

// The directory a file lies in, for the rewrites that import a module written beside it (the shims of
// kinds/shim_import.h).
struct FileDirectory {
  // It has an `__init__.py`: the file is a module of a package, and imports the module beside it
  // relatively (`from .flash_attn_npu import ...`); a script's directory is on sys.path instead.
  bool is_package = false;
  // Shim modules (by module name) that cannot be written there, each with the reason (a file of
  // that name that is not banjia's shim).
  std::vector<std::pair<std::string, std::string>> blocked_shims;
  const std::string* blocked(std::string_view shim) const {
    for (const auto& [name, why] : blocked_shims)
      if (name == shim) return &why;
    return nullptr;
  }
};

// What the matchers of one file take from, and give to, the tree.
struct TreeContext {
  const FlowSeeds* seeds = nullptr;
  TreeQuestions* questions = nullptr;
  const FileDirectory* directory = nullptr;  // nullptr: unknown (a script's directory, nothing blocked)
};

}  // namespace banjia::rules
