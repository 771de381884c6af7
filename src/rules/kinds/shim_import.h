// Match kind "shim-import": imports of a CUDA-only library's names that a compatibility module (a
// "shim", data/shims/<module>.py) provides. Its `redirect-import` rewrite makes the import take the
// same names from the shim, which migrate writes beside the file (src/migrate/shim_files.h):
//
//   from flash_attn import flash_attn_func as faf  ->  from flash_attn_npu import flash_attn_func as faf
//   import xformers.ops as xops                    ->  import xformers_npu as xops
//
// in a package (a directory with `__init__.py`) `from .flash_attn_npu import ...` and
// `from . import xformers_npu as xops`. A from-import that also names what the shim lacks is split:
// the provided names move to a shim import on the line above, the rest stay. A module import is
// redirected only when every attribute used through its name is provided; else it stays, naming the
// first attribute that is not.
//
// A redirect supersedes the findings of the rules in `supersedes` (the library's manual rules:
// module-use, qualified) at the import and at every use of a redirected name; this kind comes after
// theirs in kinds/registry.cpp, so their matches are in `out` when it runs. Where the shim cannot be written
// (TreeContext::directory names a file of its name that is not banjia's), the imports stay, reported
// with the reason, and the library's own findings stay with them.
#pragma once
#include <optional>
#include <utility>

#include "rules/core/kind.h"

namespace banjia::rules {

struct ShimImportMatch {
  static constexpr std::string_view kName = "shim-import";
  // Per module of the library (`flash_attn.bert_padding`): the names the shim provides for it.
  std::vector<std::pair<std::string, std::vector<std::string>>> provides;
  std::vector<std::string> supersedes;  // rule ids

  // The names provided for `module`, or nullptr when the shim stands in for no such module.
  const std::vector<std::string>* provided_for(std::string_view module) const;

  static ShimImportMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
