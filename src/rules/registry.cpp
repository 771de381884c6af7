#include "rules/registry.h"

#include <algorithm>

namespace banjia::rules {

namespace {

template <class K>
MatchParams parse_as(const MatchFields& m) {
  return K::parse(m);
}

template <class K>
constexpr MatchKindEntry entry_for() {
  MatchKindEntry e{K::kName, &parse_as<K>, nullptr, nullptr};
  if constexpr (requires { &K::add_needles; }) e.add_needles = &K::add_needles;
  if constexpr (requires { &K::match; }) e.match = &K::match;
  return e;
}

template <class... Ks>
constexpr std::array<MatchKindEntry, sizeof...(Ks)> entries_for(std::type_identity<std::variant<Ks...>>) {
  return {entry_for<Ks>()...};
}

constexpr auto kEntries = entries_for(std::type_identity<MatchParams>{});

}  // namespace

std::span<const MatchKindEntry> match_kinds() { return kEntries; }

const MatchKindEntry* find_match_kind(std::string_view name) {
  auto it = std::find_if(kEntries.begin(), kEntries.end(), [&](const MatchKindEntry& e) { return e.name == name; });
  return it == kEntries.end() ? nullptr : &*it;
}

std::string_view to_string(const MatchParams& m) { return kEntries[m.index()].name; }

bool python_kind(const MatchParams& m) { return kEntries[m.index()].add_needles != nullptr; }

const std::vector<std::string>& match_names(const MatchParams& m) {
  static const std::vector<std::string> none;
  return std::visit(
      [](const auto& p) -> const std::vector<std::string>& {
        if constexpr (requires { p.names; }) return p.names;
        else return none;
      },
      m);
}

}  // namespace banjia::rules
