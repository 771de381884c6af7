// What migrate did to one file: the edits it made (change log rows) and what it left for a person.
#pragma once
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "rules/analyses/tree_flow.h"

namespace banjia::migrate {

struct Change {
  std::string file;
  int line = 0;
  int column = 0;   // 1-based, code points
  std::string rule;
  std::string before;
  std::string after;
  FixKind fix = FixKind::automatic;
  std::string caution;  // what the code around the change must respect (the rule's caution)
};

struct FileRewrite {
  std::string display;            // path shown in reports (relative to SRC)
  std::string original;           // bytes as read
  std::string rewritten;          // bytes to write (== original when nothing changed)
  std::vector<Change> changes;
  std::vector<Finding> leftovers; // manual / unsupported / advisory items, and input errors
  std::vector<Finding> gpu_paths; // the file already branches on the NPU: its GPU branches stay (information)
  rules::TreeQuestions questions;  // device values only the rest of the tree can resolve
  // The shim modules its redirected imports now import (kinds/shim_import.h): each must be written
  // beside it (shim_files.h).
  std::vector<std::string> shims;
  bool changed() const { return rewritten != original; }
};

}  // namespace banjia::migrate
