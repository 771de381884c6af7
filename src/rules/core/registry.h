// The match kinds of the rules engine, as the catalogue and the scanners see them: entries of plain
// function pointers, and a rule's match as its kind and its params. The kinds themselves are units
// under kinds/ (core/kind.h says what each declares); kinds/registry.cpp lists them, in the order the
// prefilter adds their needles and the matchers run. Nothing here knows any one kind, so the floors
// above (analyses, rewrites, kinds, sources) build on this one without it building on them.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/kind.h"

namespace banjia::rules {

// One registered kind. Each is called once per catalogue (parse, needles, index) or once per file
// (match), never per token.
struct MatchKindEntry {
  std::string_view name;  // as data/rules spells it (`match.kind`)
  const void* tag;        // &K::kName of its params struct K: what RuleMatch::as<K> checks
  std::shared_ptr<const void> (*parse)(const MatchFields&);
  void (*add_needles)(const RuleCatalog&, PythonNeedles&);   // nullptr: not matched in Python files
  void (*match)(const MatchContext&, std::vector<PyMatch>&);  // nullptr: another kind's matcher serves it
  // The params' `names` (API names, identifiers or callables it looks for); empty for a kind with none.
  const std::vector<std::string>& (*names)(const void* params);
  // The index the kind keeps of a catalogue's rules (K::Index), or nullptr: it walks them instead.
  std::shared_ptr<const void> (*build_index)(const RuleCatalog&);
};

// Every kind, in the order they run (kinds/registry.cpp).
std::span<const MatchKindEntry> match_kinds();
// The kind spelt `name`, or nullptr.
const MatchKindEntry* find_match_kind(std::string_view name);

// The position of kind K in match_kinds() (the index of the catalogue's per-kind rule lists).
size_t match_kind_position(const void* tag);
template <class K>
size_t match_kind_index() {
  static const size_t index = match_kind_position(&K::kName);
  return index;
}

// A rule's match: its kind and the params that kind parsed from the rule's [match] table.
class RuleMatch {
 public:
  RuleMatch() = default;
  RuleMatch(const MatchKindEntry& kind, std::shared_ptr<const void> params)
      : kind_(&kind), params_(std::move(params)) {}

  const MatchKindEntry& kind() const { return *kind_; }
  size_t index() const { return static_cast<size_t>(kind_ - match_kinds().data()); }
  template <class K>
  bool is() const { return kind_->tag == &K::kName; }
  // The params, for a rule of kind K (matchers ask for their own kind's rules).
  template <class K>
  const K& as() const {
    if (!is<K>()) throw std::logic_error("rule of kind " + std::string(kind_->name) + " read as " + std::string(K::kName));
    return *static_cast<const K*>(params_.get());
  }
  template <class K>
  const K* get_if() const { return is<K>() ? static_cast<const K*>(params_.get()) : nullptr; }
  // Whether rules of this kind are matched in Python files (the kind declares needles).
  bool python() const { return kind_->add_needles != nullptr; }
  const std::vector<std::string>& names() const { return kind_->names(params_.get()); }

 private:
  const MatchKindEntry* kind_ = nullptr;
  std::shared_ptr<const void> params_;
};

// The kind of `m` as data/rules spells it.
inline std::string_view to_string(const RuleMatch& m) { return m.kind().name; }

}  // namespace banjia::rules
