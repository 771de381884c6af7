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

#include "rules/analyses/device_values.h"
#include "rules/analyses/tree_context.h"

namespace banjia::rules {

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
