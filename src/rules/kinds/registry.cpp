// The list of match kinds that core/registry.h declares: a new kind is its unit under kinds/ and one
// line in kKinds. The order is the one the prefilter adds needles in: a dotted name's needle is a
// component an earlier needle already wants where there is one (PythonNeedles::add_dotted), so the
// attribute names (`cuda`) come first. It is also the order the matchers run in: shim-import, last,
// sees the matches of the rules its redirects supersede.
#include "rules/core/registry.h"

#include <algorithm>
#include <array>

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

namespace {

template <class K>
std::shared_ptr<const void> parse_as(const MatchFields& m) {
  return std::make_shared<const K>(K::parse(m));
}

template <class K>
const std::vector<std::string>& names_of(const void* params) {
  static const std::vector<std::string> none;
  if constexpr (requires(const K& k) { k.names; }) return static_cast<const K*>(params)->names;
  else return none;
}

template <class K>
std::shared_ptr<const void> build_index(const RuleCatalog& rules) {
  return std::make_shared<const typename K::Index>(rules);
}

template <class K>
constexpr MatchKindEntry entry_for() {
  MatchKindEntry e{K::kName, &K::kName, &parse_as<K>, nullptr, nullptr, &names_of<K>, nullptr};
  if constexpr (requires { &K::add_needles; }) e.add_needles = &K::add_needles;
  if constexpr (requires { typename K::Index; }) e.build_index = &build_index<K>;
  if constexpr (requires { &K::match; }) e.match = &K::match;
  return e;
}

template <class... Ks>
constexpr std::array<MatchKindEntry, sizeof...(Ks)> entries() {
  return {entry_for<Ks>()...};
}

constexpr auto kKinds = entries<
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
    ShimImportMatch>();

}  // namespace

std::span<const MatchKindEntry> match_kinds() { return kKinds; }

const MatchKindEntry* find_match_kind(std::string_view name) {
  auto it = std::find_if(kKinds.begin(), kKinds.end(), [&](const MatchKindEntry& e) { return e.name == name; });
  return it == kKinds.end() ? nullptr : &*it;
}

size_t match_kind_position(const void* tag) {
  auto it = std::find_if(kKinds.begin(), kKinds.end(), [&](const MatchKindEntry& e) { return e.tag == tag; });
  if (it == kKinds.end()) throw std::logic_error("a match kind missing from kinds/registry.cpp");
  return static_cast<size_t>(it - kKinds.begin());
}

}  // namespace banjia::rules
