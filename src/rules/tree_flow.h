// Device and backend values across the modules of one tree. A file alone cannot tell that its
// module constant `GPU = "cuda"` becomes a device in the module that imports it (`x.to(GPU)`), nor
// that the function it calls, `setup("cuda")`, is defined elsewhere as `def setup(device)`. Such
// values stay unresolved in the first pass; this second pass asks the files that can answer (the
// importers of the constant, the definer of the function) and returns the names to seed the first
// file's flow with before it is matched again.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rules/device_values.h"

namespace banjia::rules {

// Names other modules of the tree know to hold devices or backends, and the parameter names of the
// imported functions this file passes values to ("pkg.utils.setup@0" -> "device").
struct FlowSeeds {
  std::unordered_set<std::string> device_names, backend_names;
  std::unordered_map<std::string, std::string> call_parameters;
  const std::unordered_set<std::string>& names(ValueKind k) const { return k == ValueKind::device ? device_names : backend_names; }
  std::unordered_set<std::string>& names(ValueKind k) { return k == ValueKind::device ? device_names : backend_names; }
};

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

// The questions of `values` (a file's device values) that were left unresolved.
void add_tree_questions(const std::vector<DeviceValue>& values, const std::vector<bool>& unresolved, TreeQuestions& out);

// One Python file of the tree: its path relative to the root ("pkg/utils.py") and how to read it.
struct TreeFile {
  std::string relative;
  std::filesystem::path path;
};

// Answers the questions (questions[i] belongs to files[i]) from the other files of the tree;
// returns seeds for the files whose answers add a name. Files that cannot be read or parsed answer
// nothing.
std::unordered_map<size_t, FlowSeeds> answer_tree_questions(const std::vector<TreeFile>& files,
                                                            const std::vector<TreeQuestions>& questions);

}  // namespace banjia::rules
