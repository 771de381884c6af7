// The scan/migrate rule catalogue: facts in data/rules/*.toml, parsed once into Rule records.
// Mechanisms (how a match kind is found, how a rewrite kind edits code) live in the kind units
// (kinds/, listed in kinds/registry.cpp) and the rewrite kinds (rewrite_kinds.h); a rule only names them.
#pragma once
#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "common/diagnostic.h"
#include "common/string_hash.h"
#include "rules/core/registry.h"
#include "rules/core/rewrite_kinds.h"

namespace banjia::rules {

struct RuleExample {
  // The file `before` is, named as in a tree: its name decides how it is read (rules/core/source_files.h),
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

  RuleMatch match;  // the kind and its params (core/registry.h); match.names(): its `names`
  // The params of kind K (the rule must be of that kind: matchers ask for their own kind's rules).
  template <class K>
  const K& params() const { return match.as<K>(); }

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

  template <class K>
  const std::vector<const Rule*>& of_kind() const { return by_kind_[match_kind_index<K>()]; }
  // The index kind K keeps of its rules (K::Index, built from this catalogue with it), for the kinds
  // whose matchers look rules up by name rather than walk them.
  template <class K>
  const typename K::Index& index_of() const {
    return *static_cast<const typename K::Index*>(kind_indexes_[match_kind_index<K>()].get());
  }

 private:
  // add_toml without index(): the built-in catalogue indexes once, after its last file.
  void add_rules(std::string_view toml, const std::string& file);
  void index();
  // Transparent hashing: lookups by string_view allocate nothing.
  using Index = std::unordered_map<std::string, size_t, StringHash, std::equal_to<>>;
  static uint64_t next_revision();
  std::vector<Rule> rules_;
  uint64_t revision_ = next_revision();
  Index by_id_;
  std::vector<std::vector<const Rule*>> by_kind_;          // by match_kinds() position
  std::vector<std::shared_ptr<const void>> kind_indexes_;  // by match_kinds() position; null: none
};

// The shim module `module` as migrate writes it: data/shims/<module>.py, compiled into the binary (as
// the rest of data/ is), so an installed banjia needs no other file; nullopt when there is none.
std::optional<std::string_view> shim_source(std::string_view module);

}  // namespace banjia::rules
