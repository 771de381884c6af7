// The match kinds of the rules engine. Each kind is one unit under kinds/ (its params struct, with
// its TOML parsing, prefilter needles and matcher: kinds/kind.h); MatchParams lists them, one line
// each, and everything that goes by kind (the catalogue parser, the prefilter, match_python) walks
// that list: a new kind is its unit and its line here.
#pragma once
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "rules/kinds/attribute.h"
#include "rules/kinds/command_string.h"
#include "rules/kinds/config_value.h"
#include "rules/kinds/cuda_source.h"
#include "rules/kinds/device_index.h"
#include "rules/kinds/device_string.h"
#include "rules/kinds/env_name.h"
#include "rules/kinds/gpu_path.h"
#include "rules/kinds/keyword_arg.h"
#include "rules/kinds/loop_patterns.h"
#include "rules/kinds/module_use.h"
#include "rules/kinds/qualified.h"
#include "rules/kinds/requirement.h"
#include "rules/kinds/shim_import.h"
#include "rules/kinds/string_literal.h"
#include "rules/kinds/triton_kernel.h"

namespace banjia::rules {

// A rule's match: the params of its kind. The order is the one the prefilter adds needles in: a dotted
// name's needle is a component an earlier needle already wants where there is one
// (PythonNeedles::add_dotted), so the attribute names (`cuda`) come first. It is also the order the
// matchers run in: shim-import, last, sees the matches of the rules its redirects supersede.
using MatchParams = std::variant<
    AttributeMatch,
    ImportMatch,
    QualifiedMatch,
    KeywordArgMatch,
    LoopCallMatch,
    LoopMethodMatch,
    AttentionPatternMatch,
    DeviceStringMatch,
    BackendStringMatch,
    DeviceIndexMatch,
    EnvNameMatch,
    CudaKernelMatch,
    OpRegistrationMatch,
    RequirementMatch,
    CommandStringMatch,
    GpuPathMatch,
    ModuleUseMatch,
    ConfigValueMatch,
    StringLiteralMatch,
    TritonKernelMatch,
    ShimImportMatch>;

// One registered kind: plain function pointers, called once per catalogue (parse, needles) or once per
// file (match), never per token.
struct MatchKindEntry {
  std::string_view name;                                      // as data/rules spells it
  MatchParams (*parse)(const MatchFields&);
  void (*add_needles)(const RuleCatalog&, PythonNeedles&);   // nullptr: not matched in Python files
  void (*match)(const MatchContext&, std::vector<PyMatch>&);  // nullptr: another kind's matcher serves it
};

// Every kind, in MatchParams order (entry i is alternative i).
std::span<const MatchKindEntry> match_kinds();
// The kind spelt `name`, or nullptr.
const MatchKindEntry* find_match_kind(std::string_view name);
// The kind of `m` as data/rules spells it.
std::string_view to_string(const MatchParams& m);
// Whether rules of the kind of `m` are matched in Python files (the kind declares needles).
bool python_kind(const MatchParams& m);
// The `names` of `m` (the API names, identifiers or callables it looks for), for whoever reads any
// rule's names (`scan --list-rules`, the catalogue's index); empty for a kind that takes none.
// Matchers read their own kind's params instead.
const std::vector<std::string>& match_names(const MatchParams& m);

// The position of kind K in MatchParams (the index of the catalogue's per-kind rule lists).
template <class K>
inline constexpr size_t match_kind_index = [] {
  return []<class... Ks>(std::type_identity<std::variant<Ks...>>) {
    constexpr bool same[] = {std::is_same_v<K, Ks>...};
    size_t i = 0;
    while (i < sizeof...(Ks) && !same[i]) ++i;
    return i;
  }(std::type_identity<MatchParams>{});
}();
inline constexpr size_t kMatchKindCount = std::variant_size_v<MatchParams>;

}  // namespace banjia::rules
