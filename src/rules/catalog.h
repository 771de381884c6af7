// The scan/migrate rule catalogue: facts in data/rules/*.toml, parsed once into Rule records.
// Mechanisms (how a match kind is found, how a rewrite kind edits code) live in the kind units
// (kinds/, listed in registry.h) and their edits; a rule only names them.
#pragma once
#include <array>
#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "common/diagnostic.h"
#include "common/string_hash.h"
#include "rules/registry.h"

namespace banjia::rules {

enum class RewriteKind {
  none,
  rename_attribute,   // `.cuda(` -> `.npu(`: replace the attribute name token
  replace_module,     // torch.cuda.X -> torch.npu.X: replace the `cuda` component (or the import)
  rename_last,        // dist.is_nccl_available -> dist.is_hccl_available
  replace_in_string,  // "cuda:0" -> "npu:0" inside the literal
  rename_env,         // "CUDA_VISIBLE_DEVICES" -> "ASCEND_RT_VISIBLE_DEVICES" (table in data/env)
  rename_call,        // torch.cuda.synchronize -> torch.accelerator.synchronize, per name (`renames`); a
                      // `to` with "(...)" is a call template: torch.amp.GradScaler({device_type}, ...)
  device_expression,  // "cuda:0" -> (<value> + ':0'), compared: <compare>; the literal becomes an expression
  method_to,          // `.cuda(...)` -> `.to(<value>, ...)`; an index argument i -> `.to(<indexed>)`
  device_from_index,  // an index `rank` where a device goes -> <value> with {index} = rank
  redirect_import,    // `from flash_attn import f` -> `from <to> import f`: a shim module migrate writes beside the file
};

// The params of the rewrite kinds, one struct per group of kinds that read the same fields.
// rename_attribute, replace_module, rename_last, replace_in_string, rename_env: what is replaced, and by
// what; redirect_import: `to`, the shim module (data/shims/<to>.py).
struct NameRewrite {
  std::string from, to;
  bool operator==(const NameRewrite&) const = default;
};
// rename_call: per qualified name, the new name or a call template.
struct CallRewrite {
  std::vector<std::pair<std::string, std::string>> renames;
  bool positional_only = false;  // the new functions take positional arguments only
  // Per qualified name: the original's parameters in position order, so that arguments passed by
  // position can be passed by keyword to a new function that orders its parameters differently.
  std::vector<std::pair<std::string, std::vector<std::string>>> positional;
};
// device_expression, method_to, device_from_index: the expressions a device value becomes.
struct DeviceRewrite {
  std::string value;     // what a value (or `.cuda()`) becomes; device_from_index: with {index}
  std::string compare;   // device_expression: what a compared value becomes
  std::string specific;  // device_expression: what a value naming one device becomes ({rest}: after "cuda")
  std::string indexed;   // method_to: `.cuda(i)`; device_expression: `torch.device("cuda", i)` ({index})
  std::string ids;       // device_from_index: DistributedDataParallel's device_ids/output_device ({ids})
};
using RewriteParams = std::variant<std::monostate, NameRewrite, CallRewrite, DeviceRewrite>;

struct RuleExample {
  // The file `before` is, named as in a tree: its name decides how it is read (rules/source_files.h),
  // so the rules of dependency lists and CUDA sources have examples too.
  std::string file = "example.py";
  std::string before;
  std::optional<std::string> after;  // expected migrate output (automatic rules)
  bool none = false;                 // the rule must NOT fire on `before`
  // A program that runs (tests/e2e/test_rule_programs.py): `before` stops at its first CUDA use under
  // `python -m banjia.npu_sim`, and what migrate writes of it runs there. `run` for a Python example;
  // for another file, `program` is the Python program that reads it (next to it, under its name).
  bool run = false;
  std::string program;
};

struct Rule {
  std::string id;
  std::string category;
  Severity severity = Severity::warning;
  FixKind fix = FixKind::manual;
  std::string summary;
  std::string message;
  // What stays true after an automatic rewrite and the code around it must respect (torch_npu's
  // get_device_capability returns None): migrate shows it with each change of the rule.
  std::string caution;
  std::optional<std::string> replacement;
  // First TorchNPU release that has the replacement ("" = every release in data/api); the catalogue
  // adds it to `replacement`, so every finding of the rule says so.
  std::string min_torch_npu;
  std::string source;
  std::string data_file;

  MatchParams match;  // the kind and its params (registry.h); match_names(match): its `names`
  // The params of kind K (the rule must be of that kind: matchers ask for their own kind's rules).
  template <class K>
  const K& params() const { return std::get<K>(match); }

  // The rewrite: its kind, and the params that kind reads (none for RewriteKind::none).
  RewriteKind rewrite = RewriteKind::none;
  RewriteParams rewrite_params;
  // The params of rewrite group W (the rule's rewrite kind must be one of W's: edits ask for their own).
  template <class W>
  const W& rewrite_as() const { return std::get<W>(rewrite_params); }
  std::string index_spelling;  // device_index: the explicit device for an index ({index}) in messages

  std::vector<RuleExample> examples;

  // The rule as another migration target has it ([rule.target.NAME]: its own fix, message, source,
  // rewrite and examples); absent targets use the rule as it is.
  std::vector<std::pair<std::string, std::shared_ptr<const Rule>>> targets;
};

// Migration targets: `npu` (torch_npu, the rules as written) and `accelerator` (device-agnostic
// torch.accelerator / torch.amp code, each rule's [rule.target.accelerator] form).
inline constexpr std::string_view kTargetNpu = "npu", kTargetAccelerator = "accelerator";

class RuleCatalog {
 public:
  // Parses one TOML document; throws InputError(file, ...) on a malformed or incomplete rule
  // (every rule needs id, category, severity, fix, message, source, match).
  void add_toml(std::string_view toml, const std::string& file);

  // The catalogue compiled into the binary (data/rules/*.toml), parsed on first use.
  static const RuleCatalog& builtin();
  // builtin() as migrate target `target` sees it (kTargetNpu: builtin() itself); nullptr for an
  // unknown target. Placeholders `{device_type}` in the target's templates are replaced by the value
  // expression of its device-string rule.
  static const RuleCatalog* for_target(std::string_view target);
  // This catalogue with each rule's form for `target`.
  RuleCatalog with_target(std::string_view target) const;

  const std::vector<Rule>& rules() const { return rules_; }
  // Changes with every add_toml and differs between catalogues built apart: what is derived from a
  // catalogue (the scan prefilter) can be cached under it.
  uint64_t revision() const { return revision_; }
  const Rule* find(std::string_view id) const;

  // The qualified rule with the longest name matching `qualified` (exact, or prefix for prefix rules).
  const Rule* match_qualified(std::string_view qualified) const;
  // Cheap pre-check (no allocation): can any qualified rule match a name with this first component?
  bool has_qualified_root(std::string_view first_component) const;
  // The import rule whose module is `module` or a parent of it.
  const Rule* match_import(std::string_view module) const;
  // The rules of match kind K, in catalogue order (precomputed: matchers ask per file).
  template <class K>
  const std::vector<const Rule*>& of_kind() const { return by_kind_[match_kind_index<K>]; }

 private:
  void index();
  // Transparent hashing: lookups by string_view allocate nothing (scan looks up every dotted name).
  using Index = std::unordered_map<std::string, size_t, StringHash, std::equal_to<>>;
  static uint64_t next_revision();
  std::vector<Rule> rules_;
  uint64_t revision_ = next_revision();
  Index by_id_;
  Index import_modules_;
  std::array<std::vector<const Rule*>, kMatchKindCount> by_kind_;
  std::vector<std::string> qualified_roots_;
  // Every dotted prefix of every qualified rule name ("torch", "torch.cuda", "torch.cuda.amp", ...),
  // with the rules named exactly there: match_qualified looks up each prefix of a name once and
  // stops as soon as no rule can lie below it.
  struct QualifiedNode {
    static constexpr size_t none = SIZE_MAX;
    size_t exact = none, prefix = none, exact_only = none;  // rule indices
  };
  std::unordered_map<std::string, QualifiedNode, StringHash, std::equal_to<>> qualified_tree_;
};

std::string_view to_string(RewriteKind k);  // as data/rules spells it; "" for none

}  // namespace banjia::rules
