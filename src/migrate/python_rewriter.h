// Rewrites one Python file: applies the edits of automatic matches (src/rules),
// inserts `import torch_npu` once where the file needs it, optionally annotates what it cannot
// migrate. Everything else stays byte for byte: formatting, comments, BOM, CRLF, encoding cookie.
#pragma once
#include <string>
#include <string_view>

#include "migrate/change.h"
#include "rules/core/catalog.h"

namespace banjia::migrate {

struct RewriteOptions {
  // npu: add `import torch_npu` when the file was changed; accelerator: add `import torch` when an
  // edit writes `torch.` and the file does not import torch at module level.
  bool insert_import = true;
  std::string target = std::string(rules::kTargetNpu);  // the rules passed are this target's
  bool annotate = false;      // add `# banjia: ...` above lines left for manual work
};

// Never throws for bad content: a file that does not decode or tokenize is returned unchanged with
// an input-error leftover. Seeds: what the other files of the tree know (rules/analyses/tree_flow.h); the
// questions this file leaves to them are returned in FileRewrite::questions. Directory: where the file
// lies, for the imports redirected to a shim beside it (nullptr: a script's directory, no shim
// blocked).
FileRewrite rewrite_python(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules,
                           const RewriteOptions& options, const rules::FlowSeeds* seeds = nullptr,
                           const rules::FileDirectory* directory = nullptr);

}  // namespace banjia::migrate
